"""Time budgets from the protocol's INFO keys (../shared/protocol.md section 5)."""

from __future__ import annotations

import pytest

from gomoku_engine.search.timeman import FAST_MOVE_MS, UNLIMITED, TimeControl


def test_turn_limit_only():
    soft, hard = TimeControl(turn_ms=1000).budget(10)
    assert hard == pytest.approx(870)  # 1000 less the margin: 10% + 30 ms
    assert 0 < soft < hard < 1000


@pytest.mark.parametrize("turn", [200, 1000, 5000, 30000])
def test_hard_budget_stays_inside_the_turn(turn):
    soft, hard = TimeControl(turn_ms=turn).budget(0)
    assert soft <= hard <= turn - 30


def test_zero_turn_without_match_time_moves_fast():
    assert TimeControl(turn_ms=0).budget(20) == (FAST_MOVE_MS / 2, FAST_MOVE_MS)


def test_match_time_caps_the_turn():
    tc = TimeControl(turn_ms=30000, match_ms=180000, left_ms=4000)
    soft, hard = tc.budget(40)
    assert hard <= 4000 * 0.25
    assert soft <= hard


def test_unlimited_time_left_means_no_match_limit():
    tc = TimeControl(turn_ms=5000, match_ms=0, left_ms=UNLIMITED)
    assert tc.budget(0)[1] == pytest.approx(4500)  # the margin, 10% + 30 ms, is capped at 500


def test_negative_time_left_still_gives_a_tiny_positive_budget():
    soft, hard = TimeControl(turn_ms=5000, match_ms=100000, left_ms=-50).budget(30)
    assert 0 < soft <= hard <= 10


def test_increment_lengthens_moves_within_a_quarter_of_the_time_left():
    """INFO time_increment: the match time grows by it after every move, so each move may
    take more; never more than a quarter of what is left (the next increment is not there
    yet)."""
    plain = TimeControl(turn_ms=30000, match_ms=100000, left_ms=8000)
    fischer = TimeControl(turn_ms=30000, match_ms=100000, left_ms=8000, increment_ms=1000)
    (soft0, hard0), (soft1, hard1) = plain.budget(20), fischer.budget(20)
    # 8000 ms over 45 moves to go is 178 ms a move; with the increment 1178 ms
    assert soft1 > 3 * soft0 and hard1 > hard0
    assert hard1 <= 8000 / 4
    tiny = TimeControl(turn_ms=30000, match_ms=100000, left_ms=400, increment_ms=5000)
    assert tiny.budget(20)[1] <= 100  # a quarter of 400 ms, whatever the increment
