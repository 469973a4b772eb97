"""The numba helpers of :mod:`gomoku_engine.jit` that are not kernels of their own."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import pytest

from gomoku_engine.jit import unmanaged


class Pair(NamedTuple):
    counts: np.ndarray
    values: np.ndarray


class Mixed(NamedTuple):
    counts: np.ndarray
    size: int


@numba.njit
def _bump_and_sum(pair):  # type: ignore[no-untyped-def]
    view = unmanaged(pair)
    view.counts[0] += 1
    return view.values.sum()


@numba.njit
def _unmanaged_mixed(mixed):  # type: ignore[no-untyped-def]
    return unmanaged(mixed)


def test_unmanaged_arrays_are_the_callers_memory():
    """The arrays handed on without reference counting are views of the caller's arrays
    (what a kernel writes through them, the caller sees), not copies."""
    pair = Pair(np.zeros(3, np.int64), np.arange(4, dtype=np.int64))
    assert _bump_and_sum(pair) == 6
    assert _bump_and_sum(pair) == 6
    assert pair.counts.tolist() == [2, 0, 0]


def test_unmanaged_takes_only_tuples_of_arrays():
    with pytest.raises(numba.core.errors.TypingError):
        _unmanaged_mixed(Mixed(np.zeros(2, np.int64), 2))
