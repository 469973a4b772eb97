"""Threat-space search: VCF (victory by continuous fours) and VCT (by threes and fours).

After Allis, van den Herik and Huntjens, "Go-Moku and Threat-Space Search" (1994), in the
depth-first form strong engines use (rapfi's ``vcfsearch``, KataGomo's ``vcfsolver``):

* **VCF**: the attacker plays only moves that make a four (or five); the defender's reply
  is forced (the block of the five point), unless the defender can make five itself, which
  refutes the four.  When the defender's block makes a four of its own, the attacker's
  next move must block it and still be a four.
* **VCT**: the attacker may also make *threats*: moves after which, were it to move again,
  it would win by a short VCF (open threes, double threes, quiet "fukumi" moves).  The
  defender answers on the points that can break that VCF, or with a four of its own; the
  attacker must win against every such reply.  An attacker node tries VCF first.  This
  is quintet's definition (renju-note/quintet, ``src/mate/vct``).  :func:`solve_vct`
  searches it by depth-first proof-number search (:func:`vct_dfpn`) in the passes of
  ``VCT_PASSES`` (short, narrow, full); :func:`vct` is the plain depth-first search of the
  same tree.

Renju: black's fouls are never played (their threat class is ``T_NONE``), and a four of
white's whose only block is a foul for black wins like a five.

All are depth-first with a node budget.  VCF keeps a table of positions proven to have no
VCF within a given number of attacker moves; VCT one of positions without VCT, df-pn one
of proof and disproof numbers.  Every rule is respected through the line
patterns (an overline is no five under the exactly-five rule).  The winning line is left
in ``ThreatState.line`` (attacker and defender moves alternating, ending with the five).

Contract: the board is restored on return; a result of "no win" may also mean the budget
ran out (``counters[ABORTED]``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.constants import (
    EMPTY, FIVE, FOUR, MAX_PLY, OPEN_FOUR, OPEN_TWO, PAD, T_FIVE, T_FOUR, T_OPEN_THREE, THREE,
    TWO,
)
from ..core.jit import atomic_load, monotonic_ns, njit, unmanaged
from ..eval import point_priority
from ..game.position import (
    P_CARO, P_RENJU, TO_MOVE, Position, Tables, find_threat, find_threat_near, four_points,
    make_move, pass_move, pattern_at, unmake_move,
)
from ..game.defences import MAX_DEFENCES, five_defences
from .params import (  # the tunables: why each has its value is said there
    CHILD_TT_BITS, DEFENDER_VCF_DEPTH, MAX_CACHED_CHILDREN, PN_TT_BITS, THREAT_DEPTH,
    VCF_TT_BITS, VCT_PASSES, VCT_TT_BITS,
)

# counters[] indices
NODES = 0
NODE_LIMIT = 1
ABORTED = 2
LINE_LEN = 3
DEADLINE = 4  # kernel clock (ns) at which to give up; 0: none
STAMP = 5  # last value written to ThreatState.mark
THREAT_LIMIT = 6  # most fours of the VCF that makes a quiet move a threat (THREAT_DEPTH)
N_COUNTERS = 7

MAX_LINE = 2 * MAX_PLY  # plies of a winning line (renju VCFs run past 140 plies)
VCT_KEY_SALT = np.uint64(0x9E3779B97F4A7C15)  # VCT entries apart from any VCF key
DEFENDER_SALT = np.uint64(0x3C6EF372FE94F82B)  # proof-number entries of defender nodes
PN_INF = 1 << 30  # proof / disproof number of a settled node
PN_KEY, PN_PN, PN_DN, PN_MOVE = 0, 1, 2, 3  # columns of ThreatState.pn_table
# _children results besides a move count
NO_WIN = 0
WON = -1


class ThreatState(NamedTuple):
    """Arrays of the threat solvers."""

    tt_key: npt.NDArray[np.uint64]  #: uint64[2**VCF_TT_BITS] positions without VCF
    tt_depth: npt.NDArray[np.int8]  #: int8[...] attacker moves that did not suffice
    line: npt.NDArray[np.int32]  #: int32[MAX_LINE] winning line, alternating moves
    moves: npt.NDArray[np.int32]  #: int32[MAX_LINE, n_points] candidate buffers
    counters: npt.NDArray[np.int64]  #: int64[N_COUNTERS] see the index constants above
    stop: npt.NDArray[np.int64]  #: int64[1] stop flag (shared with the main search)
    vct_key: npt.NDArray[np.uint64]  #: uint64[2**VCT_TT_BITS] positions without VCT
    vct_depth: npt.NDArray[np.int8]  #: int8[...] threats that did not suffice
    mark: npt.NDArray[np.int64]  #: int64[n_cells] point sets of the VCT (see STAMP)
    #: int32[MAX_LINE] per ply, the VCT move that last won (attacker) or refuted (defender)
    killer: npt.NDArray[np.int32]
    #: int64[2**PN_TT_BITS, 4] proof-number table: key (its bits), pn, dn, winning move
    #: (one row per entry: a probe touches one cache line, not two)
    pn_table: npt.NDArray[np.int64]
    pn_child: npt.NDArray[np.int64]  #: int64[MAX_LINE, n_points] children's pn per ply
    dn_child: npt.NDArray[np.int64]  #: int64[MAX_LINE, n_points] children's dn per ply
    child_key: npt.NDArray[np.uint64]  #: uint64[2**CHILD_TT_BITS] node keys (see _pn_key)
    child_n: npt.NDArray[np.int16]  #: int16[2**CHILD_TT_BITS] number of children
    #: int16[2**CHILD_TT_BITS, MAX_CACHED_CHILDREN] the children, in search order
    child_moves: npt.NDArray[np.int16]


def new_threat_state(n_points: int, stop: npt.NDArray[np.int64] | None = None,
                     n_cells: int | None = None) -> ThreatState:
    """Allocate the solver arrays; ``stop`` is the flag that aborts a solve (int64[1]);
    ``n_cells`` is the padded board's cell count (default: enough for a square board of
    ``n_points`` points)."""
    if n_cells is None:
        side = int(np.ceil(np.sqrt(n_points)))
        n_cells = (side + 2 * PAD) ** 2
    size = 1 << VCF_TT_BITS
    vct_size = 1 << VCT_TT_BITS
    counters = np.zeros(N_COUNTERS, np.int64)
    counters[THREAT_LIMIT] = THREAT_DEPTH
    return ThreatState(np.zeros(size, np.uint64), np.zeros(size, np.int8),
                       np.zeros(MAX_LINE, np.int32), np.zeros((MAX_LINE, n_points), np.int32),
                       counters,
                       np.zeros(1, np.int64) if stop is None else stop,
                       np.zeros(vct_size, np.uint64), np.zeros(vct_size, np.int8),
                       np.zeros(n_cells, np.int64), np.full(MAX_LINE, -1, np.int32),
                       np.zeros((1 << PN_TT_BITS, 4), np.int64),
                       np.zeros((MAX_LINE, n_points), np.int64),
                       np.zeros((MAX_LINE, n_points), np.int64),
                       np.zeros(1 << CHILD_TT_BITS, np.uint64),
                       np.zeros(1 << CHILD_TT_BITS, np.int16),
                       np.zeros((1 << CHILD_TT_BITS, MAX_CACHED_CHILDREN), np.int16))


def clear_threat_state(ts: ThreatState) -> None:
    ts.tt_key[:] = 0
    ts.tt_depth[:] = 0
    ts.vct_key[:] = 0
    ts.vct_depth[:] = 0
    ts.killer[:] = -1
    ts.pn_table[:, PN_KEY] = 0
    ts.child_key[:] = 0


@njit(inline="always")
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


@njit(inline="always")
def _table_slot(key: np.uint64, size: int) -> np.uint64:
    """The slot of ``key`` in a table of ``size`` (a power of two) entries, from bit 1 up:
    bit 0 of a position's key is the parity of its stones plus the side to move, the same
    in every position of a game (every Zobrist value is odd), so indexed by the raw key
    the no-VCF and no-VCT tables used half their slots."""
    return (key >> np.uint64(1)) & np.uint64(size - 1)


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


# Without numba's reference counting, as the search's negamax (see there): a recursive
# kernel keeps an increment and a decrement of each of its 45 arrays per call.  Safe
# because it allocates nothing (numba refuses to compile an allocation without it) and
# every caller holds the arrays for the whole call (``solve_vcf``, the search, the VCT).
@njit(_nrt=False)
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
    n_forced = 0  # caro: the blocks of the defender's four that are fours of ours
    caro = tab.params[P_CARO] != 0
    if pos.threat_count[them, T_FIVE] > 0:
        # The defender's last block made a four: our move must block it and be a four.
        if caro:
            for j in range(five_defences(pos, tab, them, ts.moves, ply)):
                block = ts.moves[ply, j]
                if pos.threat[us, block] >= T_FOUR:
                    ts.moves[ply, n_forced] = block
                    n_forced += 1
            if n_forced == 0:
                return False
        else:
            if pos.threat_count[them, T_FIVE] > 1:
                return False
            forced = find_threat(pos, tab, them, T_FIVE)
            if pos.threat[us, forced] < T_FOUR:
                return False
    elif four_points(pos, us) == 0:
        return False  # no four to make: skip the scan of the board
    key = pos.key[0]
    slot = _table_slot(key, ts.tt_key.shape[0])
    if ts.tt_key[slot] == key and ts.tt_depth[slot] >= depth:
        return False
    if forced >= 0:
        ts.moves[ply, 0] = forced
        n = 1
    elif n_forced > 0:
        n = n_forced
    else:
        n = _attacker_moves(pos, tab, ts, ply, us, T_FOUR)
    for i in range(n):
        move = ts.moves[ply, i]
        make_move(pos, tab, move)
        if pos.threat_count[them, T_FIVE] > 0:  # the defender makes five instead
            unmake_move(pos, tab)
            continue
        five = find_threat_near(pos, tab, us, T_FIVE, move)
        if caro and five < 0:
            unmake_move(pos, tab)  # (a four always has a five point: never)
            continue
        if caro:
            # every block of the four (its five point, the point past its open end):
            # the four wins only if each loses
            blocks = five_defences(pos, tab, us, ts.moves, ply + 1)
            if blocks == 0:
                ts.moves[ply + 1, 0] = five  # nothing stops it: any reply, then five
                blocks = 1
            elif depth == 1:
                unmake_move(pos, tab)  # stopped, and no four left to make: as below
                continue
            won = False
            block = five
            for j in range(blocks):
                block = ts.moves[ply + 1, j]
                make_move(pos, tab, block)
                won = vcf(pos, tab, ts, depth - 1, ply + 2)
                unmake_move(pos, tab)
                if not won or ts.counters[ABORTED]:
                    break
            unmake_move(pos, tab)
            if won and ts.counters[ABORTED] == 0:
                _record(ts, ply, move)
                _record(ts, ply + 1, block)  # the last block searched: its line is below
                return True
            if ts.counters[ABORTED]:
                return False
            continue
        block = _forced_block(pos, tab, them, five)
        if depth == 1 and block == five and pos.threat_count[us, T_FIVE] == 1:
            # The last four, and its block leaves no five point: the leaf below would say
            # so.  Most VCF nodes are such leaves; this saves a make/unmake pair for each.
            unmake_move(pos, tab)
            continue
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
def solve_vcf(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int) -> bool:
    """:func:`vcf`, called from Python: the arrays go to the recursion without numba's
    reference counting (see :func:`gomoku_engine.core.jit.unmanaged`)."""
    return vcf(unmanaged(pos), unmanaged(tab), unmanaged(ts), depth, ply)


@njit
def _new_stamp(ts: ThreatState) -> int:
    """A fresh value for ``ts.mark``: a point is marked when its entry equals it (no clearing)."""
    ts.counters[STAMP] += 1
    return ts.counters[STAMP]


@njit
def _mark_line_defences(pos: Position, tab: Tables, ts: ThreatState, start: int, end: int,
                        stamp: int) -> None:
    """Mark (``ts.mark[cell] = stamp``) the points where the side to move can break the
    opponent's VCF ``ts.line[start:end]`` (the opponent to move in that line, ending with its
    five; the board as now).

    After quintet's ``VCTState::threat_defences`` (renju-note/quintet, src/mate/vct/state.rs):
    a stone elsewhere leaves every four of the line a four and every block forced, so the
    line still wins, unless the stone

    * is a point of the line (marked: all of them);
    * turns one of our forced blocks into a four or five of ours (a counter-four): marked are
      the points on a block's four lines where our stone makes a four or five there, looked
      at with the line played up to that block;
    * renju, we are black and the line ends in a four whose block is a foul for black:
      marked are the points within five cells of that block on its lines (a black stone
      there may make it legal).

    Our own fours are not marked here: the callers add them.  The board is restored.
    """
    us = pos.state[TO_MOVE] - 1
    them = 1 - us
    for i in range(start, end):
        ts.mark[ts.line[i]] = stamp
    pass_move(pos, tab)
    played = 0
    for i in range(start, end - 1):  # the last move is the five: nothing to answer
        move = ts.line[i]
        make_move(pos, tab, move)
        played += 1
        if (i - start) % 2 == 0:
            if tab.params[P_CARO] != 0:
                # every block of this four breaks the line (the point past its open end
                # as well as its five point)
                # (the caller's move row start - 1 is free until it lists its moves)
                if pos.threat_count[them, T_FIVE] > 0:
                    for j in range(five_defences(pos, tab, them, ts.moves, start - 1)):
                        ts.mark[ts.moves[start - 1, j]] = stamp
            if us == 0:
                block = find_threat_near(pos, tab, them, T_FIVE, move)
                if block >= 0 and pos.foul[block] != 0:
                    for d in range(4):
                        step = tab.directions[d]
                        for k in range(-5, 6):
                            other = block + k * step
                            if pos.cells[other] == EMPTY:
                                ts.mark[other] = stamp
        else:
            for d in range(4):
                step = tab.directions[d]
                for k in range(-4, 5):
                    other = move + k * step
                    if k != 0 and pos.cells[other] == EMPTY:
                        p = pattern_at(pos, us, other, d)
                        if p == FOUR or p == OPEN_FOUR or p == FIVE:
                            ts.mark[other] = stamp
    for _ in range(played):
        unmake_move(pos, tab)
    pass_move(pos, tab)


@njit(inline="always")
def _order_score(pos: Position, killer: int, side: int, cell: int) -> int:
    """Sort key of :func:`_sort_by_score`: the killer first, then ``side``'s threat class,
    then the evaluation's attack plus defence priority."""
    if cell == killer:
        return np.int64(1) << 40
    return (np.int64(pos.threat[side, cell]) << 32) + point_priority(pos, side, cell)


@njit
def _sort_by_score(pos: Position, ts: ThreatState, ply: int, n: int, side: int) -> None:
    """Order ``ts.moves[ply, :n]`` by ``side``'s threat class, then by both colours' point
    values, strongest first (insertion sort: the lists are short); the ply's killer (the
    move that last won, or refuted, at this ply: siblings often share it) goes first."""
    buf = ts.moves[ply]
    killer = ts.killer[ply]
    for i in range(1, n):
        cell = buf[i]
        score = _order_score(pos, killer, side, cell)
        j = i
        while j > 0 and _order_score(pos, killer, side, buf[j - 1]) < score:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = cell


@njit
def _vct_probe(ts: ThreatState, key: np.uint64, depth: int) -> bool:
    """True if the table proves "no VCT within ``depth``" for the attacker to move."""
    slot = _table_slot(key, ts.vct_key.shape[0])
    return ts.vct_key[slot] == key and ts.vct_depth[slot] >= depth


@njit
def _vct_store(ts: ThreatState, key: np.uint64, depth: int) -> None:
    slot = _table_slot(key, ts.vct_key.shape[0])
    ts.vct_key[slot] = key
    ts.vct_depth[slot] = min(depth, 127)


@njit
def _has_potential(pos: Position, tab: Tables, cell: int, side: int) -> bool:
    """Whether a quiet move (no four, no open three) of ``side`` on ``cell`` may be a VCT
    threat: quintet's "potential" of the point reaches 3 (4 for renju black), where a line
    on which the stone makes a two counts 2 and one where it makes a three counts 3
    (renju-note/quintet, src/mate/vct/field.rs and state.rs ``potentials``).  So a closed
    three alone qualifies (a four and then more fours may follow: fukumi moves), and two
    twos on two lines; a single two does not."""
    total = 0
    for d in range(4):
        p = pattern_at(pos, side, cell, d)
        if p == TWO or p == OPEN_TWO:
            total += 2
        elif p == THREE:
            total += 3
    need = 4 if (side == 0 and tab.params[P_RENJU] != 0) else 3
    return total >= need


@njit
def _children(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
              defending: bool) -> int:
    """The moves of a VCT node, as :func:`vct` defines them, into ``ts.moves[ply]``.

    Returns their number (at least 1), or ``NO_WIN`` (0: the attacker has no win here) or
    ``WON`` (-1: the attacker wins by a five or a VCF, its line at ``ts.line[ply:]``).  The
    children of an attacker node are defender nodes with one threat less (``depth - 1``),
    those of a defender node attacker nodes with ``depth``.
    """
    buf = ts.moves[ply]
    if not defending:
        us = pos.state[TO_MOVE] - 1
        them = 1 - us
        if _five_now(pos, tab, ts, us, ply):
            return WON
        if depth <= 0 or ply + 3 >= MAX_LINE:
            return NO_WIN
        if pos.threat_count[them, T_FIVE] > 0:
            if tab.params[P_CARO] != 0:  # its blocks (NO_WIN: none)
                return five_defences(pos, tab, them, ts.moves, ply)
            if pos.threat_count[them, T_FIVE] > 1:
                return NO_WIN
            block = find_threat(pos, tab, them, T_FIVE)
            if us == 0 and pos.foul[block] != 0:
                return NO_WIN  # renju: black cannot block
            buf[0] = block
            return 1
        if vcf(pos, tab, ts, depth, ply):
            return WON
        if ts.counters[ABORTED] or depth == 1:
            return NO_WIN
        restrict = -1
        pass_move(pos, tab)
        threatened = vcf(pos, tab, ts, np.int64(DEFENDER_VCF_DEPTH), ply + 1)
        pass_move(pos, tab)
        if ts.counters[ABORTED]:
            return NO_WIN
        if threatened:
            restrict = _new_stamp(ts)
            _mark_line_defences(pos, tab, ts, ply + 1, ts.counters[LINE_LEN], restrict)
        n = 0
        for cell in tab.points:
            if pos.cells[cell] != EMPTY or (us == 0 and pos.foul[cell] != 0):
                continue
            t = pos.threat[us, cell]
            if t >= T_FIVE:
                continue
            if t < T_FOUR:
                if restrict >= 0 and ts.mark[cell] != restrict:
                    continue
                if t < T_OPEN_THREE and not _has_potential(pos, tab, cell, us):
                    continue
            buf[n] = cell
            n += 1
        _sort_by_score(pos, ts, ply, n, us)
        return n

    defender = pos.state[TO_MOVE] - 1
    attacker = 1 - defender
    if pos.threat_count[defender, T_FIVE] > 0:
        return NO_WIN
    if pos.threat_count[attacker, T_FIVE] > 0:
        if tab.params[P_CARO] != 0:  # every block; with none, any move and the five
            n = five_defences(pos, tab, attacker, ts.moves, ply)
            if n == 0:
                buf[0] = find_threat(pos, tab, attacker, T_FIVE)
                n = 1
            return n
        buf[0] = _forced_block(pos, tab, defender, find_threat(pos, tab, attacker, T_FIVE))
        return 1
    if depth <= 0:
        return NO_WIN
    pass_move(pos, tab)
    threat = vcf(pos, tab, ts, np.int64(min(depth, ts.counters[THREAT_LIMIT])), ply + 1)
    pass_move(pos, tab)
    if not threat or ts.counters[ABORTED]:
        return NO_WIN
    stamp = _new_stamp(ts)
    _mark_line_defences(pos, tab, ts, ply + 1, ts.counters[LINE_LEN], stamp)
    if vcf(pos, tab, ts, np.int64(DEFENDER_VCF_DEPTH), ply) or ts.counters[ABORTED]:
        return NO_WIN
    n = 0
    for cell in tab.points:
        if pos.cells[cell] != EMPTY or (defender == 0 and pos.foul[cell] != 0):
            continue
        if ts.mark[cell] == stamp or pos.threat[defender, cell] >= T_FOUR:
            buf[n] = cell
            n += 1
    if n == 0:
        for cell in tab.points:
            if pos.cells[cell] == EMPTY and pos.foul[cell] == 0:
                buf[0] = cell
                n = 1
                break
    _sort_by_score(pos, ts, ply, n, defender)
    return n


@njit(inline="always")
def _pn_key(pos: Position, tab: Tables, cell: int, depth: int, defending: bool) -> np.uint64:
    """Table key of the node reached by playing ``cell`` (-1: this node): the position's
    Zobrist key, salted by the node kind and its depth (a node is proven per depth)."""
    key = pos.key[0]
    if cell >= 0:
        key ^= tab.zobrist[pos.state[TO_MOVE], cell] ^ tab.zobrist[0, 0]
    salt = DEFENDER_SALT if defending else VCT_KEY_SALT
    return key ^ salt ^ (np.uint64(depth + 1) * np.uint64(0xD6E8FEB86659FD93))


@njit(inline="always")
def _pn_index(ts: ThreatState, key: np.uint64) -> int:
    """The row of ``ts.pn_table`` where the entry with ``key`` lives (always replaced)."""
    return np.int64(key & np.uint64(ts.pn_table.shape[0] - 1))


@njit
def _pn_store(ts: ThreatState, key: np.uint64, pn: int, dn: int, move: int) -> None:
    entry = ts.pn_table[_pn_index(ts, key)]
    entry[PN_KEY] = np.int64(key)
    entry[PN_PN] = pn
    entry[PN_DN] = dn
    entry[PN_MOVE] = move


@njit(inline="always")
def _pn_slot(ts: ThreatState, key: np.uint64) -> int:
    """Slot of the proof-number entry with ``key``, or -1 if the table does not hold it."""
    slot = _pn_index(ts, key)
    return slot if ts.pn_table[slot, PN_KEY] == np.int64(key) else -1


@njit
def _cached_children(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
                     defending: bool, key: np.uint64) -> int:
    """:func:`_children` of the node with table key ``key``, from ``ts.child_*`` when this
    node's list was worked out before (a list of moves depends only on the position, the
    node kind and the depth, which the key covers)."""
    slot = key & np.uint64(ts.child_key.shape[0] - 1)
    if ts.child_key[slot] == key:
        n = np.int64(ts.child_n[slot])
        for i in range(n):
            ts.moves[ply, i] = ts.child_moves[slot, i]
        return n
    n = _children(pos, tab, ts, depth, ply, defending)
    if 0 < n <= MAX_CACHED_CHILDREN and ts.counters[ABORTED] == 0:
        ts.child_key[slot] = key
        ts.child_n[slot] = n
        for i in range(n):
            ts.child_moves[slot, i] = ts.moves[ply, i]
    return n


# Without reference counting, as :func:`vcf` (the depth-first ``vct`` below allocates a
# saved line, so it keeps the counting).
@njit(_nrt=False)
def vct_dfpn(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
             defending: bool, th_pn: int, th_dn: int) -> int:
    """Depth-first proof-number search (Nagai 2002) of the VCT defined in :func:`vct`.

    Searches until the node's proof number reaches ``th_pn`` or its disproof number
    ``th_dn`` (``PN_INF`` both: until proven or disproven), and returns ``pn << 32 | dn``;
    every node's numbers are kept in ``ts.pn_table`` (keyed by position, node
    kind and depth), with the winning move of a proven attacker node.  Unlike the
    depth-first :func:`vct`, an attacker node works on its most promising move and need
    not refute the others first: this is how quintet proves its long VCT benchmarks
    (renju-note/quintet, src/mate/vct/solver/dfpns.rs, traverser/dfpns.rs, selector.rs).
    As there, a new child of an attacker node starts at pn = number of attacker moves,
    dn = 1, a new child of a defender node at pn = 1, dn = number of replies: wide nodes
    look harder to prove (or disprove), which steers the search to narrow, forcing lines.

    Self-recursive for numba's cache (see :func:`vct`); call with non-literal arguments.
    """
    key = _pn_key(pos, tab, np.int64(-1), depth, defending)
    if _count_node(ts):
        return (np.int64(1) << 32) | 1
    n = _cached_children(pos, tab, ts, depth, ply, defending, key)
    if n == WON:
        _pn_store(ts, key, 0, PN_INF, -1)
        return np.int64(PN_INF)
    if n == NO_WIN or ts.counters[ABORTED]:
        if ts.counters[ABORTED] == 0:
            _pn_store(ts, key, PN_INF, 0, -1)
        return np.int64(PN_INF) << 32
    child_depth = depth if defending else depth - 1
    pns = ts.pn_child[ply]
    dns = ts.dn_child[ply]
    for i in range(n):
        slot = _pn_slot(ts, _pn_key(pos, tab, ts.moves[ply, i], child_depth, not defending))
        if slot >= 0:
            pns[i] = ts.pn_table[slot, PN_PN]
            dns[i] = ts.pn_table[slot, PN_DN]
        elif not defending:
            pns[i] = n
            dns[i] = 1
        else:
            pns[i] = 1
            dns[i] = n
    pn = 1
    dn = 1
    best = 0
    while True:
        # OR node (attacker): pn = min, dn = sum; AND node (defender): the other way round.
        best = 0
        low = PN_INF + 1
        second = PN_INF + 1
        total = 0
        for i in range(n):
            summed = dns[i] if not defending else pns[i]
            least = pns[i] if not defending else dns[i]
            # PN_INF means settled: a sum of large but finite numbers stops one short
            # of it.  (It used to saturate to PN_INF, which ended the search as if the
            # node were settled, and a root with dn = PN_INF but pn > 0 was reported
            # as "no VCT": seen on bench_vct_unstable, whose dn sums pass 2**30.)
            if summed >= PN_INF or total >= PN_INF:
                total = PN_INF
            else:
                total = min(PN_INF - 1, total + summed)
            if least < low:
                second = low
                low = least
                best = i
            elif least < second:
                second = least
        second = min(second, PN_INF)
        if not defending:
            pn = pns[best]
            dn = total
        else:
            pn = total
            dn = dns[best]
        if pn >= th_pn or dn >= th_dn or pn == 0 or dn == 0:
            break
        if not defending:
            c_pn = min(th_pn, second + 1)
            c_dn = min(PN_INF, th_dn - dn + dns[best])
        else:
            c_dn = min(th_dn, second + 1)
            c_pn = min(PN_INF, th_pn - pn + pns[best])
        move = ts.moves[ply, best]
        make_move(pos, tab, move)
        r = vct_dfpn(pos, tab, ts, child_depth, ply + 1, not defending, c_pn, c_dn)
        unmake_move(pos, tab)
        pns[best] = r >> 32
        dns[best] = r & 0xFFFFFFFF
        if ts.counters[ABORTED]:
            return (np.int64(pn) << 32) | dn
    _pn_store(ts, key, pn, dn, ts.moves[ply, best] if pn == 0 else -1)
    return (np.int64(pn) << 32) | dn


@njit
def vct(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
        defending: bool) -> bool:
    """True if the attacker wins by at most ``depth`` threats, then a five.

    A *threat* is a four, or any move after which the attacker, were it to move again, would
    win by a VCF of at most ``ts.counters[THREAT_LIMIT]`` fours (``THREAT_DEPTH`` unless
    a pass of :func:`solve_vct` narrows it; an open three, a double three, and the
    quiet moves that build a short VCF, such as quintet's "fukumi" moves).  This is the
    threat definition of quintet's VCT solver (renju-note/quintet, src/mate/vct/:
    ``generator.rs``, ``state.rs``), reimplemented:

    * attacker node (``defending`` False): five, forced block of the defender's four, VCF
      (``depth`` fours), then every candidate threat: fours, open and double threes, and the
      quiet points whose potential allows a threat (:func:`_has_potential`).  If the defender would
      have a VCF of at most ``DEFENDER_VCF_DEPTH`` fours after a pass, only moves that may
      break it (its points, see :func:`_mark_line_defences`) and fours are tried.  A table
      (``ts.vct_key``/``vct_depth``) keeps positions proven to have no VCT within a depth.
    * defender node (``defending`` True): the defender's five refutes; the attacker's five
      point forces the block.  Otherwise the attacker's threat is found by a VCF after a
      pass (none: the attacker made no threat, no win); a defender VCF refutes; the
      defender's candidate replies are the points that may break the attacker's threat
      line (:func:`_mark_line_defences`) and the defender's fours, and the attacker must win
      after every one of them.

    With ``defending`` True the defender is to move, answering the attacker's last threat.
    On True, ``ts.line[ply:ts.counters[LINE_LEN]]`` is one winning line (its defender moves
    are the first replies tried; every other candidate reply was proven to lose too).

    One self-recursive function rather than two mutually recursive ones: numba's on-disk
    cache crashes on mutual recursion.  Callers in jitted code must pass non-literal
    arguments (``np.int64(0)``, a computed bool), for the same reason.
    """
    if _count_node(ts):
        return False
    key = pos.key[0] ^ VCT_KEY_SALT
    if not defending and _vct_probe(ts, key, depth):
        return False
    n = _children(pos, tab, ts, depth, ply, defending)
    if n == WON:
        return True
    if n == NO_WIN:
        if not defending and ts.counters[ABORTED] == 0:
            _vct_store(ts, key, depth)
        return False
    if not defending:
        for i in range(n):
            move = ts.moves[ply, i]
            make_move(pos, tab, move)
            won = vct(pos, tab, ts, depth - 1, ply + 1, not defending)
            unmake_move(pos, tab)
            if won:
                _record(ts, ply, move)
                ts.killer[ply] = move
                return True
            if ts.counters[ABORTED]:
                return False
        _vct_store(ts, key, depth)
        return False
    first = -1
    saved = np.empty(0, np.int32)
    for i in range(n):
        reply = ts.moves[ply, i]
        make_move(pos, tab, reply)
        won = vct(pos, tab, ts, depth, ply + 1, not defending)
        unmake_move(pos, tab)
        if not won:
            if ts.counters[ABORTED] == 0:
                ts.killer[ply] = reply
            return False
        if first < 0:
            first = reply
            saved = ts.line[ply + 1:ts.counters[LINE_LEN]].copy()
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
    elif tab.params[P_CARO] != 0:
        # caro: every block of the four (its five point, the point past its open end) must
        # leave us a safe move (the block of a four of theirs, or with fours left any
        # move); none at all: we win.  (Inline: a mutually recursive kernel crashes when
        # numba loads it back from its cache.)
        blocks = np.empty((1, MAX_DEFENCES), np.int32)
        replies = np.empty((1, MAX_DEFENCES), np.int32)
        safe = True
        for i in range(five_defences(pos, tab, us, blocks, 0)):
            make_move(pos, tab, blocks[0, i])
            held = False
            if pos.threat_count[them, T_FIVE] > 0:
                for j in range(five_defences(pos, tab, them, replies, 0)):
                    if _leaves_no_vcf(pos, tab, ts, np.int64(replies[0, j]), depth, nodes,
                                      fours, total):
                        held = True
                        break
            elif fours > 0:
                for other in tab.points:
                    if (pos.cells[other] == EMPTY and pos.near[other] != 0
                            and _leaves_no_vcf(pos, tab, ts, np.int64(other), depth, nodes,
                                               np.int64(fours - 1), total)):
                        held = True
                        break
            unmake_move(pos, tab)
            if not held:
                safe = False
                break
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
                 depth: int, nodes_each: int, nodes_total: int,
                 safe: npt.NDArray[np.int8]) -> int:
    """Which of our ``candidates`` leave the opponent no VCF?  (The root move filter.)

    Each candidate cell (int32[n], flat cells; occupied ones are skipped) is judged by
    :func:`_leaves_no_vcf` with ``nodes_each`` solver nodes per question, at most what is
    left of ``nodes_total`` (what a move's node cap, ``INFO max_node``, leaves the filter);
    proven-safe ones get ``safe[cell] = 1`` (int8[n_cells]).  Stops early when the
    deadline (``ts.counters[DEADLINE]``) passes, the stop flag is set or ``nodes_total`` is
    spent (a four's questions after its block may each take the candidate's budget, so
    the total can pass ``nodes_total`` by a few of them).  Returns the number of safe
    moves; ``ts.counters[NODES]`` then holds the total solver nodes.
    """
    pos, tab, ts = unmanaged(pos), unmanaged(tab), unmanaged(ts)  # (called from Python)
    c = ts.counters
    total = np.zeros(1, np.int64)
    count = 0
    for i in range(candidates.shape[0]):
        cell = candidates[i]
        if pos.cells[cell] != EMPTY or safe[cell] != 0:
            continue
        nodes = min(nodes_each, nodes_total - total[0])
        if nodes <= 0:
            break
        if _leaves_no_vcf(pos, tab, ts, np.int64(cell), depth, nodes, np.int64(1), total):
            safe[cell] = 1
            count += 1
        if atomic_load(ts.stop) != 0 or (c[DEADLINE] != 0 and monotonic_ns() >= c[DEADLINE]):
            break
    c[NODES] = total[0]
    return count


@njit
def _proven_child(pos: Position, tab: Tables, ts: ThreatState, n: int, ply: int,
                  child_depth: int, defending: bool) -> int:
    """The first of ``ts.moves[ply, :n]`` whose node the table holds as proven, or -1."""
    for i in range(n):
        slot = _pn_slot(ts, _pn_key(pos, tab, ts.moves[ply, i], child_depth, not defending))
        if slot >= 0 and ts.pn_table[slot, PN_PN] == 0:
            return ts.moves[ply, i]
    return -1


@njit
def vct_line(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int) -> None:
    """After :func:`vct_dfpn` proved the root, write a winning line to ``ts.line[ply:]``
    (``ts.counters[LINE_LEN]`` its end) by following proven table entries: at attacker
    nodes the stored winning move, at defender nodes the first proven reply.  A node whose
    entries were overwritten is proven again; the line ends early only if that runs out
    of time (it then still starts with a winning move)."""
    pos, tab, ts = unmanaged(pos), unmanaged(tab), unmanaged(ts)  # (called from Python)
    played = 0
    defending = False
    d = depth
    p = ply
    retried = False
    while True:
        key = _pn_key(pos, tab, np.int64(-1), d, defending)
        n = _cached_children(pos, tab, ts, d, p, defending, key)
        if n == WON:
            break  # _children wrote the five or the VCF from p on
        ts.counters[LINE_LEN] = p
        if n == NO_WIN:
            break
        child_depth = d if defending else d - 1
        move = -1
        if not defending:
            slot = _pn_slot(ts, key)
            if slot >= 0 and ts.pn_table[slot, PN_PN] == 0:
                move = ts.pn_table[slot, PN_MOVE]
        if move < 0:
            move = _proven_child(pos, tab, ts, n, p, child_depth, defending)
        if move < 0 and not retried:
            # The entries of this proven node were overwritten by later ones (the table
            # holds fewer entries than a long proof has nodes): prove it again, then read.
            retried = True
            vct_dfpn(pos, tab, ts, np.int64(d), np.int64(p), defending, np.int64(PN_INF),
                     np.int64(PN_INF))
            continue
        if move < 0:
            break
        retried = False
        _record(ts, p, move)
        ts.counters[LINE_LEN] = p + 1
        make_move(pos, tab, move)
        played += 1
        p += 1
        d = child_depth
        defending = not defending
    for _ in range(played):
        unmake_move(pos, tab)


@njit
def _vct_root(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int,
              defending: bool, th_pn: int, th_dn: int) -> int:
    """:func:`vct_dfpn` called from Python (see :func:`solve_vcf`).  Every argument comes
    from Python: a literal one (``False``) would make numba compile a second, mutually
    recursive specialisation of the kernel, which crashes once loaded from the cache."""
    return vct_dfpn(unmanaged(pos), unmanaged(tab), unmanaged(ts), depth, ply, defending,
                    th_pn, th_dn)


def solve_vct(pos: Position, tab: Tables, ts: ThreatState, depth: int, ply: int = 0) -> bool:
    """:func:`vct_dfpn` for the side to move, then its winning line into ``ts.line[ply:]``
    (a plain Python entry point, see vct's note).

    Runs the passes of ``VCT_PASSES`` until one proves the win or the budget runs out.
    Each pass starts afresh (its tables cleared: proof numbers are estimates of one
    search, and a node is kept per depth).  Passes at a few depths, not a deepening by one
    threat at a time, which took several times longer on quintet's long VCT benchmarks
    (bench_vct_white: proven at depth 16 in 4.2 s, not proven by deepening within 20 s).
    """
    c = ts.counters
    result = np.int64(PN_INF) << 32
    done: set[tuple[int, int]] = set()
    try:
        for most, limit in VCT_PASSES:
            d = depth if most is None else min(most, depth)
            if (d, limit) in done:
                continue
            done.add((d, limit))
            c[THREAT_LIMIT] = limit
            ts.pn_table[:, PN_KEY] = 0
            ts.child_key[:] = 0
            result = _vct_root(pos, tab, ts, d, ply, False, PN_INF, PN_INF)
            if result >> 32 == 0 or c[ABORTED]:
                break
        if result >> 32 != 0:
            return False
        # The line is read with the proving pass's depth and threat limit.  The deadline
        # stays: in a timed move a cut-short line is better than a late move (its first
        # move is still a proven win).
        node_limit = c[NODE_LIMIT]
        c[NODE_LIMIT], c[ABORTED] = 2**62, 0
        vct_line(pos, tab, ts, d, ply)
        c[NODE_LIMIT] = node_limit
        return bool(c[LINE_LEN] > ply)  # (always: the root entry was just stored)
    finally:
        c[THREAT_LIMIT] = THREAT_DEPTH
