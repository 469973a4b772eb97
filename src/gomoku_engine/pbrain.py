"""The protocol entry points, without the command line's imports.

``pbrain-gomoku-engine`` (the name managers look for) and ``gomoku-engine`` without
arguments serve the Gomocup protocol; neither imports click, the match runner or tqdm,
which a manager's process never uses.  ``gomoku-engine`` with arguments hands over to
:mod:`gomoku_engine.cli`.
"""

from __future__ import annotations

import time

#: when this process started serving (read before the heavy imports)
PROCESS_START = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402


def serve(level: int = 10, algorithm: str = "alphabeta", seed: int = 0,
          max_depth: int | None = None, threads: int = 1) -> None:
    """Run the protocol loop on this process's stdin/stdout, then exit at once.

    :param level: strength level 1..10 (:mod:`gomoku_engine.levels`), 10 = full strength.
    ``algorithm``, ``seed``, ``max_depth`` and ``threads`` (search threads, lazy SMP) are
    the settings until INFO changes them.
    """
    warnings.simplefilter("ignore")
    # Managers read our stderr as protocol lines (protocol notes 1.5): silence it for good.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = open(os.devnull, "w")
    from .protocol import ProtocolLoop

    ProtocolLoop(sys.stdin.buffer, sys.stdout.buffer, level=level, algorithm=algorithm,
                 seed=seed, max_depth=max_depth, started_at=PROCESS_START,
                 threads=threads).run()
    try:
        sys.stdout.flush()
    finally:
        os._exit(0)  # do not wait for a search thread that END has already stopped


def main() -> None:
    """Entry point of ``pbrain-gomoku-engine``: the protocol loop only."""
    serve()


def gomoku_engine_main() -> None:
    """Entry point of ``gomoku-engine``: the protocol without arguments, else the CLI."""
    if len(sys.argv) <= 1:
        serve()
    from .cli import main as cli_main

    cli_main()
