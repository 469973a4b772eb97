"""The learned evaluation: self-play data, the Texel fit, the shipped tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku_engine.training import selfplay, tuning
from gomoku_engine.game.board import Board
from gomoku_engine.cli import main
from gomoku_engine.core.constants import FIVE, FOUR, ONE, OPEN_FOUR, OPEN_THREE, THREE, Rule
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval.classical import (
    CLASSICAL_EVALUATIONS, N_CANON, canon_table, canonical_values, combination_tables,
    handset_canonical_values, learned_file, learned_values, reference_evaluation,
)
from gomoku_engine.eval import EVALUATIONS, evaluate
from gomoku_engine.eval.network import has_network

SHIPPED = [rule for rule in Rule if learned_file(rule).exists()]


def code(*patterns: int) -> int:
    return sum(p << (4 * d) for d, p in enumerate(patterns))


def test_canonical_combinations_ignore_direction_order():
    canon = canon_table()
    assert N_CANON == 1001  # multisets of 4 of the 11 patterns
    assert canon[code(FOUR, ONE, ONE, THREE)] == canon[code(THREE, ONE, FOUR, ONE)]
    assert canon[code(FOUR, ONE, ONE, THREE)] != canon[code(FOUR, ONE, ONE, OPEN_THREE)]
    # the hand-set table is a function of the multiset, so it survives the round trip
    _, handset, _ = combination_tables(Rule.FREESTYLE, "handset")
    assert (canonical_values(handset_canonical_values()) == handset).all()


def test_unknown_evaluation_is_refused():
    with pytest.raises(ValueError):
        combination_tables(Rule.FREESTYLE, "neural")
    with pytest.raises(ValueError):
        canonical_values(np.zeros(5, np.int32))


@pytest.mark.skipif(not SHIPPED, reason="no learned table ships with the package")
@pytest.mark.parametrize("rule", SHIPPED, ids=lambda r: r.name.lower())
def test_shipped_table_loads_and_ranks_a_five_above_a_four(rule):
    values = learned_values(rule)
    assert values.shape == (N_CANON,) and values.dtype == np.int32
    table = canonical_values(values)
    five = table[code(FIVE, ONE, ONE, ONE)]
    four = table[code(FOUR, ONE, ONE, ONE)]
    open_four = table[code(OPEN_FOUR, ONE, ONE, ONE)]
    three = table[code(OPEN_THREE, ONE, ONE, ONE)]
    assert five > open_four > three and five > four
    # the engine plays with it by default, and the hand-set table stays available
    assert (Board(15, rule=rule).tables.eval_table == table).all()
    assert not (Board(15, rule=rule, evaluation="handset").tables.eval_table == table).all()


@pytest.mark.parametrize("evaluation", CLASSICAL_EVALUATIONS)
@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU, Rule.CARO])
def test_incremental_evaluation_equals_the_reference(rule, evaluation):
    """Random games, taken back and replayed: the kernel's sums and score equal the
    recomputation from scratch with the same table at every step."""
    rng = np.random.default_rng(int(rule) * 7 + len(evaluation))
    board = Board(9, rule=rule, evaluation=evaluation)
    for _ in range(40):
        if board.ply and rng.random() < 0.3:
            board.undo()
        else:
            empty = [(x, y) for x in range(9) for y in range(9) if board.is_legal(x, y)]
            board.play(*empty[rng.integers(len(empty))])
            if board.winner:
                board.undo()
        black, white, score = reference_evaluation(board.geometry, board.position.cells,
                                                   rule, board.to_move, evaluation)
        assert list(board.position.eval_sum) == [black, white]
        assert evaluate(board.position, board.tables) == score


def test_selfplay_is_seeded_and_legal():
    first = selfplay.generate(Rule.FREESTYLE, 2, seed=5, nodes=300, size=9)
    again = selfplay.generate(Rule.FREESTYLE, 2, seed=5, nodes=300, size=9)
    assert [r.moves for r in first] == [r.moves for r in again]
    for record in first:
        board = Board(9)
        for cell in record.moves:  # every move legal, and the recorded result is the board's
            assert board.is_legal(cell % 9, cell // 9) and not board.winner
            board.play(cell % 9, cell // 9)
        assert record.result == board.winner
        assert selfplay.MIN_OPENING <= record.opening <= selfplay.MAX_OPENING


def test_quiet_positions_only():
    board = Board(15)
    for x, y in [(3, 3), (3, 9), (4, 3), (4, 9), (5, 3)]:
        board.play(x, y)
    assert tuning.position_features(board) is not None  # an open three: quiet
    board.play(12, 12)
    board.play(6, 3)  # black's open four: white to move, black has five points
    assert tuning.position_features(board) is None


def test_features_reproduce_the_static_evaluation():
    """The fit's model is the kernel's: features . hand-set values = the evaluation."""
    engine = Engine(15, evaluation="handset", hash_mb=1)
    for x, y in [(7, 7), (8, 8), (8, 7), (6, 7), (9, 9), (7, 8)]:
        engine.board.play(x, y)
    row = tuning.position_features(engine.board)
    assert abs(row @ handset_canonical_values() - evaluate(engine.board.position, engine.board.tables)) <= 1


def test_pipeline_end_to_end(tmp_path):
    """selfplay -> fit on a tiny data set: the files, shapes and a fit that predicts the
    training games at least as well as the prior it starts from."""
    games = tmp_path / "games.npz"
    fitted = tmp_path / "eval.npz"
    runner = CliRunner()
    out = runner.invoke(main, ["selfplay", "--games", "12", "--nodes", "400", "--size", "11",
                               "--seed", "3", "--out", str(games)])
    assert out.exit_code == 0, out.output
    data = selfplay.load([games])
    assert data["moves"].shape[0] == 12 and set(data["result"]) <= {0, 1, 2}
    out = runner.invoke(main, ["fit", str(games), "--l2", "0.01", "--out", str(fitted)])
    assert out.exit_code == 0, out.output
    # without --out or --install nothing is written, the engine's own table least of all
    from gomoku_engine.eval.classical import learned_file

    installed = Path(learned_file(Rule.FREESTYLE))
    before = installed.stat().st_mtime_ns if installed.exists() else None
    refused = runner.invoke(main, ["fit", str(games), "--l2", "0.01"])
    assert refused.exit_code == 2 and "--install" in refused.output, refused.output
    assert (installed.stat().st_mtime_ns if installed.exists() else None) == before
    with np.load(fitted) as table:
        assert table["values"].shape == (N_CANON,) and table["values"].dtype == np.int32
        assert int(table["rule"]) == Rule.FREESTYLE
    dataset = tuning.build_dataset(data)
    assert len(dataset.target) == dataset.features.shape[0] > 0
    # the sparse rows are the dense feature rows of the games' quiet positions, in order
    dense, size = [], int(data["size"])
    for g in range(len(data["length"])):
        board = Board(size, rule=Rule.FREESTYLE)
        for ply, cell in enumerate(data["moves"][g, : data["length"][g]]):
            row = tuning.position_features(board) if ply >= data["opening"][g] else None
            if row is not None:
                dense.append(row)
            board.play(int(cell) % size, int(cell) // size)
    np.testing.assert_array_equal(dataset.features.toarray(), np.array(dense))
    assert set(np.unique(dataset.target)) <= {0.0, 0.5, 1.0}


def test_fit_learns_a_planted_value():
    """Synthetic positions whose results follow one combination's count and ignore
    another's: no single sigmoid scale of the hand-set values fits both, and the fit
    moves their ratio towards the truth."""
    rng = np.random.default_rng(0)
    n = 4000
    features = np.zeros((n, N_CANON), np.float32)
    counted = canon_table()[code(OPEN_THREE, THREE, ONE, ONE)]
    ignored = canon_table()[code(FOUR, ONE, ONE, ONE)]
    features[:, counted] = rng.integers(-3, 4, n)
    features[:, ignored] = rng.integers(-3, 4, n)
    target = (rng.random(n) < 1 / (1 + np.exp(-1.5 * features[:, counted]))).astype(float)
    data = tuning.Dataset(features, target, np.arange(n, dtype=np.int32) // 10, target)
    result = tuning.fit(data, l2=1e-6)
    prior = handset_canonical_values()
    assert (abs(result.values[ignored]) / result.values[counted]
            < 0.1 * prior[ignored] / prior[counted])
    assert result.learned_loss < result.handset_loss


def test_engine_plays_with_either_evaluation():
    for evaluation in EVALUATIONS:
        if evaluation == "network" and not has_network(Rule.FREESTYLE):
            continue
        engine = Engine(15, evaluation=evaluation, hash_mb=1)
        engine.board.play(7, 7)
        result = engine.search(Limits(depth=3))
        assert engine.board.is_legal(*result.move)
    engine.set_evaluation("handset")
    assert engine.board.evaluation == "handset"
    with pytest.raises(ValueError):
        engine.set_evaluation("neural")
