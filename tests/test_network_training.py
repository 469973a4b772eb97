"""Training the network evaluation (JAX, the ``train`` extra): a tiny synthetic set whose
loss falls, a resumed run equal to an uninterrupted one, the export equal to the trained
model in the engine's kernel, and clear errors that lose nothing."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from gomoku_engine.core.constants import Rule
from gomoku_engine.eval import evaluate, network_scale, network_tables
from gomoku_engine.eval.network import load_network, metadata, save_network
from gomoku_engine.game.board import Board
from gomoku_engine.training.network_data import (
    Dataset, build_dataset, load_dataset, perspective_rows, position_arrays, save_dataset,
    threat_inputs, threat_mask,
)
from gomoku_engine.training.network_fit import TrainConfig, Trainer, TrainingError

# JAX is looked for, not imported: it starts threads, and a process that forks afterwards
# (other test modules start engines) is warned about; it is imported by the first Trainer.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None or importlib.util.find_spec("optax") is None,
    reason="the train extra (JAX, optax) is not installed")

SIZE = 9


def synthetic_games(n_games: int, seed: int) -> tuple[dict, list]:
    """Random 9x9 games whose "teacher score" is a known function of the position (the
    difference of the two colours' open-three-or-better points, side to move first), so
    that a model that learns lowers its loss."""
    rng = np.random.default_rng(seed)
    length = 24
    moves = np.full((n_games, length), -1, np.int16)
    scores = []
    board = Board(SIZE)
    for g in range(n_games):
        board.clear()
        for ply in range(length):
            if board.winner:
                break
            legal = [(x, y) for x in range(SIZE) for y in range(SIZE) if board.is_legal(x, y)]
            x, y = legal[rng.integers(len(legal))]
            tc = board.position.threat_count
            us = board.to_move - 1
            signal = float(tc[us, 1:].sum() - tc[1 - us, 1:].sum())
            scores.append((g, ply, 120.0 * signal, 0))
            moves[g, ply] = x + y * SIZE
            board.play(x, y)
    lengths = (moves >= 0).sum(axis=1).astype(np.int16)
    games = {"moves": moves, "length": lengths, "opening": np.zeros(n_games, np.int8),
             "result": rng.integers(0, 3, n_games).astype(np.int8), "size": SIZE,
             "rule": Rule.FREESTYLE}
    return games, [s for s in scores if s[1] < lengths[s[0]]]


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    games, scores = synthetic_games(60, seed=7)
    return build_dataset(games, iter(scores))


def config(epochs: int, centre_tap: bool = False) -> TrainConfig:
    return TrainConfig(width=4, spatial=2, centre_tap=centre_tap, hidden=4, epochs=epochs,
                       batch=64, learning_rate=5e-3, mix=1.0, seed=3)


def test_training_lowers_the_loss_and_a_resumed_run_reaches_the_same_weights(
        dataset, tmp_path):
    whole = Trainer(dataset, config(4), tmp_path / "whole")
    history = whole.run()
    assert history.train[-1] < history.train[0]
    assert history.held_out[-1] < history.held_out[0]
    # the same run stopped after two epochs, then started again from its folder
    Trainer(dataset, config(4), tmp_path / "split").run(until=2)
    resumed = Trainer(dataset, config(4), tmp_path / "split")
    assert resumed.epoch == 2
    resumed.run()
    for name in whole.params:
        assert np.allclose(np.asarray(whole.params[name]), np.asarray(resumed.params[name]),
                           rtol=1e-5, atol=1e-6), name
    assert np.allclose(resumed.history.held_out, history.held_out, rtol=1e-5)


@pytest.mark.parametrize("centre_tap", [False, True], ids=["3x3", "centre-tap"])
def test_the_exported_network_in_the_kernel_equals_the_trained_model(dataset, tmp_path,
                                                                     centre_tap):
    """1,000 positions of random games: the engine's score with the exported (quantized)
    weights, divided by its scale, equals the JAX model's logit within 0.01 logit
    (the embeddings' quantization to 1/4096, the convolution's to 1/256, and the score's
    rounding to an integer)."""
    trainer = Trainer(dataset, config(2, centre_tap), tmp_path / "run")
    trainer.run()
    path = tmp_path / "net.npz"
    save_network(path, trainer.weights())
    weights = load_network(path, Rule.FREESTYLE)
    tables = network_tables(weights, Rule.FREESTYLE)
    games, _ = synthetic_games(50, seed=11)
    board = Board(SIZE, evaluation=tables)
    counted = 0
    for g in range(50):
        board.clear()
        for cell in games["moves"][g, : games["length"][g]]:
            if counted == 1000:
                break
            cells, canon = position_arrays(board)
            to_move = np.array([board.to_move])
            own, other = perspective_rows(cells[None], canon[None], to_move)
            mask = threat_inputs(threat_mask(board)[None], to_move)
            model = float(trainer._eval(trainer.params, own, other, mask)[0])
            engine = evaluate(board.position, board.tables) / network_scale(tables)
            assert abs(engine - model) < 0.01
            counted += 1
            board.play(int(cell) % SIZE, int(cell) // SIZE)
    assert counted >= 1000


def test_a_checkpoint_of_another_run_is_refused_and_kept(dataset, tmp_path):
    Trainer(dataset, config(1), tmp_path / "run").run()
    before = (tmp_path / "run" / "checkpoint.npz").read_bytes()
    other = TrainConfig(width=8, hidden=4, epochs=1, batch=64, mix=1.0, seed=3)
    with pytest.raises(TrainingError, match="resume with the same options"):
        Trainer(dataset, other, tmp_path / "run")
    assert (tmp_path / "run" / "checkpoint.npz").read_bytes() == before


@pytest.mark.parametrize("forced", ["keep", "drop", "drop-threatened"])
def test_a_run_trains_and_measures_on_the_forced_positions_it_is_told_to(dataset, tmp_path,
                                                                         forced):
    """The synthetic set marked with forced results, a third of its positions (every
    third, threatened or not): each choice keeps exactly the positions it names, in the
    training rows and the held-out rows alike."""
    data = dataset.subset(np.arange(len(dataset)))
    data.mate = np.where(np.arange(len(data)) % 3 == 0, -1, 0).astype(np.int8)
    data.threatened = np.arange(len(data)) % 2 == 0
    assert (data.mate != 0).any() and (data.threatened & (data.mate != 0)).any()
    trainer = Trainer(data, TrainConfig(width=4, spatial=2, hidden=4, epochs=1, batch=64,
                                        forced=forced), tmp_path / forced)
    rows = np.concatenate([trainer.train_rows, trainer.held_rows])
    forced_rows = data.mate != 0
    expected = {"keep": np.ones(len(data), bool), "drop": ~forced_rows,
                "drop-threatened": ~(forced_rows & data.threatened)}[forced]
    assert np.array_equal(np.sort(rows), np.flatnonzero(expected))
    assert metadata(trainer.weights())["config"]["forced"] == forced


def test_a_checkpoint_from_before_a_config_field_resumes_with_its_default(dataset, tmp_path):
    """A checkpoint written before ``TrainConfig.forced`` existed (its config lacks the key)
    resumes a run with the default, and is refused to one with another value."""
    Trainer(dataset, config(2), tmp_path / "run").run(until=1)
    path = tmp_path / "run" / "checkpoint.npz"
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    old = json.loads(str(arrays["config"]))
    del old["forced"]
    arrays["config"] = json.dumps(old)
    np.savez(path, **arrays)
    assert Trainer(dataset, config(2), tmp_path / "run").epoch == 1
    other = TrainConfig(**{**config(2).as_dict(), "forced": "drop"})
    with pytest.raises(TrainingError, match="resume with the same options"):
        Trainer(dataset, other, tmp_path / "run")


def test_an_unknown_choice_of_forced_positions_is_refused(dataset, tmp_path):
    with pytest.raises(TrainingError, match="forced='all'"):
        Trainer(dataset, TrainConfig(width=4, spatial=2, hidden=4, forced="all"),
                tmp_path / "run")


def test_bad_data_gives_a_clear_error(dataset, tmp_path):
    path = tmp_path / "data.npz"
    save_dataset(path, dataset)
    assert len(load_dataset(path)) == len(dataset)
    (tmp_path / "junk.npz").write_bytes(b"not a dataset")
    with pytest.raises(ValueError, match="not a training dataset"):
        load_dataset(tmp_path / "junk.npz")
    tiny = dataset.subset(np.flatnonzero(dataset.game % 10 != 9))  # no held-out game left
    with pytest.raises(TrainingError, match="held-out"):
        Trainer(tiny, config(1), tmp_path / "tiny")


def test_train_command_writes_a_network_the_engine_loads_and_resumes(tmp_path):
    """`gomoku-engine train` on one file of the shipped training games (300 games of Rapfi
    against itself): the network loads, the loss plot is written, and the same command
    again finds its run done instead of training it twice."""
    from pathlib import Path

    from click.testing import CliRunner

    from gomoku_engine.cli import main

    games = Path(__file__).resolve().parent.parent / "docs/data/net_freestyle/rapfi10_s31.npz"
    args = ["train", str(games), "--folder", str(tmp_path / "run"), "--out",
            str(tmp_path / "net.npz"), "--epochs", "1", "--width", "4", "--hidden", "4"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert load_network(tmp_path / "net.npz", Rule.FREESTYLE).width == 4
    assert (tmp_path / "run" / "loss.png").stat().st_size > 0
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert "epoch 1 of 1 done" in again.output
