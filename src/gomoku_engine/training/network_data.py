"""The network's training positions: features and targets from scored games.

A position's features are what the network's accumulators sum
(:mod:`gomoku_engine.eval.network`): how many empty points show each canonical
combination for the side to move and for the opponent.  They are read from the
position's line patterns after replaying the game, through the same table the kernels
look the combinations up in (``Tables.net_canon``), so training sees what the engine's
network sees (:func:`point_canon`; a test holds it equal to the network's incremental
``Position.eval_canon``, which the classical evaluation does not keep).

A position is kept when the search would evaluate it statically: no five point for either
side and no open-four point for the side to move (the search scores those itself).  Its
teacher score comes either from the games file (``selfplay --engine``: the score each
engine move was chosen with) or from a ``label`` file of the same games.

A dataset (numpy ``.npz``, :func:`save_dataset`) holds, per position ``i``: ``game``
(``int32``, the game's index over the files), ``ply``, ``result`` (``float32``: 1, 1/2, 0
for the side to move), ``score`` (``float32``, the teacher's units), ``mate`` (``int8``:
1 the side to move wins by force, -1 it loses), ``threatened`` (``bool``: the opponent has
a four-three or open-four point), and the sparse counts: entries ``start[i]:start[i + 1]``
of ``index`` (``int16``: combination, plus ``N_CANON + 1`` for the opponent's) and
``count`` (``int16``).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import EMPTY, MATE_BOUND, T_FIVE, T_FOUR_THREE, T_OPEN_FOUR
from ..eval.network import ABSENT
from ..game.board import Board
from ..game.position import point_patterns
from .labelling import Labels
from .tuning import side_result

#: combination columns per role in the dense features (the last, ABSENT, is always zero)
ROW = ABSENT + 1


@dataclass
class Dataset:
    """Training positions (the arrays of the module docstring)."""

    game: npt.NDArray[np.int32]
    ply: npt.NDArray[np.int16]
    result: npt.NDArray[np.float32]
    score: npt.NDArray[np.float32]
    mate: npt.NDArray[np.int8]
    threatened: npt.NDArray[np.bool_]
    start: npt.NDArray[np.int64]
    index: npt.NDArray[np.int16]
    count: npt.NDArray[np.int16]

    def __len__(self) -> int:
        return len(self.game)

    def dense(self, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float32]:
        """``float32[len(rows), 2, ROW]``: the counts of positions ``rows``, the side to
        move's in ``[:, 0]`` and the opponent's in ``[:, 1]``."""
        out = np.zeros((len(rows), 2 * ROW), np.float32)
        for r, i in enumerate(rows):
            a, b = self.start[i], self.start[i + 1]
            out[r, self.index[a:b]] = self.count[a:b]
        return out.reshape(len(rows), 2, ROW)

    def subset(self, rows: npt.NDArray[np.intp]) -> Dataset:
        """The positions ``rows`` (in that order) as a dataset of their own."""
        lengths = self.start[rows + 1] - self.start[rows]
        take = np.concatenate([np.arange(self.start[i], self.start[i + 1]) for i in rows]) \
            if len(rows) else np.zeros(0, np.int64)
        return Dataset(self.game[rows], self.ply[rows], self.result[rows], self.score[rows],
                       self.mate[rows], self.threatened[rows],
                       np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                       self.index[take], self.count[take])


def is_evaluated_position(board: Board) -> bool:
    """Would the search evaluate ``board``'s position statically (no five point for either
    side, no open-four point for the side to move)?"""
    us = board.to_move - 1
    tc = board.position.threat_count
    return not (tc[us, T_FIVE] or tc[1 - us, T_FIVE] or tc[us, T_OPEN_FOUR])


def is_threatened(board: Board) -> bool:
    """Does the opponent of the side to move have a four-three or open-four point?"""
    them = 2 - board.to_move
    tc = board.position.threat_count
    return bool(tc[them, T_OPEN_FOUR] or tc[them, T_FOUR_THREE])


def point_canon(board: Board) -> npt.NDArray[np.int16]:
    """``int16[2, n_cells]``: each point's canonical combination per colour (0 black, 1
    white) as the network reads it: ``Tables.net_canon`` of its 4-pattern code, ``ABSENT``
    on occupied points and on black's renju fouls.  Equal to ``Position.eval_canon`` of a
    board kept under the network evaluation, whatever this board's evaluation."""
    pos, tab = board.position, board.tables
    canon = np.full((2, pos.cells.shape[0]), ABSENT, np.int16)
    points = tab.points[pos.cells[tab.points] == EMPTY]
    for side in range(2):
        p = point_patterns(pos, side)[points].astype(np.int64)
        code = p[:, 0] | (p[:, 1] << 4) | (p[:, 2] << 8) | (p[:, 3] << 12)
        canon[side, points] = tab.net_canon[code]
    canon[0, points[pos.foul[points] != 0]] = ABSENT
    return canon


def position_counts(board: Board) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """The sparse features of ``board``'s position: ``(index, count)`` (module docstring)."""
    us = board.to_move - 1
    points = board.tables.points
    canon = point_canon(board)
    dense = np.concatenate([np.bincount(canon[us, points], minlength=ROW),
                            np.bincount(canon[1 - us, points], minlength=ROW)])
    dense[ABSENT] = dense[ROW + ABSENT] = 0
    index = np.flatnonzero(dense)
    return index.astype(np.int16), dense[index].astype(np.int16)


def game_scores(games: dict) -> Iterator[tuple[int, int, float, int]]:
    """``(game, ply, score, mate)`` of every engine move of a ``selfplay --engine`` file
    (its ``scores``; a forced result stored as +-(MATE_BOUND + 1))."""
    for g in range(len(games["length"])):
        for ply in range(int(games["opening"][g]), int(games["length"][g])):
            s = int(games["scores"][g, ply])
            mate = 1 if s > MATE_BOUND else -1 if s < -MATE_BOUND else 0
            yield g, ply, float(0 if mate else s), mate


def label_scores(labels: Labels) -> Iterator[tuple[int, int, float, int]]:
    """``(game, ply, score, mate)`` of every position of a ``label`` file."""
    for g, ply, s, m in zip(labels.game, labels.ply, labels.score, labels.mate):
        yield int(g), int(ply), float(s), int(m)


def build_dataset(games: dict, scores: Iterator[tuple[int, int, float, int]],
                  game_offset: int = 0,
                  progress: Callable[[int], None] | None = None) -> Dataset:
    """Replay ``games`` (:func:`gomoku_engine.training.selfplay.load`) and keep the scored
    positions the search would evaluate.

    :param scores: ``(game, ply, score, mate)`` in game and ply order (:func:`game_scores`
        or :func:`label_scores`).
    :param game_offset: added to the game indices (datasets of several files).
    :param progress: called with each game's index once it is replayed.
    """
    by_game: dict[int, dict[int, tuple[float, int]]] = {}
    for g, ply, s, m in scores:
        by_game.setdefault(g, {})[ply] = (s, m)
    board = Board(games["size"], rule=games["rule"])
    cols: dict[str, list] = {k: [] for k in ("game", "ply", "result", "score", "mate",
                                              "threatened")}
    index: list[npt.NDArray[np.int16]] = []
    count: list[npt.NDArray[np.int16]] = []
    for g, scored in sorted(by_game.items()):
        board.clear()
        moves = games["moves"][g, : games["length"][g]]
        for ply, cell in enumerate(moves):
            if ply in scored and is_evaluated_position(board):
                s, m = scored[ply]
                i, c = position_counts(board)
                index.append(i)
                count.append(c)
                for key, value in (("game", g + game_offset), ("ply", ply),
                                   ("result", side_result(int(games["result"][g]),
                                                          board.to_move)),
                                   ("score", s), ("mate", m),
                                   ("threatened", is_threatened(board))):
                    cols[key].append(value)
            board.play(int(cell) % board.width, int(cell) // board.width)
        if progress is not None:
            progress(g)
    lengths = np.array([len(i) for i in index], np.int64)
    return Dataset(np.array(cols["game"], np.int32), np.array(cols["ply"], np.int16),
                   np.array(cols["result"], np.float32), np.array(cols["score"], np.float32),
                   np.array(cols["mate"], np.int8), np.array(cols["threatened"], bool),
                   np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                   np.concatenate(index) if index else np.zeros(0, np.int16),
                   np.concatenate(count) if count else np.zeros(0, np.int16))


def concatenate(parts: list[Dataset]) -> Dataset:
    """One dataset of ``parts`` in order (their game indices must already differ)."""
    starts = []
    offset = 0
    for p in parts:
        starts.append(p.start[:-1] + offset)
        offset += int(p.start[-1])
    return Dataset(*(np.concatenate([getattr(p, k) for p in parts])
                     for k in ("game", "ply", "result", "score", "mate", "threatened")),
                   np.concatenate(starts + [np.array([offset])]).astype(np.int64),
                   np.concatenate([p.index for p in parts]),
                   np.concatenate([p.count for p in parts]))


def save_dataset(path: Path | str, data: Dataset) -> None:
    """Write ``data`` as the ``.npz`` of the module docstring."""
    np.savez_compressed(path, **{k: getattr(data, k) for k in Dataset.__dataclass_fields__})


def load_dataset(path: Path | str) -> Dataset:
    """Read a file written by :func:`save_dataset`.

    :raises ValueError: if it is not such a file.
    """
    try:
        with np.load(path, allow_pickle=False) as f:
            data = Dataset(**{k: f[k] for k in Dataset.__dataclass_fields__})
    except (KeyError, OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a training dataset: {exc}") from exc
    if len(data.start) != len(data) + 1 or data.start[-1] != len(data.index):
        raise ValueError(f"{path} is not a training dataset: inconsistent counts")
    return data


__all__ = ["Dataset", "ROW", "build_dataset", "concatenate", "game_scores",
           "is_evaluated_position", "is_threatened", "label_scores", "load_dataset",
           "position_counts", "save_dataset"]
