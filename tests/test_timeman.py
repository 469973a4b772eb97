"""Time budgets from the protocol's INFO keys (docs/protocol.md section 5), and games played
on a simulated clock: the budgets of every move, charged as the protocol charges them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gomoku_engine.search.timeman import (FAST_MOVE_MS, FAST_SOFT_MS, MATCH_SPACE,
                                          MAX_PER_OPTIMUM, MIN_HARD_MS, MOVES_TO_GO_MIN, SOFT_SHARE,
                                          TURN_SOFT_SHARE, UNLIMITED,
                                          TimeControl, moves_to_go)

#: ways a move may use its budget: the soft budget, the hard one (the most it can take),
#: and twice the soft (the search's largest time factor), capped by the hard
USES = {"soft": lambda soft, hard: soft, "hard": lambda soft, hard: hard,
        "twice soft": lambda soft, hard: min(hard, 2 * soft)}


def play(clock: TimeControl, moves: int, use, first_ply: int = 4) -> list[tuple[float, float, int]]:
    """Our ``moves`` moves of a game from ``first_ply`` stones (the opponent's between
    them), each taking ``use(soft, hard)`` ms and charged to ``clock``; returns each move's
    ``(soft, hard, time left before it)``, and asserts no move took more than was left."""
    clock.new_game()
    seen = []
    for n in range(moves):
        soft, hard = clock.budget(first_ply + 2 * n)
        left = clock.left_ms
        used = use(soft, hard)
        assert used <= left, (n, soft, hard, left)
        seen.append((soft, hard, left))
        clock.charge(used)
    return seen


# --- a turn limit only -------------------------------------------------------------------
@pytest.mark.parametrize("turn", [200, 1000, 5000, 30000])
def test_turn_limit_only_keeps_its_margin_and_share(turn):
    """No match clock: hard is the turn less 10% + 30 ms (at most 500), soft all of it
    (a turn's unused time is lost), whatever the ply."""
    for ply in (0, 20, 100):
        soft, hard = TimeControl(turn_ms=turn).budget(ply)
        assert hard == pytest.approx(turn - min(500, 0.1 * turn + 30))
        assert soft == pytest.approx(TURN_SOFT_SHARE * hard) == pytest.approx(hard)


def test_unlimited_match_time_is_the_turn_limit_only():
    """``timeout_match 0`` or ``time_left`` unlimited: the turn limit alone applies, and the
    clock stays unlimited however much is charged."""
    turn_only = TimeControl(turn_ms=5000).budget(30)
    assert TimeControl(turn_ms=5000, match_ms=0, left_ms=UNLIMITED).budget(30) == turn_only
    assert TimeControl(turn_ms=5000, match_ms=60_000, left_ms=UNLIMITED).budget(30) == turn_only
    clock = TimeControl(turn_ms=5000)
    play(clock, 60, USES["hard"])
    assert clock.left_ms == UNLIMITED


def test_ample_match_time_is_the_turn_limit_only():
    """A match clock that holds MOVE_HORIZON (64) turns is ample (Rapfi's rule): the
    turn limit alone applies; one that does not spreads the clock."""
    turn_only = TimeControl(turn_ms=1000).budget(30)
    assert TimeControl(turn_ms=1000, match_ms=3_600_000, left_ms=3_600_000).budget(30) == turn_only
    assert TimeControl(turn_ms=1000, match_ms=30_000, left_ms=10_000).budget(30) != turn_only


# --- timeout_turn 0 ------------------------------------------------------------------------
@pytest.mark.parametrize("clock", [TimeControl(turn_ms=0),
                                   TimeControl(turn_ms=0, match_ms=60_000, left_ms=60_000)],
                         ids=["no match clock", "match clock"])
def test_zero_turn_plays_as_fast_as_possible(clock):
    """``timeout_turn 0`` is the protocol's "play as fast as possible", with a match clock
    or without: one iteration (the soft budget ends the search after it) within a hard
    cap of FAST_MOVE_MS for the root threat search."""
    assert clock.budget(20) == (FAST_SOFT_MS, FAST_MOVE_MS)
    assert FAST_MOVE_MS <= 50


# --- a match clock -------------------------------------------------------------------------
def test_moves_to_go_shrink_from_rapfis_22_to_a_floor():
    counts = [moves_to_go(ply) for ply in range(0, 226)]
    assert counts[0] == MATCH_SPACE and counts[-1] == MOVES_TO_GO_MIN
    assert all(a >= b for a, b in zip(counts, counts[1:]))


@pytest.mark.parametrize("use", list(USES), ids=list(USES))
def test_a_long_game_never_runs_out_and_keeps_a_small_reserve(use):
    """60 moves of ours on a 30 s clock with a 5 s turn: no move's hard budget passes the
    turn less its margin or the time left less the reserve (3 s: a tenth), and the clock
    ends with about that reserve, whether every move takes its soft budget, twice it, or
    its hard budget; a move that stalls a second past its hard budget at any point still
    leaves at least 2 s."""
    clock = TimeControl(turn_ms=5000, match_ms=30_000)
    assert clock.reserve() == 3000
    seen = play(clock, 60, USES[use])
    assert all(hard <= 4500 and hard <= max(MIN_HARD_MS, left - 3000) for _, hard, left in seen)
    assert all(left - hard - 1000 >= 2000 - 60 * MIN_HARD_MS for _, hard, left in seen)
    assert 3000 - 60 * MIN_HARD_MS <= clock.left_ms <= 3000 + 0.05 * 30_000, clock.left_ms


@pytest.mark.parametrize("moves", [20, 25, 30])
def test_a_game_of_usual_length_uses_most_of_the_clock(moves):
    """Games of 40 to 60 plies (this project's median is about 47): moves taking about
    1.3 soft budgets (the search starts no iteration past the soft budget times its
    factor, 0.85 to 2) use 65-95% of a 30 s clock.  The version before spent a share of
    1/16 to 1/50 of the time left (0.6 of it soft), about 30% of such a clock."""
    clock = TimeControl(turn_ms=5000, match_ms=30_000)
    play(clock, moves, lambda soft, hard: min(hard, 1.3 * soft))
    used = 1 - clock.left_ms / 30_000
    assert 0.65 <= used <= 0.95, used


def test_the_opening_gets_rapfis_share_of_the_clock():
    """The first moves get the time left less the reserve over MATCH_SPACE (22) moves as
    the soft budget, and as the hard one at most twice that (MAX_PER_OPTIMUM), below the
    time left over 7 (Rapfi's MatchSpaceMin): 2.45 s of a 30 s clock, not 4.2 s.  Later,
    with fewer moves to go, Rapfi's bound is the one that holds."""
    clock = TimeControl(turn_ms=30_000, match_ms=30_000, left_ms=30_000)
    soft, hard = clock.budget(4)
    assert soft == pytest.approx((30_000 - 3000) / 22)
    assert hard == pytest.approx(MAX_PER_OPTIMUM * soft) and hard < (30_000 - 3000) / 7
    clock.left_ms = 20_000
    assert clock.budget(50)[1] == pytest.approx((20_000 - 3000) / 7)


def test_the_turn_limit_caps_a_match_clock():
    soft, hard = TimeControl(turn_ms=1000, match_ms=600_000, left_ms=60_000).budget(10)
    assert hard == pytest.approx(870) and soft <= SOFT_SHARE * hard


def test_increment_is_spent_and_never_before_it_arrives():
    """``time_increment``: each move may spend about one increment more (optimum and
    maximum), but never more than the time left less the reserve, since the increment
    comes after the move.  Over a long game the clock holds."""
    plain = TimeControl(turn_ms=30_000, match_ms=100_000, left_ms=13_000)
    fischer = TimeControl(turn_ms=30_000, match_ms=100_000, left_ms=13_000, increment_ms=1000)
    (soft0, hard0), (soft1, hard1) = plain.budget(40), fischer.budget(40)
    assert soft1 == pytest.approx(soft0 + 1000) and hard1 == pytest.approx(hard0 + 1000)
    tiny = TimeControl(turn_ms=30_000, match_ms=100_000, left_ms=5600, increment_ms=5000)
    assert tiny.budget(20)[1] <= 600  # the left less the reserve, whatever the increment
    clock = TimeControl(turn_ms=5000, match_ms=30_000, increment_ms=1000)
    seen = play(clock, 80, USES["hard"])
    assert all(hard < left for _, hard, left in seen)
    assert clock.left_ms > 1000  # every move could take its increment, and more


@pytest.mark.parametrize("left", [-5000, -50, 0, 200, 500])
def test_no_time_left_still_gives_a_tiny_positive_budget(left):
    """``time_left`` at or below the reserve (negative after an overrun the manager let
    pass): a move must still be made, as fast as the engine can."""
    soft, hard = TimeControl(turn_ms=5000, match_ms=30_000, left_ms=left).budget(30)
    assert 0 < soft <= hard <= MIN_HARD_MS


@given(turn=st.integers(0, 100_000), match=st.integers(0, 1_000_000),
       left=st.integers(-10_000, 1_000_000), increment=st.integers(0, 10_000),
       ply=st.integers(0, 1024))
def test_budgets_stay_within_the_limits(turn, match, left, increment, ply):
    """Any settings: ``0 < soft <= hard``; hard within the turn less its margin and, with
    a match clock, within the time left less its reserve (or MIN_HARD_MS, the least a
    move takes)."""
    clock = TimeControl(turn_ms=turn, match_ms=match, left_ms=left, increment_ms=increment)
    soft, hard = clock.budget(ply)
    assert 0 < soft <= hard
    if turn > 0:
        assert hard <= max(MIN_HARD_MS, turn - clock.margin(turn))
    if clock.match_limited() and turn > 0:
        assert hard <= max(MIN_HARD_MS, left - clock.reserve())


def test_the_clock_is_charged_with_the_increment():
    clock = TimeControl(turn_ms=5000, match_ms=60_000, increment_ms=1000)
    clock.new_game()
    assert clock.left_ms == 60_000
    clock.charge(2500.7)
    assert clock.left_ms == 58_500
    late = TimeControl(left_ms=UNLIMITED)
    late.set_match(30_000)
    assert late.left_ms == 30_000
    late.left_ms = 1000
    late.set_match(30_000)  # time_left already sent: kept
    assert late.left_ms == 1000
