"""The network evaluation: its incremental state (features, convolution, accumulators), its
kernel against the numpy reference, its symmetry, its weights file, and its fallback."""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_engine.core.constants import BLACK, EMPTY, Rule
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval import (
    NetworkFileError, evaluate, network_accumulators, network_scale, network_tables,
    sync_network,
)
from gomoku_engine.eval.classical import canon_table, reference_point_patterns
from gomoku_engine.eval.network import (
    ABSENT, N_CANON, ROWS, STONE_OWN, TAPS, NetworkWeights, accumulators, forward, load_network,
    save_network, shipped_network,
)
from gomoku_engine.core.rules import foul_type
from gomoku_engine.game.board import Board
from gomoku_engine.game.position import NET_PLY
from gomoku_engine.training.network_data import (
    perspective_rows, point_canon, position_arrays, symmetry, threat_inputs, threat_mask,
)

RULES = [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU, Rule.CARO]


def random_weights(rule: Rule = Rule.FREESTYLE, d: int = 8, ds: int = 4, h: int = 6,
                   seed: int = 0) -> NetworkWeights:
    rng = np.random.default_rng(seed)
    embed = rng.integers(-300, 300, size=(2, ROWS, d)).astype(np.int32)
    embed[:, ABSENT] = 0
    embed[1, STONE_OWN:] = 0
    conv = rng.integers(-200, 200, size=(TAPS, ds)).astype(np.int32)
    conv_bias = rng.integers(-40_000, 40_000, size=ds).astype(np.int32)
    return NetworkWeights(rule, embed, conv, conv_bias, rng.normal(0, 0.2, d),
                          rng.normal(0, 0.3, (2 * d + 16, h)), rng.normal(0, 0.2, h),
                          rng.normal(0, 0.5, h), 0.05)


def reference_canon(board: Board) -> np.ndarray:
    """``int16[2, P]``: each point's combination per colour, recomputed from the stones
    with the plain-Python line classifier (renju: ABSENT on a black foul point)."""
    canon = canon_table()
    g, cells = board.geometry, board.position.cells
    out = np.full((2, len(g.points)), ABSENT, np.int16)
    for i, cell in enumerate(g.points):
        if cells[cell] != EMPTY:
            continue
        for colour in (1, 2):
            if (board.rule == Rule.RENJU and colour == BLACK
                    and foul_type(cells.copy(), g.directions, int(cell)) != 0):
                continue
            p = reference_point_patterns(g, cells, board.rule, int(cell), colour)
            out[colour - 1, i] = canon[p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12]
    return out


def reference_accumulators(board: Board, weights: NetworkWeights,
                           canon: np.ndarray | None = None) -> np.ndarray:
    """``int64[2, D]`` black's perspective then white's, from scratch (numpy)."""
    cells, own_canon = position_arrays(board)
    canon = own_canon if canon is None else canon
    own, other = perspective_rows(cells[None], canon[None], np.array([BLACK]))
    return accumulators(own, other, board.width, weights)[0]


@pytest.mark.parametrize("size,ds", [(9, 4), (15, 4), (20, 4), (15, 0)])
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_the_incremental_state_equals_a_recomputation_after_random_moves_and_takebacks(
        rule, size, ds):
    """Random make/unmake sequences: the kept accumulators (the convolution's rectified
    outputs and the linear sums) equal, exactly, those of a board built afresh with the
    same stones and those recomputed in numpy, at every fourth step from the reference
    classifier's combinations; the kernel's score equals the numpy forward pass.  Also
    for a network without spatial channels (``ds`` 0, as a format-1 file)."""
    weights = random_weights(rule, ds=ds, seed=int(rule) + size)
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
        sync_network(fresh.position, fresh.tables)
        # the classical board's training features are the network's incremental
        # combinations (the classical evaluation does not keep them)
        classical = Board(size, rule=rule)
        classical.load(board.stones(), board.to_move)
        assert (point_canon(classical) == board.position.eval_canon).all()
        if step % 3 == 0:
            continue  # the network's state left behind, to follow several moves at once
        sync_network(board.position, board.tables)
        # the spatial channels are brought up lazily, the linear ones at every move
        assert board.position.state[NET_PLY] == (board.ply if ds else 0)
        kept = network_accumulators(board.position)
        assert (kept == network_accumulators(fresh.position)).all()
        assert (board.position.net_spatial == fresh.position.net_spatial).all()
        canon = reference_canon(board) if step % 4 == 0 else None
        assert (reference_accumulators(board, weights, canon) == kept).all()
        us = board.to_move - 1
        acc = kept[[us, 1 - us]]
        mask = threat_inputs(threat_mask(board)[None], np.array([board.to_move]))[0]
        expected = forward(acc, mask, weights) * network_scale(tables)
        assert abs(evaluate(board.position, board.tables) - expected) <= 0.5 + 1e-6


def test_symmetric_positions_get_the_same_features_and_a_point_wise_net_the_same_value():
    """The augmentation's contract: the image of a position's training arrays under each
    of the board's symmetries (:func:`symmetry`) is what the engine reads on the image
    position, so training on images teaches the network about real positions.  A network
    whose convolution is its centre tap alone (no direction) gives the images the same
    accumulators and value exactly; the shipped network, whose 3x3 taps are learned from
    images, is checked within a tolerance below."""
    rng = np.random.default_rng(5)
    weights = random_weights(seed=9)
    centre = np.zeros_like(weights.conv)
    centre[TAPS // 2] = weights.conv[TAPS // 2]
    weights = NetworkWeights(weights.rule, weights.embed, centre, weights.conv_bias,
                             weights.bias1, weights.w2, weights.b2, weights.w3, weights.b3)
    tables = network_tables(weights, Rule.FREESTYLE)
    board = Board(15, evaluation=tables)
    for _ in range(14):
        legal = [(x, y) for x in range(15) for y in range(15) if board.is_legal(x, y)]
        board.play(*legal[rng.integers(len(legal))])
    cells, canon = position_arrays(board)
    value = evaluate(board.position, board.tables)
    for sym in range(1, 8):
        image_cells, image_canon = symmetry(cells[None], canon[None], 15, sym)
        image = Board(15, evaluation=tables)
        grid = image_cells[0].reshape(15, 15)
        stones = [(x, y, int(grid[y, x])) for y in range(15) for x in range(15) if grid[y, x]]
        image.load(stones, board.to_move)
        sync_network(board.position, board.tables)
        sync_network(image.position, image.tables)
        assert (position_arrays(image)[1] == image_canon[0]).all(), sym
        assert (network_accumulators(image.position)
                == network_accumulators(board.position)).all(), sym
        assert evaluate(image.position, image.tables) == value


def _image_board(board: Board, sym: int, evaluation) -> Board:
    """The position of ``board`` through symmetry ``sym``, on a board of ``evaluation``."""
    cells, canon = position_arrays(board)
    image_cells = symmetry(cells[None], canon[None], board.width, sym)[0]
    grid = image_cells[0].reshape(board.width, board.width)
    image = Board(board.width, evaluation=evaluation)
    image.load([(x, y, int(grid[y, x])) for y in range(board.width)
                for x in range(board.width) if grid[y, x]], board.to_move)
    return image


def test_the_shipped_network_values_symmetric_positions_alike():
    """Trained on the 8 images of its positions, the shipped spatial network gives a
    position and its images close values: over 60 positions of the held-out games the
    values of the 8 images spread (max - min) by at most SPREAD logits, MEAN_SPREAD on
    average (measured on the shipped network of 61348a6: max 0.553, mean 0.212, where the
    values of the positions themselves spread with a standard deviation of about 1.4).
    Its 3x3 taps have a direction, so the images are not equal exactly."""
    from pathlib import Path

    from gomoku_engine.training.selfplay import load

    games = load([str(Path(__file__).resolve().parent.parent
                      / "docs/data/net_freestyle/heldout_s99.npz")])
    board = Board(15, evaluation="spatial")
    assert board.tables.net_conv.shape[1] > 0  # the network with the convolution
    scale = network_scale(board.tables)
    spreads = []
    for g in range(0, 60):
        board.clear()
        moves = games["moves"][g, : games["length"][g]]
        for cell in moves[: min(len(moves) - 1, 8 + g % 20)]:
            board.play(int(cell) % 15, int(cell) // 15)
        values = [evaluate(board.position, board.tables)]
        values += [evaluate(image.position, image.tables) for image in
                   (_image_board(board, sym, "spatial") for sym in range(1, 8))]
        spreads.append((max(values) - min(values)) / scale)
    print(f"spread of the 8 images' values: max {max(spreads):.3f}, "
          f"mean {np.mean(spreads):.3f} logits")
    assert max(spreads) <= SPREAD and np.mean(spreads) <= MEAN_SPREAD, spreads


#: the largest spread of a position's 8 images' values the shipped spatial network may
#: show, and the largest mean spread (logits)
SPREAD = 1.0
MEAN_SPREAD = 0.35


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU])
def test_each_rule_s_shipped_network_is_trained_for_it_and_plays_under_it(rule):
    """The package ships a bag network per rule it was trained for; the default engine of
    that rule plays with it (its tables are that file's), and its moves are legal under
    the rule (renju: black's fouls are never played)."""
    weights = shipped_network(rule)
    assert weights.rule == rule and weights.spatial == 0
    engine = Engine(15, rule=rule, hash_mb=1)
    assert np.array_equal(engine.board.tables.net_embed, weights.embed)
    for _ in range(12):
        result = engine.search(Limits(depth=3))
        assert engine.board.is_legal(*result.move), (rule, result.move)
        engine.board.play(*result.move)
        if engine.board.winner:
            break


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
    bad = NetworkWeights(Rule.FREESTYLE, weights.embed, weights.conv, weights.conv_bias,
                         weights.bias1, weights.w2[:3], weights.b2, weights.w3, weights.b3)
    with pytest.raises(NetworkFileError, match="w2 has shape"):
        save_network(tmp_path / "bad.npz", bad)
    assert not (tmp_path / "bad.npz").exists()


def test_a_network_whose_linear_sums_could_overflow_int32_is_refused():
    """The linear channels are summed in int32 over at most 32x32 points: an embedding
    whose two rows could reach 2**31 / 1024 is refused, one just below it is not."""
    weights = random_weights(ds=0)
    limit = 2**31 // (32 * 32) // 2  # a point's feature sums two rows
    for value, refused in ((limit, True), (limit - 1, False)):
        embed = weights.embed.copy()
        embed[0, 5, 0] = value
        embed[1, 5, 0] = -value
        big = NetworkWeights(Rule.FREESTYLE, embed, weights.conv, weights.conv_bias,
                             weights.bias1, weights.w2, weights.b2, weights.w3, weights.b3)
        if refused:
            with pytest.raises(NetworkFileError, match="too large for int32"):
                big.check()
        else:
            big.check()


def test_a_format_1_network_loads_as_the_same_network_without_its_spatial_step(tmp_path):
    """A file of the earlier layout (no stones, no convolution, no threat mask) reads as
    the same network: its value on a position equals the format-1 formula's."""
    rng = np.random.default_rng(4)
    d, h = 6, 5
    embed = rng.integers(-300, 300, size=(2, N_CANON + 1, d)).astype(np.int32)
    embed[:, ABSENT] = 0
    bias1, w2, b2, w3 = (rng.normal(0, 0.2, d), rng.normal(0, 0.3, (2 * d, h)),
                         rng.normal(0, 0.2, h), rng.normal(0, 0.5, h))
    path = tmp_path / "old.npz"
    np.savez(path, format=np.int16(1), rule=np.int16(int(Rule.FREESTYLE)), embed=embed,
             bias1=bias1, w2=w2, b2=b2, w3=w3, b3=np.float64(0.1), meta=np.str_("{}"))
    weights = load_network(path, Rule.FREESTYLE)
    assert weights.spatial == 0
    board = Board(15, evaluation=network_tables(weights, Rule.FREESTYLE))
    for x, y in ((7, 7), (8, 8), (8, 7), (6, 7)):
        board.play(x, y)
    sync_network(board.position, board.tables)
    us = board.to_move - 1
    canon = point_canon(board)[:, board.geometry.points]
    counts = [np.bincount(canon[c], minlength=N_CANON + 1) for c in (us, 1 - us)]
    acc_s = counts[0] @ embed[0] + counts[1] @ embed[1]
    acc_o = counts[1] @ embed[0] + counts[0] @ embed[1]
    x = np.concatenate([np.maximum(acc_s / 4096 + bias1, 0), np.maximum(acc_o / 4096 + bias1, 0)])
    logit = np.maximum(x @ w2 + b2, 0) @ w3 + 0.1
    scale = network_scale(board.tables)
    assert abs(evaluate(board.position, board.tables) - logit * scale) <= 0.5 + 1e-6


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
