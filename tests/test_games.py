"""Whole games through the protocol: self-play, against the greedy engine, opening files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gomoku_engine.board import Board
from gomoku_engine.constants import Rule
from gomoku_engine.game import play_game
from gomoku_engine.match import load_openings, run_match, save_match
from gomoku_engine.records import read_psq, read_sgf
from gomoku_engine.stats import Sprt

from conftest import SHARED

ENGINE = [sys.executable, "-m", "gomoku_engine"]
GREEDY = [sys.executable, str(Path(__file__).parent / "engines" / "greedy_brain.py")]
TURN_MS = 200
#: Generous lateness allowed in tests (scheduling on a busy CI machine); the zero-late-move
#: figure comes from the measured matches in the README, not from here.
MARGIN_S = 1.0


def replay(record, size: int = 15) -> Board:
    board = Board(size)
    for x, y in record.opening:
        board.play(x, y)
    for move in record.moves:
        assert board.to_move == move.colour
        board.play(*move.point)  # raises on an illegal move
    return board


def test_self_play_game_is_legal_and_on_time():
    record = play_game(ENGINE, ENGINE, size=15, turn_ms=TURN_MS, opening=[(7, 7), (8, 8)],
                       max_moves=120)
    assert record.reason in ("five", "board full", "move limit"), record.reason
    board = replay(record)
    if record.reason == "five":
        assert board.winner == record.winner
    for move in record.moves[2:]:  # each engine's first reply includes its start-up
        assert move.seconds < TURN_MS / 1000 + MARGIN_S


def test_beats_the_greedy_engine_on_20x20():
    record = play_game(GREEDY, ENGINE, size=20, turn_ms=TURN_MS, max_moves=150)
    assert record.reason == "five" and record.winner == 2, record.reason
    assert replay(record, 20).winner == 2


def test_a_crashing_engine_forfeits():
    crash = [sys.executable, "-c", "import sys; print('OK', flush=True); sys.exit(3)"]
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


def test_match_pairs_openings_with_colours_swapped(tmp_path):
    openings = [[(7, 7), (8, 7), (8, 10)]]
    result = run_match(GREEDY, GREEDY, openings, games=2, turn_ms=TURN_MS, max_moves=6)
    assert [first_black for _, first_black, _ in result.games] == [True, False]
    assert all(r.opening == openings[0] for _, _, r in result.games)
    assert result.score()[2] == 2  # both games stopped as draws at the move limit
    save_match(result, tmp_path, "one", "two", 15)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["wins"], summary["losses"], summary["draws"]) == (0, 0, 2)
    assert [g["black"] for g in summary["games"]] == ["one", "two"]
    for n, (_, _, record) in enumerate(result.games, start=1):
        stones = record.opening + [m.point for m in record.moves]
        _, _, moves = read_psq((tmp_path / f"game_{n:03d}.psq").read_text())
        assert [(x, y) for x, y, _ in moves] == stones
        assert read_sgf((tmp_path / f"game_{n:03d}.sgf").read_text()) == (15, stones)


def _script_engine(body: str) -> list[str]:
    """A pbrain engine in a few lines: answers START with OK, then runs ``body`` per move."""
    code = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    word = line.split()[0].upper() if line.split() else ''\n"
        "    if word == 'START':\n"
        "        print('OK', flush=True)\n"
        "    elif word in ('BEGIN', 'TURN', 'DONE'):\n"
        f"        {body}\n"
        "    elif word == 'END':\n"
        "        break\n")
    return [sys.executable, "-c", code]


@pytest.mark.parametrize("body, reason", [
    ("import time; time.sleep(30)", "no move in time"),          # hangs
    ("print('7,7', flush=True)", "illegal reply '7,7'"),         # plays an occupied point
    ("print('hello there', flush=True)", "illegal reply"),       # prints garbage
    ("print('99,99', flush=True)", "illegal reply '99,99'"),     # off the board
])
def test_broken_engines_forfeit(body, reason):
    broken = _script_engine(body)
    record = play_game(GREEDY, broken, size=15, turn_ms=100, opening=[(7, 7)],
                       tolerance_ms=300, first_move_grace_ms=2000)
    assert record.winner == 1, record.reason
    assert record.reason.startswith("white " + reason.split("'")[0].strip()), record.reason
    assert record.log and record.log[0].startswith("> ")  # what the culprit was sent
    if "'" in reason:
        assert reason in record.reason


def test_match_stops_when_the_sprt_is_decided():
    broken = _script_engine("print('99,99', flush=True)")  # forfeits every game
    result = run_match(GREEDY, broken, [[(7, 7)]], games=30, turn_ms=100,
                       sprt=Sprt(elo0=0, elo1=100, alpha=0.1, beta=0.1))
    assert result.sprt == "H1"
    assert 0 < len(result.games) < 30
    assert result.score() == (len(result.games), 0, 0)


def test_a_renju_foul_forfeits():
    # g9 (6,8) is a double three for black after h8h9i7i9h10i6i11i12 (protocol notes 7.3)
    opening = [(7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11)]
    record = play_game(_script_engine("print('6,8', flush=True)"), GREEDY, size=15,
                       rule=Rule.RENJU, turn_ms=100, opening=opening, tolerance_ms=300,
                       first_move_grace_ms=2000)
    assert record.winner == 2
    assert record.reason == "black played a foul (double three at 6,8)"
