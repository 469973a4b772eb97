"""The network evaluation: its weights, their file, and a plain numpy forward pass.

Shape (a small NNUE with Gomoku's line patterns as its features and one spatial step, the
form Rapfi's trainer calls "PatNet v2"; its source and trainer gave the idea, no code):

* every point has, for a *perspective* colour ``c``, a feature vector of ``D`` integers
  ``f = embed[0, own] + embed[1, other]``: on an empty point ``own`` is ``c``'s canonical
  combination of its four line patterns (one of
  :data:`~gomoku_engine.eval.classical.N_CANON`, the index the classical tables keep)
  and ``other`` the opponent's; on a stone ``own`` is :data:`STONE_OWN` or
  :data:`STONE_OPP` and ``other`` :data:`ABSENT` (a zero row, as a black renju foul's).
* the first ``Ds`` channels are *spatial*: ``g = ReLU(f)``, then a 3x3 depthwise
  convolution (``conv[t, k]``, tap ``t = 3 (dy + 1) + dx + 1`` reads the point ``dy`` rows
  and ``dx`` columns away, zero off the board) plus ``conv_bias``, then a ReLU, summed over
  the board.  That is where neighbouring points meet: whether two threats share a
  defence, whether a defence makes a four.  The other ``D - Ds`` channels are summed over
  the board as they are.  The sums are the two accumulators ``acc[c]``.
* the side to move's accumulator and the opponent's, each scaled and plus ``bias1`` and
  through a ReLU, and the threat mask (which classes of
  :data:`~gomoku_engine.core.constants.THREAT_NAMES` each side has somewhere: ``2 *
  N_THREATS`` zeros and ones, the side to move's first) are the inputs of a hidden layer of
  ``H`` ReLU units (``w2``, ``b2``), whose weighted sum (``w3``, ``b3``) is the logit of the
  side to move's win.
* the engine's score is that logit times the classical table's scale
  (:func:`gomoku_engine.eval.win_rate.sigmoid_scale`), so margins, the tuner and
  :func:`~gomoku_engine.eval.win_rate.win_rate` keep their units.

Everything up to the accumulators is integer (``embed_q = round(embed * QUANT)``,
``conv_q = round(conv * QCONV)``, ``conv_bias_q = round(conv_bias * QUANT * QCONV)``),
so that a state kept incrementally through any sequence of moves equals a recomputation
exactly; the layers after it are float64.  Stockfish's NNUE (Nasu 2018) quantizes its
first layer for the same reason.  ``Ds = 0`` with a zero threat block is the earlier
network (a bag of point combinations, format 1), which still loads.

The file is a numpy ``.npz``: ``format`` (:data:`FORMAT`), ``rule``, ``embed``
(``int32[2, ROWS, D]``, quantized), ``conv`` (``int32[9, Ds]``), ``conv_bias``
(``int32[Ds]``), ``bias1`` (``float64[D]``), ``w2`` (``float64[2D + 2 N_THREATS, H]``),
``b2`` (``float64[H]``), ``w3`` (``float64[H]``), ``b3`` (scalar) and ``meta`` (a JSON
string: where the weights come from, and ``size``, the board they were trained on).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import MAX_SIZE, N_THREATS, Rule
from .classical import N_CANON

_DATA_DIR = Path(__file__).resolve().parent / "data"
#: version of the weights file's layout (1, without the spatial step, still loads)
FORMAT = 2
#: the combination row of a point that adds nothing (occupied, or a black renju foul)
ABSENT = N_CANON
#: ``embed[0]``'s row of a stone of the perspective's colour, and of the opponent's
STONE_OWN = N_CANON + 1
STONE_OPP = N_CANON + 2
#: rows of each role of ``embed``
ROWS = N_CANON + 3
#: the embeddings' fixed-point scale: ``embed_q = round(embed * QUANT)``
QUANT = 4096
#: the convolution's fixed-point scale: ``conv_q = round(conv * QCONV)``
QCONV = 256
#: taps of the 3x3 convolution
TAPS = 9
#: a bound on a convolution output's magnitude (int32 units, :meth:`NetworkWeights.check`):
#: the engine holds the outputs of points off the board below ``-OUTPUT_BOUND``
OUTPUT_BOUND = 1 << 29
#: the board the shipped networks are trained on; other sizes fall back to the classical
#: evaluation (:func:`gomoku_engine.eval.eval_tables`)
NETWORK_SIZE = 15


class NetworkFileError(ValueError):
    """A weights file that is missing, unreadable or not a network for the rule."""


@dataclass(frozen=True)
class NetworkWeights:
    """The network's arrays (module docstring); ``D = embed.shape[2]``,
    ``Ds = conv.shape[1]``, ``H = b2.shape[0]``.

    * ``embed``: ``int32[2, ROWS, D]``, role 0 the perspective's own combination or stone,
      1 the opponent's combination; zero rows: :data:`ABSENT` in both roles, the stones'
      rows in role 1;
    * ``conv``: ``int32[TAPS, Ds]``; ``conv_bias``: ``int32[Ds]``;
    * ``bias1``: ``float64[D]``; ``w2``: ``float64[2D + 2 N_THREATS, H]``; ``b2``:
      ``float64[H]``; ``w3``: ``float64[H]``; ``b3``: ``float`` (logit units).
    """

    rule: Rule
    embed: npt.NDArray[np.int32]
    conv: npt.NDArray[np.int32]
    conv_bias: npt.NDArray[np.int32]
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

    @property
    def spatial(self) -> int:
        """``Ds``: the channels that go through the convolution."""
        return int(self.conv.shape[1])

    @property
    def size(self) -> int | None:
        """The board size the network was trained on (None if its file does not say)."""
        size = metadata(self).get("size")
        return int(size) if size is not None else None

    def check(self) -> None:
        """:raises NetworkFileError: if the arrays' shapes or values do not fit together."""
        e = self.embed
        if e.ndim != 3 or e.shape[:2] != (2, ROWS) or e.shape[2] < 1:
            raise NetworkFileError(f"embed has shape {e.shape}, expected (2, {ROWS}, D)")
        d, h = e.shape[2], self.b2.shape[0] if self.b2.ndim == 1 else -1
        ds = self.conv.shape[1] if self.conv.ndim == 2 else -1
        if not 0 <= ds <= d or self.conv.shape[0] != TAPS:
            raise NetworkFileError(f"conv has shape {self.conv.shape}, expected ({TAPS}, Ds), "
                                   f"Ds <= {d}")
        expected = {"conv_bias": (self.conv_bias, (ds,)), "bias1": (self.bias1, (d,)),
                    "w2": (self.w2, (2 * d + 2 * N_THREATS, h)), "b2": (self.b2, (h,)),
                    "w3": (self.w3, (h,))}
        for name, (array, shape) in expected.items():
            if array.shape != shape:
                raise NetworkFileError(f"{name} has shape {array.shape}, expected {shape}")
            if not np.isfinite(array).all():
                raise NetworkFileError(f"{name} holds values that are not finite")
        if not np.isfinite(self.b3):
            raise NetworkFileError("b3 is not finite")
        if (e[:, ABSENT] != 0).any() or (e[1, STONE_OWN:] != 0).any():
            raise NetworkFileError("the absent rows of embed must be zero")
        # a point's feature sums two rows and a convolution output nine of them times a
        # weight, plus its bias: all in int32, below OUTPUT_BOUND so that the engine's
        # off-board outputs (held near -2 OUTPUT_BOUND) stay negative; a spatial channel
        # sums at most 1024 of them (32x32 board) in int64, a linear one 1024 features in
        # int32
        feature = 2 * int(np.abs(e.astype(np.int64)).max())
        conv = int(np.abs(self.conv.astype(np.int64)).sum(axis=0).max()) if ds else 0
        bias = int(np.abs(self.conv_bias.astype(np.int64)).max()) if ds else 0
        if (feature >= OUTPUT_BOUND or feature * conv + bias >= OUTPUT_BOUND
                or feature * MAX_SIZE * MAX_SIZE >= 2**31):
            raise NetworkFileError("embed or conv values too large for int32 arithmetic")


#: the networks the package may ship per rule: ``"network"`` (without the spatial step)
#: and ``"spatial"`` (with it); the evaluation names of :data:`gomoku_engine.eval.EVALUATIONS`
VARIANTS = ("network", "spatial")


def network_file(rule: Rule, variant: str = "network") -> Path:
    """Where the package keeps the network ``variant`` (:data:`VARIANTS`) trained for
    ``rule`` (may not exist)."""
    suffix = "" if variant == "network" else f"_{variant}"
    return _DATA_DIR / f"net_{Rule(rule).name.lower()}{suffix}.npz"


def save_network(path: Path | str, weights: NetworkWeights) -> None:
    """Write ``weights`` as the ``.npz`` of the module docstring.

    :raises NetworkFileError: if the weights are inconsistent (nothing is written).
    """
    weights.check()
    np.savez_compressed(path, format=np.int16(FORMAT), rule=np.int16(int(weights.rule)),
                        embed=weights.embed.astype(np.int32),
                        conv=weights.conv.astype(np.int32),
                        conv_bias=weights.conv_bias.astype(np.int32), bias1=weights.bias1,
                        w2=weights.w2, b2=weights.b2, w3=weights.w3,
                        b3=np.float64(weights.b3), meta=np.str_(weights.meta))


def _from_format_1(f) -> NetworkWeights:
    """A format-1 file (no stones' rows, no convolution, no threat mask) as the same
    network in format 2."""
    old = np.asarray(f["embed"], np.int32)
    d = old.shape[2]
    embed = np.zeros((2, ROWS, d), np.int32)
    embed[:, : old.shape[1]] = old
    w2 = np.asarray(f["w2"], np.float64)
    w2 = np.concatenate([w2, np.zeros((2 * N_THREATS, w2.shape[1]))])
    return NetworkWeights(Rule(int(f["rule"])), embed, np.zeros((TAPS, 0), np.int32),
                          np.zeros(0, np.int32), np.asarray(f["bias1"], np.float64), w2,
                          np.asarray(f["b2"], np.float64), np.asarray(f["w3"], np.float64),
                          float(f["b3"]), str(f["meta"]))


def load_network(path: Path | str, rule: Rule | None = None) -> NetworkWeights:
    """Read a weights file written by :func:`save_network` (or a format-1 file).

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
            if fmt == 1:
                weights = _from_format_1(f)
            elif fmt != FORMAT:
                raise NetworkFileError(f"{path}: format {fmt}, this engine reads 1 and {FORMAT}")
            else:
                weights = NetworkWeights(
                    Rule(int(f["rule"])), *(np.ascontiguousarray(f[k], np.int32)
                                            for k in ("embed", "conv", "conv_bias")),
                    *(np.ascontiguousarray(f[k], np.float64) for k in ("bias1", "w2", "b2", "w3")),
                    float(f["b3"]), str(f["meta"]))
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
def shipped_network(rule: Rule, variant: str = "network") -> NetworkWeights:
    """The network ``variant`` the package ships for ``rule``.

    :raises NetworkFileError: if none ships for ``rule`` or its file is damaged.
    """
    return load_network(network_file(rule, variant), rule)


def has_network(rule: Rule, variant: str = "network") -> bool:
    """Does the package ship the network ``variant`` for ``rule``?"""
    return network_file(rule, variant).exists()


def metadata(weights: NetworkWeights) -> dict:
    """The weights' ``meta`` JSON as a dict (empty if it is not JSON)."""
    try:
        meta = json.loads(weights.meta)
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def with_metadata(weights: NetworkWeights, **items) -> NetworkWeights:
    """``weights`` with ``items`` added to their ``meta``."""
    return replace(weights, meta=json.dumps({**metadata(weights), **items}))


def accumulators(own: npt.NDArray, other: npt.NDArray, size: int,
                 weights: NetworkWeights) -> npt.NDArray[np.int64]:
    """The accumulators from scratch, in numpy: the reference the kernels' incremental
    state is tested against.

    :param own: ``int[n, 2, P]`` embedding rows of role 0 per perspective and point (the
        ``P = size * size`` points row by row), ``other`` those of role 1
        (:func:`gomoku_engine.training.network_data.perspective_rows`).
    :returns: ``int64[n, 2, D]``: the spatial channels in units of ``1 / (QUANT *
        QCONV)``, the others in ``1 / QUANT``.
    """
    e = weights.embed.astype(np.int64)
    f = e[0][np.asarray(own)] + e[1][np.asarray(other)]  # [n, 2, P, D]
    ds = weights.spatial
    out = f.sum(axis=2)
    if ds:
        n = f.shape[0]
        g = np.maximum(f[..., :ds], 0).reshape(n, 2, size, size, ds)
        padded = np.zeros((n, 2, size + 2, size + 2, ds), np.int64)
        padded[:, :, 1:-1, 1:-1] = g
        h = np.broadcast_to(weights.conv_bias.astype(np.int64), g.shape).copy()
        for t in range(TAPS):
            dy, dx = divmod(t, 3)
            h += weights.conv[t].astype(np.int64) * padded[:, :, dy:dy + size, dx:dx + size]
        out[..., :ds] = np.maximum(h, 0).sum(axis=(2, 3))
    return out


def unit_scales(weights: NetworkWeights) -> npt.NDArray[np.float64]:
    """``float64[D]``: the fixed-point scale of each accumulator channel."""
    scale = np.full(weights.width, float(QUANT))
    scale[: weights.spatial] = float(QUANT * QCONV)
    return scale


def forward(acc: npt.NDArray, mask: npt.NDArray, weights: NetworkWeights
            ) -> npt.NDArray[np.float64]:
    """The logit of the side to move's win, in numpy: the reference the kernel
    (:func:`gomoku_engine.eval.evaluator.evaluate`) is tested against.

    :param acc: ``int[..., 2, D]`` the side to move's accumulators then the opponent's;
    :param mask: ``float[..., 2 * N_THREATS]`` the threat mask
        (:func:`gomoku_engine.training.network_data.threat_inputs`).
    :returns: ``float64[...]``.
    """
    x = np.maximum(np.asarray(acc) / unit_scales(weights) + weights.bias1, 0.0)
    x = np.concatenate([x[..., 0, :], x[..., 1, :], np.asarray(mask, np.float64)], axis=-1)
    hidden = np.maximum(x @ weights.w2 + weights.b2, 0.0)
    return hidden @ weights.w3 + weights.b3


__all__ = ["ABSENT", "FORMAT", "NETWORK_SIZE", "NetworkFileError", "NetworkWeights", "QCONV",
           "QUANT", "ROWS", "STONE_OPP", "STONE_OWN", "TAPS", "VARIANTS", "accumulators", "forward",
           "has_network", "load_network", "metadata", "network_file", "save_network",
           "shipped_network", "unit_scales", "with_metadata"]
