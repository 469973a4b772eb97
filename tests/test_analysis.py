"""The analysis output: the win rate, multi-PV (``Limits.multipv``, ``Engine.analyze``,
``YXNBEST``, ``analyze --multipv``) and ``INFO show_detail``'s bits (Yixin-Board's
``INFO PV`` blocks and ``MESSAGE REALTIME`` lines, as Rapfi writes them).
"""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.core.constants import BLACK, MATE, Rule
from gomoku_engine.core.notation import parse_moves, parse_pair
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval import sigmoid_scale, win_rate
from gomoku_engine.eval.classical import learned_file
from gomoku_engine.protocol.analysis import detail_lines
from gomoku_engine.protocol.messages import score_text as eval_text
from gomoku_engine.protocol.loop import ProtocolLoop
from gomoku_engine.protocol.messages import parse_search_line
from gomoku_engine.search.limits import SearchInfo

from helpers import engine_with

#: a quiet opening: nobody has a three, many moves are worth weighing
QUIET_BLACK, QUIET_WHITE = [(7, 7), (8, 7)], [(8, 8), (6, 8)]
QUIET_BOARD = "BOARD\n7,7,1\n8,8,2\n8,7,1\n6,8,2\nDONE\n"
_MULTIPV = re.compile(r"MESSAGE depth \d+-\d+ multipv (\d+) ")


# --- win rate ------------------------------------------------------------------------------
def test_win_rate_is_the_fitted_sigmoid() -> None:
    for rule in (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU):
        with np.load(learned_file(rule)) as data:
            assert sigmoid_scale(rule) == float(data["scale"])
        assert win_rate(0, rule) == 0.5
        scale = sigmoid_scale(rule)
        assert win_rate(int(scale), rule) == pytest.approx(1 / (1 + math.exp(-1)), abs=1e-4)
    # caro has no table of its own: freestyle's scale
    assert sigmoid_scale(Rule.CARO) == sigmoid_scale(Rule.FREESTYLE)


def test_win_rate_is_monotone_and_exact_for_mates() -> None:
    scores = [-MATE + 3, -400_000, -5000, -163, -1, 0, 1, 163, 5000, 400_000, MATE - 3]
    rates = [win_rate(s) for s in scores]
    assert rates == sorted(rates)
    # strictly where a double can tell the values apart (+-400,000 is ~100 logits)
    assert all(a < b for a, b in zip(rates[2:-3], rates[3:-2]))
    assert rates[0] == 0.0 and rates[-1] == 1.0
    assert 0.0 < win_rate(-400_000) and win_rate(20_000) < 1.0
    for score in (163, 2000):
        assert win_rate(score) + win_rate(-score) == pytest.approx(1.0)


# --- multi-PV in the engine ----------------------------------------------------------------
def _check_lines(engine: Engine, lines, count: int) -> None:
    """``count`` distinct legal first moves, scores not increasing, every line legal."""
    moves = [line.move for line in lines]
    assert len(moves) == count and len(set(moves)) == count, moves
    scores = [line.score for line in lines]
    assert scores == sorted(scores, reverse=True), scores
    for line in lines:
        assert line.pv[0] == line.move
        _assert_legal_line(engine, line.pv)


def _assert_legal_line(engine: Engine, pv) -> None:
    """Every point of ``pv`` is legal when its turn comes, from the engine's position."""
    for x, y in pv:
        assert engine.board.is_legal(x, y), (pv, (x, y))
        engine.board.play(x, y)
    for _ in pv:
        engine.board.undo()


def test_analyze_gives_distinct_lines_best_first() -> None:
    engine = engine_with(QUIET_BLACK, QUIET_WHITE, BLACK, hash_mb=4)
    stones = engine.board.stones()
    infos: list[SearchInfo] = []
    lines = engine.analyze(Limits(depth=4), multipv=3, on_iteration=infos.append)
    _check_lines(engine, lines, 3)
    assert engine.board.stones() == stones  # the board is unchanged
    assert all(line.depth == 4 for line in lines)
    # every depth reports its three lines, numbered, each with the count
    assert [(i.depth, i.pv_index, i.num_pv) for i in infos] == [
        (d, k, 3) for d in range(1, 5) for k in range(3)]
    # each line is the one its depth-4 report gave (the sort keeps the reports' figures)
    last = {tuple(i.pv): i.score for i in infos if i.depth == 4}
    assert all(last[tuple(line.pv)] == line.score for line in lines)


def test_analyze_with_one_line_is_search() -> None:
    engine = engine_with(QUIET_BLACK, QUIET_WHITE, BLACK, hash_mb=4)
    [line] = engine.analyze(Limits(depth=4), multipv=1)
    engine.clear_hash()
    result = engine.search(Limits(depth=4))
    assert (line.move, line.score, line.pv, line.lines) == (result.move, result.score,
                                                             result.pv, [])
    with pytest.raises(ValueError):
        engine.analyze(Limits(depth=2), multipv=0)


def test_analyze_respects_excluded_points() -> None:
    engine = engine_with(QUIET_BLACK, QUIET_WHITE, BLACK, hash_mb=4)
    best = engine.analyze(Limits(depth=3), multipv=2)
    excluded = frozenset(line.move for line in best)
    lines = engine.analyze(Limits(depth=3, excluded=excluded), multipv=2)
    _check_lines(engine, lines, 2)
    assert not excluded & {line.move for line in lines}


def test_analyze_with_a_five_to_make_gives_one_line() -> None:
    """A five is played by rule at the root whatever the filter says: one line."""
    four = [(3, 7), (4, 7), (5, 7), (6, 7)]
    engine = engine_with(four, [(2, 7), (10, 10), (11, 12), (12, 3)], BLACK, hash_mb=4)
    lines = engine.analyze(Limits(depth=3, threats=False), multipv=3)
    assert [line.move for line in lines] == [(7, 7)]


# --- the protocol --------------------------------------------------------------------------
def _session(commands: str) -> list[str]:
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False,
                 engine_factory=lambda w, h: Engine(w, h, hash_mb=4)).run()
    return out.getvalue().decode().splitlines()


def _detail_session(show_detail: int | None) -> list[str]:
    setting = "" if show_detail is None else f"INFO show_detail {show_detail}\n"
    return _session(f"{setting}INFO max_depth 4\nSTART 15\n{QUIET_BOARD}")


def test_show_detail_0_writes_as_before() -> None:
    for lines in (_detail_session(None), _detail_session(0)):
        assert lines[0] == "OK" and parse_pair(lines[2]) not in map(tuple, QUIET_BLACK)
        assert len(lines) == 3
        search = parse_search_line(lines[1])
        assert search is not None and search.depth == 4


def _gui_blocks(lines: list[str]) -> list[dict[str, str]]:
    """The ``INFO`` blocks as Yixin-Board reads them (main.c: the key is the word after
    ``INFO``, the value the rest; ``PV DONE`` closes a block)."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    for line in lines:
        if not line.startswith("INFO "):
            continue
        key, _, value = line[5:].partition(" ")
        assert key == key.upper() and value, line
        if key == "PV" and value == "DONE":
            assert current is not None
            blocks.append(current)
            current = None
        elif key == "PV":
            assert current is None, "a block opened inside another"
            current = {"PV": value}
        else:
            assert current is not None, f"{line!r} outside a block"
            current[key] = value
    assert current is None, "a block left open"
    return blocks


def test_show_detail_2_lines_parse_as_the_gui_reads_them() -> None:
    lines = _detail_session(2)
    blocks = _gui_blocks(lines)
    assert [int(b["DEPTH"]) for b in blocks] == [1, 2, 3, 4]
    for block in blocks:
        assert set(block) == {"PV", "NUMPV", "DEPTH", "SELDEPTH", "TOTALNODES", "TOTALTIME",
                              "SPEED", "EVAL", "WINRATE", "BESTLINE"}
        assert (block["PV"], block["NUMPV"]) == ("0", "1")
        assert re.fullmatch(r"-?\d+|[+-]M\d+", block["EVAL"])
        rate = float(block["WINRATE"])
        assert 0.0 <= rate <= 1.0
        assert rate == pytest.approx(win_rate(int(block["EVAL"])), abs=1e-5)
        points = [parse_pair(p) for p in block["BESTLINE"].split()]
        assert points and all(0 <= x < 15 and 0 <= y < 15 for x, y in points)
    # no realtime lines, and the move's own lines as at show_detail 0
    assert not any("REALTIME" in line for line in lines)
    rest = [line for line in lines if not line.startswith("INFO ")]
    assert rest[0] == "OK" and parse_search_line(rest[1]) is not None and len(rest) == 3
    assert rest[2] == blocks[-1]["BESTLINE"].split()[0]


def test_show_detail_1_writes_realtime_lines() -> None:
    lines = _detail_session(1)
    assert not any(line.startswith("INFO ") for line in lines)
    best = [line for line in lines if line.startswith("MESSAGE REALTIME BEST ")]
    assert len(best) == 4  # one per iteration, each after a REFRESH
    assert lines.count("MESSAGE REALTIME REFRESH") == 4
    for line in best:
        x, y = parse_pair(line.rsplit(" ", 1)[1])
        assert (x, y) not in QUIET_BLACK + QUIET_WHITE
    iterations = [line for line in lines[:-2] if line.startswith("MESSAGE depth")]
    assert len(iterations) == 4  # the per-iteration line stays with bit 1 (the last two
    assert lines[-2].startswith("MESSAGE depth")  # lines: the search's line and the move)
    assert lines[-1] == best[-1].rsplit(" ", 1)[1]


def test_show_detail_3_writes_both() -> None:
    lines = _detail_session(3)
    assert len(_gui_blocks(lines)) == 4
    assert sum(line.startswith("MESSAGE REALTIME BEST ") for line in lines) == 4


def test_realtime_lose_for_a_lost_line() -> None:
    """White cannot stop black's open four: the best line loses, marked LOSE."""
    black = [(4, 7), (5, 7), (6, 7)]
    white = [(10, 10), (11, 12), (12, 3)]
    stones = "".join(f"{x},{y},2\n" for x, y in black) + "".join(
        f"{x},{y},1\n" for x, y in white)
    lines = _session("INFO show_detail 1\nINFO max_depth 4\nSTART 15\nBOARD\n"
                     + "3,7,2\n" + stones + "0,0,1\nDONE\n")
    assert any(line.startswith("MESSAGE REALTIME LOSE ") for line in lines), lines


def test_eval_and_detail_text() -> None:
    assert eval_text(-163) == "-163" and eval_text(0) == "0"
    assert eval_text(MATE - 5) == "+M5" and eval_text(-(MATE - 4)) == "-M4"
    info = SearchInfo(7, 11, MATE - 3, 5000, 250.0, [(7, 7), (8, 8), (9, 9)], 1, 3)
    assert detail_lines(info, Rule.FREESTYLE) == [
        "INFO PV 1", "INFO NUMPV 3", "INFO DEPTH 7", "INFO SELDEPTH 11",
        "INFO TOTALNODES 5000", "INFO TOTALTIME 250", "INFO SPEED 20000", "INFO EVAL +M3",
        "INFO WINRATE 1", "INFO BESTLINE 7,7 8,8 9,9", "INFO PV DONE"]
    info.score = 0
    assert "INFO WINRATE 0.5" in detail_lines(info, Rule.RENJU)


def _nbest_lines(lines: list[str]) -> list:
    parsed = []
    for line in lines:
        if _MULTIPV.match(line):
            search = parse_search_line(line)
            assert search is not None, line
            parsed.append((search.multipv, search))
    return parsed


def test_yxnbest_3() -> None:
    lines = _session("INFO max_depth 4\nSTART 15\nYXBOARD\n7,7,1\n8,8,2\n8,7,1\n6,8,2\nDONE\n"
                     "YXNBEST 3\n")
    parsed = _nbest_lines(lines)
    assert [k for k, _ in parsed] == [1, 2, 3]
    firsts = [search.pv[0] for _, search in parsed]
    assert len(set(firsts)) == 3
    scores = [search.score for _, search in parsed]
    assert scores == sorted(scores, reverse=True)
    engine = engine_with(QUIET_BLACK, QUIET_WHITE, BLACK, hash_mb=1)
    for _, search in parsed:
        _assert_legal_line(engine, search.pv)
    # then the search line and the best move, played (as Rapfi does)
    assert parse_search_line(lines[-2]) is not None
    assert lines[-1] == "{},{}".format(*firsts[0])


def test_yxnbest_bad_count_and_no_game() -> None:
    lines = _session("YXNBEST 3\nINFO max_depth 2\nSTART 15\n" + QUIET_BOARD.replace(
        "BOARD", "YXBOARD") + "YXNBEST three\nYXNBEST 0\n")
    lines = [line for line in lines if not line.startswith("MESSAGE")]
    assert lines[0].startswith("ERROR no game started")
    assert lines[1] == "OK"
    assert lines[2].startswith("ERROR bad YXNBEST")
    assert parse_pair(lines[3]) and len(lines) == 4  # 0 lines asked: one


def test_cli_analyze_multipv() -> None:
    result = CliRunner().invoke(main, ["analyze", "h8i9i8g9", "--depth", "3",
                                       "--multipv", "3"])
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    lines = [line for line in out if line.startswith("multipv ")]
    assert [line.split()[1] for line in lines] == ["1", "2", "3"]
    moves = [line.split()[2] for line in lines]
    assert len(set(moves)) == 3
    best = out[-1]
    assert best.startswith(f"bestmove {moves[0]} ") and " winrate " in best
    assert sum(line.startswith("[3] depth") for line in out) == 3  # per depth, line 3
    occupied = set(parse_moves("h8i9i8g9"))
    assert not occupied & {parse_pair(m) for m in moves}


def test_show_detail_2_for_a_move_found_without_iterations() -> None:
    """A five found by the root threat search ends the search before any iteration: the
    move still gets its INFO block (Rapfi's printBestmoveWithoutSearch)."""
    stones = "3,7,1\n2,7,2\n4,7,1\n10,10,2\n5,7,1\n11,12,2\n6,7,1\n12,3,2\n"
    lines = _session(f"INFO show_detail 2\nSTART 15\nBOARD\n{stones}DONE\n")
    [block] = _gui_blocks(lines)
    assert block["EVAL"].startswith("+M") and block["WINRATE"] == "1"
    assert block["BESTLINE"].split()[0] == "7,7" and lines[-1] == "7,7"
