"""Time budgets from the protocol's INFO keys (../shared/protocol.md section 5)."""

from __future__ import annotations

import pytest

from gomoku_engine.timeman import FAST_MOVE_MS, UNLIMITED, TimeControl


def test_turn_limit_only():
    soft, hard = TimeControl(turn_ms=1000).budget(10)
    assert hard == pytest.approx(1000 - TimeControl.margin(1000))
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
    assert tc.budget(0)[1] == pytest.approx(5000 - TimeControl.margin(5000))


def test_negative_time_left_still_gives_a_tiny_positive_budget():
    soft, hard = TimeControl(turn_ms=5000, match_ms=100000, left_ms=-50).budget(30)
    assert 0 < soft <= hard <= 10
