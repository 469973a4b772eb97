"""The search's tunables are run-time data: set by name, checked against their ranges, read
by the compiled kernels without recompiling them."""

from __future__ import annotations

import io
import math
import os
import select
import threading

import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.core.notation import parse_moves
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.protocol.loop import ProtocolLoop
from gomoku_engine.search import alphabeta
from gomoku_engine.search.params import (
    PARAMS_DTYPE, TUNABLE, TUNABLES, check_param, make_params, parse_assignments,
)

MIDGAME = "j12o10m10m12o12l9o7k7j7n6j13l11j9j11j8j6l8k8k9k6"  # the bench's "15 midgame A"


def _nodes(engine: Engine, depth: int = 6) -> int:
    engine.clear_hash()
    return engine.search(Limits(depth=depth)).nodes


def _midgame(**params: float) -> Engine:
    engine = Engine(15, hash_mb=4, params=params)
    for x, y in parse_moves(MIDGAME):
        engine.board.play(x, y)
    return engine


def test_every_tunable_has_a_sound_range_and_a_field():
    assert len({t.name for t in TUNABLES}) == len(TUNABLES)
    for t in TUNABLES:
        assert t.low <= t.default <= t.high, t.name
        assert 0 < t.step <= t.high - t.low, t.name
        assert t.name == t.name.lower() and t.doc, t.name
        assert not t.integer or float(t.default).is_integer(), t.name
        assert t.name in PARAMS_DTYPE.names


@pytest.mark.parametrize(("name", "value", "problem"), [
    ("no_such_thing", 1, "unknown parameter"),
    ("futility_margin", -1, "outside"),
    ("futility_margin", 1e9, "outside"),
    ("lmr_base", math.nan, "outside"),
    ("razor_margin", "wide", "not a number"),
])
def test_bad_settings_are_refused_with_the_reason(name, value, problem):
    with pytest.raises(ValueError, match=problem):
        check_param(name, value)


def test_names_are_read_in_any_case_and_integers_rounded():
    assert check_param("Futility_Margin", "950.6") == ("futility_margin", 951.0)
    assert check_param("lmr_base", 0.3) == ("lmr_base", 0.3)
    assert parse_assignments(["breadth=12", "LMR_DIVISOR=1.5"]) == {"breadth": 12.0,
                                                                    "lmr_divisor": 1.5}
    with pytest.raises(ValueError, match="NAME=VALUE"):
        parse_assignments(["breadth"])


def test_a_tunable_set_at_run_time_changes_the_tree_without_recompiling():
    """The same kernels search a different tree with another value, and the same tree
    again at the default: the values are data, not compiled-in constants."""
    engine = _midgame()
    default = _nodes(engine)
    compiled = len(alphabeta.negamax.overloads)
    engine.set_param("futility_margin", 100)
    narrow = _nodes(engine)
    engine.set_param("lmr_divisor", 3.0)  # a derived table (the reductions) is rebuilt
    assert _nodes(engine) != narrow
    engine.set_params({})
    assert _nodes(engine) == default
    assert narrow != default
    assert len(alphabeta.negamax.overloads) == compiled


def test_the_constructor_and_set_param_agree():
    assert _nodes(_midgame(breadth=6)) == _nodes(_midgame(breadth=6.2))
    engine = _midgame()
    engine.set_param("BREADTH", 6)
    assert engine.params == make_params({"breadth": 6})
    assert _nodes(engine) == _nodes(_midgame(breadth=6))
    with pytest.raises(ValueError):
        engine.set_param("breadth", 0)
    assert engine.params["breadth"] == 6  # a refused value changes nothing


def test_lazy_smp_helpers_read_the_main_searchs_tunables():
    engine = _midgame()
    engine.set_threads(2)
    engine.search(Limits(depth=4))
    engine.set_param("root_breadth", 3)
    helpers = engine._helpers._states
    assert helpers and all(ss.tune[0]["root_breadth"] == 3 for ss, _ in helpers)


def _session(*commands: str) -> tuple[list[str], Engine]:
    engines: list[Engine] = []

    def build(width: int, height: int) -> Engine:
        engines.append(Engine(width, height, hash_mb=4))
        return engines[-1]

    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(("\n".join(commands) + "\n").encode()), out, warm_up=False,
                 engine_factory=build).run()
    return out.getvalue().decode().splitlines(), engines[-1]


def test_info_param_sets_a_tunable_and_answers_error_for_bad_ones():
    lines, engine = _session("INFO param futility_margin 1200", "START 15",
                             "INFO param no_such_thing 3", "INFO max_depth 2", "BEGIN",
                             "INFO param breadth 999", "INFO param razor_margin", "TURN 8,8")
    assert engine.params["futility_margin"] == 1200
    assert engine.params["breadth"] == TUNABLE["breadth"].default
    errors = [line for line in lines if line.startswith("ERROR")]
    assert len(errors) == 3, lines
    assert "unknown parameter 'no_such_thing'" in errors[0]
    assert "breadth 999" in errors[1] and "razor_margin" in errors[2]


def test_a_bad_info_line_is_answered_at_once():
    """An ERROR for a bad INFO line comes without waiting for the next command (a manager
    or a person at a terminal sees it when it is sent)."""
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    loop = ProtocolLoop(os.fdopen(read_end, "rb", buffering=0),
                        os.fdopen(out_write, "wb", buffering=0), warm_up=False)
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    replies = os.fdopen(out_read, "rb")
    with os.fdopen(write_end, "wb", buffering=0) as commands:
        commands.write(b"START 15\n")
        assert replies.readline() == b"OK\n"
        commands.write(b"INFO param no_such_thing 3\n")
        ready, _, _ = select.select([replies], [], [], 30)  # nothing else is sent meanwhile
        assert ready, "no answer to the bad INFO line"
        assert replies.readline().startswith(b"ERROR INFO param no_such_thing 3")
        commands.write(b"END\n")
    runner.join(30)


def test_a_good_value_takes_back_the_error_of_the_same_name_only():
    lines, engine = _session("START 15", "INFO max_depth 2", "INFO param breadth 0",
                             "INFO param killer_bonus -5", "INFO param breadth 12", "BEGIN")
    errors = [line for line in lines if line.startswith("ERROR")]
    assert len(errors) == 1 and "killer_bonus" in errors[0], lines
    assert engine.params["breadth"] == 12
    assert lines[-1].count(",") == 1  # the move is still answered


def test_param_option_of_bench_and_its_errors():
    runner = CliRunner()
    bad = runner.invoke(main, ["bench", "--depth", "2", "--param", "breadth=0"])
    assert bad.exit_code == 2 and "outside" in bad.output
    ran = runner.invoke(main, ["bench", "--depth", "3", "--param", "breadth=4"])
    default = runner.invoke(main, ["bench", "--depth", "3"])
    assert ran.exit_code == 0 and default.exit_code == 0

    def signature(output: str) -> str:
        return next(line for line in output.splitlines() if "signature" in line)

    assert signature(ran.output) != signature(default.output)


def test_history_reset_starts_every_search_from_zero():
    """With history_reset the history a search learned is gone at the next search (a
    depth-1 search has no cut-off to learn from); without it, it stays for the game."""
    for reset, kept in ((0, True), (1, False)):
        engine = _midgame(history_reset=reset)
        engine.search(Limits(depth=5, threats=False))
        assert engine._state.history.any()
        engine.search(Limits(depth=1, threats=False))
        assert bool(engine._state.history.any()) == kept
