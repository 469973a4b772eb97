"""Training the network evaluation (``gomoku-engine train``): JAX and optax, on the CPU.

The model is :mod:`gomoku_engine.eval.network`'s in float32: per point and perspective
the embeddings of its combinations or stone (:mod:`.network_data`), the spatial channels
through a ReLU, a 3x3 depthwise convolution and a ReLU, everything summed over the board
into two accumulators, then a ReLU, the threat mask beside them, a hidden ReLU layer and
one logit.  ``centre_tap`` keeps the convolution to its centre tap (each point alone: the
ablation that measures what the spatial step adds).  Every batch is seen through one of
the board's 8 symmetries, drawn per batch (the augmentation).  It is fitted by Adam (with decoupled weight decay) to the binary cross-entropy of its win
probability against the target

    ``mix * P_teacher + (1 - mix) * result``,

``P_teacher = sigmoid(score / teacher_scale)`` (1 or 0 for a forced result), where
``teacher_scale`` is the teacher's score per logit of the game results, fitted on the
training positions (:func:`gomoku_engine.training.tuning.best_scale`).  This is how the
first NNUE nets of Stockfish were trained: a mix of a deeper search's score and the game's
outcome (its ``lambda``).

Every tenth game (by its index) is held out; its positions are never trained on.  After
each epoch the trainer writes a checkpoint (parameters, the optimizer's state, the
history), so a run that stops resumes where it was: the epoch's shuffle comes from
``(seed, epoch)``, and a resumed run reaches the same weights as one that never stopped.

JAX is the ``train`` extra (``pip install 'gomoku-engine[train]'``); the engine itself
evaluates the exported network with numba and needs none of it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import Rule
from ..core.constants import N_THREATS
from ..eval.network import (ABSENT, QCONV, QUANT, ROWS, STONE_OWN, TAPS, NetworkWeights,
                            with_metadata)
from .forced import kept_positions
from .network_data import N_SYMMETRIES, Dataset

#: every HOLDOUT_EVERY-th game is held out
HOLDOUT_EVERY = 10
_CHECKPOINT = "checkpoint.npz"
_PARAM_NAMES = ("embed", "conv", "conv_bias", "bias1", "w2", "b2", "w3", "b3")
#: the convolution's centre tap (each point alone)
CENTRE = TAPS // 2


class TrainingError(RuntimeError):
    """Training cannot start or go on (no JAX, no data, a checkpoint of another run)."""


@dataclass
class TrainConfig:
    """What a run trains and how; a checkpoint keeps it and a resumed run must match it."""

    width: int = 32  #: D: values per accumulator
    spatial: int = 16  #: Ds: the channels through the convolution (the first Ds of D)
    centre_tap: bool = False  #: the convolution's centre tap only (the ablation)
    hidden: int = 32  #: H: units of the hidden layer
    epochs: int = 12
    batch: int = 512
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    mix: float = 0.7  #: the teacher's share of the target
    seed: int = 1
    #: weight of a position where the side to move is threatened (the opponent has a
    #: four-three or open-four point) against 1 for the others
    threatened_weight: float = 1.0
    #: which forced positions (the teacher scores a forced win or loss) the run trains and
    #: measures on: :data:`gomoku_engine.training.forced.FORCED_CHOICES`
    forced: str = "keep"

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class History:
    """Mean losses per epoch (nats): training target, held-out target, held-out results."""

    train: list[float] = field(default_factory=list)
    held_out: list[float] = field(default_factory=list)
    held_out_results: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


def check_libraries() -> None:
    """:raises TrainingError: if JAX or optax (the ``train`` extra) is not installed."""
    _jax()


def _jax():
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as exc:
        raise TrainingError("gomoku-engine train needs JAX and optax: "
                            "pip install 'gomoku-engine[train]'") from exc
    return jax, jnp, optax


def split(data: Dataset) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """``(training rows, held-out rows)``: the positions of every ``HOLDOUT_EVERY``-th game
    are held out."""
    held = data.game % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
    return np.flatnonzero(~held), np.flatnonzero(held)


def teacher_probability(data: Dataset, scale: float) -> npt.NDArray[np.float32]:
    """``float32[n]``: the teacher's win probability for the side to move."""
    p = 1.0 / (1.0 + np.exp(-data.score.astype(np.float64) / scale))
    p[data.mate > 0] = 1.0
    p[data.mate < 0] = 0.0
    return p.astype(np.float32)


def teacher_scale(data: Dataset, rows: npt.NDArray[np.intp]) -> float:
    """The teacher's score per logit of the results, over ``rows``' non-forced positions
    (:func:`gomoku_engine.training.tuning.best_scale`)."""
    from .tuning import best_scale

    keep = rows[data.mate[rows] == 0]
    if len(keep) < 10:
        raise TrainingError("too few scored positions to fit the teacher's scale")
    return best_scale(data.score[keep].astype(np.float64), data.result[keep].astype(np.float64))


def init_params(config: TrainConfig) -> dict[str, npt.NDArray[np.float32]]:
    """Random initial parameters (float32 numpy arrays, seeded by ``config.seed``)."""
    rng = np.random.default_rng([config.seed, 0])
    d, ds, h = config.width, config.spatial, config.hidden
    embed = rng.normal(0.0, 0.02, (2, ROWS, d)).astype(np.float32)
    embed[:, ABSENT] = 0.0
    embed[1, STONE_OWN:] = 0.0
    conv = rng.normal(0.0, 1.0 / 3.0, (TAPS, ds)).astype(np.float32)
    n_in = 2 * d + 2 * N_THREATS
    return {"embed": embed, "conv": conv, "conv_bias": np.zeros(ds, np.float32),
            "bias1": np.zeros(d, np.float32),
            "w2": rng.normal(0.0, 1.0 / math.sqrt(n_in), (n_in, h)).astype(np.float32),
            "b2": np.zeros(h, np.float32),
            "w3": rng.normal(0.0, 1.0 / math.sqrt(h), h).astype(np.float32),
            "b3": np.zeros((), np.float32)}


def _embed_mask() -> npt.NDArray[np.float32]:
    """``float32[2, ROWS, 1]``: zero on the rows of ``embed`` that must stay zero."""
    keep = np.ones((2, ROWS, 1), np.float32)
    keep[:, ABSENT] = 0.0
    keep[1, STONE_OWN:] = 0.0
    return keep


def _logits(jnp, params, own, other, mask, size: int, centre_tap: bool):
    """The model in JAX: ``own``, ``other`` ``int[B, 2, P]`` (the embedding rows per
    perspective, the side to move's first), ``mask`` ``float32[B, 2 N_THREATS]``."""
    f = params["embed"][0][own] + params["embed"][1][other]  # [B, 2, P, D]
    ds = params["conv"].shape[1]
    acc = f.sum(axis=2)
    if ds:
        b = f.shape[0]
        g = jnp.maximum(f[..., :ds], 0.0).reshape(b, 2, size, size, ds)
        padded = jnp.pad(g, ((0, 0), (0, 0), (1, 1), (1, 1), (0, 0)))
        taps = [CENTRE] if centre_tap else range(TAPS)
        h = params["conv_bias"]
        for t in taps:
            dy, dx = divmod(t, 3)
            h = h + params["conv"][t] * padded[:, :, dy:dy + size, dx:dx + size]
        acc = jnp.concatenate([jnp.maximum(h, 0.0).sum(axis=(2, 3)), acc[..., ds:]], axis=-1)
    x = jnp.maximum(acc + params["bias1"], 0.0)
    inputs = jnp.concatenate([x[:, 0], x[:, 1], mask], axis=1)
    hidden = jnp.maximum(inputs @ params["w2"] + params["b2"], 0.0)
    return hidden @ params["w3"] + params["b3"]


class Trainer:
    """One training run over ``data``, checkpointed in ``folder``.

    :raises TrainingError: without JAX, with no held-out or training positions, or when
        ``folder`` holds a checkpoint of a run with another configuration.
    """

    def __init__(self, data: Dataset, config: TrainConfig, folder: Path | str,
                 rule: Rule = Rule.FREESTYLE, sources: list[str] | None = None) -> None:
        self.jax, self.jnp, self.optax = _jax()
        self.data, self.config, self.rule = data, config, Rule(rule)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.sources = sources or []
        try:
            kept = kept_positions(data, config.forced)
        except ValueError as exc:
            raise TrainingError(str(exc)) from exc
        self.train_rows, self.held_rows = (rows[kept[rows]] for rows in split(data))
        if len(self.train_rows) == 0 or len(self.held_rows) == 0:
            raise TrainingError(f"{len(data)} positions: need both training and held-out "
                                f"games (every {HOLDOUT_EVERY}th game is held out)")
        self.scale = teacher_scale(data, self.train_rows)
        self.target = (config.mix * teacher_probability(data, self.scale)
                       + (1.0 - config.mix) * data.result).astype(np.float32)
        self.weight = np.where(data.threatened, config.threatened_weight, 1.0).astype(np.float32)
        self.optimizer = self.optax.adamw(
            self.optax.cosine_decay_schedule(config.learning_rate,
                                             config.epochs * self.steps_per_epoch),
            weight_decay=config.weight_decay)
        self.params = {k: self.jnp.asarray(v) for k, v in init_params(config).items()}
        self.opt_state = self.optimizer.init(self.params)
        self.epoch = 0
        self.history = History()
        self._step = self._make_step()
        self._eval = self.jax.jit(lambda p, a, b, m: _logits(
            self.jnp, p, a, b, m, data.size, config.centre_tap))
        self._load_checkpoint()

    @property
    def steps_per_epoch(self) -> int:
        return max(1, len(self.train_rows) // self.config.batch)

    def _make_step(self):
        jax, jnp, optax = self.jax, self.jnp, self.optax
        keep = _embed_mask()
        size, centre_tap = self.data.size, self.config.centre_tap

        def loss(params, own, other, mask, t, w):
            logits = _logits(jnp, params, own, other, mask, size, centre_tap)
            return jnp.sum(w * (jnp.logaddexp(0.0, logits) - t * logits)) / jnp.sum(w)

        def step(params, opt_state, own, other, mask, t, w):
            value, grads = jax.value_and_grad(loss)(params, own, other, mask, t, w)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            params["embed"] = params["embed"] * keep  # the absent rows stay zero
            return params, opt_state, value

        return jax.jit(step)

    # --- checkpoints -----------------------------------------------------------------------
    @property
    def checkpoint_path(self) -> Path:
        return self.folder / _CHECKPOINT

    def _save_checkpoint(self) -> None:
        leaves, _ = self.jax.tree_util.tree_flatten(self.opt_state)
        arrays = {f"param_{k}": np.asarray(v) for k, v in self.params.items()}
        arrays.update({f"opt_{i}": np.asarray(v) for i, v in enumerate(leaves)})
        tmp = self.folder / (_CHECKPOINT + ".tmp.npz")
        np.savez(tmp, epoch=self.epoch, config=json.dumps(self.config.as_dict()),
                 history=json.dumps(self.history.__dict__), scale=self.scale, **arrays)
        tmp.replace(self.checkpoint_path)  # a crash never leaves half a checkpoint

    def _load_checkpoint(self) -> None:
        if not self.checkpoint_path.exists():
            return
        try:
            with np.load(self.checkpoint_path, allow_pickle=False) as f:
                # a field the checkpoint lacks came after it: its run had the default
                config = {**TrainConfig().as_dict(), **json.loads(str(f["config"]))}
                if config != self.config.as_dict():
                    raise TrainingError(
                        f"{self.checkpoint_path} is a run with {config}, not "
                        f"{self.config.as_dict()}: resume with the same options or use "
                        "another folder")
                self.params = {k: self.jnp.asarray(f[f"param_{k}"]) for k in _PARAM_NAMES}
                leaves, tree = self.jax.tree_util.tree_flatten(self.opt_state)
                self.opt_state = self.jax.tree_util.tree_unflatten(
                    tree, [self.jnp.asarray(f[f"opt_{i}"]) for i in range(len(leaves))])
                self.epoch = int(f["epoch"])
                self.history = History(**json.loads(str(f["history"])))
        except (KeyError, ValueError, OSError) as exc:
            if isinstance(exc, TrainingError):
                raise
            raise TrainingError(f"{self.checkpoint_path} is not a readable checkpoint "
                                f"({exc}); move it away to start afresh") from exc

    # --- training --------------------------------------------------------------------------
    def held_out_losses(self) -> tuple[float, float]:
        """Held-out mean loss against the target and against the game results (nats)."""
        logits = self.logits(self.held_rows)
        t = self.target[self.held_rows].astype(np.float64)
        r = self.data.result[self.held_rows].astype(np.float64)
        return (float(np.mean(np.logaddexp(0.0, logits) - t * logits)),
                float(np.mean(np.logaddexp(0.0, logits) - r * logits)))

    def logits(self, rows: npt.NDArray[np.intp], sym: int = 0) -> npt.NDArray[np.float64]:
        """The model's logits for positions ``rows`` seen through symmetry ``sym``
        (float64)."""
        out = [np.asarray(self._eval(self.params, *self.data.rows(rows[i:i + 1024], sym)))
               for i in range(0, len(rows), 1024)]
        return np.concatenate(out).astype(np.float64) if out else np.zeros(0)

    def run(self, progress: Callable[[int, float], None] | None = None,
            until: int | None = None) -> History:
        """Train the remaining epochs, a checkpoint after each.

        :param progress: called after every step with the step's number in the epoch and
            its loss.
        :param until: stop once this many epochs are done (None: all of them), as a run
            that is interrupted and resumed later.
        """
        cfg = self.config
        last = cfg.epochs if until is None else min(until, cfg.epochs)
        while self.epoch < last:
            started = time.monotonic()
            rng = np.random.default_rng([cfg.seed, self.epoch + 1])
            order = rng.permutation(self.train_rows)
            symmetries = rng.integers(0, N_SYMMETRIES, self.steps_per_epoch)
            losses = []
            for s in range(self.steps_per_epoch):
                rows = order[s * cfg.batch:(s + 1) * cfg.batch]
                self.params, self.opt_state, value = self._step(
                    self.params, self.opt_state, *self.data.rows(rows, int(symmetries[s])),
                    self.target[rows], self.weight[rows])
                losses.append(float(value))
                if progress is not None:
                    progress(s, losses[-1])
            held, held_results = self.held_out_losses()
            self.history.train.append(float(np.mean(losses)))
            self.history.held_out.append(held)
            self.history.held_out_results.append(held_results)
            self.history.seconds.append(time.monotonic() - started)
            self.epoch += 1
            self._save_checkpoint()
        return self.history

    def weights(self) -> NetworkWeights:
        """The trained parameters as the engine's network (embeddings quantized)."""
        p = {k: np.asarray(v, np.float64) for k, v in self.params.items()}
        embed = np.round(p["embed"] * QUANT).astype(np.int32) * _embed_mask().astype(np.int32)
        conv = p["conv"]
        if self.config.centre_tap:
            conv = np.where(np.arange(TAPS)[:, None] == CENTRE, conv, 0.0)
        held, held_results = (self.history.held_out[-1], self.history.held_out_results[-1]) \
            if self.history.held_out else (float("nan"), float("nan"))
        meta = {"config": self.config.as_dict(), "epochs_done": self.epoch,
                "teacher_scale": self.scale, "positions": len(self.data),
                "held_out_positions": int(len(self.held_rows)), "sources": self.sources,
                "held_out_loss": held, "held_out_results_loss": held_results}
        weights = NetworkWeights(self.rule, embed, np.round(conv * QCONV).astype(np.int32),
                                 np.round(p["conv_bias"] * QUANT * QCONV).astype(np.int32),
                                 p["bias1"], p["w2"], p["b2"], p["w3"], float(p["b3"]),
                                 json.dumps(meta))
        return with_metadata(weights, size=self.data.size)


def plot_history(history: History, path: Path | str) -> None:
    """A PNG of the loss curves per epoch (matplotlib, in the ``train`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = range(1, len(history.train) + 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(epochs, history.train, label="training (target)")
    ax.plot(epochs, history.held_out, label="held out (target)")
    ax.plot(epochs, history.held_out_results, label="held out (game results)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("binary cross-entropy (nats)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


__all__ = ["HOLDOUT_EVERY", "History", "TrainConfig", "Trainer", "TrainingError", "check_libraries",
           "init_params", "plot_history", "split", "teacher_probability", "teacher_scale"]
