"""``gomoku-engine fuzz``: the hostile lines never change the game, the fuzz's copy of the
game follows the protocol, a small run against the engine finds nothing and resumes, and a
broken engine is caught (the issue's 10,000-line fuzz is run by hand, docs/testing.md)."""

from __future__ import annotations

import json
import random
import re

from click.testing import CliRunner

from gomoku_engine.arena.fuzz import (FuzzSettings, Outcome, Session, Shadow, Step,
                                     action_item, fuzz_summary)
from gomoku_engine.arena.fuzz_lines import Action, HostileLines, random_position
from gomoku_engine.arena.shards import read_records
from gomoku_engine.cli import main
from gomoku_engine.core.constants import BLACK, WHITE, Rule
from gomoku_engine.core.errors import GomokuError
from gomoku_engine.core.notation import parse_pair
from gomoku_engine.game.board import Board

from helpers import random_brain

#: commands that change the game with any argument: never hostile
_CHANGING = {"END", "RESTART", "BEGIN"}


def _lines(data: bytes) -> list[str]:
    """The lines the engine reads from ``data`` (its reader: CR, LF or CRLF; ASCII)."""
    text = data.decode("ascii", "replace")
    return [t.strip() for t in re.split(r"\r\n|\r|\n", text) if t.strip()]


def test_hostile_lines_never_name_a_move_the_game_allows():
    rng = random.Random(5)
    board = Board(15, rule=Rule.RENJU)
    stones, _ = random_position(rng, 15, int(Rule.RENJU), 20)
    board.set_stones(stones, to_move=BLACK if len(stones) % 2 == 0 else WHITE)
    hostile = HostileLines(rng)
    kinds = set()
    for _ in range(3000):
        item = hostile.item(board)
        lines = _lines(item.data)
        assert item.hostile and item.action is None and len(lines) <= item.lines
        if not lines:
            continue
        word, _, rest = lines[0].partition(" ")
        word = word.upper()
        kinds.add(word if word.isalnum() and len(word) > 3 else "other")
        assert word not in _CHANGING
        if word in ("TURN", "PLAY", "TAKEBACK"):
            try:
                x, y = parse_pair(rest)
            except (GomokuError, ValueError):
                continue
            on_board = 0 <= x < 15 and 0 <= y < 15
            if word == "TAKEBACK":
                assert not on_board or board.at(x, y) == 0
            else:
                assert not on_board or board.at(x, y) != 0
        if word in ("BOARD", "YXBOARD", "SWAP2BOARD", "YXBLOCK") and not rest:
            last = lines[-1].split()[0].upper()
            assert last == "DONE" or last in ("ABOUT", "YXSHOWINFO", "INFO", "TURN",
                                              "YXHASHCLEAR")  # ended, or cut short
    assert {"BOARD", "SWAP2BOARD", "YXBLOCK", "INFO", "TURN", "START"} <= kinds
    for _ in range(2000):  # while a search runs, its move may take any empty point
        for line in _lines(hostile.item(board, searching=True).data):
            word, _, rest = line.partition(" ")
            if word.upper() == "TAKEBACK":
                try:
                    x, y = parse_pair(rest)
                except (GomokuError, ValueError):
                    continue
                assert not (0 <= x < 15 and 0 <= y < 15)


def test_shadow_follows_turn_board_and_takeback_as_the_protocol_loop():
    shadow = Shadow(Rule.FREESTYLE)
    shadow.apply(Action("start", size=15))
    shadow.apply(Action("yxboard", stones=((7, 7, BLACK),), to_move=WHITE))
    shadow.apply(Action("turn", point=(3, 3)))  # after YXBOARD TURN is still the opponent's
    assert shadow.board.at(3, 3) == BLACK and shadow.me == WHITE
    assert shadow.illegal((7, 7)) == "7,7 is taken"
    assert shadow.illegal((15, 0)) == "15,0 is off the board"
    assert shadow.illegal((8, 8)) is None
    shadow.apply(Action("takeback", point=(3, 3)))
    assert shadow.board.ply == 1 and shadow.board.to_move == BLACK
    renju = Shadow(Rule.RENJU)
    renju.apply(Action("start", size=15))
    stones = ((5, 7, BLACK), (0, 0, WHITE), (6, 7, BLACK), (0, 2, WHITE), (7, 5, BLACK),
              (0, 4, WHITE), (7, 6, BLACK), (0, 6, WHITE))
    renju.apply(Action("board", stones=stones, to_move=BLACK))
    assert renju.illegal((7, 7)) == "7,7 is a renju foul for black"  # a double three
    assert renju.illegal((9, 9)) is None


def test_fuzz_of_200_lines_finds_nothing_and_resumes(tmp_path):
    args = ["fuzz", "--out", str(tmp_path), "--lines", "200", "--chunk-lines", "100",
            "--seed", "7", "--turn-ms", "50"]
    runner = CliRunner()
    first = runner.invoke(main, args + ["--shard", "1/2"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(main, args + ["--shard", "2/2"])
    assert second.exit_code == 0, second.output
    records = read_records(tmp_path, "fuzz")
    assert sorted(r["chunk"] for r in records) == [0, 1]
    s = fuzz_summary(records)
    assert 200 <= s["lines"] < 230 and s["moves"] > 5, s  # a step is not cut
    failures = [f for r in records for f in r["failures"]]
    assert (s["crash"], s["hang"], s["illegal"], s["state"]) == (0, 0, 0, 0), failures
    assert f"lines sent: {s['lines']} " in runner.invoke(main, args + ["--report"]).output
    files = {p.name: p.read_text() for p in tmp_path.glob("*.jsonl")}
    again = runner.invoke(main, args)  # every chunk done: nothing is sent again
    assert again.exit_code == 0 and f"chunks: 2, lines sent: {s['lines']} " in again.output
    assert {p.name: p.read_text() for p in tmp_path.glob("*.jsonl")} == files


def test_fuzz_saves_the_input_of_a_crashed_engine(tmp_path):
    command = " ".join(f'"{part}"' for part in random_brain("--on-move", "crash"))
    result = CliRunner().invoke(main, ["fuzz", "--out", str(tmp_path), "--lines", "40",
                                       "--chunk-lines", "40", "--engine", command,
                                       "--hang-s", "2"])
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in
                 (tmp_path / "fuzz-1-of-1.jsonl").read_text().splitlines()]
    assert record["crash"] >= 1 and record["processes"] >= record["crash"]
    first = record["failures"][0]
    assert first["kind"] == "crash" and "first failure: crash" in result.output
    replay = (tmp_path / first["replay"]).read_bytes()
    assert b"START 15" in replay.upper() and b"FUZZSYNC 1\n" in replay


def test_session_finds_an_illegal_move_and_a_lost_game(tmp_path):
    settings = FuzzSettings(tuple(random_brain("--on-move", "say:7,7")), turn_ms=50,
                            hang_s=5.0)
    session = Session(settings, Rule.FREESTYLE, tmp_path, "t")
    outcome = Outcome()
    rng = random.Random(0)

    def step(action):
        return session.run_step(Step([], action_item(action, rng), []), outcome)

    try:
        assert step(Action("start", size=15)) and not outcome.failures
        assert step(Action("turn", point=(3, 3)))  # answered 7,7: legal
        assert outcome.counts["moves"] == 1 and session.shadow.board.at(7, 7) != 0
        assert not step(Action("turn", point=(4, 4)))  # 7,7 again: taken
        assert outcome.failures[-1]["kind"] == "illegal"
        assert outcome.failures[-1]["detail"] == "7,7 is taken"
        assert not step(Action("takeback", point=(3, 3)))  # UNKNOWN instead of OK
        assert outcome.failures[-1]["kind"] == "state"
    finally:
        session.engine.close()
    replay = (tmp_path / "fuzz-failure-t.txt").read_bytes()  # up to the first failure
    assert bytes(session.sent).startswith(replay) and b"TURN 4,4" in replay.upper()
