"""Threat-space search: VCF (victory by continuous fours) and VCT (by threes and fours).

After Allis, van den Herik and Huntjens, "Go-Moku and Threat-Space Search" (1994), in the
depth-first form strong engines use (rapfi's ``vcfsearch``, KataGomo's ``vcfsolver``):

* **VCF**: the attacker plays only moves that make a four (or five); the defender's reply
  is forced (the block of the five point), unless the defender can make five itself, which
  refutes the four.  When the defender's block makes a four of its own, the attacker's
  next move must block it and still be a four.
* **VCT**: the attacker may also make open threes (and double threes).  After a three the
  defender may play any point on the attacker's threat lines (blocks) or any four of its
  own; the attacker must win against every such reply.  An attacker node tries VCF first.

Renju: black's fouls are never played (their threat class is ``T_NONE``), and a four of
white's whose only block is a foul for black wins like a five.

Both are depth-first with a node budget.  VCF keeps a table of positions proven to have no
VCF within a given number of attacker moves.  Every rule is respected through the line
patterns (an overline is no five under the exactly-five rule).  The winning line is left
in ``ThreatState.line`` (attacker and defender moves alternating, ending with the five).

Contract: the board is restored on return; a result of "no win" may also mean the budget
ran out (``counters[ABORTED]``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .constants import (
    EMPTY, MAX_PLY, T_DOUBLE_THREE, T_FIVE, T_FOUR, T_FOUR_THREE, T_OPEN_FOUR, T_OPEN_THREE,
)
from .jit import atomic_load, monotonic_ns, njit
from .position import (
    TO_MOVE, Position, Tables, defends, find_threat, find_threat_near, make_move, pass_move,
    unmake_move,
)

# counters[] indices
NODES = 0
NODE_LIMIT = 1
ABORTED = 2
LINE_LEN = 3
DEADLINE = 4  # kernel clock (ns) at which to give up; 0: none

MAX_LINE = 2 * MAX_PLY  # plies of a winning line (renju VCFs run past 140 plies)
VCF_TT_BITS = 18


class ThreatState(NamedTuple):
    """Arrays of the threat solvers."""

    tt_key: npt.NDArray[np.uint64]  #: uint64[2**VCF_TT_BITS] positions without VCF
    tt_depth: npt.NDArray[np.int8]  #: int8[...] attacker moves that did not suffice
    line: npt.NDArray[np.int32]  #: int32[MAX_LINE] winning line, alternating moves
    moves: npt.NDArray[np.int32]  #: int32[MAX_LINE, n_points] candidate buffers
    counters: npt.NDArray[np.int64]  #: int64[5] see the index constants above
    stop: npt.NDArray[np.int64]  #: int64[1] stop flag (shared with the main search)


def new_threat_state(n_points: int, stop: npt.NDArray[np.int64] | None = None) -> ThreatState:
    """Allocate the solver arrays; ``stop`` is the flag that aborts a solve (int64[1])."""
    size = 1 << VCF_TT_BITS
    return ThreatState(np.zeros(size, np.uint64), np.zeros(size, np.int8),
                       np.zeros(MAX_LINE, np.int32), np.zeros((MAX_LINE, n_points), np.int32),
                       np.zeros(5, np.int64),
                       np.zeros(1, np.int64) if stop is None else stop)


def clear_threat_state(ts: ThreatState) -> None:
    ts.tt_key[:] = 0
    ts.tt_depth[:] = 0


@njit
def _count_node(ts: ThreatState) -> bool:
    """Count a node; True when the node budget, the deadline or a stop ends the solve."""
    c = ts.counters
    c[NODES] += 1
    if c[ABORTED] != 0:
        return True
    if c[NODES] > c[NODE_LIMIT]:
        c[ABORTED] = 1
    elif (c[NODES] & 255) == 0 and (
            atomic_load(ts.stop) != 0 or (c[DEADLINE] != 0 and monotonic_ns() >= c[DEADLINE])):
        c[ABORTED] = 1
    return c[ABORTED] != 0


@njit
def _record(ts: ThreatState, ply: int, move: int) -> None:
    ts.line[ply] = move


@njit
def _five_now(pos: Position, tab: Tables, ts: ThreatState, side: int, ply: int) -> bool:
    """If ``side`` (to move) has a five point, end the winning line with it."""
    if pos.threat_count[side, T_FIVE] == 0:
        return False
    _record(ts, ply, find_threat(pos, tab, side, T_FIVE))
    ts.counters[LINE_LEN] = ply + 1
    return True


@njit
def _forced_block(pos: Position, tab: Tables, defender: int, block: int) -> int:
    """The defender's reply to a four whose five point is ``block``.

    Under renju a block that is a foul for black cannot be played: black makes some other
    legal move (the first in board order) and the attacker's five follows.
    """
    if defender != 0 or pos.foul[block] == 0:
        return block
    for cell in tab.points:
        if cell != block and pos.cells[cell] == EMPTY and pos.foul[cell] == 0:
            return cell
    return block  # no legal move at all: the board is full of fouls (never in practice)


@njit
def _attacker_moves(pos: Position, tab: Tables, ts: ThreatState, ply: int, side: int,
                    min_threat: int) -> int:
    """Points where ``side`` makes at least ``min_threat`` (below five), strongest first."""
    buf = ts.moves[ply]
    n = 0
    for cell in tab.points:
        t = pos.threat[side, cell]
        if min_threat <= t < T_FIVE and pos.cells[cell] == EMPTY:
            i = n  # insertion by class; stable within a class (board order)
            while i > 0 and pos.threat[side, buf[i - 1]] < t:
                buf[i] = buf[i - 1]
                i -= 1
            buf[i] = cell
            n += 1
    return n


@njit
def vcf(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int) -> bool:
    """True if the side to move wins by at most ``depth`` fours and then a five.

    On True, ``ts.line[ply:ts.counters[LINE_LEN]]`` is the winning line.
    """
    if _count_node(ts):
        return False
    us = pos.state[TO_MOVE] - 1
    them = 1 - us
    if _five_now(pos, tab, ts, us, ply):
        return True
    if depth <= 0 or ply + 3 >= MAX_LINE:
        return False
    forced = -1
    if pos.threat_count[them, T_FIVE] > 0:
        # The defender's last block made a four: our move must block it and be a four.
        if pos.threat_count[them, T_FIVE] > 1:
            return False
        forced = find_threat(pos, tab, them, T_FIVE)
        if pos.threat[us, forced] < T_FOUR:
            return False
    key = pos.key[0]
    slot = key & np.uint64(ts.tt_key.shape[0] - 1)
    if ts.tt_key[slot] == key and ts.tt_depth[slot] >= depth:
        return False
    if forced >= 0:
        ts.moves[ply, 0] = forced
        n = 1
    else:
        n = _attacker_moves(pos, tab, ts, ply, us, T_FOUR)
    for i in range(n):
        move = ts.moves[ply, i]
        make_move(pos, tab, move)
        if pos.threat_count[them, T_FIVE] > 0:  # the defender makes five instead
            unmake_move(pos, tab)
            continue
        block = _forced_block(pos, tab, them, find_threat_near(pos, tab, us, T_FIVE, move))
        make_move(pos, tab, block)
        won = vcf(pos, tab, ts, depth - 1, ply + 2)
        unmake_move(pos, tab)
        unmake_move(pos, tab)
        if won:
            _record(ts, ply, move)
            _record(ts, ply + 1, block)
            return True
        if ts.counters[ABORTED]:
            return False
    ts.tt_key[slot] = key
    ts.tt_depth[slot] = depth
    return False


@njit
def vct(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
        defending: bool) -> bool:
    """True if the attacker wins by at most ``depth`` threats (fours, threes), then five.

    The attacker is the side to move when ``defending`` is False; with ``defending`` True
    the defender is to move, answering the attacker's last threat, and the attacker must
    win against every reply.  On True, ``ts.line[ply:ts.counters[LINE_LEN]]`` is one
    winning line (its defender moves are the first replies tried; every other reply was
    proven to lose too).

    One self-recursive function rather than two mutually recursive ones: numba's on-disk
    cache crashes on mutual recursion.  Callers in jitted code must pass non-literal
    arguments (``np.int64(0)``, a computed bool), for the same reason.
    """
    if _count_node(ts):
        return False
    if not defending:
        us = pos.state[TO_MOVE] - 1
        them = 1 - us
        if _five_now(pos, tab, ts, us, ply):
            return True
        if depth <= 0 or ply + 3 >= MAX_LINE:
            return False
        if pos.threat_count[them, T_FIVE] > 0:
            # The defender has a four: block it; the defender then moves again.
            if pos.threat_count[them, T_FIVE] > 1:
                return False
            block = find_threat(pos, tab, them, T_FIVE)
            if us == 0 and pos.foul[block] != 0:
                return False  # renju: black cannot block
            make_move(pos, tab, block)
            won = vct(pos, tab, ts, depth - 1, ply + 1, not defending)
            unmake_move(pos, tab)
            if won:
                _record(ts, ply, block)
            return won
        if vcf(pos, tab, ts, depth, ply):
            return True
        if ts.counters[ABORTED]:
            return False
        n = _attacker_moves(pos, tab, ts, ply, us, T_OPEN_THREE)
        for i in range(n):
            move = ts.moves[ply, i]
            threat = pos.threat[us, move]
            if threat != T_OPEN_THREE and threat != T_DOUBLE_THREE:
                continue  # fours were tried by the VCF above
            make_move(pos, tab, move)
            won = vct(pos, tab, ts, depth - 1, ply + 1, not defending)
            unmake_move(pos, tab)
            if won:
                _record(ts, ply, move)
                return True
            if ts.counters[ABORTED]:
                return False
        return False

    defender = pos.state[TO_MOVE] - 1
    attacker = 1 - defender
    if pos.threat_count[defender, T_FIVE] > 0:
        return False  # the defender makes five
    if pos.threat_count[attacker, T_FIVE] > 0:
        # A four (the block is forced) or an open four (the defender blocks one five
        # point, and the attacker finds the other at its next node).
        block = _forced_block(pos, tab, defender, find_threat(pos, tab, attacker, T_FIVE))
        make_move(pos, tab, block)
        won = vct(pos, tab, ts, depth, ply + 1, not defending)
        unmake_move(pos, tab)
        if won:
            _record(ts, ply, block)
        return won
    if pos.threat_count[attacker, T_OPEN_FOUR] + pos.threat_count[attacker, T_FOUR_THREE] == 0:
        return False  # nothing threatens to win: the defender has a free move
    buf = ts.moves[ply]
    n = 0
    for cell in tab.points:
        if pos.cells[cell] != EMPTY or (defender == 0 and pos.foul[cell] != 0):
            continue
        if pos.threat[defender, cell] >= T_FOUR or defends(pos, attacker, cell):
            buf[n] = cell
            n += 1
    first = -1
    saved = np.empty(0, np.int32)
    for i in range(n):
        reply = ts.moves[ply, i]
        make_move(pos, tab, reply)
        won = vct(pos, tab, ts, depth, ply + 1, not defending)
        unmake_move(pos, tab)
        if not won:
            return False
        if first < 0:
            first = reply
            saved = ts.line[ply + 1:ts.counters[LINE_LEN]].copy()
    if first < 0:
        return False
    _record(ts, ply, first)
    ts.line[ply + 1:ply + 1 + saved.shape[0]] = saved
    ts.counters[LINE_LEN] = ply + 1 + saved.shape[0]
    return True


@njit
def _leaves_no_vcf(pos: Position, tab: Tables, ts: ThreatState, cell: int, depth: int,
                   nodes: int, fours: int, total: npt.NDArray[np.int64]) -> bool:
    """True if after our move on ``cell`` the opponent provably has no VCF.

    A four of ours is judged after the opponent's forced block, with us to move again: it
    is safe if some move of ours then is (checked for ``fours`` more levels of fours).
    Asked straight after our four, the solver would see that the opponent must block
    first and answer "no VCF": a four alone only delays, it does not defend.
    ``total`` (int64[1]) accumulates the solver nodes.  Recursive: every argument it
    passes itself is an int64 (``tab.points`` holds int32), see :func:`vct`'s note.
    """
    us = pos.state[TO_MOVE] - 1
    them = 1 - us
    c = ts.counters
    make_move(pos, tab, cell)
    safe = False
    if pos.threat_count[us, T_FIVE] == 0:
        c[NODES] = 0
        c[NODE_LIMIT] = nodes
        c[ABORTED] = 0
        safe = not vcf(pos, tab, ts, depth, np.int64(0)) and c[ABORTED] == 0
        total[0] += c[NODES]
    elif pos.threat_count[us, T_FIVE] > 1:
        safe = True  # an open four or double four: we win
    else:
        block = _forced_block(pos, tab, them, find_threat_near(pos, tab, us, T_FIVE, cell))
        make_move(pos, tab, block)
        if pos.threat_count[them, T_FIVE] > 0:
            # their block made a four: our reply is forced, judge it like any move
            reply = find_threat(pos, tab, them, T_FIVE)
            if pos.threat_count[them, T_FIVE] == 1 and not (us == 0 and pos.foul[reply] != 0):
                safe = _leaves_no_vcf(pos, tab, ts, np.int64(reply), depth, nodes, fours,
                                      total)
        elif fours > 0:
            for other in tab.points:
                if (pos.cells[other] == EMPTY and pos.near[other] != 0
                        and not (us == 0 and pos.foul[other] != 0)
                        and _leaves_no_vcf(pos, tab, ts, np.int64(other), depth, nodes,
                                           np.int64(fours - 1), total)):
                    safe = True
                    break
        unmake_move(pos, tab)
    unmake_move(pos, tab)
    return safe


@njit
def vcf_defences(pos: Position, tab: Tables, ts: ThreatState, candidates: npt.NDArray[np.int32],
                 depth: int, nodes_each: int, safe: npt.NDArray[np.int8]) -> int:
    """Which of our ``candidates`` leave the opponent no VCF?  (The root move filter.)

    Each candidate cell (int32[n], flat cells; occupied ones are skipped) is judged by
    :func:`_leaves_no_vcf` with ``nodes_each`` solver nodes per question; proven-safe
    ones get ``safe[cell] = 1`` (int8[n_cells]).  Stops early when the deadline
    (``ts.counters[DEADLINE]``) passes or the stop flag is set.  Returns the number of safe
    moves; ``ts.counters[NODES]`` then holds the total solver nodes.
    """
    c = ts.counters
    total = np.zeros(1, np.int64)
    count = 0
    for i in range(candidates.shape[0]):
        cell = candidates[i]
        if pos.cells[cell] != EMPTY or safe[cell] != 0:
            continue
        if _leaves_no_vcf(pos, tab, ts, np.int64(cell), depth, nodes_each, np.int64(1), total):
            safe[cell] = 1
            count += 1
        if atomic_load(ts.stop) != 0 or (c[DEADLINE] != 0 and monotonic_ns() >= c[DEADLINE]):
            break
    c[NODES] = total[0]
    return count


def solve_vct(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int = 0) -> bool:
    """:func:`vct` for the side to move (a plain Python entry point, see vct's note)."""
    return bool(vct(pos, tab, ts, depth, ply, False))
