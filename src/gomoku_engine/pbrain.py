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


#: what ``pbrain-gomoku-engine --help`` prints
USAGE = """usage: pbrain-gomoku-engine [--help]

Serves the Gomocup ("pbrain") protocol on stdin and stdout, for a manager (Piskvork,
c-gomoku-cli, Yixin-Board, gomoku-engine match) to start; it takes no options.  Settings
come as the protocol's INFO lines.  For a strength level, another search or the search's
tunables, run `gomoku-engine serve` with its options (`gomoku-engine serve --help`)."""


def main() -> None:
    """Entry point of ``pbrain-gomoku-engine``: the protocol loop only.  ``--help`` (or
    ``-h``) prints :data:`USAGE` and exits 0; any other argument is refused on stderr
    with exit status 2 (a manager given a wrong command line sees it fail at once rather
    than an engine that ignores what it was told)."""
    arguments = sys.argv[1:]
    if arguments:
        if arguments[0] in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        print(f"pbrain-gomoku-engine: no such option {arguments[0]!r}\n\n{USAGE}",
              file=sys.stderr)
        sys.exit(2)
    from .protocol.stdio import serve

    serve(started_at=PROCESS_START)


def gomoku_engine_main() -> None:
    """Entry point of ``gomoku-engine``: the protocol without arguments, else the CLI."""
    if len(sys.argv) <= 1:
        main()
    from .cli import main as cli_main

    cli_main(obj={"started_at": PROCESS_START})
