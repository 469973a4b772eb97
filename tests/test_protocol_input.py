"""Hostile input the protocol fuzz (``gomoku-engine fuzz``) found answered with ``ERROR
internal error``: each now gets its ordinary answer and the game goes on."""

from __future__ import annotations

import io

from gomoku_engine.core.constants import Rule
from gomoku_engine.engine import Engine
from gomoku_engine.protocol.loop import ProtocolLoop


def _session(*commands: str) -> list[str]:
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(("\n".join(commands) + "\n").encode()), out, warm_up=False).run()
    return out.getvalue().decode().splitlines()


def test_a_coordinate_of_thousands_of_digits_is_bad_coordinates():
    lines = _session("START 15", "INFO max_depth 2", "TURN 1" + "0" * 5000 + ",1",
                     "TURN 7,7")
    assert lines[1].startswith("ERROR TURN") and "bad coordinates" in lines[1]
    assert len(lines[1]) < 5000 + 100 and "internal" not in lines[1]
    assert lines[-1].count(",") == 1  # the next TURN is answered with a move


def test_a_rule_change_keeps_stones_that_hold_a_five_under_the_new_rule():
    engine = Engine(15, rule=Rule.RENJU)
    for x in range(6):  # black's six in a row: no five under renju, a five in freestyle
        engine.board.play(x, 7, colour=1)
        engine.board.play(x, 9, colour=2)
    engine.set_rule(Rule.FREESTYLE)
    assert engine.board.rule == Rule.FREESTYLE and engine.board.ply == 12
    lines = _session("INFO rule 4", "START 15", "YXBOARD", *[f"{x},7,1" for x in range(6)],
                     *[f"{x},9,2" for x in range(5)], "DONE", "INFO rule 0",
                     "INFO max_memory 100000000", "INFO max_depth 2", "TURN 12,12")
    assert not [line for line in lines if "internal" in line], lines
    assert lines[-1].count(",") == 1
