"""Choosing the evaluation: ``INFO evaluation`` refuses an unknown name with an ``ERROR``
(as ``INFO param`` does) and keeps the evaluation; ``--evaluation`` is taken by the group
and by ``serve`` alike (one option, one set of names)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.cli.group import EVALUATION_OPTION
from gomoku_engine.eval import DEFAULT_EVALUATION, EVALUATIONS
from gomoku_engine.protocol.settings import Changed, Settings, apply_info


def test_an_unknown_evaluation_is_an_error_and_changes_nothing() -> None:
    settings = Settings()
    assert apply_info(settings, "evaluation network") != Changed.NOTHING
    assert apply_info(settings, "evaluation nosuch") == Changed.NOTHING
    assert settings.evaluation == "network"
    line = settings.pending_lines["evaluation"]
    assert line.startswith("ERROR INFO evaluation 'nosuch' is unknown")
    for name in EVALUATIONS:
        assert name in line
    apply_info(settings, "evaluation Classical")  # a good name takes the error back
    assert "evaluation" not in settings.pending_lines and settings.evaluation == "classical"


def test_the_option_offers_exactly_the_evaluations() -> None:
    @EVALUATION_OPTION
    def probe(evaluation: str | None) -> None:
        pass

    option = next(p for p in probe.__click_params__ if p.name == "evaluation")
    assert tuple(option.type.choices) == EVALUATIONS


@pytest.mark.parametrize("args, expected", [
    (["serve", "--evaluation", "network"], "network"),
    (["--evaluation", "handset", "serve"], "handset"),
    (["--evaluation", "handset", "serve", "--evaluation", "network"], "network"),
    (["--evaluation", "network"], "network"),
    (["serve"], None),
])
def test_group_and_serve_both_take_the_evaluation(monkeypatch, args, expected) -> None:
    seen = {}

    def fake_serve(*positional, **named):  # type: ignore[no-untyped-def]
        seen.update(named)

    monkeypatch.setattr("gomoku_engine.protocol.stdio.serve", fake_serve)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert seen["evaluation"] == expected


def test_serve_refuses_an_unknown_evaluation() -> None:
    result = CliRunner().invoke(main, ["serve", "--evaluation", "nosuch"])
    assert result.exit_code == 2 and "nosuch" in result.output


@pytest.mark.parametrize("evaluation", ["network", "spatial"])
def test_a_network_off_its_board_falls_back_to_the_classical_table_and_says_so(evaluation):
    """The networks are trained on 15x15 (the bag network also for standard and renju,
    the spatial one for freestyle only): on 20x20 or under a rule without one (caro) the
    engine plays with the classical table and a MESSAGE line says so; where there is one it
    plays with it, silently."""
    from gomoku_engine.engine import Engine

    cases = [(15, 0, True), (20, 0, False), (15, 8, False),
             (15, 1, evaluation == "network"), (15, 4, evaluation == "network")]
    for size, rule_code, expected in cases:
        settings = Settings()
        apply_info(settings, f"evaluation {evaluation}")
        apply_info(settings, f"rule {rule_code}")
        engine = Engine(size, hash_mb=1)
        settings.apply_to(engine)
        has_network = engine.board.tables.net_embed.shape[2] > 0
        assert has_network == expected, (size, rule_code)
        line = settings.pending_lines.get("evaluation fallback")
        if expected:
            assert line is None
        else:
            assert line is not None and line.startswith(f"MESSAGE evaluation {evaluation}: "
                                                        "no network for")
            assert "playing with the classical evaluation" in line
    assert (Engine(15, evaluation="spatial", hash_mb=1).board.tables.net_conv.shape[1] > 0
            and Engine(15, evaluation="network", hash_mb=1).board.tables.net_conv.shape[1] == 0)


def test_the_default_plays_the_network_where_there_is_one_and_falls_back_silently():
    """The default evaluation is the network: on 15x15 freestyle the engine plays with it;
    on 20x20 or under caro with the classical table, and no MESSAGE line says so (the
    user named no network); ``INFO evaluation network`` named there does say so.  Standard
    and renju have networks of their own."""
    from gomoku_engine.engine import Engine

    assert DEFAULT_EVALUATION == "network"
    cases = ((15, 0, True), (15, 1, True), (15, 4, True), (20, 0, False), (15, 8, False))
    for size, rule_code, expected in cases:
        settings = Settings()
        apply_info(settings, f"rule {rule_code}")
        engine = Engine(size, hash_mb=1)
        settings.apply_to(engine)
        assert (engine.board.tables.net_embed.shape[2] > 0) == expected, (size, rule_code)
        assert "evaluation fallback" not in settings.pending_lines
        apply_info(settings, "evaluation network")
        settings.apply_to(engine)
        assert ("evaluation fallback" in settings.pending_lines) == (not expected)


def test_the_protocol_loop_says_so_only_for_a_named_network() -> None:
    """``serve --evaluation network`` is a named choice; ``serve`` alone is the default."""
    import io

    from gomoku_engine.protocol.loop import ProtocolLoop

    for evaluation, named in ((None, False), ("network", True)):
        loop = ProtocolLoop(io.BytesIO(), io.BytesIO(), warm_up=False, evaluation=evaluation)
        assert loop._settings.evaluation == "network"
        assert loop._settings.evaluation_named == named
