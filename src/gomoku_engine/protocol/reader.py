"""The protocol's line I/O: the reader and command threads, and the writer of our lines.

Managers end lines with LF, CRLF or a bare CR (docs/protocol.md section 1);
the reader splits at any of them without waiting for a following LF, stamps each line with
its arrival time and hands it on.  Replies are single ASCII lines ending in ``\\n``,
written under one lock and flushed at once (docs/protocol.md section 1).

Threads (docs/protocol.md section 1, :class:`CommandThreads`): a *reader* thread reads stdin and
queues every line; it acts on ``END`` (sent on its own) and ``YXSTOP``/``STOP`` at once,
even while a search runs (the search kernel releases the GIL).  A *command* thread
executes the queued commands in order, and the calling thread only waits for the end, so
END ends the loop even while the command thread is busy.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

#: Input the reader's first read returns within this many seconds of its start was
#: already waiting in the pipe (it may have been sent when the process started).
PIPE_SLACK_S = 0.05


@dataclass
class Line:
    """One command line as it arrived."""

    text: str
    arrived: float  #: ``time.perf_counter()`` when the reader got it
    early: bool = False  #: already in the pipe when the reader began: sent at any time since


def read_lines(stream: BinaryIO, accept: Callable[[bytes, bool, bool], None]) -> None:
    """Read ``stream`` to its end, splitting it into lines at CR, LF or CRLF.

    Calls ``accept(raw, alone, early)`` for each line that is not blank: ``alone`` when it
    was the only line of its read (a command typed or sent on its own), ``early`` when it
    came with the first read and that read returned within :data:`PIPE_SLACK_S`.  A last
    line without an end is passed on at the end of input.  Read errors end the input.
    """
    pending = b""
    began, first = time.perf_counter(), True
    read = getattr(stream, "read1", stream.read)  # whatever is there: a bare CR must not
    while True:                                   # wait for an LF
        try:
            chunk = read(65536)
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            break
        early = first and time.perf_counter() - began < PIPE_SLACK_S
        first = False
        pending += chunk
        parts = pending.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        pending = parts.pop()
        lines = [raw for raw in parts if raw.strip()]
        for raw in lines:
            accept(raw, len(lines) == 1, early)
    if pending.strip():
        accept(pending, False, False)


class Output:
    """Thread-safe line writer: one lock around write and flush (docs/protocol.md section 1)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False  # set by END: nothing more may be printed

    def line(self, text: str) -> None:
        """Write ``text`` as one ASCII line (other characters become ``?``), unless closed."""
        printable = "".join(c if " " <= c <= "~" else "?" for c in text)  # one ASCII line
        data = (printable + "\n").encode("ascii")
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                self.closed = True  # the manager went away; keep quiet from now on





class CommandThreads:
    """The reader and command threads of one protocol loop.

    :param stdin: the manager's byte stream.
    :param out: our line writer; closed by END.
    :param dispatch: runs one command (in the command thread); an exception it raises is
        reported as ``ERROR internal error: ...`` and the loop goes on.
    :param stop_search: stops the running search, if any (called from the reader thread).
    """

    def __init__(self, stdin: BinaryIO, out: Output, dispatch: Callable[[Line], None],
                 stop_search: Callable[[], None]) -> None:
        self._stdin = stdin
        self._out = out
        self._dispatch = dispatch
        self._stop_search = stop_search
        self._queue: queue.Queue[Line | None] = queue.Queue()
        self._busy = threading.Event()  # set while a command is being executed
        self._ending = threading.Event()
        self.stop_requested = False  #: YXSTOP arrived for the command being executed
        #: run by the command thread when no command is queued (pondering), until
        #: :attr:`wake` (called by the reader thread when any line or the end of input
        #: arrives) makes it return
        self.idle: Callable[[], None] | None = None
        self.wake: Callable[[], None] | None = None

    def run(self) -> None:
        """Serve commands until END or the end of input; returns at once on END.

        The commands run in a daemon worker thread, so that END can end the loop even
        while that thread is busy (a search, or waiting for the first compile).
        """
        threading.Thread(target=self._read, name="stdin-reader", daemon=True).start()
        threading.Thread(target=self._execute, name="commands", daemon=True).start()
        self._ending.wait()

    def end(self) -> None:
        """END: stop any search at once and print nothing more."""
        self._out.closed = True
        self._ending.set()
        self._stop_search()

    def next_line(self) -> Line | None:
        """The next queued line (for a command that reads a block), None at the end."""
        line = self._queue.get()
        if line is None:
            self._queue.put(None)  # let the command thread see the end too
        return line

    def take_queued(self, word: str) -> list[Line]:
        """Take the lines that start with ``word`` from the head of the queue, up to the
        first other command (already arrived; nothing is waited for)."""
        taken = []
        with self._queue.mutex:  # queue.Queue keeps its lines in a deque under this lock
            waiting = self._queue.queue
            while (waiting and waiting[0] is not None
                   and split_word(waiting[0].text)[0].upper() == word):
                taken.append(waiting.popleft())
        return taken

    def has_queued(self) -> bool:
        """Whether a line (or the end of input) waits for the command thread."""
        return not self._queue.empty()

    def _read(self) -> None:
        read_lines(self._stdin, self._accept)
        self._queue.put(None)  # end of input: finish the queued commands, then exit
        self._wake()

    def _accept(self, raw: bytes, alone: bool, early: bool) -> None:
        """Queue one line, or act on it at once.

        END sent on its own (a manager's END, a user typing it) acts at once, even during a
        search.  END that arrives together with other lines (a script piped in) is queued
        like any command, so that every earlier command is answered first.
        """
        text = raw.decode("ascii", "replace").strip()
        if not text:
            return  # a line of control characters only
        word = text.split()[0].upper()
        if word == "END" and alone:
            self.end()
            return
        if word in ("YXSTOP", "STOP"):
            # Stop the search of the command being executed, even if it has not begun yet
            # (waiting for warm-up); an idle YXSTOP does nothing but stop a ponder.
            if self._busy.is_set():
                self.stop_requested = True
                self._stop_search()
            self._wake()
            return
        self._queue.put(Line(text, time.perf_counter(), early))
        self._wake()

    def _wake(self) -> None:
        if self.wake is not None:
            self.wake()

    def _execute(self) -> None:
        while not self._ending.is_set():
            if self.idle is not None and not self.has_queued():
                try:
                    self.idle()
                except Exception as exc:  # never die (as below)
                    self._out.line(f"ERROR internal error: {type(exc).__name__}: {exc}")
            line = self._queue.get()
            if line is None:
                break
            self._busy.set()
            try:
                self._dispatch(line)
            except Exception as exc:  # never die: report and keep the game going
                self._out.line(f"ERROR internal error: {type(exc).__name__}: {exc}")
            finally:
                self.stop_requested = False
                self._busy.clear()
        self._ending.set()


def split_word(text: str) -> tuple[str, str]:
    """First word of a line and the stripped rest; any whitespace separates them."""
    parts = text.split(None, 1)
    return (parts[0] if parts else ""), (parts[1].strip() if len(parts) > 1 else "")

__all__ = ["CommandThreads", "Line", "Output", "PIPE_SLACK_S", "read_lines", "split_word"]
