"""SPSA over the search's tunables, in a space where one unit is each tunable's ``step``.

The optimizer is nevergrad's first-order SPSA (``nevergrad.optimizers.SPSA``; Spall,
"Multivariate stochastic approximation using a simultaneous perturbation gradient
approximation", IEEE TAC 37(3), 1992; gains from section 7.5.2 of Spall's "Introduction
to Stochastic Search and Optimization").  Its ask/tell contract, which this module keeps:

* asks and tells alternate strictly (``no_parallelization``).  The ask of an even count
  first moves the iterate ``t`` by the previous pair's gradient estimate
  ``t -= a_k (y+ - y-) / (2 c_k) * delta``, then draws a new Rademacher ``delta`` (+-1 per
  coordinate) and returns theta- = ``t - c_k delta``; the odd ask returns theta+ =
  ``t + c_k delta``; the tells store y- and then y+ in that order (the loss told first
  is y-, whatever candidate it is told with).
* gains: ``c_k = c / (k + 1)^0.101`` and ``a_k = a / (k + 1 + A)^0.602`` for iteration k,
  ``A = max(10, budget // 20)``.  nevergrad sets ``c = 0.1`` and ``a = 1e-5`` (its own
  comments call them arbitrary); they are the optimizer's public attributes, and
  :class:`Spsa` sets them: ``c`` in steps (1: theta+- are one step either side of ``t``
  at first) and ``a`` in steps per unit of loss difference.

A game pair needs theta+ and theta- at once (their games are played side by side), but
nevergrad gives theta+ only after y- is told.  theta+ does not depend on y-, so
:meth:`Spsa.ask_pair` asks it of a copy of the optimizer told a dummy y-, and
:meth:`Spsa.tell_pair` then tells the real one y-, asks theta+ (checked equal to the
copy's) and tells y+.

The values played are ``start + t * step`` rounded for integer tunables and clamped to
``[low, high]``; the optimizer's ``t`` itself is not clamped (nevergrad's SPSA has no
bounds), so a tunable pushed against a bound keeps its value there.  The result is the
iterate ``t`` (:meth:`Spsa.current`), as fishtest reports it; nevergrad's own
recommendation averages every iterate from the start, which keeps it near the start
values for most of a run.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np

from ..search.params import TUNABLE, Tunable, check_param

#: nevergrad's SPSA attributes this module sets (see the module docstring)
GAIN_ATTRIBUTES = ("a", "c")


def tunable_named(name: str) -> Tunable:
    """The tunable called ``name`` (any case).

    :raises ValueError: for an unknown name, as
        :func:`gomoku_engine.search.params.check_param` words it.
    """
    tunable = TUNABLE.get(name.strip().lower())
    if tunable is None:
        check_param(name, 0)  # raises its "unknown parameter" error
        raise ValueError(f"unknown parameter {name!r}")  # a check_param that accepted it
    return tunable


class Spsa:
    """nevergrad's SPSA over ``names`` (tunables of :mod:`gomoku_engine.search.params`),
    each scaled by its ``step``.

    :param names: the tunables searched, in this order.
    :param start: each one's start value (missing ones: their defaults).
    :param iterations: the run's length (nevergrad's budget is twice it: two asks each).
    :param seed: seeds the perturbations (nevergrad's ``random_state``).
    :param gain: ``a``, in steps per unit of loss difference (module docstring).
    :param perturbation: ``c``, theta+- distance from ``t`` at the start, in steps.
    :raises ValueError: for an unknown name or a start value outside its range
        (:func:`gomoku_engine.search.params.check_param`).
    """

    def __init__(self, names: Sequence[str], start: Mapping[str, float], iterations: int,
                 seed: int, gain: float, perturbation: float) -> None:
        import nevergrad as ng

        self.tunables: list[Tunable] = [tunable_named(n) for n in names]
        self.start = np.array([check_param(t.name, start.get(t.name, t.default))[1]
                               for t in self.tunables])
        self.steps = np.array([t.step for t in self.tunables], dtype=float)
        parametrization = ng.p.Array(init=np.zeros(len(self.tunables)))
        parametrization.random_state = np.random.RandomState(seed)
        self.optimizer = ng.optimizers.SPSA(parametrization, budget=2 * iterations)
        for attribute in GAIN_ATTRIBUTES:  # fail loudly if nevergrad renames them
            if not hasattr(self.optimizer, attribute):
                raise RuntimeError(f"nevergrad's SPSA has no attribute {attribute!r}")
        self.optimizer.a = gain
        self.optimizer.c = perturbation
        #: theta-'s candidate and theta+'s point, from ask_pair until tell_pair
        self._asked: tuple[object, np.ndarray] | None = None

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tunables]

    def values(self, t: np.ndarray) -> dict[str, float]:
        """The tunables' values at normalised point ``t``: ``start + t * step``, rounded
        for integers, clamped to each range."""
        raw = self.start + np.asarray(t, dtype=float) * self.steps
        out = {}
        for tunable, value in zip(self.tunables, raw):
            value = min(max(float(value), tunable.low), tunable.high)
            out[tunable.name] = float(round(value)) if tunable.integer else value
        return out

    def ask_pair(self) -> tuple[dict[str, float], dict[str, float]]:
        """theta+ and theta- of the next iteration, as values (see the module docstring).

        :raises RuntimeError: if the previous pair was not told.
        """
        if self._asked is not None:
            raise RuntimeError("ask_pair called twice without tell_pair")
        minus = self.optimizer.ask()
        peek = copy.deepcopy(self.optimizer)
        peek.tell(minus, 0.0)  # y- does not change theta+
        plus = peek.ask()
        self._asked = minus, plus.value
        return self.values(plus.value), self.values(minus.value)

    def tell_pair(self, loss_plus: float, loss_minus: float) -> None:
        """Tell the losses of the pair :meth:`ask_pair` gave (lower is better).

        :raises RuntimeError: without a pending pair, or if nevergrad's theta+ differs
            from the one played (its ask/tell contract changed).
        """
        if self._asked is None:
            raise RuntimeError("tell_pair without ask_pair")
        (minus, expected), self._asked = self._asked, None
        self.optimizer.tell(minus, float(loss_minus))
        plus = self.optimizer.ask()
        if not np.allclose(plus.value, expected):
            raise RuntimeError("nevergrad's SPSA asked another theta+ than the one played")
        self.optimizer.tell(plus, float(loss_plus))

    def current(self) -> np.ndarray:
        """The iterate ``t`` (normalised), updated by the last pair at the next ask."""
        opt = self.optimizer
        if opt.init or opt.yp is None:
            return opt.t.copy()
        # nevergrad applies a pair's update at the next ask: apply it here to a copy
        peek = copy.deepcopy(opt)
        peek.ask()
        return peek.t.copy()

    def current_values(self) -> dict[str, float]:
        """:meth:`current` as the tunables' values."""
        return self.values(self.current())
