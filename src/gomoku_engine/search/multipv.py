"""The root state a multi-PV search changes between its lines (``Limits.multipv``).

A multi-PV iteration searches the root once per line, each time without the moves of the
lines already found (Stockfish's and Rapfi's multi-PV loop, ``search/ab/search.cpp``).
This search keeps no root move list: the moves are kept out by the kernel's root filter
(``SearchState.root_allowed`` under ``counters[ROOT_FILTER]``), which the root threat
search and ``Limits.excluded`` may already have set; :class:`RootFilter` keeps that filter
and adds the found moves to it.  Each line's search stores its own best move in the
root's transposition-table entry, so :func:`root_move_first` puts the best line's move
back, for the next depth to search it first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game.position import Position
from .alphabeta import ROOT_FILTER, SearchState
from .params import TT_BUCKET


class RootFilter:
    """The root filter a search started with, and that filter less some moves.

    :param ss: the search state whose filter (``root_allowed``, ``counters[ROOT_FILTER]``)
        is kept as it is now.
    """

    def __init__(self, ss: SearchState) -> None:
        self.ss = ss
        self.on = int(ss.counters[ROOT_FILTER])
        self.allowed = ss.root_allowed.copy() if self.on else np.ones_like(ss.root_allowed)

    def exclude(self, cells: Sequence[int]) -> None:
        """Search the root moves of the kept filter except ``cells`` (flat cells).  The
        kernel drops a filter that leaves no candidate (``generate_moves``), so it is set
        again before every line."""
        ss = self.ss
        ss.root_allowed[:] = self.allowed
        if len(cells):
            ss.root_allowed[list(cells)] = 0
        ss.counters[ROOT_FILTER] = 1 if self.on or len(cells) else 0

    def restore(self) -> None:
        """The filter as it was kept."""
        self.exclude(())


def root_move_first(ss: SearchState, pos: Position, cell: int) -> None:
    """Make the transposition-table entry of the root ``pos``, if stored, name ``cell``
    (a flat cell) as its best move, so the next search of the root tries it first."""
    key = pos.key[0]
    base = int(key & np.uint64(ss.tt.shape[0] - 1)) & ~(TT_BUCKET - 1)
    bucket = ss.tt[base: base + TT_BUCKET]  # a view: the writes reach the table
    bucket["move"][bucket["key"] == key] = cell


__all__ = ["RootFilter", "root_move_first"]
