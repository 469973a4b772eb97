"""Rules of the alpha-beta kernel that a side-by-side read with rapfi's search found broken
(improving at the first plies, the TT move at fail-low nodes, the TT's replacement of a
deeper entry by a shallower bound, the forced-move stop reading a previous search)."""

from __future__ import annotations

import numpy as np

from gomoku_engine.core.constants import mate_in
from gomoku_engine.core.notation import parse_moves
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.search.alphabeta import (
    NO_EVAL, TT_EXACT, TT_LOWER, TT_UPPER, _improving, _tt_probe, _tt_store,
    clear_search_state, generate_moves, search_depth,
)
from gomoku_engine.search.limits import SearchInfo
from gomoku_engine.search.params import ONE_PLY, TUNABLE

MIDGAME = "j12o10m10m12o12l9o7k7j7n6j13l11j9j11j8j6l8k8k9k6"  # the bench's "15 midgame A"


def _midgame() -> Engine:
    engine = Engine(15, hash_mb=4)
    for x, y in parse_moves(MIDGAME):
        engine.board.play(x, y)
    return engine


def test_the_first_two_plies_count_as_improving():
    """No evaluation two plies up at ply 0 and 1: improving (Stockfish); from ply 2 on the
    evaluation two plies up decides."""
    ss = _midgame()._state
    ss.eval_stack[:3] = (500, -400, 300)
    assert _improving(ss, 0, -10_000) and _improving(ss, 1, -10_000)
    assert _improving(ss, 2, 600) and not _improving(ss, 2, 400)
    assert not _improving(ss, 3, -500)


def _fail_low_root(**params: float) -> tuple[np.void, int, set[int]]:
    """The midgame's TT entry after a depth-4 search where every move fails low (alpha far
    above any evaluation, below the mate scores), the entry first holding the last
    candidate by move order as its move: (the entry, that move, the candidates)."""
    engine = _midgame()
    engine.set_params(params)
    ss, ts = engine._state, engine._threats
    pos, tab = engine.board.position, engine.board.tables
    clear_search_state(ss)
    n = generate_moves(pos, tab, ss, 0, -1, 32)
    weakest = int(ss.move_buf[0, n - 1])
    key = pos.key[0]
    _tt_store(ss, key, weakest, 0, NO_EVAL, ONE_PLY, TT_UPPER)
    alpha = 500_000
    assert search_depth(pos, tab, ss, ts, 4, alpha, alpha + 1) <= alpha
    return ss.tt[_tt_probe(ss, key)], weakest, {int(m) for m in ss.move_buf[0, :n]}


def test_a_fail_low_node_keeps_its_tt_move():
    """Every move fails low: none is the node's move, so the entry keeps the TT move it
    had, even when another move's upper bound is higher."""
    e, weakest, _ = _fail_low_root()
    assert e["depth"] == 4 * ONE_PLY and e["flag"] == TT_UPPER
    assert e["move"] == weakest


def test_with_fail_low_move_a_fail_low_node_stores_its_highest_upper_bound():
    """The tunable fail_low_move 1 brings back the earlier rule: the move of the highest
    upper bound replaces the TT move (it solves more of the shared defences)."""
    e, weakest, candidates = _fail_low_root(fail_low_move=1)
    assert e["flag"] == TT_UPPER and e["move"] != weakest and int(e["move"]) in candidates


def test_a_shallower_bound_does_not_replace_a_deeper_entry_of_the_same_position():
    ss = _midgame()._state
    clear_search_state(ss)
    key = np.uint64(0x1234_5678_9ABC_DEF1)
    _tt_store(ss, key, 40, 700, 100, 10 * ONE_PLY, TT_LOWER)
    _tt_store(ss, key, 41, -300, 100, 2 * ONE_PLY, TT_UPPER)  # 8 plies shallower: dropped
    e = ss.tt[_tt_probe(ss, key)]
    assert (e["move"], e["score"], e["depth"], e["flag"]) == (40, 700, 10 * ONE_PLY, TT_LOWER)
    _tt_store(ss, key, 42, 650, 100, 9 * ONE_PLY, TT_UPPER)  # nearly as deep: replaces
    assert ss.tt[_tt_probe(ss, key)]["move"] == 42
    _tt_store(ss, key, 43, 10, 100, ONE_PLY, TT_EXACT)  # an exact score always replaces
    e = ss.tt[_tt_probe(ss, key)]
    assert (e["move"], e["depth"], e["flag"]) == (43, ONE_PLY, TT_EXACT)


def test_a_forced_block_at_the_root_stops_the_iterations_after_a_wide_search():
    """The forced-move stop reads this search's root, not the previous search's count."""
    engine = _midgame()
    engine.search(Limits(depth=3, threats=False))  # a root of many candidates
    engine.new_game()
    # black h8 i8 j8 k8 (l8 white's), white h9 i9 j9, black's last stone far away: white
    # to move must block black's four at g8
    for x, y in ((7, 7), (7, 8), (8, 7), (8, 8), (9, 7), (9, 8), (10, 7), (11, 7), (3, 3)):
        engine.board.play(x, y)
    result = engine.search(Limits(depth=12, threats=False))
    assert result.move == (6, 7)
    # forced from the first iteration: forced_iterations more, not the depth limit
    assert result.depth == 1 + TUNABLE["forced_iterations"].default


# Black (to move) has one candidate, the block at c10, after which a forced win of 11 plies
# is there (Rapfi at 2,000,000 nodes proves it too); from a node-capped game against Rapfi.
FORCED_WIN = [(3, 6), (4, 8), (4, 10), (3, 9), (5, 7), (5, 9), (3, 7), (4, 9), (6, 9), (5, 8),
              (6, 7), (4, 7), (6, 8), (6, 6), (6, 10), (6, 11), (4, 6), (1, 9)]


def _forced_win() -> Engine:
    engine = Engine(15, hash_mb=16)
    for x, y in FORCED_WIN:
        engine.board.play(x, y)
    return engine


def test_a_forced_move_is_searched_on_until_its_score_is_known():
    """A root of one candidate is searched a few iterations past the first (rapfi's singular
    root) rather than played after two plies with the evaluation's score: here the forced
    block wins by force, and the score says so (two plies score it +22,171)."""
    engine = _forced_win()
    result = engine.search(Limits(depth=60, nodes=320_000))
    assert result.move == (2, 9)
    assert mate_in(result.score) == 11
    assert result.depth <= 1 + TUNABLE["forced_iterations"].default
    assert result.nodes < 100_000  # far below the node limit: no full search


def test_an_unlimited_search_of_a_forced_move_goes_on_until_stopped():
    """Analysis (no limit at all) is not cut short by the forced-move rule: here it is
    stopped from the iteration callback at depth 8, past 1 + forced_iterations."""
    engine = _forced_win()
    assert 1 + TUNABLE["forced_iterations"].default < 8

    def stop_at_eight(info: SearchInfo) -> None:
        if info.depth >= 8:
            engine.stop()

    result = engine.search(Limits(), on_iteration=stop_at_eight)
    assert result.move == (2, 9)
    assert result.depth == 8
