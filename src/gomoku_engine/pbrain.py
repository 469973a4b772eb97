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

import sys  # noqa: E402


def main() -> None:
    """Entry point of ``pbrain-gomoku-engine``: the protocol loop only."""
    from .protocol.stdio import serve

    serve(started_at=PROCESS_START)


def gomoku_engine_main() -> None:
    """Entry point of ``gomoku-engine``: the protocol without arguments, else the CLI."""
    if len(sys.argv) <= 1:
        main()
    from .cli import main as cli_main

    cli_main(obj={"started_at": PROCESS_START})
