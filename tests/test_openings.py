"""Opening suites: ``gomoku-engine openings make`` with a fake reference engine
(``tests/engines/balance_brain.py``), its errors, the symmetry key, and the built-in sets
through ``match --openings NAME``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku_engine.arena.match import load_openings
from gomoku_engine.arena.openings import (BUILTIN_PREFIX, builtin_sets, canonical, judge,
                                          resolve_openings)
from gomoku_engine.arena.records import read_psq
from gomoku_engine.cli import RULES, main
from gomoku_engine.core.constants import Rule
from gomoku_engine.game.board import Board

from helpers import ENGINES, command_line, random_brain

BALANCE = [sys.executable, str(ENGINES / "balance_brain.py")]


def _make(out, *options: str, engine: list[str] = BALANCE):
    return CliRunner().invoke(main, ["openings", "make", "--engine", command_line(engine),
                                     "--out", str(out), *options])


def _as_array(opening, size: int) -> np.ndarray:
    board = np.zeros((size, size), np.int8)
    for i, (x, y) in enumerate(opening):
        board[y, x] = 1 + i % 2
    return board


def _images(board: np.ndarray) -> list[bytes]:
    """The board's 8 symmetric images (numpy's rotations and a transpose: independent of
    the module's coordinate formulas)."""
    return [np.rot90(b, k).tobytes() for b in (board, board.T) for k in range(4)]


def _assert_legal_and_distinct(openings, size: int, rule: Rule) -> None:
    """Each opening replays legally under ``rule`` (no foul, no five) and no two are
    symmetric images of each other."""
    seen: set[bytes] = set()
    for opening in openings:
        board = Board(size, rule=rule)
        for x, y in opening:
            assert board.is_legal(x, y), opening
            board.play(x, y)
            assert not board.winner, opening
        images = _images(_as_array(opening, size))
        assert not seen & set(images), f"{opening} repeats an earlier opening"
        seen.add(images[0])


# --- making a suite -------------------------------------------------------------------------
def test_made_suite_reads_back_distinct_and_is_seeded(tmp_path):
    options = ["--count", "12", "--stones", "4..6", "--turn-ms", "100"]
    first = _make(tmp_path / "a.pos", *options, "--seed", "3")
    assert first.exit_code == 0, first.output
    assert "12 openings written" in first.output
    openings = load_openings(tmp_path / "a.pos", 15)  # match's reader
    assert len(openings) == 12 and all(4 <= len(o) <= 6 for o in openings)
    assert {len(o) for o in openings} == {4, 5, 6}
    _assert_legal_and_distinct(openings, 15, Rule.FREESTYLE)
    assert all(line.isalnum() for line in (tmp_path / "a.pos").read_text().splitlines())
    again = _make(tmp_path / "b.pos", *options, "--seed", "3")
    other = _make(tmp_path / "c.pos", *options, "--seed", "4")
    assert again.exit_code == 0 and other.exit_code == 0
    assert (tmp_path / "a.pos").read_text() == (tmp_path / "b.pos").read_text()
    assert (tmp_path / "a.pos").read_text() != (tmp_path / "c.pos").read_text()


def test_the_engine_gets_the_position_with_the_side_to_move_as_field_1(tmp_path):
    log = tmp_path / "engine.log"
    # at most three black stones: no four, so every answer is kept (no duplicate here)
    result = _make(tmp_path / "a.pos", "--count", "5", "--balance", "one", "--stones", "3..5",
                   engine=BALANCE + ["--log", str(log)])
    assert result.exit_code == 0, result.output
    lines = log.read_text().splitlines()
    assert lines.count("YXBALANCEONE 0") == 5 and "INFO rule 0" in lines
    blocks = []
    for k, line in enumerate(lines):
        if line == "YXBOARD":
            end = lines.index("DONE", k)
            blocks.append([tuple(int(v) for v in s.split(",")) for s in lines[k + 1:end]])
    openings = load_openings(tmp_path / "a.pos", 15)
    assert len(blocks) == 5 and [len(b) for b in blocks] == [len(o) - 1 for o in openings]
    for block, opening in zip(blocks, openings):
        assert [(x, y) for x, y, _ in block] == opening[:-1]  # black first, in order
        black_to_move = len(block) % 2 == 0
        for i, (_, _, field) in enumerate(block):
            assert field == (1 if (i % 2 == 0) == black_to_move else 2)


def test_a_score_window_keeps_only_answers_within_it(tmp_path):
    # five stones: three random ones and the pair, too few for a four or a duplicate here
    result = _make(tmp_path / "a.pos", "--count", "6", "--window", "100", "--stones", "5",
                   engine=BALANCE + ["--scores", "0,5000,-150,90"])
    assert result.exit_code == 0, result.output
    # answers 1, 4, 5, 8, 9, 12 are within 100 of 0: 12 asked, 6 outside the window
    assert "12 balance commands" in result.output
    assert "6 a score outside the window" in result.output


def test_duplicates_under_symmetry_are_rejected_until_the_maker_gives_up(tmp_path):
    one = _make(tmp_path / "a.pos", "--count", "1", "--stones", "2",
                engine=BALANCE + ["--answer", "same"])
    assert one.exit_code == 0, one.output
    assert load_openings(tmp_path / "a.pos", 15) == [[(7, 7), (7, 8)]]
    two = _make(tmp_path / "b.pos", "--count", "2", "--stones", "2",
                engine=BALANCE + ["--answer", "same"])
    assert two.exit_code == 1
    assert "gave up after 50 rejected answers" in two.output
    assert "50 a duplicate under symmetry" in two.output
    assert load_openings(tmp_path / "b.pos", 15) == [[(7, 7), (7, 8)]]  # kept what it made


@pytest.mark.parametrize("engine, message", [
    (BALANCE + ["--answer", "unknown"], "answered YXBALANCETWO 0 with 'UNKNOWN"),
    (BALANCE + ["--answer", "error"], "answered YXBALANCETWO 0 with 'ERROR"),
    (random_brain(), "with 'UNKNOWN YXBOARD'"),  # an engine without Yixin-Board's commands
    (BALANCE + ["--answer", "taken"], "with an illegal point"),
    (BALANCE + ["--answer", "crash"], "exited instead of answering YXBALANCETWO 0"),
    (BALANCE + ["--answer", "hang"], "gave no answer to YXBALANCETWO 0 within 100 ms + 200 ms"),
    (BALANCE + ["--start-reply", "NO"], "answered START with 'NO'"),
    (["/nonexistent/engine"], "could not start"),
])
def test_a_failing_engine_is_a_clear_error(tmp_path, engine, message):
    result = _make(tmp_path / "a.pos", "--count", "3", "--turn-ms", "100",
                   "--tolerance-ms", "200", "--startup-ms", "0", engine=engine)
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert not (tmp_path / "a.pos").exists()  # no empty file left


@pytest.mark.parametrize("options", [["--stones", "1..4"], ["--stones", "5..3"],
                                     ["--stones", "3..60", "--radius", "2"],
                                     ["--stones", "three"]])
def test_bad_settings_are_usage_errors(tmp_path, options):
    result = _make(tmp_path / "a.pos", "--count", "3", *options)
    assert result.exit_code == 2, result.output


def test_judge_rejects_fives_fours_for_the_mover_and_renju_fouls():
    five = [(3, 7), (3, 9), (4, 7), (4, 9), (5, 7), (5, 9), (6, 7), (6, 9), (7, 7)]
    assert judge(five, 15, Rule.FREESTYLE) == "a five"
    assert judge(five[:8], 15, Rule.FREESTYLE) == "a four for the side to move"  # black
    assert judge(five[:7], 15, Rule.FREESTYLE) is None  # white to move, black has a four
    # black's fifth stone at 7,7 makes two open threes: a double three, a foul in renju only
    double = [(5, 7), (0, 0), (6, 7), (14, 14), (7, 5), (0, 14), (7, 6), (14, 0), (7, 7)]
    assert judge(double, 15, Rule.RENJU) == "a renju foul"
    assert judge(double, 15, Rule.FREESTYLE) is None
    assert judge([(7, 7), (7, 7)], 15, Rule.FREESTYLE) == "illegal point 7,7"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=1, max_size=8,
                unique=True), st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)),
                                       min_size=1, max_size=8, unique=True))
def test_the_symmetry_key_is_equal_exactly_for_symmetric_images(a, b):
    size = 9
    same = _as_array(a, size).tobytes() in _images(_as_array(b, size))
    assert (canonical(a, size) == canonical(b, size)) == same
    for image in _images(_as_array(a, size)):  # every image of a has a's key
        cells = np.frombuffer(image, np.int8).reshape(size, size)
        blacks = [(x, y) for y, x in zip(*np.nonzero(cells == 1))]
        whites = [(x, y) for y, x in zip(*np.nonzero(cells == 2))]
        moves = [p for pair in zip(blacks, whites) for p in pair] + blacks[len(whites):]
        assert canonical(moves, size) == canonical(a, size)


# --- the built-in sets ----------------------------------------------------------------------
def test_every_built_in_set_is_legal_distinct_and_as_described():
    sets = builtin_sets()
    assert "freestyle15" in sets
    for found in sets.values():
        openings = load_openings(found.path, found.size)
        lines = found.path.read_text().splitlines()
        assert len(openings) == len(lines) == found.count, found.name  # none off the board
        assert found.count >= 40 or found.name != "freestyle15"
        assert all(found.stones[0] <= len(o) <= found.stones[1] for o in openings)
        _assert_legal_and_distinct(openings, found.size, RULES[found.rule])
        for opening in openings:
            assert judge(opening, found.size, RULES[found.rule]) is None
        assert found.command.startswith("gomoku-engine openings make") and found.commit


def test_match_plays_a_built_in_set_by_name(tmp_path):
    first = load_openings(builtin_sets()["freestyle15"].path, 15)[0]
    for name in ("freestyle15", BUILTIN_PREFIX + "freestyle15"):
        out = tmp_path / name.replace(":", "_")
        args = ["match", "--engine", f"a={command_line(random_brain())}",
                "--engine", f"b={command_line(random_brain('--seed', '2'))}",
                "--openings", name, "--games", "2", "--turn-ms", "1000", "--out", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "warning" not in result.output
        for game in ("game_001.psq", "game_002.psq"):
            moves = [(x, y) for x, y, _ in read_psq((out / game).read_text())[2]]
            assert moves[:len(first)] == first
    other = CliRunner().invoke(main, ["match", "--engine", "a=x", "--engine", "b=y",
                                      "--openings", "freestyle15", "--rule", "renju",
                                      "--games", "1", "--max-moves", "1"])
    assert "balanced for freestyle 15x15, not renju 15x15" in other.output


def test_a_file_wins_over_a_set_of_its_name_unless_builtin_is_said(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "freestyle15").write_text("h8i9j7\n")
    assert resolve_openings("freestyle15") == Path("freestyle15")
    assert resolve_openings("builtin:freestyle15") == builtin_sets()["freestyle15"].path
    for bad in ("nosuchset", "builtin:nosuchset"):
        result = CliRunner().invoke(main, ["match", "--engine", "a=x", "--engine", "b=y",
                                           "--openings", bad])
        assert result.exit_code == 2 and "freestyle15" in result.output, result.output


def test_list_and_show_print_the_sets():
    listed = CliRunner().invoke(main, ["openings", "list"])
    assert listed.exit_code == 0
    for name, found in builtin_sets().items():
        assert f"{name}: {found.rule} {found.size}x{found.size}, {found.count} openings" \
            in listed.output
    shown = CliRunner().invoke(main, ["openings", "show", "freestyle15"])
    path = builtin_sets()["freestyle15"].path
    assert shown.exit_code == 0 and shown.output == path.read_text()
    assert CliRunner().invoke(main, ["openings", "show", "builtin:freestyle15", "--path"]
                              ).output == f"{path}\n"
    assert CliRunner().invoke(main, ["openings", "show", "nosuchset"]).exit_code == 2


def test_the_sets_json_names_files_that_exist():
    entries = json.loads((builtin_sets()["freestyle15"].path.parent / "sets.json").read_text())
    for name, entry in entries.items():
        assert (builtin_sets()[name].path.parent / entry["file"]).is_file()
