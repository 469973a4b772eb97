"""Lin's opening rule: the allowed first stones, the engine's first move under it (API and
protocol), and the match referee (INFO opening sent, a forfeit for a stone off the outer
two rows and columns, openings checked)."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.arena.referee import play_game
from gomoku_engine.arena.match import EngineSpec, check_openings, run_round_robin
from gomoku_engine.core.opening_rules import (
    allowed_first_moves, board_symmetries, distinct_first_moves, first_move_allowed,
)
from gomoku_engine.protocol.loop import ProtocolLoop

from helpers import random_brain


def outer(x: int, y: int, width: int, height: int) -> bool:
    """The rule's text: x or y among the two outermost rows or columns."""
    return x in (0, 1, width - 2, width - 1) or y in (0, 1, height - 2, height - 1)


@pytest.mark.parametrize("width,height", [(15, 15), (20, 20), (7, 7), (9, 6)])
def test_lin_allows_the_two_outermost_rows_and_columns(width, height):
    allowed = allowed_first_moves("lin", width, height)
    assert set(allowed) == {(x, y) for x in range(width) for y in range(height)
                            if outer(x, y, width, height)}
    if (width, height) == (15, 15):
        assert len(allowed) == 15 * 15 - 11 * 11 and (7, 7) not in allowed
        assert first_move_allowed("lin", 7, 1, 15, 15)
        assert not first_move_allowed("lin", 2, 7, 15, 15)
    # the candidates an engine compares stand for every allowed point, each class once
    reps = distinct_first_moves("lin", width, height)
    images = set()
    for x, y in reps:
        for swap, fx, fy in board_symmetries(width, height):
            ix, iy = (width - 1 - x if fx else x), (height - 1 - y if fy else y)
            images.add((iy, ix) if swap else (ix, iy))
    assert images == set(allowed) and len(reps) < len(allowed)
    assert allowed_first_moves("none", width, height).__len__() == width * height
    with pytest.raises(ValueError):
        allowed_first_moves("swap2", width, height)


def test_the_engine_opens_within_lin_and_in_the_centre_without_it():
    engine = Engine(15, hash_mb=1, opening_rule="lin")
    result = engine.search(Limits(depth=2))
    assert outer(*result.move, 15, 15) and engine.board.ply == 0
    assert result.pv[0] == result.move and len(result.pv) >= 2  # white's reply searched
    engine.set_opening_rule("none")
    assert engine.search(Limits(depth=2)).move == (7, 7)
    with pytest.raises(ValueError):
        engine.set_opening_rule("lin2")
    assert engine.opening_rule == "none"


def session(commands: str) -> list[str]:
    """Replies of an in-process protocol session over ``commands`` (MESSAGE lines too)."""
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False).run()
    return out.getvalue().decode().splitlines()


def test_info_opening_lin_over_the_protocol():
    replies = [r for r in session("INFO opening lin\nINFO timeout_turn 500\nSTART 15\nBEGIN\n"
                                  "RESTART\nBOARD\nDONE\nINFO opening none\nRESTART\nBEGIN\n")
               if not r.startswith("MESSAGE")]
    assert replies[0] == "OK" and replies[2] == "OK" and replies[4] == "OK"
    first, board_first, plain = (tuple(int(v) for v in r.split(",")) for r in replies[1::2])
    assert outer(*first, 15, 15) and outer(*board_first, 15, 15)
    assert plain == (7, 7)
    replies = session("INFO opening swap9\nSTART 15\nBEGIN\n")
    assert replies[0].startswith("ERROR INFO opening 'swap9' is unknown")
    assert replies[1] == "OK" and replies[-1] == "7,7"  # the rule is unchanged: none


def test_a_black_first_stone_off_the_outer_rows_is_a_forfeit(tmp_path):
    log = tmp_path / "white.log"
    centre = random_brain("--moves", "7,7")
    record = play_game(centre, random_brain("--log", str(log)), turn_ms=500,
                       first_move_grace_ms=5000, opening_rule="lin")
    assert record.winner == 2 and not record.moves, record
    assert record.reason.startswith("black broke Lin's rule (first stone 7,7"), record.reason
    assert "INFO opening lin" in log.read_text().splitlines()
    # the same engine may open on the second row; the game goes on
    edge = random_brain("--moves", "7,1")
    record = play_game(edge, random_brain(), turn_ms=500, first_move_grace_ms=5000,
                       opening_rule="lin", max_moves=6)
    assert record.reason == "move limit" and record.moves[0].point == (7, 1)
    # no rule: the centre is fine
    record = play_game(centre, random_brain(), turn_ms=500, first_move_grace_ms=5000,
                       max_moves=2)
    assert record.reason == "move limit"


def test_openings_are_checked_against_the_rule(tmp_path):
    check_openings([[(7, 1), (7, 7)], [(0, 5)]], "lin", 15)
    with pytest.raises(ValueError, match="opening 2 \\(7,7 8,8\\) broke Lin's rule"):
        check_openings([[(1, 1)], [(7, 7), (8, 8)]], "lin", 15)
    engines = [EngineSpec("a", tuple(random_brain())), EngineSpec("b", tuple(random_brain()))]
    with pytest.raises(ValueError):
        run_round_robin(engines, [[(7, 7)]], games=2, opening_rule="lin")
    with pytest.raises(ValueError):
        play_game(random_brain(), random_brain(), opening_moves=[(6, 6)], opening_rule="lin")
    openings = tmp_path / "centre.pos"
    openings.write_text("h8i9\n")
    out = CliRunner().invoke(main, ["match", "--engine", "a=python a", "--engine",
                                    "b=python b", "--openings", str(openings),
                                    "--opening-rule", "lin"])
    assert out.exit_code == 2 and "broke Lin's rule" in out.output, out.output
