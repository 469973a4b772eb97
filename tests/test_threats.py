"""Threat-space search: VCF/VCT against shared puzzles, an independent reference, replays."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from gomoku_engine.board import Board
from gomoku_engine.constants import BLACK, WHITE, Rule
from gomoku_engine.engine import Engine, Limits, warmup
from gomoku_engine.threats import THREAT_DEPTH, THREAT_LIMIT, VCT_PASSES

from conftest import load_jsonl

RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU}


def symmetries(size: int):
    """The 8 symmetries of the square board as functions of (x, y)."""
    n = size - 1
    return [
        lambda x, y: (x, y), lambda x, y: (n - x, y), lambda x, y: (x, n - y),
        lambda x, y: (n - x, n - y), lambda x, y: (y, x), lambda x, y: (n - y, x),
        lambda x, y: (y, n - x), lambda x, y: (n - y, n - x),
    ]


def engine_from_stones(size, rule, black, white, to_move) -> Engine:
    engine = Engine(size, rule=rule, hash_mb=4)
    stones = [(x, y, BLACK) for x, y in black] + [(x, y, WHITE) for x, y in white]
    engine.board.set_stones(stones, to_move=to_move)
    return engine


# --- independent replay of a winning line ----------------------------------------------
def five_points(board: Board, colour: int) -> list[tuple[int, int]]:
    """Empty points where ``colour`` would win at once (by the board's own win check)."""
    points = []
    saved = board.to_move
    for y in range(board.height):
        for x in range(board.width):
            if board.is_legal(x, y):
                board.play(x, y, colour)
                if board.winner == colour:
                    points.append((x, y))
                board.undo()
    board.position.state[1] = saved
    return points


def check_vcf_line(board: Board, line) -> None:
    """Every attacker move is a four (or the five), every defender move the forced block."""
    attacker = board.to_move
    defender = 3 - attacker
    board = board.copy()
    for i, (x, y) in enumerate(line):
        if i % 2 == 0:
            threats_before = five_points(board, defender)
            board.play(x, y, attacker)
            if board.winner == attacker:
                assert i == len(line) - 1, "the five must end the line"
                return
            assert not threats_before or (x, y) in threats_before, "a defender four was ignored"
            assert five_points(board, attacker), f"attacker move {(x, y)} is not a four"
            assert not five_points(board, defender), "the defender could make five instead"
        else:
            forced = five_points(board, attacker)
            if defender == BLACK and len(forced) == 1 and board.foul(*forced[0]):
                # renju: black may not block on a foul, so any move loses
                assert (x, y) != forced[0]
            else:
                assert (x, y) in forced and len(forced) <= 2, f"defender move {(x, y)} not forced"
            board.play(x, y, defender)
    pytest.fail("the line does not end in a five")


def reference_vcf(board: Board, attacker: int, depth: int) -> bool:
    """Exhaustive four-only search on the plain board: slow and obviously correct."""
    defender = 3 - attacker
    if five_points(board, attacker):
        return True
    if depth == 0:
        return False
    threats = five_points(board, defender)
    if len(threats) >= 2:
        return False
    candidates = threats or [(x, y) for y in range(board.height) for x in range(board.width)
                             if board.is_legal(x, y)]
    for x, y in candidates:
        board.play(x, y, attacker)
        fives = five_points(board, attacker)
        if fives and not five_points(board, defender):
            if len(fives) >= 2:
                board.undo()
                return True
            board.play(*fives[0], defender)
            won = reference_vcf(board, attacker, depth - 1)
            board.undo()
            if won:
                board.undo()
                return True
        board.undo()
    return False


# --- shared puzzles ------------------------------------------------------------------------
#: VCT puzzles the solver does not prove within 5 s (issue 3 is open): strict, so a
#: puzzle that starts to pass must be taken off this list.
VCT_NOT_SOLVED = {"quintet-bench_vct_unstable", "quintet-bench_vct_small_but_long"}
#: VCT puzzles proven within 5 s but too close to it for a test on a loaded machine, with
#: the budget (ms) they get here: bench_vct_black took 3.4 to 3.9 s over its 8 symmetries
SLOW_VCT_MS = {"quintet-bench_vct_black": 10_000}


def vcf_puzzles(kinds=("vcf", "vct")):
    params = []
    for record in load_jsonl("puzzles_dev.jsonl"):
        if record["expected"]["kind"] not in kinds:
            continue
        marks = []
        if record["id"] in VCT_NOT_SOLVED:
            marks.append(pytest.mark.xfail(strict=True, reason="VCT not proven in 5 s"))
        params.append(pytest.param(record, id=record["id"], marks=marks))
    return params


@pytest.fixture(scope="module")
def compiled():
    """Compile the kernels first: the puzzles are timed, and a cold numba cache (after any
    source change) would spend the first puzzle's seconds compiling."""
    warmup()


@pytest.mark.parametrize("record", vcf_puzzles())
def test_shared_threat_puzzles(record, compiled):
    rule = RULES[record["rule"]]
    kind = record["expected"]["kind"]
    to_move = BLACK if record["to_move"] == "black" else WHITE
    slow = record["id"] in VCT_NOT_SOLVED or record["id"] in SLOW_VCT_MS
    step = 1 if kind == "vcf" else (8 if slow else 4)
    for sym in symmetries(record["size"])[::step]:
        black = [sym(x, y) for x, y in record["black"]]
        white = [sym(x, y) for x, y in record["white"]]
        engine = engine_from_stones(record["size"], rule, black, white, to_move)
        budget = 1000 if kind == "vcf" else SLOW_VCT_MS.get(record["id"], 5000)
        result = engine.solve(kind, time_ms=budget)
        assert result.win, (record["id"], result)
        answers = {sym(x, y) for x, y in record["expected"]["moves"]}
        if result.line[0] not in answers:
            assert not record["expected"].get("complete", False)
        if kind == "vcf":
            check_vcf_line(engine.board, result.line)


@pytest.mark.parametrize("record", vcf_puzzles(kinds=("vcf",)))
def test_engine_plays_the_winning_threat(record):
    rule = RULES[record["rule"]]
    to_move = BLACK if record["to_move"] == "black" else WHITE
    engine = engine_from_stones(record["size"], rule, record["black"], record["white"], to_move)
    # 2 s: the root VCF gets 5% of it, and the 74-four renju VCF takes ~60 ms to prove
    result = engine.search(Limits(hard_ms=4000, soft_ms=2000, threats=True))
    assert result.score > 900_000
    # the move keeps a forced win: after the defender's best reply the attacker still wins
    engine.board.play(*result.move)
    reply = engine.search(Limits(hard_ms=2000, soft_ms=1000, threats=True))
    engine.board.play(*reply.move)
    assert engine.solve("vcf", time_ms=2000).win


#: VCT puzzles small enough to check every legal defender reply, and the plain
#: depth-first solver against df-pn
SMALL_VCT = ("quintet-test_vct_black", "quintet-test_vct_white", "quintet-test_vct_counter",
             "quintet-test_vct_forbidden_breaker")


def small_vct_records():
    return [r for r in load_jsonl("puzzles_dev.jsonl") if r["id"] in SMALL_VCT]


@pytest.mark.parametrize("record", small_vct_records(), ids=lambda r: r["id"])
def test_vct_win_survives_every_reply(record):
    """The solver answers a threat only on the points that can break it: check that the
    attacker still wins after *every* legal reply to its first move, not only those."""
    to_move = BLACK if record["to_move"] == "black" else WHITE
    engine = engine_from_stones(record["size"], Rule.RENJU, record["black"], record["white"],
                                to_move)
    result = engine.solve("vct", time_ms=5000)
    assert result.win
    board = engine.board
    board.play(*result.line[0])
    replies = [(x, y) for y in range(board.height) for x in range(board.width)
               if board.is_legal(x, y)]
    assert len(replies) > 150
    for x, y in replies:
        board.play(x, y)
        if board.winner is None:
            assert engine.solve("vct", time_ms=5000).win, (record["id"], (x, y))
        board.undo()


@pytest.mark.parametrize("record", small_vct_records(), ids=lambda r: r["id"])
def test_plain_vct_agrees_with_dfpn(record):
    """The depth-first :func:`threats.vct` and df-pn search the same tree: both prove the
    puzzle, and neither proves it with one threat less than the other needs."""
    from gomoku_engine import threats

    to_move = BLACK if record["to_move"] == "black" else WHITE
    engine = engine_from_stones(record["size"], Rule.RENJU, record["black"], record["white"],
                                to_move)
    pos, tab, ts = engine.board.position, engine.board.tables, engine._threats
    ts.counters[threats.NODE_LIMIT] = 2_000_000
    shortest = {}
    for name, solve in (("dfs", lambda d: threats.vct(pos, tab, ts, d, 0, False)),
                        ("dfpn", lambda d: threats.solve_vct(pos, tab, ts, d))):
        threats.clear_threat_state(ts)
        for depth in range(1, 9):
            ts.counters[threats.NODES] = 0
            if solve(depth):
                shortest[name] = depth
                break
            assert not ts.counters[threats.ABORTED]
    assert shortest["dfs"] == shortest["dfpn"], shortest


def test_recursive_kernels_are_compiled_once():
    """A literal argument from jitted code would add a second specialisation of a recursive
    kernel, and such a kernel crashes when numba loads it back from its cache."""
    code = (
        "from gomoku_engine import rules, search, threats\n"
        "from gomoku_engine.engine import Engine, Limits\n"
        "e = Engine(15, hash_mb=1)\n"
        "for x, y in ((7, 7), (8, 8), (7, 8), (9, 9)):\n"
        "    e.board.play(x, y)\n"
        "e.search(Limits(depth=4, threats=True)); e.solve('vct'); e.solve('vcf')\n"
        "r = Engine(15, rule=4, hash_mb=1)\n"
        "for x, y in ((7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11)):\n"
        "    r.board.play(x, y)\n"
        "assert r.board.foul_points() == [(6, 8)]\n"
        "r.search(Limits(depth=4, threats=True)); r.solve('vct')\n"
        "d = Engine(15, hash_mb=1)\n"  # the root filter: an open three to answer, fours
        "for x, y in ((7, 7), (0, 0), (8, 7), (1, 1), (9, 7), (2, 2), (5, 9)):\n"
        "    d.board.play(x, y)\n"
        "d.search(Limits(depth=3, threats=True))\n"
        "print(len(search._negamax_root.signatures), len(threats.solve_vcf.signatures),\n"
        "      len(threats._vct_root.signatures), len(search.negamax.signatures),\n"
        "      len(threats.vcf.signatures), len(threats.vct_dfpn.signatures),\n"
        "      len(threats._leaves_no_vcf.signatures), len(rules._foul_type.signatures))\n")
    # (a kernel loaded back with a second specialisation crashes this run: check=True)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    counts = out.split()
    # The entry points, called from Python, have exactly one signature.  The kernels behind
    # them are called only from jitted code: 0 signatures once their callers are loaded
    # from the cache, 1 when compiled in this process, never 2.
    assert counts[:3] == ["1", "1", "1"], counts
    assert all(c in ("0", "1") for c in counts[3:]), counts


# --- random positions against the reference ------------------------------------------------
def random_position(rng: random.Random, size: int = 9) -> Board:
    board = Board(size)
    attacker_stones, defender_stones = rng.randint(5, 9), rng.randint(3, 6)
    points = [(x, y) for y in range(size) for x in range(size)]
    rng.shuffle(points)
    for i, (x, y) in enumerate(points[: attacker_stones + defender_stones]):
        board.play(x, y, BLACK if i < attacker_stones else WHITE)
        if board.winner:
            return random_position(rng, size)
    board.position.state[1] = BLACK
    return board


@pytest.mark.parametrize("seed", range(12))
def test_vcf_agrees_with_exhaustive_reference(seed):
    rng = random.Random(seed)
    for _ in range(4):
        board = random_position(rng)
        if five_points(board, WHITE) or five_points(board, BLACK):
            continue
        engine = Engine(9, hash_mb=1)
        engine.board.set_stones(board.stones(), to_move=BLACK)
        result = engine.solve("vcf", time_ms=None, depth=3)
        assert not result.aborted
        assert result.win == reference_vcf(engine.board.copy(), BLACK, 3), board.stones()
        if result.win:
            check_vcf_line(engine.board, result.line)


# --- the solve command ---------------------------------------------------------------------
def test_solve_command_prints_the_line_and_rejects_bad_input():
    """``gomoku-engine solve``: exit status 0 with or without a win, 2 for bad input, and the
    defaults its help states are the engine's."""
    from click.testing import CliRunner

    from gomoku_engine import engine
    from gomoku_engine.cli import main

    runner = CliRunner()
    # black h8 i8 j8 k8 (x 7..10, y 7) with white stones elsewhere: black to move makes five
    won = runner.invoke(main, ["solve", "h8h1i8i1j8j1k8k2", "--vcf", "--time", "1000"])
    assert won.exit_code == 0, won.output
    assert "black wins by VCF in 1 plies" in won.output
    quiet = runner.invoke(main, ["solve", "h8", "--vct", "--time", "200"])
    assert quiet.exit_code == 0 and "white" in quiet.output and "wins" not in quiet.output
    bad = runner.invoke(main, ["solve", "h8h8", "--time", "100"])
    assert bad.exit_code == 2
    usage = runner.invoke(main, ["solve", "--help"]).output
    assert (f"{engine.ROOT_VCF_DEPTH} for VCF, {engine.SOLVE_VCT_DEPTH} for VCT"
            in " ".join(usage.split()))


def test_solve_vct_restores_the_full_threat_definition():
    """solve_vct narrows the threat definition for one of its passes (VCT_PASSES); after a
    win, after "no win" and after running out of time in that pass, the full definition
    (THREAT_DEPTH) is back for the next solve and for the plain vct."""
    records = {r["id"]: r for r in load_jsonl("puzzles_dev.jsonl")}
    if not records:
        pytest.skip("../shared/ is not beside the checkout")
    assert any(limit < THREAT_DEPTH for _, limit in VCT_PASSES)
    for name, time_ms, wins in (("quintet-test_vct_black", 5000, True),
                                ("quintet-bench_vct_black", 300, False)):  # (cut short)
        record = records[name]
        engine = engine_from_stones(record["size"], Rule.RENJU, record["black"],
                                    record["white"], BLACK if record["to_move"] == "black"
                                    else WHITE)
        assert engine.solve("vct", time_ms=time_ms).win is wins
        assert engine._threats.counters[THREAT_LIMIT] == THREAT_DEPTH
    engine = Engine(15, hash_mb=1)
    engine.board.play(7, 7)
    assert not engine.solve("vct", time_ms=2000).win
    assert engine._threats.counters[THREAT_LIMIT] == THREAT_DEPTH
