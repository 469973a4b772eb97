"""A minimal Gomocup protocol client: run a pbrain engine as a subprocess and talk to it.

The manager's side of docs/protocol.md sections 2 and 7, used by the referee of
:mod:`gomoku_engine.arena`, by ``gomoku-engine label`` and ``selfplay --engine`` and by the
tests.  It owns the game handshake (:func:`start_lines`: ``START`` and the ``INFO``
settings; :meth:`EngineProcess.confirm_start` reads the ``OK``).  Every read has a timeout,
and :meth:`EngineProcess.close` sends END and kills the process if it does not exit.

A process that may be killed without warning (a cluster's worker: ``match --cluster``)
calls :func:`engines_die_with_their_thread`, so that the engines it started are killed
with it instead of thinking on as orphans (Linux; elsewhere they end at the end of their
input, as a pbrain engine does when its manager exits).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from ..core.notation import Point, parse_pair


#: ``INFO max_memory`` the referee sends: 350 MiB, the Gomocup's memory limit
#: (docs/protocol.md sections 7.1 and 7.2)
MAX_MEMORY_BYTES = 367_001_600


#: ``prctl(2)`` option: the signal a process gets when the thread that started it ends
_PR_SET_PDEATHSIG = 1
#: run in each engine child before exec (None: engines outlive this process)
_before_exec: Callable[[], None] | None = None


def engines_die_with_their_thread() -> bool:
    """From now on, every engine this process starts is killed (SIGKILL) by the kernel
    when the thread that started it ends, the whole process killed included
    (``prctl(PR_SET_PDEATHSIG)``, Linux only).  An engine must then be used by the thread
    that started it, as the referee does (a game is played in one thread).

    :returns: False (nothing changes) where the system has no such call.
    """
    global _before_exec
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    prctl = libc.prctl  # looked up here, so that the child only calls it
    parent = os.getpid()

    def die_with_parent() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the call: nobody would kill us
            os._exit(1)

    _before_exec = die_with_parent
    return True


class EngineTimeout(TimeoutError):
    """The engine did not answer in time."""


class EngineRefused(RuntimeError):
    """The engine answered ``START`` with something other than ``OK`` (or not at all)."""


def start_lines(size: int, rule: int, turn_ms: int, match_ms: int, *,
                max_memory: int | None = None, time_left_ms: int | None = None,
                increment_ms: int = 0, opening_rule: str = "none",
                info: Sequence[tuple[str, object]] = ()) -> list[str]:
    """The lines that start a game: ``START size`` and the ``INFO`` settings, in this order
    (docs/protocol.md sections 2 and 4).

    :param rule: the ``INFO rule`` code (:class:`gomoku_engine.core.constants.Rule`).
    :param turn_ms: ``INFO timeout_turn`` (ms); ``match_ms``: ``INFO timeout_match`` (ms).
    :param max_memory: ``INFO max_memory`` in bytes, or None to send none.
    :param time_left_ms: ``INFO time_left`` (ms), or None to send none.
    :param increment_ms: ``INFO time_increment`` (ms, Yixin-Board's key), sent when > 0.
    :param opening_rule: ``INFO opening`` (a name of
        :data:`gomoku_engine.core.opening_rules.OPENING_RULES`), sent unless ``"none"``.
    :param info: further ``INFO key value`` lines, sent last (e.g. ``("max_depth", 3)``).
    """
    lines = [f"START {size}", f"INFO timeout_turn {turn_ms}", f"INFO timeout_match {match_ms}",
             f"INFO rule {int(rule)}"]
    if max_memory is not None:
        lines.append(f"INFO max_memory {max_memory}")
    if time_left_ms is not None:
        lines.append(f"INFO time_left {time_left_ms}")
    if increment_ms > 0:
        lines.append(f"INFO time_increment {increment_ms}")
    if opening_rule != "none":
        lines.append(f"INFO opening {opening_rule}")
    return lines + [f"INFO {key} {value}" for key, value in info]


class EngineProcess:
    """One engine subprocess with a background reader of its stdout.

    :param command: the engine's argv, e.g. ``["pbrain-gomoku-engine"]``.
    :param log: a file to write every line sent and received to, each with its time
        (:meth:`log_to`).
    """

    def __init__(self, command: Sequence[str], log: str | os.PathLike[str] | None = None
                 ) -> None:
        self.command = list(command)
        self._log_lock = threading.Lock()
        self._log: TextIO | None = None
        self.started = time.perf_counter()  #: when the process was started (perf_counter s)
        if log is not None:
            self.log_to(log)
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, bufsize=0, preexec_fn=_before_exec)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []  #: every line sent (``> ``) and received (``< ``)
        threading.Thread(target=self._pump, daemon=True).start()

    def log_to(self, path: str | os.PathLike[str] | None) -> None:
        """From now on write every line sent (``> ``) and received (``< ``, as it arrives,
        chatter included) to ``path`` (None: no log), each line after its wall-clock time
        (UTC, ms) and the seconds since the process started; the previous log is closed."""
        with self._log_lock:
            if self._log is not None:
                self._log.close()
            self._log = None if path is None else open(path, "a", encoding="utf-8")  # noqa: SIM115

    def _write_log(self, direction: str, line: str) -> None:
        with self._log_lock:
            if self._log is None:
                return
            now = time.time()
            stamp = time.strftime("%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}"
            since = time.perf_counter() - self.started
            self._log.write(f"{stamp} {since:8.3f} {direction} {line}\n")
            self._log.flush()

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("ascii", "replace").rstrip("\r\n")
            self._write_log("<", line)
            self._lines.put(line)
        self._write_log("<", "(end of output)")
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        """Write command lines (LF-terminated) and flush."""
        assert self.process.stdin is not None
        for line in lines:
            self.transcript.append(f"> {line}")
            self._write_log(">", line)
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

    def confirm_start(self, timeout: float) -> None:
        """Read the engine's answer to ``START`` (sent with :func:`start_lines`).

        :raises EngineRefused: if it is not ``OK``, or none comes within ``timeout``
            seconds, or the engine closed its output; the message quotes the answer.
        """
        try:
            reply = self.read_reply(timeout)
        except (EngineTimeout, EOFError) as exc:
            reply = f"<{exc}>"
        if reply != "OK":
            raise EngineRefused(f"answered START with {reply!r}")

    def start_game(self, lines: Sequence[str], timeout: float) -> None:
        """Send the handshake ``lines`` (:func:`start_lines`) and read the ``OK``.

        :raises EngineRefused: as :meth:`confirm_start`; ``OSError`` if the engine is gone.
        """
        self.send(*lines)
        self.confirm_start(timeout)

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
        finally:
            self.log_to(None)
