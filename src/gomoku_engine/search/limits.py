"""What a search is asked (:class:`Limits`) and what it reports (:class:`SearchInfo` after
each iteration, :class:`SearchResult` at the end, :class:`SolveResult` of a threat solve).

Plain data (and :func:`ms_since`, the clock the limits are read against): no kernels, no
text.  Moves are ``(x, y)`` points, ``x`` the column and ``y``
the row, 0-based (the protocol's convention).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core.notation import Point

#: the kernels' node limit of a search without a node budget (``Limits.nodes`` None)
UNCAPPED = 2**62


@dataclass
class Limits:
    """When to stop searching.  Every limit left ``None`` is unlimited."""

    hard_ms: float | None = None  #: stop the search at once after this many ms
    soft_ms: float | None = None  #: start no new iteration after this many ms
    depth: int | None = None  #: deepest iteration
    #: node budget (checked every 256 nodes), the root threat solvers' nodes included
    nodes: int | None = None
    start: float | None = None  #: ``time.perf_counter()`` when the move was asked for
    #: threat-space search at the root: our VCF (a forced win is played at once) and the
    #: opponent's (only moves proven to stop it are searched).  On by default: it keeps
    #: the engine from walking into a VCF it could have stopped (README, issue 3).
    threats: bool = True
    #: with ``threats``: our VCT at the root, and the opponent's VCT through the few
    #: moves that stop its VCF.  Off by default (costs time, not measured stronger).
    vct: bool = False
    #: with ``threats``: a short VCF at the horizon of the alpha-beta search.  Off by
    #: default: measured weaker in games (docs/threat-search.md).
    horizon_vcf: bool = False
    #: root moves the search must not play (Yixin-Board's ``YXBLOCK``), ``(x, y)`` points;
    #: ignored only when every legal point is in it (then any legal point is played)
    excluded: frozenset[Point] = frozenset()
    #: principal variations wanted (multi-PV, Yixin-Board's ``YXNBEST``): the best root
    #: moves each searched with its own score and line, found at each depth by searching
    #: again without the moves already found (Stockfish's and Rapfi's multi-PV loop).
    #: 1: the usual search, one line.
    multipv: int = 1


@dataclass
class SearchInfo:
    """Report of one completed iteration."""

    depth: int  #: nominal depth of the iteration (plies)
    seldepth: int  #: deepest ply reached (forced replies extend)
    score: int  #: for the side to move; see :func:`gomoku_engine.core.constants.mate_in`
    nodes: int  #: nodes searched so far for this move
    time_ms: float  #: elapsed since the move was asked for
    pv: list[Point] = field(default_factory=list)  #: principal variation
    #: with ``Limits.multipv``: which line of the iteration this is (0: the first searched,
    #: the best of the previous depth) and how many lines each iteration searches
    pv_index: int = 0
    num_pv: int = 1

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes * 1000 / self.time_ms) if self.time_ms > 0 else 0


@dataclass
class SearchResult:
    """The move chosen and the last completed iteration's figures."""

    move: Point
    score: int
    depth: int
    seldepth: int  #: deepest ply of that iteration
    nodes: int  #: nodes of every search thread (helpers included)
    time_ms: float  #: whole search, from when the move was asked for
    pv: list[Point]
    #: with ``Limits.multipv`` above 1: the lines of the last depth whose lines were all
    #: searched, best score first (the first is this result's move); else empty
    lines: list[SearchResult] = field(default_factory=list)


@dataclass
class SolveResult:
    """Answer of :meth:`Engine.solve`."""

    win: bool  #: the side to move wins by force
    line: list[Point]  #: the winning line (both sides' moves), ending with the five
    nodes: int  #: solver nodes
    time_ms: float
    aborted: bool  #: no win found *and* the budget ran out (so the answer is unknown)


def ms_since(start: float) -> float:
    """Milliseconds elapsed since ``start``, a :func:`time.perf_counter` value (as
    :attr:`Limits.start`)."""
    return (time.perf_counter() - start) * 1000.0
