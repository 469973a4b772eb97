"""The network evaluation: its weights, their file, and a plain numpy forward pass.

Shape (in the form of a chess NNUE, with Gomoku's line patterns as its features):

* every empty point has, per colour, a canonical combination of its four line patterns
  (one of :data:`~gomoku_engine.eval.classical.N_CANON`, the index the classical tables
  keep); for a *perspective* colour ``c`` the point adds ``embed[0, own]`` and
  ``embed[1, other]``, where ``own`` is ``c``'s combination there and ``other`` the
  opponent's.  The sums over the board are the two accumulators ``acc[c]`` (``D`` values
  each), kept incrementally by make/unmake (:mod:`gomoku_engine.eval.evaluator`): a move
  changes the combinations of the ~40 points on its lines, and only those are added and
  taken away.  An occupied point (or a renju foul, for black) adds nothing: its row is
  :data:`ABSENT`, a zero row.
* the side to move's accumulator and then the opponent's, each plus ``bias1`` and through
  a ReLU, are the ``2D`` inputs of a hidden layer of ``H`` ReLU units (``w2``, ``b2``), whose
  weighted sum (``w3``, ``b3``) is the logit of the side to move's win.
* the engine's score is that logit times the classical table's scale
  (:func:`gomoku_engine.eval.win_rate.sigmoid_scale`), so margins, the tuner and
  :func:`~gomoku_engine.eval.win_rate.win_rate` keep their units.

The embeddings are integers (``embed_q = round(embed * QUANT)``) so that an accumulator
kept through any sequence of moves equals the sum computed from scratch exactly; the
layers after it are float64.  Stockfish's NNUE (Nasu 2018) quantizes its first layer the
same way for the same reason.

The file is a numpy ``.npz``: ``format`` (:data:`FORMAT`), ``rule``, ``embed``
(``int32[2, N_CANON + 1, D]``, already quantized), ``bias1`` (``float64[D]``), ``w2``
(``float64[2D, H]``), ``b2`` (``float64[H]``), ``w3`` (``float64[H]``), ``b3`` (scalar)
and ``meta`` (a JSON string: where the weights come from).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import Rule
from .classical import N_CANON

_DATA_DIR = Path(__file__).resolve().parent / "data"
#: version of the weights file's layout
FORMAT = 1
#: the combination row of a point that adds nothing (occupied, or a black renju foul)
ABSENT = N_CANON
#: the embeddings' fixed-point scale: ``embed_q = round(embed * QUANT)``
QUANT = 4096


class NetworkFileError(ValueError):
    """A weights file that is missing, unreadable or not a network for the rule."""


@dataclass(frozen=True)
class NetworkWeights:
    """The network's arrays (module docstring); ``D = embed.shape[2]``, ``H = b2.shape[0]``.

    * ``embed``: ``int32[2, N_CANON + 1, D]``, role 0 the perspective's own combination,
      1 the opponent's; row :data:`ABSENT` is zero;
    * ``bias1``: ``float64[D]``; ``w2``: ``float64[2D, H]``; ``b2``: ``float64[H]``;
      ``w3``: ``float64[H]``; ``b3``: ``float`` (logit units).
    """

    rule: Rule
    embed: npt.NDArray[np.int32]
    bias1: npt.NDArray[np.float64]
    w2: npt.NDArray[np.float64]
    b2: npt.NDArray[np.float64]
    w3: npt.NDArray[np.float64]
    b3: float
    meta: str = "{}"

    @property
    def width(self) -> int:
        """``D``: values per accumulator."""
        return int(self.embed.shape[2])

    def check(self) -> None:
        """:raises NetworkFileError: if the arrays' shapes or values do not fit together."""
        e = self.embed
        if e.ndim != 3 or e.shape[:2] != (2, N_CANON + 1) or e.shape[2] < 1:
            raise NetworkFileError(f"embed has shape {e.shape}, expected (2, {N_CANON + 1}, D)")
        d, h = e.shape[2], self.b2.shape[0] if self.b2.ndim == 1 else -1
        expected = {"bias1": (self.bias1, (d,)), "w2": (self.w2, (2 * d, h)),
                    "b2": (self.b2, (h,)), "w3": (self.w3, (h,))}
        for name, (array, shape) in expected.items():
            if array.shape != shape:
                raise NetworkFileError(f"{name} has shape {array.shape}, expected {shape}")
            if not np.isfinite(array).all():
                raise NetworkFileError(f"{name} holds values that are not finite")
        if not np.isfinite(self.b3):
            raise NetworkFileError("b3 is not finite")
        if (e[:, ABSENT] != 0).any():
            raise NetworkFileError("the absent row of embed must be zero")
        # an accumulator sums at most 2 * 1024 rows (32x32 board): it must fit in int32
        if np.abs(e.astype(np.int64)).max() * 2048 >= 2**31:
            raise NetworkFileError("embed values too large for the int32 accumulators")


def network_file(rule: Rule) -> Path:
    """Where the package keeps the network trained for ``rule`` (may not exist)."""
    return _DATA_DIR / f"net_{Rule(rule).name.lower()}.npz"


def save_network(path: Path | str, weights: NetworkWeights) -> None:
    """Write ``weights`` as the ``.npz`` of the module docstring.

    :raises NetworkFileError: if the weights are inconsistent (nothing is written).
    """
    weights.check()
    np.savez_compressed(path, format=np.int16(FORMAT), rule=np.int16(int(weights.rule)),
                        embed=weights.embed.astype(np.int32), bias1=weights.bias1,
                        w2=weights.w2, b2=weights.b2, w3=weights.w3,
                        b3=np.float64(weights.b3), meta=np.str_(weights.meta))


def load_network(path: Path | str, rule: Rule | None = None) -> NetworkWeights:
    """Read a weights file written by :func:`save_network`.

    :param rule: if given, the rule the network must have been trained for.
    :raises NetworkFileError: if the file is missing, unreadable, of another format or
        rule, or its arrays are inconsistent.
    """
    path = Path(path)
    if not path.exists():
        raise NetworkFileError(f"no network file at {path}")
    try:
        with np.load(path, allow_pickle=False) as f:
            fmt = int(f["format"])
            if fmt != FORMAT:
                raise NetworkFileError(f"{path}: format {fmt}, this engine reads {FORMAT}")
            weights = NetworkWeights(
                Rule(int(f["rule"])), np.ascontiguousarray(f["embed"], np.int32),
                np.ascontiguousarray(f["bias1"], np.float64),
                np.ascontiguousarray(f["w2"], np.float64),
                np.ascontiguousarray(f["b2"], np.float64),
                np.ascontiguousarray(f["w3"], np.float64), float(f["b3"]), str(f["meta"]))
    except NetworkFileError:
        raise
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise NetworkFileError(f"{path} is not a network file: {exc}") from exc
    if rule is not None and weights.rule != Rule(rule):
        raise NetworkFileError(f"{path} is a network for {weights.rule.name}, "
                               f"not {Rule(rule).name}")
    weights.check()
    return weights


@lru_cache(maxsize=None)
def shipped_network(rule: Rule) -> NetworkWeights:
    """The network the package ships for ``rule``.

    :raises NetworkFileError: if none ships for ``rule`` or its file is damaged.
    """
    return load_network(network_file(rule), rule)


def has_network(rule: Rule) -> bool:
    """Does the package ship a network for ``rule``?"""
    return network_file(rule).exists()


def metadata(weights: NetworkWeights) -> dict:
    """The weights' ``meta`` JSON as a dict (empty if it is not JSON)."""
    try:
        meta = json.loads(weights.meta)
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def accumulators(counts_stm: npt.NDArray, counts_opp: npt.NDArray,
                 weights: NetworkWeights) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The two accumulators from combination counts.

    :param counts_stm: ``int[..., N_CANON + 1]`` empty points per combination of the side
        to move (column :data:`ABSENT` ignored: its row is zero); ``counts_opp`` the same
        for the opponent.
    :returns: ``(acc_stm, acc_opp)``, ``int64[..., D]`` in units of ``1 / QUANT``.
    """
    e = weights.embed.astype(np.int64)
    cs, co = np.asarray(counts_stm, np.int64), np.asarray(counts_opp, np.int64)
    return cs @ e[0] + co @ e[1], co @ e[0] + cs @ e[1]


def forward(acc_stm: npt.NDArray, acc_opp: npt.NDArray,
            weights: NetworkWeights) -> npt.NDArray[np.float64]:
    """The logit of the side to move's win from its accumulators (``int[..., D]``), in
    numpy: the reference the kernel (:func:`gomoku_engine.eval.evaluator.evaluate`) is
    tested against.  Returns ``float64[...]``."""
    x = np.concatenate([np.maximum(np.asarray(acc_stm) / QUANT + weights.bias1, 0.0),
                        np.maximum(np.asarray(acc_opp) / QUANT + weights.bias1, 0.0)], axis=-1)
    hidden = np.maximum(x @ weights.w2 + weights.b2, 0.0)
    return hidden @ weights.w3 + weights.b3


__all__ = ["ABSENT", "FORMAT", "NetworkFileError", "NetworkWeights", "QUANT", "accumulators",
           "forward", "has_network", "load_network", "metadata", "network_file",
           "save_network", "shipped_network"]
