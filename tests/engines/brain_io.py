"""The protocol plumbing of the tests' fake pbrain engines (pure Python, independent of
gomoku_engine): their replies, the lines they receive and the ``BOARD`` / ``YXBOARD``
blocks.  The engines import it from beside them (``import brain_io``: a script's folder
is first on ``sys.path``)."""

import sys


def reply(text: str) -> None:
    """Write ``text`` as one line on stdout, flushed at once."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def received(log_path: str | None = None):
    """The lines of stdin until its end, one at a time; with ``log_path``, each is also
    appended to that file (opened now) as it is read."""
    log = open(log_path, "a") if log_path else None

    def lines():
        for raw in iter(sys.stdin.readline, ""):
            if log:
                log.write(raw.rstrip("\r\n") + "\n")
                log.flush()
            yield raw

    return lines()


def commands(lines):
    """``(command, words)`` for each line of ``lines`` that is not blank: its first word in
    upper case, and all its words."""
    for raw in lines:
        words = raw.strip().split()
        if words:
            yield words[0].upper(), words


def read_board(lines) -> dict[tuple[int, int], int]:
    """The ``x,y,field`` lines of a ``BOARD`` / ``YXBOARD`` block, read from ``lines`` up
    to ``DONE`` (or their end): ``{(x, y): field}``."""
    stones = {}
    for raw in lines:
        token = raw.strip()
        if token.upper() == "DONE":
            break
        x, y, field = (int(v) for v in token.split(","))
        stones[(x, y)] = field
    return stones
