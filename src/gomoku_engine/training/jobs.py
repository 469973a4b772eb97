"""Batches of training work run side by side, their results kept in order.

``selfplay`` and ``label`` split their games into batches: a batch is a job for a
``concurrent.futures`` executor (threads here, or a Dask cluster's executor:
``--cluster``, :mod:`gomoku_engine.arena.cluster`), and its results come back in batch
order whatever finished first, so a seed gives the same file wherever the batches ran.
A batch that runs another engine starts that engine afresh, so its results do not depend
on which batches the same process played before (an engine's transposition table
carries over from position to position).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future
from typing import TypeVar

Batch = TypeVar("Batch")
Item = TypeVar("Item")
_NONE_LEFT = object()


def batches(count: int, size: int) -> list[range]:
    """``range(count)`` cut into consecutive ranges of at most ``size`` (``size`` >= 1)."""
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def in_order(run: Callable[[Batch], list[Item]], jobs: Sequence[Batch],
             executor: Executor | None = None, window: int = 1) -> Iterator[Item]:
    """The items of ``run(job)`` for every job, in job order.

    :param run: a module-level function (a cluster pickles it to its workers).
    :param executor: where the jobs run; None: here, one after the other.
    :param window: jobs submitted to ``executor`` at a time (at least 1): enough to keep
        every worker busy (twice the workers lets the next job wait on each), few enough
        that a stop leaves little work to cancel.
    :raises: whatever ``run`` raised, when its job's turn comes.
    """
    if executor is None:
        for job in jobs:
            yield from run(job)
        return
    queued = iter(jobs)
    running: deque[Future] = deque()
    try:
        for job in queued:
            running.append(executor.submit(run, job))
            if len(running) >= max(1, window):
                break
        while running:
            done = running.popleft().result()
            job = next(queued, _NONE_LEFT)
            if job is not _NONE_LEFT:
                running.append(executor.submit(run, job))
            yield from done
    finally:
        for future in running:  # a failed job or a stopped reader: the rest is not wanted
            future.cancel()
