"""The network evaluation: its incremental accumulators, its kernel against the numpy
reference, its weights file, and (with JAX installed) its training."""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_engine.core.constants import BLACK, EMPTY, Rule
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval import NetworkFileError, evaluate, network_scale, network_tables
from gomoku_engine.eval.classical import canon_table, reference_point_patterns
from gomoku_engine.eval.network import (
    ABSENT, N_CANON, NetworkWeights, accumulators, forward, load_network, save_network,
)
from gomoku_engine.core.rules import foul_type
from gomoku_engine.game.board import Board
from gomoku_engine.training.network_data import point_canon

RULES = [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU, Rule.CARO]


def random_weights(rule: Rule = Rule.FREESTYLE, d: int = 8, h: int = 6,
                   seed: int = 0) -> NetworkWeights:
    rng = np.random.default_rng(seed)
    embed = rng.integers(-300, 300, size=(2, N_CANON + 1, d)).astype(np.int32)
    embed[:, ABSENT] = 0
    return NetworkWeights(rule, embed, rng.normal(0, 0.2, d), rng.normal(0, 0.3, (2 * d, h)),
                          rng.normal(0, 0.2, h), rng.normal(0, 0.5, h), 0.05)


def reference_counts(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Combination counts of the side to move and the opponent, recomputed from the stones
    with the plain-Python line classifier (renju: a black foul point counts for nothing)."""
    canon = canon_table()
    g, cells = board.geometry, board.position.cells
    counts = np.zeros((2, N_CANON + 1), np.int64)
    for cell in g.points:
        if cells[cell] != EMPTY:
            continue
        for colour in (1, 2):
            if (board.rule == Rule.RENJU and colour == BLACK
                    and foul_type(cells.copy(), g.directions, int(cell)) != 0):
                continue
            p = reference_point_patterns(g, cells, board.rule, int(cell), colour)
            counts[colour - 1, canon[p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12]] += 1
    us = board.to_move - 1
    return counts[us], counts[1 - us]


@pytest.mark.parametrize("size", [9, 20])
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_accumulators_equal_a_recomputation_after_random_moves_and_takebacks(rule, size):
    """Random make/unmake sequences: the kept accumulators equal, exactly, those of a board
    built afresh with the same stones, and at every fourth step those recomputed from the
    stones by the reference classifier; the kernel's score equals the numpy forward pass."""
    weights = random_weights(rule, seed=int(rule) + size)
    tables = network_tables(weights, rule)
    rng = np.random.default_rng(int(rule) * 31 + size)
    board = Board(size, rule=rule, evaluation=tables)
    for step in range(60 if size == 9 else 40):
        if board.ply and (rng.random() < 0.35 or board.winner):
            board.undo()
        else:
            legal = [(x, y) for x in range(size) for y in range(size) if board.is_legal(x, y)]
            board.play(*legal[rng.integers(len(legal))])
        fresh = Board(size, rule=rule, evaluation=tables)
        fresh.load(board.stones(), board.to_move)
        assert (board.position.net_acc == fresh.position.net_acc).all()
        # the training features, read from a classical board's patterns, are the
        # network's incremental combinations (the classical evaluation does not keep them)
        classical = Board(size, rule=rule)
        classical.load(board.stones(), board.to_move)
        assert (point_canon(classical) == board.position.eval_canon).all()
        us = board.to_move - 1
        if step % 4 == 0:
            acc_s, acc_o = accumulators(*reference_counts(board), weights)
            assert (board.position.net_acc[us] == acc_s).all()
            assert (board.position.net_acc[1 - us] == acc_o).all()
        acc_s, acc_o = board.position.net_acc[us], board.position.net_acc[1 - us]
        expected = forward(acc_s, acc_o, weights) * network_scale(tables)
        assert abs(evaluate(board.position, board.tables) - expected) <= 0.5 + 1e-6


def test_network_search_is_legal_and_reports_in_evaluation_units():
    weights = random_weights(d=4, h=4)
    engine = Engine(15, hash_mb=1)
    engine.board = Board(15, evaluation=network_tables(weights, Rule.FREESTYLE))
    engine.board.play(7, 7)
    result = engine.search(Limits(depth=4))
    assert engine.board.is_legal(*result.move)
    assert result.nodes > 0


def test_weights_file_round_trip_and_clear_errors(tmp_path):
    weights = random_weights()
    path = tmp_path / "net.npz"
    save_network(path, weights)
    back = load_network(path, Rule.FREESTYLE)
    assert (back.embed == weights.embed).all() and np.allclose(back.w2, weights.w2)
    with pytest.raises(NetworkFileError, match="no network file"):
        load_network(tmp_path / "missing.npz")
    with pytest.raises(NetworkFileError, match="for FREESTYLE, not RENJU"):
        load_network(path, Rule.RENJU)
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(path.read_bytes()[:200])
    with pytest.raises(NetworkFileError, match="not a network file"):
        load_network(damaged)
    bad = NetworkWeights(Rule.FREESTYLE, weights.embed, weights.bias1, weights.w2[:3],
                         weights.b2, weights.w3, weights.b3)
    with pytest.raises(NetworkFileError, match="w2 has shape"):
        save_network(tmp_path / "bad.npz", bad)
    assert not (tmp_path / "bad.npz").exists()


def test_unknown_evaluation_is_refused_and_the_engine_keeps_its_evaluation():
    engine = Engine(15, hash_mb=1)
    before = engine.board.evaluation
    with pytest.raises(ValueError):
        engine.set_evaluation("neural")
    assert engine.board.evaluation == before


def _signatures() -> int:
    """Compiled signatures of every kernel of the position, the evaluation and the search."""
    from numba.core.registry import CPUDispatcher

    from gomoku_engine.eval import evaluator
    from gomoku_engine.game import position
    from gomoku_engine.search import alphabeta, threats

    return sum(len(f.signatures) for m in (evaluator, position, alphabeta, threats)
               for f in vars(m).values() if isinstance(f, CPUDispatcher))


def test_both_evaluations_run_the_same_compiled_kernels():
    """The network is chosen at run time: after a classical search, a network search (and
    its make/unmake, evaluation and threat solver) compiles no new signature, so the
    warm-up's cache serves both."""
    engine = Engine(15, hash_mb=1)
    for x, y in ((7, 7), (8, 8), (8, 7)):
        engine.board.play(x, y)
    engine.search(Limits(depth=4))
    before = _signatures()
    engine.board = Board(15, evaluation=network_tables(random_weights(), Rule.FREESTYLE))
    for x, y in ((7, 7), (8, 8), (8, 7)):
        engine.board.play(x, y)
    engine.search(Limits(depth=4))
    engine.board.undo()
    assert _signatures() == before
