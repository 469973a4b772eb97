"""A minimal Gomocup protocol client: run a pbrain engine as a subprocess and talk to it.

Used by the demonstration game (``gomoku-engine demo``) and by the tests; it is the
manager's side of ``../shared/protocol.md`` section 2.  Every read has a timeout, and
:meth:`EngineProcess.close` sends END and kills the process if it does not exit.
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Sequence

from ..core.notation import Point, parse_pair


class EngineTimeout(TimeoutError):
    """The engine did not answer in time."""


class EngineProcess:
    """One engine subprocess with a background reader of its stdout.

    :param command: the engine's argv, e.g. ``["pbrain-gomoku-engine"]``.
    """

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, bufsize=0)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []  #: every line sent (``> ``) and received (``< ``)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self._lines.put(raw.decode("ascii", "replace").rstrip("\r\n"))
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        """Write command lines (LF-terminated) and flush."""
        assert self.process.stdin is not None
        for line in lines:
            self.transcript.append(f"> {line}")
            self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def read_line(self, timeout: float) -> str:
        """Next line of output.

        :raises EngineTimeout: if none arrives within ``timeout`` seconds.
        :raises EOFError: if the engine closed its output.
        """
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineTimeout(f"no answer within {timeout:.2f} s") from None
        if line is None:
            self._lines.put(None)
            raise EOFError("engine closed its output")
        self.transcript.append(f"< {line}")
        return line

    def read_reply(self, timeout: float) -> str:
        """Next line that is not ``MESSAGE``/``DEBUG`` chatter."""
        deadline = time.perf_counter() + timeout
        while True:
            line = self.read_line(deadline - time.perf_counter())
            if not line.upper().startswith(("MESSAGE", "DEBUG")):
                return line

    def read_move(self, timeout: float) -> tuple[Point, float]:
        """Wait for a move reply; returns the point and the seconds it took.

        :raises EngineTimeout: on no reply in time; ``ValueError`` if the reply is no move.
        """
        began = time.perf_counter()
        line = self.read_reply(timeout)
        return parse_pair(line), time.perf_counter() - began

    def close(self, grace: float = 2.0) -> int | None:
        """Send END, wait up to ``grace`` seconds, then kill; returns the exit code."""
        try:
            self.send("END")
        except (BrokenPipeError, OSError, ValueError):
            pass
        try:
            return self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None
