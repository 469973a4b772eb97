"""Loading kernel groups in a background thread, so that no timed move loads one.

The protocol loop asks for the groups its settings can call (:func:`gomoku_engine.kernels.
kernel_groups`) when it starts and whenever ``INFO algorithm`` or ``INFO threats`` selects
another, and waits for them before ``OK`` (up to a deadline) and before a move.  Groups
are loaded one at a time, in the order asked, by :func:`gomoku_engine.kernels.warmup`
(numba's on-disk cache, or a compile when the cache is cold).

A group whose cache is cold (:func:`gomoku_engine.kernels.is_compiled`: a fresh install,
new sources, another numba) is first compiled by a child process, ``python -m
gomoku_engine warmup --group G``, which writes numba's on-disk cache, and then loaded from
it here.  numba's compiler holds the GIL for most of a minute and peaks at 425-648 MB
(docs/startup.md); in a child it neither slows the loop's replies nor counts against the
engine process's memory.  If the child fails (a read-only install cannot keep a cache) the
group compiles here as before.

Each load ends with :func:`gc.freeze`: loading a group leaves some 100,000 objects
(numba's types and dispatchers) to Python's cyclic garbage collector, and a full
collection of them took 150 ms, a stall that would land inside whichever timed move
triggers it.  Frozen, they are never scanned again.
"""

from __future__ import annotations

import gc
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterable

from ..kernels import KERNEL_GROUPS, is_compiled, warmup

#: Longest a compiling child may take, in seconds (all groups compile in about two minutes
#: on a slow machine); past it the group compiles in this process.
COMPILE_TIMEOUT_S = 900


class KernelLoader:
    """One daemon thread that loads the kernel groups asked for, each once.

    :param enabled: False: nothing is loaded in the background (each kernel then loads
        or compiles on its first call) and :meth:`wait` returns True at once.
    :param compile_apart: compile a cold group in a child process first (see the module
        docstring); False: compile it in this process.
    """

    def __init__(self, enabled: bool = True, compile_apart: bool = True) -> None:
        self.enabled = enabled
        self.compile_apart = compile_apart
        #: seconds each cold group's compiling child took
        self.compile_seconds: dict[str, float] = {}
        self._done = {group: threading.Event() for group in KERNEL_GROUPS}
        self._asked: set[str] = set()
        self._lock = threading.Lock()
        self._queue: queue.Queue[str] = queue.Queue()
        #: seconds each group took to load (for ``MESSAGE`` lines and the docs)
        self.seconds: dict[str, float] = {}
        if enabled:
            threading.Thread(target=self._run, name="kernel-loader", daemon=True).start()

    def request(self, groups: Iterable[str]) -> None:
        """Queue the groups not yet asked for (returns at once)."""
        if not self.enabled:
            return
        with self._lock:
            for group in groups:
                if group not in self._asked:
                    self._asked.add(group)
                    self._queue.put(group)

    def wait(self, groups: Iterable[str], timeout: float | None = None) -> bool:
        """Ask for ``groups`` and wait until all are loaded or ``timeout`` seconds passed.

        :returns: True if every group is loaded.
        """
        groups = tuple(groups)
        self.request(groups)
        if not self.enabled:
            return True
        deadline = None if timeout is None else time.perf_counter() + timeout
        for group in groups:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            if not self._done[group].wait(left):
                return False
        return True

    def ready(self, groups: Iterable[str]) -> bool:
        """Are all ``groups`` loaded (or is loading disabled)?  Returns at once."""
        return not self.enabled or all(self._done[g].is_set() for g in groups)

    def _compile_apart(self, group: str) -> None:
        """Compile ``group`` into numba's cache in a child process (see the module
        docstring); its output goes nowhere (stdout is the protocol's)."""
        started = time.perf_counter()
        try:
            subprocess.run([sys.executable, "-m", "gomoku_engine", "warmup", "--group", group],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=COMPILE_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError):
            pass  # compiled here instead, by the load that follows
        self.compile_seconds[group] = time.perf_counter() - started

    def _run(self) -> None:
        while True:
            group = self._queue.get()
            try:
                if self.compile_apart and not is_compiled(group):
                    self._compile_apart(group)
                self.seconds[group] = warmup((group,))
                gc.freeze()  # see the module docstring; costs no collection
            except Exception:  # noqa: BLE001 - the move's own call retries (and reports) it
                pass
            finally:
                self._done[group].set()  # never leave a waiting command hanging
