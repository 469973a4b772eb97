"""Scores of training positions from another engine, for fitting the evaluation to them.

Game results are a noisy target: a self-play game between two weak players is decided
by the mistakes made after the position, not only by the position.  A strong engine's
search score of the same position is a sharper one.  ``gomoku-engine label`` replays the
games of a :mod:`gomoku_engine.training.selfplay` file, sends every quiet position (the
positions :mod:`gomoku_engine.training.tuning` trains on) to a Gomocup engine with a depth
limit, and keeps the score of its last completed iteration (in batches of games, each
scored by a fresh engine process, side by side with ``--workers`` or ``--cluster``); ``gomoku-engine fit --labels`` then fits the
point values to ``sigmoid(score / s)`` instead of (or mixed with) the result.

The engine must print its score in a ``MESSAGE`` line, as rapfi does (``... | Eval -163 |
...``, a mate as ``+M15`` / ``-M15``; see rapfi's ``searchoutput.cpp`` and
``iohelper.cpp``) or as this engine does (``MESSAGE depth 9-14 ev -163 ...``, a mate as
``ev win in 5`` / ``ev loss in 4``: :mod:`gomoku_engine.protocol.messages`), always for
the side to move.  The depth limit is sent as ``INFO max_depth``, a Yixin-board extension
that both engines read.  Positions are sent with ``BOARD`` (1 the side to move's stones,
2 the opponent's, in game order): ``docs/protocol.md`` section 2.

The file (numpy ``.npz``):

* ``game``: ``int32[n]`` index of the position's game in the games file;
* ``ply``: ``int16[n]`` stones on the board (the position before move ``ply``);
* ``score``: ``int32[n]`` the engine's score for the side to move (0 for a mate);
* ``mate``: ``int8[n]`` 1 the side to move wins by force, -1 it loses, 0 neither;
* ``depth``: scalar, the depth limit; ``command``: the engine's command line.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import Rule
from ..game.board import Board
from ..protocol.client import EngineProcess, start_lines
from ..protocol.messages import parse_search_line
from .jobs import batches, in_order
from .positions import is_training_position

#: seconds to wait for one position's answer (a depth-limited search takes milliseconds)
ANSWER_TIMEOUT = 60.0
#: games per engine process (each batch starts the engine afresh)
BATCH_GAMES = 16
_RAPFI_EVAL = re.compile(r"\bEval ([+-]?M?\d+)")


@dataclass
class Labels:
    """Engine scores of positions of a games file (the arrays of the module docstring)."""

    game: npt.NDArray[np.int32]
    ply: npt.NDArray[np.int16]
    score: npt.NDArray[np.int32]
    mate: npt.NDArray[np.int8]


def parse_score(line: str) -> tuple[int, int] | None:
    """``(score, mate)`` from an engine's ``MESSAGE`` line, or None if it shows no score.

    ``mate`` is 1 (the side to move wins by force), -1 (it loses) or 0; the score of a
    mate is 0.  Reads Rapfi's lines and this engine's search lines
    (:func:`gomoku_engine.protocol.messages.parse_search_line`).
    """
    if not line.upper().startswith("MESSAGE"):
        return None
    m = _RAPFI_EVAL.search(line)
    if m:
        text = m.group(1)
        if "M" in text:
            return 0, (-1 if text.startswith("-") else 1)
        return int(text), 0
    own = parse_search_line(line)
    if own is None:
        return None
    return (0, own.mate) if own.mate else (own.score, 0)


def label_games(games: dict, command: Sequence[str], depth: int,
                progress: Callable[[int], None] | None = None,
                executor: Executor | None = None, window: int = 1) -> Labels:
    """Score every training position of ``games`` (:func:`gomoku_engine.training.selfplay.load`)
    with the engine run by ``command`` searching to ``depth`` plies.

    A fresh engine process scores each batch of :data:`BATCH_GAMES` games, so the scores
    do not depend on where the batches ran (:mod:`gomoku_engine.training.jobs`).
    Positions the engine answers without a score are left out.

    :param progress: called with the number of positions scored after each game.
    :param executor: run the batches on it (threads, or a cluster's executor), at most
        ``window`` at a time; None: here, one after the other.
    :raises RuntimeError: if the engine refuses the game;
        :class:`gomoku_engine.protocol.client.EngineTimeout` if it does not answer a position in
        ``ANSWER_TIMEOUT`` seconds.
    """
    size, rule = int(games["size"]), int(games["rule"])
    jobs = [(tuple(command), size, rule, depth,
             [(g, [int(c) for c in games["moves"][g, : games["length"][g]]],
               int(games["opening"][g])) for g in batch])
            for batch in batches(len(games["length"]), BATCH_GAMES)]
    rows: list[tuple[int, int, int, int]] = []
    for game_rows in in_order(_label_batch, jobs, executor, window):
        rows.extend(game_rows)
        if progress is not None:
            progress(len(rows))
    table = np.array(rows, np.int64).reshape(-1, 4)
    return Labels(table[:, 0].astype(np.int32), table[:, 1].astype(np.int16),
                  table[:, 2].astype(np.int32), table[:, 3].astype(np.int8))


#: a game to score: its index in the file, its moves (flat points) and opening stones
_Game = tuple[int, list[int], int]


def _label_batch(job: tuple[tuple[str, ...], int, int, int, list[_Game]]
                 ) -> list[list[tuple[int, int, int, int]]]:
    """Per game of the batch, its rows ``(game, ply, score, mate)``, by one engine process."""
    command, size, rule, depth, batch = job
    engine = open_engine(command, size, rule, depth)
    try:
        board = Board(size, rule=Rule(rule))
        return [_label_game(engine, board, g, moves, opening) for g, moves, opening in batch]
    finally:
        engine.close()


def _label_game(engine: EngineProcess, board: Board, g: int, moves: list[int],
                opening: int) -> list[tuple[int, int, int, int]]:
    """The rows of game ``g``: its training positions after the opening, as scored."""
    rows = []
    board.clear()
    for ply, cell in enumerate(moves):
        if ply >= opening and is_training_position(board):
            scored, _ = ask_position(engine, moves[:ply], board.width)
            if scored is not None:
                rows.append((g, ply, *scored))
        board.play(cell % board.width, cell // board.width)
    return rows


def open_engine(command: Sequence[str], size: int, rule: int, depth: int) -> EngineProcess:
    """Start the Gomocup engine run by ``command`` for a game on a ``size`` board under
    ``rule`` (an ``INFO rule`` code), its search limited to ``depth`` plies (``INFO
    max_depth``; turn and match times far beyond it).  The handshake is
    :func:`gomoku_engine.protocol.client.start_lines`.

    :raises RuntimeError: (:class:`gomoku_engine.protocol.client.EngineRefused`) if the
        engine refuses ``START``.
    """
    engine = EngineProcess(command)
    try:
        engine.start_game(start_lines(size, rule, int(ANSWER_TIMEOUT * 1000) // 2,
                                      1_000_000_000, info=[("max_depth", depth)]),
                          ANSWER_TIMEOUT)
    except BaseException:
        engine.close()
        raise
    return engine


def ask_position(engine: EngineProcess, moves: list[int], size: int
                 ) -> tuple[tuple[int, int] | None, str]:
    """Send the position after ``moves`` (flat points ``x + y * size`` in game order) with
    ``BOARD`` and read the engine's answer.

    :returns: the last ``(score, mate)`` of its ``MESSAGE`` lines for the side to move
        (None if it moved without one: this engine plays a forced win found before its
        search, or a forced reply, at once), and its reply line (the move).
    :raises gomoku_engine.protocol.client.EngineTimeout: if it does not answer in ``ANSWER_TIMEOUT``
        seconds.
    """
    to_move = len(moves) % 2
    engine.send("BOARD", *(f"{c % size},{c // size},{1 if k % 2 == to_move else 2}"
                           for k, c in enumerate(moves)), "DONE")
    found = None
    while True:
        line = engine.read_line(ANSWER_TIMEOUT)
        parsed = parse_score(line)
        if parsed is not None:
            found = parsed
        elif not line.upper().startswith(("MESSAGE", "DEBUG")):
            return found, line  # the move: the search is over


def save_labels(path: Path | str, labels: Labels, depth: int, command: Sequence[str]) -> None:
    """Write ``labels`` as the ``.npz`` of the module docstring."""
    np.savez_compressed(path, game=labels.game, ply=labels.ply, score=labels.score,
                        mate=labels.mate, depth=np.int16(depth),
                        command=np.str_(shlex.join(command)))


def load_labels(path: Path | str) -> Labels:
    """Read a file written by :func:`save_labels`."""
    with np.load(path) as f:
        return Labels(f["game"], f["ply"], f["score"], f["mate"])


__all__ = ["Labels", "ask_position", "label_games", "load_labels", "open_engine", "parse_score",
           "save_labels"]
