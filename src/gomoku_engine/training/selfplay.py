"""Self-play games for fitting the evaluation: fast, seeded, varied, written to ``.npz``.

Each game starts from a random opening (2 to 6 stones, alternately black and white, on
distinct points of the board's central 7x7, legal under the rule) and is then played by
the engine against itself with a fixed node budget per move, so a seed replays the same
games on any machine.  The records keep every move, the search score of every engine
move and the result; :mod:`gomoku_engine.training.tuning` turns them into training positions.

:func:`generate_external` plays the same seeded openings with another Gomocup engine on
both sides instead (a stronger one built outside the repository, such as rapfi), its
search limited to a depth: games between stronger players, whose results say more about
the positions than games the engine loses by its own mistakes.

The file (numpy ``.npz``):

* ``moves``: ``int16[n_games, max_len]`` flat points ``x + y * size``, -1 after the end;
* ``scores``: ``int32[n_games, max_len]`` the search score of each move for the side that
  played it (0 for opening stones);
* ``length``: ``int16[n_games]``; ``opening``: ``int8[n_games]`` opening stones;
* ``result``: ``int8[n_games]`` 1 black won, 2 white won, 0 draw;
* ``size``, ``rule`` (the ``INFO rule`` code), ``nodes``, ``seed``: scalars; games of
  another engine have ``nodes`` 0 and also ``depth`` (its depth limit) and ``engine`` (its
  command line).
"""

from __future__ import annotations

import multiprocessing
import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..game.board import Board
from ..core.constants import Rule
from ..engine import Engine, Limits
from ..core.errors import InvalidMoveError
from ..core.notation import parse_pair
from ..core.rules import renju_cut_off
from ..protocol.client import EngineProcess
from ..search.alphabeta import MATE_BOUND
from .jobs import batches, in_order

#: opening stones are drawn from the central OPENING_SPAN x OPENING_SPAN square
OPENING_SPAN = 7
MIN_OPENING = 2
MAX_OPENING = 6


@dataclass
class SelfPlayGame:
    """One self-play game."""

    moves: list[int]  #: flat points ``x + y * size``
    scores: list[int]  #: per move, the mover's search score (0 for opening stones)
    opening: int  #: how many leading moves were the random opening
    result: int  #: 1 black won, 2 white won, 0 draw


def random_opening(board: Board, rng: np.random.Generator) -> int:
    """Place 2..6 random legal stones in the centre of ``board``; returns the count."""
    lo = (board.width - OPENING_SPAN) // 2
    n = int(rng.integers(MIN_OPENING, MAX_OPENING + 1))
    placed = 0
    while placed < n:
        x, y = (int(v) for v in lo + rng.integers(0, OPENING_SPAN, size=2))
        if board.is_legal(x, y):
            board.play(x, y)
            placed += 1
    return n


def finished(board: Board) -> bool:
    """Is the game on ``board`` over: a five, a full board, or under renju no more than
    :data:`~gomoku_engine.core.rules.RENJU_DRAW_EMPTY` empty points (a draw, as the match
    referee judges it; past it black may have only fouls left, and an outside engine asked
    for a move there plays one: Rapfi does)."""
    return bool(board.winner or board.is_full
                or renju_cut_off(board.rule, board.width * board.height - board.ply))


def play_selfplay_game(engine: Engine, rng: np.random.Generator, nodes: int) -> SelfPlayGame:
    """Play one game on ``engine`` (its board is cleared first) at ``nodes`` per move."""
    engine.new_game()
    board = engine.board
    opening = random_opening(board, rng)
    scores = [0] * opening
    while not finished(board):
        result = engine.search(Limits(nodes=nodes))
        board.play(*result.move)
        scores.append(int(result.score))
    moves = [x + y * board.width for x, y in board.moves()]
    return SelfPlayGame(moves, scores, opening, int(board.winner))


#: games per job of an executor's (a cluster's) self-play, and per engine process of
#: another engine's (:func:`generate_external`)
BATCH_GAMES = 8


def generate(rule: Rule, games: int, seed: int, nodes: int, size: int = 15,
             workers: int = 1,
             progress: Callable[[SelfPlayGame], None] | None = None,
             executor: Executor | None = None, window: int = 2) -> list[SelfPlayGame]:
    """Play ``games`` seeded self-play games (see the module docstring).

    Game ``i`` draws its opening from ``numpy.random.default_rng([seed, i])`` and the engine
    is deterministic at a node budget, so the games do not depend on ``workers`` or on
    where they are played.

    :param nodes: node budget of each engine move (the search's own count).
    :param workers: processes playing games side by side.
    :param progress: called after every game, in game order.
    :param executor: play batches of :data:`BATCH_GAMES` seeded games as its jobs instead
        (a Dask cluster's, ``selfplay --cluster``); ``workers`` is then unused.
    :param window: with ``executor``, batches submitted at a time
        (:func:`gomoku_engine.training.jobs.in_order`).
    """
    jobs = [(int(rule), size, nodes, seed, i) for i in range(games)]
    records = []
    if executor is not None:
        results = in_order(_play_batch, [jobs[b.start:b.stop] for b in
                                         batches(games, BATCH_GAMES)], executor, window)
        pool = None
    elif workers <= 1:
        results = map(_play_job, jobs)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(workers)
        results = pool.imap(_play_job, jobs, chunksize=4)
    try:
        for record in results:
            records.append(record)
            if progress is not None:
                progress(record)
    finally:
        if pool is not None:
            pool.terminate()
    return records


def generate_external(command: Sequence[str], rule: Rule, games: int, seed: int, depth: int,
                      size: int = 15,
                      progress: Callable[[SelfPlayGame], None] | None = None,
                      executor: Executor | None = None, window: int = 1
                      ) -> list[SelfPlayGame]:
    """Play ``games`` games from the openings :func:`generate` draws for ``seed`` (game ``i``
    from ``numpy.random.default_rng([seed, i])``), every move after the opening chosen by
    the Gomocup engine run by ``command`` searching to ``depth`` plies (``INFO
    max_depth``), one process for both sides.

    A fresh engine process plays each batch of :data:`BATCH_GAMES` games, so an engine
    deterministic at a depth limit, such as rapfi, replays the same games from a seed
    whether the batches run here one after the other, on threads or on a cluster (its
    transposition table carries over from game to game only within a batch).  A score
    the engine reports as a forced win or loss is kept as +-(``MATE_BOUND`` + 1).

    :param executor: run the batches on it (threads, or a cluster's executor), at most
        ``window`` at a time; None: here, one after the other.
    :raises RuntimeError: if the engine refuses the game or answers with an illegal move;
        :class:`gomoku_engine.protocol.client.EngineTimeout` if it does not answer a move in
        ``labelling.ANSWER_TIMEOUT`` seconds.
    """
    jobs = [(tuple(command), int(rule), size, depth, seed, b.start, b.stop)
            for b in batches(games, BATCH_GAMES)]
    records = []
    for record in in_order(_external_batch, jobs, executor, window):
        records.append(record)
        if progress is not None:
            progress(record)
    return records


def _external_batch(job: tuple[tuple[str, ...], int, int, int, int, int, int]
                    ) -> list[SelfPlayGame]:
    """Games ``first`` to ``end`` - 1 of :func:`generate_external`, by one engine process."""
    from .labelling import open_engine

    command, rule, size, depth, seed, first, end = job
    engine = open_engine(command, size, rule, depth)
    board = Board(size, rule=Rule(rule))
    try:
        return [_external_game(engine, board, seed, i) for i in range(first, end)]
    finally:
        engine.close()


def _external_game(engine: EngineProcess, board: Board, seed: int, i: int) -> SelfPlayGame:
    """Game ``i`` of :func:`generate_external`, played on ``board`` (cleared first) by
    ``engine``."""
    from .labelling import ask_position

    board.clear()
    size = board.width
    opening = random_opening(board, np.random.default_rng([seed, i]))
    moves = [x + y * size for x, y in board.moves()]
    scores = [0] * opening
    while not finished(board):
        scored, reply = ask_position(engine, moves, size)
        try:
            x, y = parse_pair(reply)
        except InvalidMoveError:
            x = y = -1
        if not board.is_legal(x, y):
            raise RuntimeError(f"game {i}: the engine answered {reply!r}, not a legal move")
        board.play(x, y)
        moves.append(x + y * size)
        score, mate = scored if scored is not None else (0, 0)
        scores.append(mate * (MATE_BOUND + 1) if mate else score)
    return SelfPlayGame(moves, scores, opening, int(board.winner))


_ENGINES: dict[tuple[int, int], Engine] = {}  # one engine per process, rule and size


def _play_job(job: tuple[int, int, int, int, int]) -> SelfPlayGame:
    rule, size, nodes, seed, index = job
    engine = _ENGINES.get((rule, size))
    if engine is None:
        engine = _ENGINES[(rule, size)] = Engine(size, rule=Rule(rule), hash_mb=16)
    return play_selfplay_game(engine, np.random.default_rng([seed, index]), nodes)


def _play_batch(jobs: list[tuple[int, int, int, int, int]]) -> list[SelfPlayGame]:
    return [_play_job(job) for job in jobs]


def save(path: Path | str, records: list[SelfPlayGame], size: int, rule: Rule, nodes: int,
         seed: int, engine: Sequence[str] | None = None, depth: int = 0) -> None:
    """Write ``records`` as the ``.npz`` described in the module docstring.

    :param engine: the command line of the engine that played the games, if not this one
        (:func:`generate_external`, ``nodes`` then 0), and ``depth`` its depth limit.
    """
    extra = {} if engine is None else {"engine": np.str_(shlex.join(engine)),
                                       "depth": np.int16(depth)}
    max_len = max((len(r.moves) for r in records), default=0)
    moves = np.full((len(records), max_len), -1, np.int16)
    scores = np.zeros((len(records), max_len), np.int32)
    for i, r in enumerate(records):
        moves[i, : len(r.moves)] = r.moves
        scores[i, : len(r.scores)] = r.scores
    np.savez_compressed(
        path, moves=moves, scores=scores,
        length=np.array([len(r.moves) for r in records], np.int16),
        opening=np.array([r.opening for r in records], np.int8),
        result=np.array([r.result for r in records], np.int8),
        size=np.int16(size), rule=np.int16(int(rule)), nodes=np.int64(nodes),
        seed=np.int64(seed), **extra)


def load(paths: list[Path | str]) -> dict[str, npt.NDArray]:
    """Read and concatenate game files of one board size and rule.

    :raises ValueError: if the files mix board sizes or rules.
    """
    parts = [dict(np.load(p)) for p in paths]
    if not parts:
        raise ValueError("no game files")
    for key in ("size", "rule"):
        if len({int(p[key]) for p in parts}) != 1:
            raise ValueError(f"game files of different {key}s")
    max_len = max(p["moves"].shape[1] for p in parts)

    def padded(name: str, fill: int) -> npt.NDArray:
        return np.concatenate([
            np.pad(p[name], ((0, 0), (0, max_len - p[name].shape[1])), constant_values=fill)
            for p in parts])

    return {"moves": padded("moves", -1), "scores": padded("scores", 0),
            "length": np.concatenate([p["length"] for p in parts]),
            "opening": np.concatenate([p["opening"] for p in parts]),
            "result": np.concatenate([p["result"] for p in parts]),
            "size": int(parts[0]["size"]), "rule": Rule(int(parts[0]["rule"]))}


__all__ = ["SelfPlayGame", "finished", "generate", "generate_external", "load",
           "play_selfplay_game", "random_opening", "save"]
