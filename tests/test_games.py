"""Whole games through the protocol: self-play, against the greedy engine, opening files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gomoku_engine.game.board import Board
from gomoku_engine.core.constants import Rule
from gomoku_engine.arena.referee import play_game
from gomoku_engine.arena.match import load_openings, run_match, save_match
from gomoku_engine.arena.records import read_psq, read_sgf
from gomoku_engine.arena.stats import Sprt

from helpers import ENGINE, GREEDY, SHARED, has_five, random_brain, replay

TURN_MS = 200


def test_self_play_game_is_legal():
    """A whole game between two engine processes: every move legal, the result the board's.
    (Time: the engine's own accounting is asserted in test_time_limits.py; the referee's
    view of lateness is the soak in docs/testing.md, not asserted under a test's load.)"""
    record = play_game(ENGINE, ENGINE, size=15, turn_ms=TURN_MS, opening_moves=[(7, 7), (8, 8)],
                       max_moves=120)
    assert record.reason in ("five", "board full", "move limit"), record.reason
    board = replay(record)
    if record.reason == "five":
        assert board.winner == record.winner and has_five(board, record.winner)


def test_beats_the_greedy_engine_on_20x20():
    record = play_game(GREEDY, ENGINE, size=20, turn_ms=TURN_MS, max_moves=150)
    assert record.reason == "five" and record.winner == 2, record.reason
    assert replay(record, 20).winner == 2


def test_a_crashing_engine_forfeits():
    crash = random_brain("--on-move", "crash")
    record = play_game(crash, ENGINE, size=15, turn_ms=TURN_MS, first_move_grace_ms=5000)
    assert record.winner == 2 and "crashed" in record.reason


def test_opening_files_in_both_formats(tmp_path):
    folder = SHARED / "openings"
    if not folder.exists():
        pytest.skip("shared openings not found")
    pos = load_openings(folder / "freestyle15_balanced_dev.pos", 15)
    offset = load_openings(folder / "piskvork_offset.txt", 15)
    assert len(pos) == 40
    assert pos[0][:3] == [(1, 5), (1, 4), (4, 5)]  # b6b5e6
    assert offset[0] == [(7, 7), (8, 7), (8, 10)]  # 0,0, 1,0, 1,3 around the centre
    # One of Piskvork's 41 openings reaches 8 points left of the centre: 20x20 only.
    assert len(offset) == 40
    assert len(load_openings(folder / "piskvork_offset.txt", 20)) == 41
    for opening in pos + offset:
        board = Board(15)
        for x, y in opening:
            board.play(x, y)


def test_renju_games_stop_as_a_draw_at_the_cut_off():
    """GomocupJudge's renju rule: a draw once 25 points are empty (here 220, to be quick);
    the other rules play on."""
    opening = [(7, 7), (8, 7), (8, 10)]
    record = play_game(GREEDY, GREEDY, size=15, rule=Rule.RENJU, turn_ms=TURN_MS,
                       opening_moves=opening, renju_draw_empty=220)
    assert (record.reason, record.winner, len(record.moves)) == ("renju cut-off", 0, 2)
    record = play_game(GREEDY, GREEDY, size=15, rule=Rule.FREESTYLE, turn_ms=TURN_MS,
                       opening_moves=opening, renju_draw_empty=220, max_moves=4)
    assert (record.reason, len(record.moves)) == ("move limit", 4)


def test_match_pairs_openings_with_colours_swapped(tmp_path):
    openings = [[(7, 7), (8, 7), (8, 10)]]
    result = run_match(GREEDY, GREEDY, openings, games=2, turn_ms=TURN_MS, max_moves=6)
    assert [first_black for _, first_black, _ in result.games] == [True, False]
    assert all(r.opening_moves == openings[0] for _, _, r in result.games)
    assert result.score()[2] == 2  # both games stopped as draws at the move limit
    save_match(result, tmp_path, "one", "two", 15)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["wins"], summary["losses"], summary["draws"]) == (0, 0, 2)
    assert [g["black"] for g in summary["games"]] == ["one", "two"]
    for n, (_, _, record) in enumerate(result.games, start=1):
        stones = record.opening_moves + [m.point for m in record.moves]
        _, _, moves = read_psq((tmp_path / f"game_{n:03d}.psq").read_text())
        assert [(x, y) for x, y, _ in moves] == stones
        assert read_sgf((tmp_path / f"game_{n:03d}.sgf").read_text()) == (15, stones)


@pytest.mark.parametrize("behaviour, reason", [
    ("hang", "no move in time"),
    ("say:7,7", "illegal reply '7,7'"),         # plays an occupied point
    ("say:hello there", "illegal reply"),       # prints garbage
    ("say:99,99", "illegal reply '99,99'"),     # off the board
])
def test_broken_engines_forfeit(behaviour, reason):
    broken = random_brain("--on-move", behaviour)
    record = play_game(GREEDY, broken, size=15, turn_ms=100, opening_moves=[(7, 7)],
                       tolerance_ms=300, first_move_grace_ms=2000)
    assert record.winner == 1, record.reason
    assert record.reason.startswith("white " + reason.split("'")[0].strip()), record.reason
    assert record.log and record.log[0].startswith("> ")  # what the culprit was sent
    if "'" in reason:
        assert reason in record.reason


def test_a_bad_start_answer_forfeits():
    record = play_game(random_brain("--start-reply", "ERROR no thanks"), GREEDY, size=15,
                       turn_ms=100, first_move_grace_ms=5000)
    assert record.winner == 2 and not record.moves
    assert record.reason == "black answered START with 'ERROR no thanks'", record.reason


# --- the referee's verdicts through real games of scripted engines ------------------------
def scripted(points) -> list[str]:
    """The fake engine playing these points in order (then random ones)."""
    return random_brain("--moves", " ".join(f"{x},{y}" for x, y in points))


#: 5x5, filled row by row in this pattern, has no five anywhere: a full board, a draw
FULL_5X5 = ["BBWWB", "WWBBW", "BBWWB", "WWBBW", "BBWWB"]


def test_a_full_board_is_a_draw():
    black = [(x, y) for y, row in enumerate(FULL_5X5) for x, c in enumerate(row) if c == "B"]
    white = [(x, y) for y, row in enumerate(FULL_5X5) for x, c in enumerate(row) if c == "W"]
    record = play_game(scripted(black), scripted(white), size=5, turn_ms=1000,
                       first_move_grace_ms=5000)
    assert (record.winner, record.reason, len(record.moves)) == (0, "board full", 25)
    board = replay(record, 5)
    assert board.is_full and not has_five(board, 1) and not has_five(board, 2)


#: Black makes six in a row (0..5 on row 0), then five on row 5; white spreads its stones
OVERLINE_BLACK = [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (3, 0),
                  (0, 5), (1, 5), (2, 5), (3, 5), (4, 5)]
SPREAD_WHITE = [(x, y) for y in (14, 12, 10) for x in range(0, 15, 2)]


@pytest.mark.parametrize("rule, winner, moves, reason", [
    (Rule.FREESTYLE, 1, 11, "five"),         # the six wins at once
    (Rule.CARO, 1, 11, "five"),              # so it does in caro (rule 8)
    (Rule.STANDARD, 1, 21, "five"),          # exactly five: the six is nothing, row 5 wins
    (Rule.CARO_STANDARD, 1, 21, "five"),
    (Rule.RENJU, 2, 10, "black played a foul (overline at 3,0)"),
])
def test_overlines_through_a_real_game(rule, winner, moves, reason):
    record = play_game(scripted(OVERLINE_BLACK), scripted(SPREAD_WHITE), size=15, rule=rule,
                       turn_ms=1000, first_move_grace_ms=5000)
    assert (record.winner, len(record.moves), record.reason) == (winner, moves, reason)
    if reason == "five":
        board = replay(record, 15, rule)
        assert has_five(board, 1) and not has_five(board, 2)


def test_caro_five_blocked_at_both_ends_through_a_real_game():
    """Black's 1..5 on row 2 between white's 0,2 and 6,2 wins in freestyle, not in caro,
    where black's later five on row 5 (open at the board's edge) wins."""
    black = [(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (0, 5), (1, 5), (2, 5), (3, 5), (4, 5)]
    white = [(0, 2), (6, 2)] + SPREAD_WHITE
    for rule, moves in ((Rule.FREESTYLE, 9), (Rule.CARO, 19)):
        record = play_game(scripted(black), scripted(white), size=15, rule=rule,
                           turn_ms=1000, first_move_grace_ms=5000)
        assert (record.winner, len(record.moves), record.reason) == (1, moves, "five"), rule


def test_match_stops_when_the_sprt_is_decided():
    broken = random_brain("--on-move", "say:99,99")  # forfeits every game
    result = run_match(GREEDY, broken, [[(7, 7)]], games=30, turn_ms=100,
                       sprt=Sprt(elo0=0, elo1=100, alpha=0.1, beta=0.1))
    assert result.sprt == "H1"
    assert 0 < len(result.games) < 30
    assert result.score() == (len(result.games), 0, 0)


def test_a_renju_foul_forfeits():
    # g9 (6,8) is a double three for black after h8h9i7i9h10i6i11i12 (protocol notes 7.3)
    opening = [(7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11)]
    record = play_game(random_brain("--on-move", "say:6,8"), GREEDY, size=15,
                       rule=Rule.RENJU, turn_ms=100, opening_moves=opening, tolerance_ms=300,
                       first_move_grace_ms=2000)
    assert record.winner == 2
    assert record.reason == "black played a foul (double three at 6,8)"
