"""A calibration kernel: the machine's speed at work like the search's, in no code of the
engine's, so that the bench's nodes/s can be held against a floor on any machine.

``gomoku-engine bench --check`` (:func:`gomoku_engine.bench.speed_check`) divides the
bench's nodes/s by this kernel's rate, measured in the same process just before and after
the bench: a faster or slower machine, or one loaded by another job, moves both alike, so
the ratio moves only when the engine's code does.  The kernel does the kind of work a
search node does, and nothing else of the engine's: a pseudo-random walk of loads from a
64 KiB byte table (the size of freestyle's line table, which stays in a core's L2
cache), integer bit operations, a data-dependent branch, and writes to a small board-sized
``int8`` array.  It calls no function of the package, so no change to the engine changes
it; a change to it changes the ratio's scale, and the floor must be measured again.
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from .jit import njit

#: rounds of one measurement: about 0.1 s of CPU on the 2-core development machine
CALIBRATION_ROUNDS = 40_000_000
_TABLE_SIZE = 1 << 16
_CELLS = 400


@njit
def _calibration_walk(table: npt.NDArray[np.uint8], cells: npt.NDArray[np.int8],
                      rounds: int) -> int:
    """``rounds`` steps of a xorshift64 walk (Marsaglia, "Xorshift RNGs", 2003) over
    ``table`` (uint8[65536]) and ``cells`` (int8[400]); returns a checksum (so that no step
    can be optimised away)."""
    x = np.uint64(0x9E3779B97F4A7C15)
    s13, s7, s17 = np.uint64(13), np.uint64(7), np.uint64(17)
    mask = np.uint64(_TABLE_SIZE - 1)
    n = np.uint64(_CELLS)
    total = 0
    for _ in range(rounds):
        x ^= x << s13
        x ^= x >> s7
        x ^= x << s17
        v = np.int64(table[np.int64(x & mask)])
        c = np.int64((x >> s17) % n)
        if v & 1:
            cells[c] += 1
        else:
            cells[c] -= 1
        total += v ^ np.int64(cells[c])
    return total


def calibration_rate(rounds: int = CALIBRATION_ROUNDS) -> float:
    """Rounds per second of the process's CPU time of the calibration walk (compiled or
    loaded first, unmeasured).  CPU time, not wall time: on a loaded machine a process
    waits for a core in slices of milliseconds, which a short wall-clock measurement
    catches or misses by chance (wall-clock rates of the same walk under two other busy
    processes on 2 cores: 210 to 420 million rounds/s, 2026-12-06).

    :param rounds: steps of the walk to time; the rate is independent of it past about a
        million.
    """
    table = np.random.default_rng(1).integers(0, 256, _TABLE_SIZE).astype(np.uint8)
    cells = np.zeros(_CELLS, np.int8)
    _calibration_walk(table, cells, 1000)
    began = time.process_time()
    _calibration_walk(table, cells, rounds)
    return rounds / max(time.process_time() - began, 1e-9)
