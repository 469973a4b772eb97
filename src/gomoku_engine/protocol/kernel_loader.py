"""Loading kernel groups in a background thread, so that no timed move loads one.

The protocol loop asks for the groups its settings can call (:func:`gomoku_engine.kernels.
kernel_groups`) when it starts and whenever ``INFO algorithm`` or ``INFO threats`` selects
another, and waits for them before ``OK`` (up to a deadline) and before a move.  Groups
are loaded one at a time, in the order asked, by :func:`gomoku_engine.kernels.warmup`
(numba's on-disk cache, or a compile when the cache is cold).

A group whose cache is cold (:func:`gomoku_engine.kernels.is_compiled`: a fresh install,
new sources, another numba) is first compiled by a child process, ``python -m
gomoku_engine warmup --group G``, which writes numba's on-disk cache, and then loaded from
it here (one child an install: a lock file beside the cache names it, and other engine
processes wait for it).  numba's compiler holds the GIL for most of a minute and peaks at
425-648 MB (docs/startup.md); in a child it neither slows the loop's replies nor counts
against the engine process's memory.  If the child fails (a read-only install cannot keep a cache) the
group compiles here as before.

Each load ends with :func:`gc.freeze`: loading a group leaves some 100,000 objects
(numba's types and dispatchers) to Python's cyclic garbage collector, and a full
collection of them took 150 ms, a stall that would land inside whichever timed move
triggers it.  Frozen, they are never scanned again.
"""

from __future__ import annotations

import gc
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from ..core.jit import cache_path
from ..kernels import KERNEL_GROUPS, is_compiled, warmup

#: Longest a compiling child may take, in seconds (all groups compile in about two minutes
#: on a slow machine); past it the group compiles in this process.
COMPILE_TIMEOUT_S = 900


def _compiling(lock: Path) -> bool:
    """Is the child named in ``lock`` still compiling?  On POSIX its process is asked; on
    Windows (where ``os.kill`` would end it) a lock younger than the compile timeout
    counts, as does one not yet holding a pid (written a moment after the lock)."""
    try:
        text, age = lock.read_text().strip(), time.time() - lock.stat().st_mtime
    except OSError:
        return False
    if not text.isdigit() or os.name == "nt":
        return age < (COMPILE_TIMEOUT_S if text.isdigit() else 5.0)
    try:
        os.kill(int(text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # alive, another user's
    return True


class KernelLoader:
    """One daemon thread that loads the kernel groups asked for, each once.

    :param enabled: False: nothing is loaded in the background (each kernel then loads
        or compiles on its first call) and :meth:`wait` returns True at once.
    :param compile_apart: compile a cold group in a child process first (see the module
        docstring); False: compile it in this process.
    :param on_loaded: called in the loader's thread with each group's name once it is
        loaded (the protocol loop builds its engine then, outside any move).

    :attr:`after_loaded` callbacks run next, still before the group counts as loaded for
    :meth:`wait` and :meth:`loaded` (the protocol loop gives the engine just built the
    ``INFO`` settings that came during the build).
    """

    def __init__(self, enabled: bool = True, compile_apart: bool = True,
                 on_loaded: Callable[[str], None] | None = None) -> None:
        self.enabled = enabled
        self.compile_apart = compile_apart
        self._on_loaded = on_loaded
        self._done = {group: threading.Event() for group in KERNEL_GROUPS}
        self._asked: set[str] = set()
        self._lock = threading.Lock()
        self._queue: queue.Queue[str] = queue.Queue()
        #: seconds each group took to load (for ``MESSAGE`` lines and the docs)
        self.seconds: dict[str, float] = {}
        #: called in the loader's thread with each group's name, after ``on_loaded``
        self.after_loaded: list[Callable[[str], None]] = []
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

    def loaded(self, group: str) -> bool:
        """Whether ``group`` is loaded (or its load ended in an error, which its first call
        then reports), at once; True when nothing loads in the background."""
        return not self.enabled or self._done[group].is_set()

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

    def _compile_apart(self, group: str) -> None:
        """Compile ``group`` into numba's cache in a child process (see the module
        docstring), or wait for the child another engine process started (several engines
        of one install start at once in a match); the child's output goes nowhere (stdout
        is the protocol's)."""
        started = time.perf_counter()
        lock = cache_path(f"kernels-{group}.compiling")
        while not is_compiled(group) and time.perf_counter() - started < COMPILE_TIMEOUT_S:
            try:
                with open(lock, "x") as owner:  # exclusive: one compiling child an install
                    self._run_child(group, owner)
                lock.unlink(missing_ok=True)
                break
            except FileExistsError:
                if _compiling(lock):
                    time.sleep(0.5)
                else:
                    lock.unlink(missing_ok=True)  # its child died: compile again
            except OSError:
                break  # no cache to share (a read-only install): the load compiles here

    @staticmethod
    def _run_child(group: str, owner: TextIO) -> None:
        command = [sys.executable, "-m", "gomoku_engine", "warmup", "--group", group]
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        owner.write(str(child.pid))
        owner.flush()
        try:
            child.wait(COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            child.kill()

    def _run(self) -> None:
        while True:
            group = self._queue.get()
            try:
                if self.compile_apart and not is_compiled(group):
                    self._compile_apart(group)
                self.seconds[group] = warmup((group,))
                gc.freeze()  # see the module docstring; costs no collection
                if self._on_loaded is not None:
                    self._on_loaded(group)
                for call in self.after_loaded:
                    call(group)
            except Exception:  # noqa: BLE001 - the move's own call retries (and reports) it
                pass
            finally:
                self._done[group].set()  # never leave a waiting command hanging
