"""BOARD with the shared puzzles' stone lists, through the protocol: a legal move each,
and the winning move of every VCF puzzle.

The puzzles are composed positions (renju foul tests give black many more stones than
white), which ``BOARD`` must accept as it stands: the side to move's stones are sent as
field 1 and the engine's reply is judged on the record's own stones.
"""

from __future__ import annotations

import sys

import pytest

from gomoku_engine.protocol.client import EngineProcess
from helpers import load_jsonl, shared_params

TURN_MS = 1000


def board_lines(record: dict) -> list[str]:
    own = record[record["to_move"]]
    other = record["white" if record["to_move"] == "black" else "black"]
    return (["BOARD"] + [f"{x},{y},1" for x, y in own] + [f"{x},{y},2" for x, y in other]
            + ["DONE"])


@pytest.fixture(scope="module")
def replies() -> dict[str, tuple[int, int]]:
    records = load_jsonl("puzzles_dev.jsonl")  # skips, with the reason, without ../shared
    engine = EngineProcess([sys.executable, "-m", "gomoku_engine"])
    moves = {}
    try:
        for record in records:
            rule = {"freestyle": 0, "standard": 1, "renju": 4}[record["rule"]]
            engine.send(f"START {record['size']}")
            assert engine.read_reply(120.0) == "OK"
            engine.send(f"INFO rule {rule}", f"INFO timeout_turn {TURN_MS}",
                        *board_lines(record))
            (x, y), _ = engine.read_move(120.0)
            moves[record["id"]] = (x, y)
    finally:
        engine.send("END")
        engine.close()
    return moves


@pytest.mark.parametrize("record", shared_params("puzzles_dev.jsonl"))
def test_a_composed_position_gets_a_legal_move(record, replies):
    move = replies[record["id"]]
    stones = {tuple(p) for p in record["black"] + record["white"]}
    assert 0 <= move[0] < record["size"] and 0 <= move[1] < record["size"]
    assert move not in stones
    expected = record["expected"]
    if record["to_move"] == "black" and expected["kind"] == "forbidden":
        assert list(move) not in expected["moves"], "a renju foul"
    if expected["kind"] == "vcf":
        assert list(move) in expected["moves"], f"not a winning move: {move}"
