"""Elo, LOS and SPRT arithmetic against values computed by hand."""

from __future__ import annotations

import math

import click
import pytest

from gomoku_engine.arena.match import MatchResult
from gomoku_engine.arena.referee import GameRecord, MoveRecord
from gomoku_engine.arena.report import move_time_lines
from gomoku_engine.cli.arena_commands import _parse_sprt
from gomoku_engine.arena.stats import (Sprt, elo_estimate, elo_estimate_pairs, elo_from_score,
                                 pentanomial, score_from_elo)


def test_elo_of_simple_scores():
    assert elo_from_score(0.5) == 0.0
    # 0.6: -400 * log10(1/0.6 - 1) = -400 * log10(2/3) = 70.437...
    assert elo_from_score(0.6) == pytest.approx(70.437, abs=1e-3)
    # 0.75: -400 * log10(1/3) = 190.849...
    assert elo_from_score(0.75) == pytest.approx(190.849, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.37)) == pytest.approx(0.37)


def test_estimate_60_40():
    est = elo_estimate(wins=60, losses=40, draws=0)
    assert est.elo == pytest.approx(70.437, abs=1e-3)
    # variance per game = 0.6 * 0.4 = 0.24; stderr = sqrt(0.24 / 100) = 0.04899
    # score interval 0.6 -+ 1.96 * 0.04899 = [0.50398, 0.69602]
    assert est.low == pytest.approx(elo_from_score(0.503983), abs=0.01)
    assert est.high == pytest.approx(elo_from_score(0.696017), abs=0.01)
    # LOS = (1 + erf(20 / sqrt(200))) / 2 = (1 + erf(1.41421)) / 2 = 0.97725
    assert est.los == pytest.approx(0.97725, abs=1e-5)


def test_estimate_with_draws_and_no_decisive_games():
    est = elo_estimate(wins=0, losses=0, draws=10)
    assert est.elo == 0.0 and est.los == 0.5
    with pytest.raises(ValueError):
        elo_estimate(0, 0, 0)


def test_sprt_bounds_and_llr():
    sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    # ln(0.05 / 0.95) = -2.944, ln(0.95 / 0.05) = 2.944
    assert sprt.bounds == pytest.approx((-2.9444, 2.9444), abs=1e-4)
    # W=60 L=40 D=0 and one pseudo-game of each kind: 61-41-1 over 103 games,
    # s = 61.5 / 103 = 0.597087; var = (61 (1-s)^2 + (0.5-s)^2 + 41 s^2) / 103 = 0.238146;
    # s0 = 0.5, s1 = 1/(1+10^(-1/40)) = 0.514387
    # LLR = 100 * 0.014387 * (1.194175 - 1.014387) / (2 * 0.238146) = 0.54308
    assert sprt.llr(60, 40, 0) == pytest.approx(0.54308, abs=1e-4)
    assert sprt.decision(60, 40, 0) is None
    assert sprt.decision(600, 400, 0) == "H1"
    assert sprt.decision(400, 600, 0) == "H0"
    # all wins: the pseudo-games give a variance, so the LLR is finite and positive
    assert 0 < sprt.llr(30, 0, 0) < math.inf and sprt.decision(3000, 0, 0) == "H1"


def test_sprt_short_runs_decide_nothing():
    """A short lucky run decides nothing: 7-0-1 had an LLR of 5.2 from the sample variance
    alone (a decision after eight games, 2026-11-25); with the pseudo-games it stays
    inside the bounds, and min_games holds back anything shorter.  Twice the run with more
    draws decides."""
    sprt = Sprt(elo0=0, elo1=30)
    assert sprt.bounds[0] < sprt.llr(7, 0, 1) < sprt.bounds[1]
    assert Sprt(elo0=0, elo1=30, min_games=8).decision(7, 0, 1) is None
    assert sprt.decision(14, 0, 6) == "H1"
    assert Sprt(elo0=0, elo1=30, min_games=30).decision(14, 0, 6) is None


def test_sprt_option_is_parsed():
    assert _parse_sprt("elo0=0 elo1=30 min_games=40") == Sprt(elo0=0, elo1=30, min_games=40)
    assert _parse_sprt("alpha=0.1,beta=0.1").alpha == 0.1
    with pytest.raises(click.BadParameter):
        _parse_sprt("elo2=5")
    with pytest.raises(click.BadParameter):
        _parse_sprt("min_games=many")


# --- game records ------------------------------------------------------------------------
from gomoku_engine.arena.records import read_psq, read_sgf, write_psq, write_sgf  # noqa: E402


def test_psq_round_trip():
    moves = [(7, 7, 0), (8, 8, 153), (0, 14, 12)]
    text = write_psq(moves, 15)
    assert text.splitlines()[0] == "Piskvorky 15x15, 11:11, 1"
    assert text.splitlines()[1] == "8,8,0"  # 1-based
    assert read_psq(text) == (15, 15, moves)
    with pytest.raises(ValueError):
        read_psq("8,8,0\n")


def test_sgf_round_trip():
    points = [(7, 7), (8, 8), (0, 19)]
    text = write_sgf(points, 20, black="a]b", white="c", result="B+")
    assert text.startswith("(;GM[4]FF[4]SZ[20]PB[a\\]b]PW[c]RE[B+];B[hh];W[ii];B[at]")
    assert read_sgf(text) == (20, points)


def test_pentanomial_counts_and_rejects_other_points():
    assert pentanomial([0, 0.5, 1, 1, 2, 1.5, 1]) == (1, 1, 3, 1, 1)
    with pytest.raises(ValueError):
        pentanomial([0.25])
    with pytest.raises(ValueError):
        pentanomial([2.5])


def test_pairs_estimate_and_llr_by_hand():
    # 10 pairs at 2 points, 50 at 1, 40 at 0.5... (0, 40, 50, 0, 10): pair scores 0.25 x 40,
    # 0.5 x 50, 1.0 x 10; mean (10 + 25 + 10) / 100 = 0.45;
    # variance (40 x 0.04 + 50 x 0.0025 + 10 x 0.3025) / 100 = 0.0475.  The SPRT adds one
    # pair of each kind: (1, 41, 51, 1, 11) over 105 pairs, mean 47.5 / 105,
    # variance (sum of c (p - mean)^2) / 105
    pairs = (0, 40, 50, 0, 10)
    est = elo_estimate_pairs(pairs)
    assert est.elo == pytest.approx(elo_from_score(0.45))
    margin = 1.959964 * math.sqrt(0.0475 / 100)
    assert est.low == pytest.approx(elo_from_score(0.45 - margin), abs=0.01)
    assert est.high == pytest.approx(elo_from_score(0.45 + margin), abs=0.01)
    sprt = Sprt(elo0=0, elo1=10)
    s1 = score_from_elo(10)
    counts, points = (1, 41, 51, 1, 11), (0.0, 0.25, 0.5, 0.75, 1.0)
    mean = 47.5 / 105
    var = sum(c * (p - mean) ** 2 for c, p in zip(counts, points)) / 105
    assert sprt.llr_pairs(pairs) == pytest.approx(
        100 * (s1 - 0.5) * (2 * mean - 0.5 - s1) / (2 * var))
    with pytest.raises(ValueError):
        elo_estimate_pairs((0, 0, 0, 0, 0))


def test_pairs_where_colour_decides_give_a_stronger_test_than_games():
    """Each opening won by its black side except in a few pairs that the first engine
    wins both games of: the games alone look like a coin toss with a small edge, the pairs
    show nothing but that edge, and the pair test decides where the game test cannot."""
    sprt = Sprt(elo0=0, elo1=30)
    pairs = (0, 0, 80, 0, 12)  # 80 pairs split 1-1, 12 won 2-0
    wins, losses, draws = 80 + 24, 80, 0  # the same 184 games counted one by one
    assert sprt.decision(wins, losses, draws) is None
    assert sprt.llr(wins, losses, draws) < sprt.llr_pairs(pairs)
    assert sprt.decision_pairs(pairs) == "H1"
    # pairs that are no more alike than independent games: about the same LLR (the two
    # priors differ a little: five pseudo-pairs against three pseudo-games)
    independent = (250, 0, 500, 0, 250)  # 0-2, 1-1 and 2-0 as often as two coin tosses give
    assert sprt.llr_pairs(independent) == pytest.approx(sprt.llr(1000, 1000, 0), rel=0.01)


def test_pairs_sprt_does_not_stop_on_a_collapsed_variance():
    """Ten of eleven pairs split 1-1 (games 11-11-1): the sample variance of the pairs is
    tiny, and the plain normal approximation gave an LLR of -4.06, "H0" after 23 games
    (2026-11-28).  With the pseudo-pairs it decides nothing; a long run of the same kind
    of results still does."""
    sprt = Sprt(elo0=0, elo1=30)
    collapsed = (0, 1, 10, 0, 0)
    assert sprt.bounds[0] < sprt.llr_pairs(collapsed) < 0
    assert sprt.decision_pairs(collapsed) is None
    assert sprt.decision_pairs((0, 40, 400, 0, 0)) == "H0"


def test_pairs_sprt_waits_for_min_games():
    pairs = (0, 1, 0, 0, 20)  # 42 games, LLR above the upper bound
    assert Sprt(elo0=0, elo1=30).llr_pairs(pairs) > Sprt().bounds[1]
    assert Sprt(elo0=0, elo1=30, min_games=50).decision_pairs(pairs) is None
    assert Sprt(elo0=0, elo1=30, min_games=20).decision_pairs(pairs) == "H1"


# --- the match report's move times ---------------------------------------------------------


def test_first_moves_are_reported_apart_with_their_own_over_turn_count():
    """An engine's first move of a game (timed from its start, start-up included) is left
    out of the moves' figures but reported on its own, over-turn count included."""
    def game(black_times, white_times):
        moves = []
        for b, w in zip(black_times, white_times):
            moves += [MoveRecord((0, 0), 1, b), MoveRecord((0, 1), 2, w)]
        return GameRecord(opening_moves=[], moves=moves, winner=1, reason="five")
    result = MatchResult(first="a", second="b")
    result.games = [(0, True, game([0.9, 0.1, 0.3], [0.19, 0.25, 0.1])),   # a black
                    (1, False, game([0.15, 0.1, 0.15], [0.35, 0.1, 0.1]))]  # a white
    lines = move_time_lines({(0, 1): result}, ["a", "b"], turn_ms=200)
    assert lines[0] == ("a: 4 moves, mean 150 ms, max 300 ms, over 200 ms: 1; "
                        "2 first moves of a game, mean 625 ms, max 900 ms, over 200 ms: 2")
    assert lines[1] == ("b: 4 moves, mean 150 ms, max 250 ms, over 200 ms: 1; "
                        "2 first moves of a game, mean 170 ms, max 190 ms, over 200 ms: 0")
