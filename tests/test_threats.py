"""Threat-space search: VCF/VCT against shared puzzles, an independent reference, replays."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from gomoku_engine.board import Board
from gomoku_engine.constants import BLACK, WHITE, Rule
from gomoku_engine.engine import Engine, Limits

from conftest import load_jsonl

RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD}


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
def vcf_puzzles():
    params = []
    for record in load_jsonl("puzzles_dev.jsonl"):
        kind = record["expected"]["kind"]
        if kind not in ("vcf", "vct"):
            continue
        marks = []
        if record["rule"] not in RULES:
            marks.append(pytest.mark.xfail(strict=True, reason="renju is not supported yet"))
        params.append(pytest.param(record, id=record["id"], marks=marks))
    return params


@pytest.mark.parametrize("record", vcf_puzzles())
def test_shared_threat_puzzles(record):
    rule = RULES[record["rule"]]  # KeyError for renju: the expected failure
    kind = record["expected"]["kind"]
    to_move = BLACK if record["to_move"] == "black" else WHITE
    for sym in symmetries(record["size"])[:: (1 if kind == "vcf" else 4)]:
        black = [sym(x, y) for x, y in record["black"]]
        white = [sym(x, y) for x, y in record["white"]]
        engine = engine_from_stones(record["size"], rule, black, white, to_move)
        result = engine.solve(kind, time_ms=5000 if kind == "vct" else 1000)
        assert result.win, (record["id"], result)
        answers = {sym(x, y) for x, y in record["expected"]["moves"]}
        if result.line[0] not in answers:
            assert not record["expected"].get("complete", False)
        if kind == "vcf":
            check_vcf_line(engine.board, result.line)


@pytest.mark.parametrize("record", [p for p in vcf_puzzles() if not p.marks])
def test_engine_plays_the_winning_threat(record):
    rule = RULES[record["rule"]]
    to_move = BLACK if record["to_move"] == "black" else WHITE
    engine = engine_from_stones(record["size"], rule, record["black"], record["white"], to_move)
    result = engine.search(Limits(hard_ms=2000, soft_ms=1000, threats=True))
    assert result.score > 900_000
    # the move keeps a forced win: after the defender's best reply the attacker still wins
    engine.board.play(*result.move)
    reply = engine.search(Limits(hard_ms=2000, soft_ms=1000, threats=True))
    engine.board.play(*reply.move)
    assert engine.solve("vcf", time_ms=2000).win


def test_recursive_kernels_are_compiled_once():
    """A literal argument from jitted code would add a second specialisation of a recursive
    kernel, and such a kernel crashes when numba loads it back from its cache."""
    code = (
        "from gomoku_engine import search, threats\n"
        "from gomoku_engine.engine import Engine, Limits\n"
        "e = Engine(15, hash_mb=1)\n"
        "for x, y in ((7, 7), (8, 8), (7, 8), (9, 9)):\n"
        "    e.board.play(x, y)\n"
        "e.search(Limits(depth=4, threats=True)); e.solve('vct'); e.solve('vcf')\n"
        "print(len(search.negamax.signatures), len(threats.vcf.signatures),\n"
        "      len(threats.vct.signatures))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.split() == ["1", "1", "1"]


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
