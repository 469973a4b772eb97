"""Serving the protocol on this process's stdin and stdout (what a manager runs)."""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Mapping

def serve(level: int = 10, algorithm: str = "alphabeta", seed: int = 0,
          max_depth: int | None = None, threads: int = 1,
          started_at: float | None = None, params: Mapping[str, float] | None = None,
          evaluation: str | None = None) -> None:
    """Run the protocol loop on this process's stdin/stdout, then exit at once.

    :param level: strength level 1..10 (:mod:`gomoku_engine.search.levels`), 10 = full strength.
    ``algorithm``, ``seed``, ``max_depth`` and ``threads`` (search threads, lazy SMP) are
    the settings until INFO changes them, and so are ``params`` (the search's tunables by
    name, ``--param``) and ``evaluation`` (``--evaluation``).  ``started_at`` is the ``time.perf_counter()``
    value when the process started (the first move's clock counts from it; ``None``: now).
    """
    warnings.simplefilter("ignore")
    # Managers read our stderr as protocol lines (docs/protocol.md section 1): silence it
    # for good.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = open(os.devnull, "w")
    from .loop import ProtocolLoop  # after stderr is silenced: numba may warn on import

    if started_at is None:
        started_at = time.perf_counter()
    ProtocolLoop(sys.stdin.buffer, sys.stdout.buffer, level=level, algorithm=algorithm,
                 seed=seed, max_depth=max_depth, started_at=started_at,
                 threads=threads, params=params, evaluation=evaluation).run()
    try:
        sys.stdout.flush()
    finally:
        os._exit(0)  # do not wait for a search thread that END has already stopped
