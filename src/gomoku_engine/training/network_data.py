"""The network's training positions: the board of each scored position and its targets.

A position is kept as the network sees it (:mod:`gomoku_engine.eval.network`): per point,
its stone and, per colour, the canonical combination of its four line patterns, read
through the same table the kernels look it up in (``Tables.net_canon``;
:func:`point_canon`, which a test holds equal to the network's incremental
``Position.eval_canon``), and which threat classes each colour has somewhere (the head's
threat mask).  :func:`perspective_rows` turns a batch of them into the embedding rows
each perspective reads; :func:`symmetry` maps a batch through one of the board's 8
symmetries (the canonical combinations are multisets of line patterns, so they do not
change under a rotation or a reflection: only the grid moves).

A position is kept when the search would evaluate it statically: no five point for either
side and no open-four point for the side to move (the search scores those itself).  Its
teacher score comes either from the games file (``selfplay --engine``: the score each
engine move was chosen with) or from a ``label`` file of the same games.

A dataset (numpy ``.npz``, :func:`save_dataset`) holds, per position ``i``: ``game``
(``int32``, the game's index over the files), ``ply``, ``result`` (``float32``: 1, 1/2, 0
for the side to move), ``score`` (``float32``, the teacher's units), ``mate`` (``int8``:
1 the side to move wins by force, -1 it loses), ``threatened`` (``bool``: the opponent has
a four-three or open-four point), ``to_move`` (``int8``, 1 black, 2 white), ``cells``
(``int8[n, P]``: 0 empty, 1 black, 2 white, the ``P = size * size`` points row by row),
``canon`` (``int16[n, 2, P]``: black's and white's combination per point, ``ABSENT`` where
occupied or a renju foul for black), ``threats`` (``uint8[n, 2]``: bit ``t`` set where
black, then white, has a point of threat class ``t``) and ``size``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import EMPTY, MATE_BOUND, N_THREATS, T_FIVE, T_FOUR_THREE, T_OPEN_FOUR
from ..eval.network import ABSENT, STONE_OPP, STONE_OWN
from ..game.board import Board
from ..game.position import point_patterns
from .labelling import Labels
from .tuning import side_result

#: the board's 8 symmetries: ``k`` quarter turns, then (k >= 4) a mirror
N_SYMMETRIES = 8
_SCALARS = ("game", "ply", "result", "score", "mate", "threatened", "to_move")
_BOARDS = ("cells", "canon", "threats")


@dataclass
class Dataset:
    """Training positions (the arrays of the module docstring)."""

    game: npt.NDArray[np.int32]
    ply: npt.NDArray[np.int16]
    result: npt.NDArray[np.float32]
    score: npt.NDArray[np.float32]
    mate: npt.NDArray[np.int8]
    threatened: npt.NDArray[np.bool_]
    to_move: npt.NDArray[np.int8]
    cells: npt.NDArray[np.int8]
    canon: npt.NDArray[np.int16]
    threats: npt.NDArray[np.uint8]
    size: int

    def __len__(self) -> int:
        return len(self.game)

    def rows(self, rows: npt.NDArray[np.intp], sym: int = 0
             ) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16], npt.NDArray[np.float32]]:
        """The model's inputs for positions ``rows`` seen through symmetry ``sym``:
        ``(own, other, mask)`` of :func:`perspective_rows` and :func:`threat_inputs`."""
        cells, canon = symmetry(self.cells[rows], self.canon[rows], self.size, sym)
        own, other = perspective_rows(cells, canon, self.to_move[rows])
        return own, other, threat_inputs(self.threats[rows], self.to_move[rows])

    def subset(self, rows: npt.NDArray[np.intp]) -> Dataset:
        """The positions ``rows`` (in that order) as a dataset of their own."""
        return Dataset(*(getattr(self, k)[rows] for k in _SCALARS + _BOARDS), self.size)


def perspective_rows(cells: npt.NDArray, canon: npt.NDArray, to_move: npt.NDArray
                     ) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """The embedding rows of each point for both perspectives, the side to move's first.

    :param cells: ``int8[n, P]``; ``canon``: ``int16[n, 2, P]`` (colour-indexed);
        ``to_move``: ``int8[n]`` (1 black, 2 white).
    :returns: ``(own, other)``, ``int16[n, 2, P]``: perspective ``v`` (0 the side to move,
        1 its opponent) reads ``embed[0, own[:, v]] + embed[1, other[:, v]]``: on an empty
        point its colour's combination and the other colour's; on a stone ``STONE_OWN`` or
        ``STONE_OPP`` and ``ABSENT``.
    """
    us = (np.asarray(to_move, np.int64) - 1)[:, None]
    empty = cells == EMPTY
    own = np.empty(canon.shape, np.int16)
    other = np.empty(canon.shape, np.int16)
    for v in range(2):
        colour = us if v == 0 else 1 - us
        mine = np.take_along_axis(canon, colour[:, :, None], axis=1)[:, 0]
        theirs = np.take_along_axis(canon, 1 - colour[:, :, None], axis=1)[:, 0]
        stone = np.where(cells == colour + 1, STONE_OWN, STONE_OPP)
        own[:, v] = np.where(empty, mine, stone)
        other[:, v] = np.where(empty, theirs, ABSENT)
    return own, other


def threat_inputs(threats: npt.NDArray, to_move: npt.NDArray) -> npt.NDArray[np.float32]:
    """``float32[n, 2 * N_THREATS]``: the threat mask as the head reads it, the side to
    move's bits (classes 0..N_THREATS - 1) then the opponent's (class 0 is always 0)."""
    us = np.asarray(to_move, np.int64) - 1
    bits = (np.asarray(threats, np.int64)[:, :, None] >> np.arange(N_THREATS)) & 1
    bits[:, :, 0] = 0
    n = np.arange(len(us))
    return np.concatenate([bits[n, us], bits[n, 1 - us]], axis=1).astype(np.float32)


def symmetry(cells: npt.NDArray, canon: npt.NDArray, size: int, sym: int
             ) -> tuple[npt.NDArray, npt.NDArray]:
    """``cells`` (``[n, P]``) and ``canon`` (``[n, 2, P]``) of a square board of ``size``
    through symmetry ``sym`` (0 the identity; ``sym % 4`` quarter turns, then a mirror
    for ``sym >= 4``)."""
    if sym == 0:
        return cells, canon
    grid_c = cells.reshape(len(cells), size, size)
    grid_k = canon.reshape(len(canon), 2, size, size)
    grid_c = np.rot90(grid_c, sym % 4, axes=(1, 2))
    grid_k = np.rot90(grid_k, sym % 4, axes=(2, 3))
    if sym >= 4:
        grid_c, grid_k = grid_c[:, :, ::-1], grid_k[:, :, :, ::-1]
    return (np.ascontiguousarray(grid_c).reshape(cells.shape),
            np.ascontiguousarray(grid_k).reshape(canon.shape))


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


def threat_mask(board: Board) -> npt.NDArray[np.uint8]:
    """``uint8[2]``: bit ``t`` set where black (then white) has a point of class ``t``."""
    tc = board.position.threat_count
    return np.array([sum(1 << t for t in range(1, N_THREATS) if tc[s, t]) for s in range(2)],
                    np.uint8)


def position_arrays(board: Board) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
    """``(cells int8[P], canon int16[2, P])`` of ``board``'s points, row by row."""
    points = board.tables.points
    return board.position.cells[points].copy(), point_canon(board)[:, points]


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
    """Replay ``games`` (:func:`gomoku_engine.training.selfplay.load`, a square board) and
    keep the scored positions the search would evaluate.

    :param scores: ``(game, ply, score, mate)`` in game and ply order (:func:`game_scores`
        or :func:`label_scores`).
    :param game_offset: added to the game indices (datasets of several files).
    :param progress: called with each game's index once it is replayed.
    """
    by_game: dict[int, dict[int, tuple[float, int]]] = {}
    for g, ply, s, m in scores:
        by_game.setdefault(g, {})[ply] = (s, m)
    board = Board(games["size"], rule=games["rule"])
    cols: dict[str, list] = {k: [] for k in _SCALARS + _BOARDS}
    for g, scored in sorted(by_game.items()):
        board.clear()
        moves = games["moves"][g, : games["length"][g]]
        for ply, cell in enumerate(moves):
            if ply in scored and is_evaluated_position(board):
                s, m = scored[ply]
                cells, canon = position_arrays(board)
                for key, value in (("game", g + game_offset), ("ply", ply),
                                   ("result", side_result(int(games["result"][g]),
                                                          board.to_move)),
                                   ("score", s), ("mate", m),
                                   ("threatened", is_threatened(board)),
                                   ("to_move", board.to_move), ("cells", cells),
                                   ("canon", canon), ("threats", threat_mask(board))):
                    cols[key].append(value)
            board.play(int(cell) % board.width, int(cell) // board.width)
        if progress is not None:
            progress(g)
    return _from_columns(cols, int(games["size"]))


_DTYPES = {"game": np.int32, "ply": np.int16, "result": np.float32, "score": np.float32,
           "mate": np.int8, "threatened": bool, "to_move": np.int8, "cells": np.int8,
           "canon": np.int16, "threats": np.uint8}


def _from_columns(cols: dict[str, list], size: int) -> Dataset:
    p = size * size
    empty = {"cells": (0, p), "canon": (0, 2, p), "threats": (0, 2)}
    arrays = [np.array(cols[k], _DTYPES[k]) if cols[k] else np.zeros(empty.get(k, 0), _DTYPES[k])
              for k in _SCALARS + _BOARDS]
    return Dataset(*arrays, size)


def concatenate(parts: list[Dataset]) -> Dataset:
    """One dataset of ``parts`` in order (their game indices must already differ, their
    boards be of one size).

    :raises ValueError: for parts of different board sizes.
    """
    sizes = {p.size for p in parts}
    if len(sizes) != 1:
        raise ValueError(f"datasets of different board sizes: {sorted(sizes)}")
    return Dataset(*(np.concatenate([getattr(p, k) for p in parts]) for k in _SCALARS + _BOARDS),
                   sizes.pop())


def save_dataset(path: Path | str, data: Dataset) -> None:
    """Write ``data`` as the ``.npz`` of the module docstring."""
    np.savez_compressed(path, size=np.int16(data.size),
                        **{k: getattr(data, k) for k in _SCALARS + _BOARDS})


def load_dataset(path: Path | str) -> Dataset:
    """Read a file written by :func:`save_dataset`.

    :raises ValueError: if it is not such a file.
    """
    try:
        with np.load(path, allow_pickle=False) as f:
            data = Dataset(*(f[k] for k in _SCALARS + _BOARDS), int(f["size"]))
    except (KeyError, OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a training dataset: {exc}") from exc
    n, p = len(data), data.size * data.size
    if (data.cells.shape != (n, p) or data.canon.shape != (n, 2, p)
            or data.threats.shape != (n, 2)):
        raise ValueError(f"{path} is not a training dataset: inconsistent shapes")
    return data


__all__ = ["Dataset", "N_SYMMETRIES", "build_dataset", "concatenate", "game_scores",
           "is_evaluated_position", "is_threatened", "label_scores", "load_dataset",
           "perspective_rows", "point_canon", "position_arrays", "save_dataset", "symmetry",
           "threat_inputs", "threat_mask"]
