"""Batches of training work on an executor: results in job order, a bounded window."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gomoku_engine.training.jobs import batches, in_order

_lock = threading.Lock()
_running = {"now": 0, "most": 0}


def _slow_square(job: int) -> list[int]:
    """job squared, later for the early jobs (so that they finish last)."""
    with _lock:
        _running["now"] += 1
        _running["most"] = max(_running["most"], _running["now"])
    time.sleep(0.02 * (6 - job) if job < 6 else 0.001)
    with _lock:
        _running["now"] -= 1
    if job == 99:
        raise ValueError("job 99 failed")
    return [job, job * job]


def test_batches_cover_the_range_once():
    assert batches(10, 4) == [range(0, 4), range(4, 8), range(8, 10)]
    assert batches(3, 8) == [range(0, 3)]
    assert batches(0, 8) == []


@pytest.mark.parametrize("window", [1, 2, 3])
def test_results_come_in_job_order_with_at_most_a_window_running(window):
    _running.update(now=0, most=0)
    with ThreadPoolExecutor(4) as executor:
        got = list(in_order(_slow_square, list(range(10)), executor, window))
    assert got == [v for j in range(10) for v in (j, j * j)]
    assert _running["most"] == window  # 4 threads, but never more than the window


def test_without_an_executor_the_jobs_run_here_in_order():
    assert list(in_order(_slow_square, [2, 7])) == [2, 4, 7, 49]


def test_a_failed_job_raises_in_its_turn_and_the_rest_is_cancelled():
    started = []

    def run(job: int) -> list[int]:
        started.append(job)
        return _slow_square(job)

    with ThreadPoolExecutor(1) as executor:
        results = in_order(run, [7, 99] + list(range(100, 120)), executor, window=3)
        assert next(results) == 7
        assert next(results) == 49
        with pytest.raises(ValueError, match="job 99"):
            next(results)
    assert len(started) < 6  # the window's jobs at most, not the 22
