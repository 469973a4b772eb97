"""Threat-space search at the root of a move (Allis et al. 1994, as rapfi does it), and the
threat solves the engine answers on their own (``Engine.solve``, ``Engine.vcf_defences``).

Before the alpha-beta iterations, :meth:`RootThreats.win_at_root` looks for our VCF (a
forced win is played at once), then the opponent's: if it has one, only root moves proven
to stop it are searched (``ROOT_FILTER``), and with ``Limits.vct`` the few kept are also
checked against its VCT; last our VCT.  The solvers are the kernels of
:mod:`gomoku_engine.search.threats`; the budgets are in :mod:`gomoku_engine.search.params`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..core.constants import EMPTY, MATE
from ..core.notation import Point
from ..eval import point_priorities
from ..game.board import Board
from ..game.position import make_move, pass_move, unmake_move
from . import threats
from .alphabeta import NODE_LIMIT, NODES, ROOT_FILTER, SearchState, kernel_clock_ns
from .limits import UNCAPPED, Limits, SearchResult, SolveResult, ms_since
from .params import (
    MAX_VCT_CHECKED, REFUTE_VCF_NODES, REFUTE_VCT_NODES, ROOT_FILTER_SHARE, ROOT_VCF_DEPTH,
    ROOT_VCF_NODES, ROOT_VCF_SHARE, ROOT_VCT_DEPTH, ROOT_VCT_NODES, ROOT_VCT_SHARE,
    SOLVE_VCT_DEPTH, THEIR_VCF_SHARE, THEIR_VCT_SHARE,
)
from .threats import ThreatState

#: the kinds of :meth:`RootThreats.solve`
SOLVE_KINDS = ("vcf", "vct")


def deadline_after(time_ms: float | None) -> int:
    """The kernel clock's value (ns, :func:`kernel_clock_ns`) ``time_ms`` ms from now; 0
    (no deadline) for ``None`` or when the kernel has no clock."""
    now = kernel_clock_ns()
    return now + int(time_ms * 1e6) if (now and time_ms is not None) else 0


class RootThreats:
    """The threat solvers run on ``board`` for its side to move.

    :param board: the position (restored after every call).
    :param ss: the alpha-beta search's state: its node counter receives the solvers'
        nodes, ``root_allowed`` (``int8[n_cells]``) and ``counters[ROOT_FILTER]`` receive
        the root filter.
    :param ts: the threat solvers' state (its tables carry over between calls).
    """

    def __init__(self, board: Board, ss: SearchState, ts: ThreatState) -> None:
        self.board, self.ss, self.ts = board, ss, ts

    def uncapped(self) -> None:
        """A solve of its own (not a move's search): no node cap but the solver's budget,
        the node count from 0."""
        self.ss.counters[NODES] = 0
        self.ss.counters[NODE_LIMIT] = UNCAPPED

    def nodes_left(self, budget: int) -> int:
        """A solver's node ``budget``, cut to what the move's node cap (``Limits.nodes``,
        ``INFO max_node``: the alpha-beta state's ``NODE_LIMIT``, which counts the
        solvers' nodes too) leaves; 0 when it is spent."""
        ss = self.ss
        return int(max(0, min(budget, ss.counters[NODE_LIMIT] - ss.counters[NODES])))

    def solve_line(self, solver: Callable[..., bool], depth: int, nodes: int,
                   deadline_ns: int) -> list[int] | None:
        """Run a threat solver (:func:`threats.solve_vcf` or :func:`threats.solve_vct`) for
        the side to move within ``nodes`` solver nodes (at most what the move's node cap
        leaves, :meth:`nodes_left`) and the kernel-clock deadline (ns, 0: none); the
        winning line (flat cells, both sides' moves) or None."""
        board, ts = self.board, self.ts
        nodes = self.nodes_left(nodes)
        if nodes == 0:
            return None
        ts.counters[threats.NODES] = 0
        ts.counters[threats.NODE_LIMIT] = nodes
        ts.counters[threats.ABORTED] = 0
        ts.counters[threats.DEADLINE] = deadline_ns
        won = solver(board.position, board.tables, ts, depth, 0)
        self.ss.counters[NODES] += ts.counters[threats.NODES]
        if not won:
            return None
        return [int(c) for c in ts.line[: ts.counters[threats.LINE_LEN]]]

    def solve(self, kind: str, time_ms: float | None, depth: int | None,
              nodes: int) -> SolveResult:
        """``Engine.solve``: does the side to move win by VCF (``kind="vcf"``) or VCT
        (``"vct"``) within ``time_ms`` ms (``None``: no limit) and ``nodes`` solver nodes?

        :param kind: one of :data:`SOLVE_KINDS` (the caller checks it).
        :param depth: most threats before the five (``None``: ``ROOT_VCF_DEPTH`` for VCF,
            ``SOLVE_VCT_DEPTH`` for VCT).
        """
        solver = threats.solve_vcf if kind == "vcf" else threats.solve_vct
        depth = depth or (ROOT_VCF_DEPTH if kind == "vcf" else SOLVE_VCT_DEPTH)
        began = time.perf_counter()
        deadline = deadline_after(time_ms)
        self.uncapped()
        line = self.solve_line(solver, depth, nodes, deadline)
        aborted = bool(self.ts.counters[threats.ABORTED])
        searched = int(self.ts.counters[threats.NODES])
        points = [] if line is None else [self.board.geometry.xy(c) for c in line]
        return SolveResult(line is not None, points, searched, ms_since(began),
                           aborted and line is None)

    def win_at_root(self, limits: Limits, start: float,
                    blocked: frozenset[int] = frozenset()) -> SearchResult | None:
        """Our VCF, then the opponent's VCF (if it has one, only root moves after which it
        has none are searched; with ``limits.vct`` those few are also checked against its
        VCT), then (if ``limits.vct``) our VCT, each by its share of the soft time
        (``ROOT_*_SHARE``, cumulative from ``start``).

        :param blocked: flat cells the move must not be (``Limits.excluded``): a win that
            starts on one is not played, and the root filter keeps none of them.
        :returns: the result if we win by force (score ``MATE - plies``), else None.
        """
        board, ss = self.board, self.ss
        pos, tab = board.position, board.tables
        now = kernel_clock_ns()

        def by(share: float) -> int:  # a deadline at this share of the soft time
            if limits.soft_ms is None or not now:
                return 0
            return now + int(max(0.0, limits.soft_ms * share - ms_since(start)) * 1e6)

        def playable(line: list[int] | None) -> list[int] | None:
            return None if line is None or line[0] in blocked else line

        line = playable(self.solve_line(threats.solve_vcf, ROOT_VCF_DEPTH, ROOT_VCF_NODES,
                                        by(ROOT_VCF_SHARE)))
        if line is None:
            pass_move(pos, tab)
            threat = self.solve_line(threats.solve_vcf, ROOT_VCF_DEPTH, ROOT_VCF_NODES,
                                     by(THEIR_VCF_SHARE))
            pass_move(pos, tab)
            if threat is not None:
                self.filter_root(threat, by(ROOT_FILTER_SHARE), blocked)
                if limits.vct and ss.counters[ROOT_FILTER]:
                    self.drop_vct_losses(by(THEIR_VCT_SHARE))
            if limits.vct:
                line = playable(self.solve_line(threats.solve_vct, ROOT_VCT_DEPTH,
                                                ROOT_VCT_NODES, by(ROOT_VCT_SHARE)))
        if line is None:
            return None
        pv = [board.geometry.xy(c) for c in line]
        return SearchResult(pv[0], MATE - len(line), len(line), len(line),
                            int(ss.counters[NODES]), ms_since(start), pv)

    def vcf_defences(self, time_ms: float | None, first: list[int]) -> list[Point]:
        """``Engine.vcf_defences``: the moves (points) of the side to move proven to leave
        the opponent no VCF, judged within ``time_ms`` ms (``None``: only the node budget
        ``REFUTE_VCF_NODES`` per move), ``first`` (flat cells) checked first."""
        self.uncapped()
        allowed = self.safe_moves(first, deadline_after(time_ms))
        g = self.board.geometry
        return [g.xy(int(c)) for c in np.flatnonzero(allowed)]

    def safe_moves(self, first: list[int], deadline_ns: int) -> np.ndarray:
        """``int8[n_cells]`` mask (``ss.root_allowed``) of the moves after which the opponent
        provably has no VCF (:func:`gomoku_engine.search.threats.vcf_defences`: a four of
        ours after its forced block).  Every legal point near a stone is judged, ``first``
        before the rest, then by one-ply priority, so a deadline (kernel clock, ns) that
        cuts the checks short leaves the likeliest defences checked."""
        board, ss, ts = self.board, self.ss, self.ts
        pos, tab = board.position, board.tables
        us = board.to_move - 1
        points = board.geometry.points
        empty = points[(pos.cells[points] == EMPTY) & (pos.near[points] != 0)]
        if us == 0:
            empty = empty[pos.foul[empty] == 0]
        priority = point_priorities(pos, us, empty)
        ordered = empty[np.argsort(-priority, kind="stable")]
        nearby = set(empty.tolist())
        line = np.array([c for c in dict.fromkeys(first) if c in nearby], np.int32)
        candidates = np.concatenate([line, ordered]).astype(np.int32)
        allowed = ss.root_allowed
        allowed[:] = 0
        ts.counters[threats.DEADLINE] = deadline_ns
        threats.vcf_defences(pos, tab, ts, candidates, ROOT_VCF_DEPTH, REFUTE_VCF_NODES,
                             self.nodes_left(UNCAPPED), allowed)
        ss.counters[NODES] += ts.counters[threats.NODES]
        return allowed

    def filter_root(self, threat_line: list[int], deadline_ns: int,
                    blocked: frozenset[int] = frozenset()) -> None:
        """Search only root moves proven to leave the opponent no VCF and not ``blocked``
        (flat cells), if there are any (:meth:`safe_moves`, the points of the opponent's
        winning line first)."""
        allowed = self.safe_moves(threat_line, deadline_ns)
        allowed[list(blocked)] = 0  # the intersection: a defence that is blocked is not one
        if allowed.any():
            self.ss.counters[ROOT_FILTER] = 1

    def drop_vct_losses(self, deadline_ns: int) -> None:
        """Among few (``MAX_VCT_CHECKED``) filtered root moves, drop those after which the
        opponent has a VCT.

        The VCF filter keeps the moves that stop the opponent's fours; a threat of threes
        may still win through them.  Each kept move is checked with the VCT solver (an
        equal share of the time left before ``deadline_ns`` each); a move is dropped only
        on a proven win, and never the last one.
        """
        board, ss = self.board, self.ss
        pos, tab = board.position, board.tables
        allowed = [int(c) for c in np.flatnonzero(ss.root_allowed)]
        if len(allowed) > MAX_VCT_CHECKED:
            return
        for i, cell in enumerate(allowed):
            share = 0
            if deadline_ns:
                now = kernel_clock_ns()
                share = now + max(0, deadline_ns - now) // (len(allowed) - i)
            make_move(pos, tab, cell)
            lost = self.solve_line(threats.solve_vct, ROOT_VCT_DEPTH, REFUTE_VCT_NODES, share)
            unmake_move(pos, tab)
            if lost is not None and int(ss.root_allowed.sum()) > 1:
                ss.root_allowed[cell] = 0
