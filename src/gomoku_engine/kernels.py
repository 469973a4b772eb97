"""Loading the numba kernels before a timed move needs them.

Kernels compile on first use (about a minute for the core on a cold cache) or load from
numba's on-disk cache (well under a second).  :func:`warmup` runs each group of kernels
once on a small position, so that a timed move never pays for it; ``gomoku-engine
warmup`` and the protocol loop's background loader
(:class:`gomoku_engine.protocol.kernel_loader.KernelLoader`) call it.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numba

from .core.constants import Rule
from .core.jit import cache_path, skip_blas_probe
from .core.patterns import line_table
from .engine import DEFAULT_ALGORITHM, Engine
from .eval import evaluate
from .search import threats
from .search.driver import fallback_move, new_states
from .search.limits import Limits


#: Kernel groups (:func:`warmup`): what a move at given settings can call.
CORE = "core"  #: the board, alpha-beta and the root VCF: every move at the default settings
VCT = "vct"  #: the VCT solver (``INFO threats`` bit 4, ``solve --vct``)
GA = "ga"  #: the genetic algorithm (``INFO algorithm ga``)
KERNEL_GROUPS = (CORE, VCT, GA)


def kernel_groups(algorithm: str = DEFAULT_ALGORITHM, vct: bool = False) -> tuple[str, ...]:
    """The kernel groups a move can call with these settings: the search ``algorithm``
    (``INFO algorithm``) and whether the root runs the VCT solver (``Limits.vct``); the
    horizon VCF runs inside the alpha-beta kernel (CORE)."""
    groups = [CORE]
    if vct:
        groups.append(VCT)
    if algorithm == "ga":
        groups.append(GA)
    return tuple(groups)


def _warm_core() -> None:
    engine = Engine(15, hash_mb=1)  # every size and rule runs the same kernels
    for x, y in ((7, 7), (8, 8), (8, 7), (6, 7), (9, 9)):
        engine.board.play(x, y)
    engine.search(Limits(depth=3))  # make/unmake, the root VCF (pass_move), alpha-beta
    engine.solve("vcf", time_ms=None)
    scratch, _ = new_states(engine.board.geometry, 1)
    fallback_move(engine.board, scratch, time.perf_counter())  # move generation from Python
    # the static evaluation (Swap2 screens openings by it)
    evaluate(engine.board.position, engine.board.tables)
    defence = Engine(15, hash_mb=1)  # black's open three and white's three: the root filter
    for x, y in ((7, 7), (0, 0), (8, 7), (1, 1), (9, 7), (2, 2), (5, 9)):
        defence.board.play(x, y)
    defence.search(Limits(depth=2))
    engine.board.remove(8, 8)  # reset_position, as BOARD and TAKEBACK use it
    engine.board.undo()


def _warm_vct() -> None:
    engine = Engine(15, hash_mb=1)
    for x, y in ((7, 7), (8, 8), (8, 7), (6, 7), (9, 9)):
        engine.board.play(x, y)
    engine.search(Limits(depth=2, vct=True, horizon_vcf=True))
    engine.solve("vct", time_ms=None, depth=2)
    # (solve reads the winning line only when it proves a win)
    _, scratch = new_states(engine.board.geometry, 1)
    threats.vct_line(engine.board.position, engine.board.tables, scratch, 2, 0)


def _warm_ga() -> None:
    from .search import ga

    engine = Engine(15, hash_mb=1, algorithm="ga",  # a tiny population
                    ga_config=ga.GAConfig(pop_init=20, elite=4, cap=30, stall=1,
                                          max_generations=2))
    for x, y in ((7, 7), (8, 8), (8, 7)):
        engine.board.play(x, y)
    engine.search(Limits(hard_ms=5000))


_WARM = {CORE: _warm_core, VCT: _warm_vct, GA: _warm_ga}


def _stamp_path(group: str) -> Path:
    return cache_path(f"kernels-{group}.stamp")


def _stamp_text() -> str:
    """What a compiled cache depends on besides the sources (which clear it themselves:
    :mod:`gomoku_engine.core.jit`)."""
    return (f"numba {numba.__version__} python {sys.version.split()[0]} "
            f"{platform.machine()} {platform.system()}")


def is_compiled(group: str) -> bool:
    """Has :func:`warmup` compiled ``group`` into the on-disk cache of these sources, this
    numba and this Python?  Then loading it takes well under a second; otherwise it
    compiles (seconds to a minute).  A stamp cannot see a cache that numba itself refuses
    (another CPU reading the same files, say): then the load compiles after all."""
    try:
        return _stamp_path(group).read_text() == _stamp_text()
    except OSError:
        return False


def _stamp(group: str) -> None:
    if is_compiled(group):
        return  # a load from the cache (every engine start): nothing new to record
    try:
        _stamp_path(group).write_text(_stamp_text())
        # the lock of the compiling child (protocol.kernel_loader), whose engine process
        # may have ended before it: compiled now, so nobody waits on it any more
        cache_path(f"kernels-{group}.compiling").unlink(missing_ok=True)
    except OSError:
        pass  # a read-only install: numba compiles in memory, and no stamp is right


def warmup(groups: Iterable[str] = (CORE,), all_rules: bool = False,
           on_group: Callable[[str, float], None] | None = None) -> float:
    """Compile (or load from numba's on-disk cache) the kernels of ``groups``; returns the
    seconds taken.

    Each group is loaded by running its kernels once on a small position, so a timed move
    never compiles or loads one.  ``gomoku-engine warmup`` calls it (``--all`` for every
    group and rule), and the protocol loop in a background thread
    (:class:`gomoku_engine.protocol.kernel_loader.KernelLoader`).

    :param groups: names of :data:`KERNEL_GROUPS`.
    :param all_rules: also build (or read) the pattern tables of every rule, which a new
        install otherwise builds when a rule is first used (about 0.2 s each).
    :param on_group: called after each group with its name and seconds.
    :raises ValueError: for an unknown group.
    """
    began = time.perf_counter()
    for group in groups:
        if group not in _WARM:
            raise ValueError(f"unknown kernel group {group!r}: expected one of "
                             + ", ".join(KERNEL_GROUPS))
        started = time.perf_counter()
        if is_compiled(group):
            skip_blas_probe()  # loads only: numba's probe of scipy would cost 0.2-0.4 s
        _WARM[group]()
        _stamp(group)
        if on_group is not None:
            on_group(group, time.perf_counter() - started)
    if all_rules:
        started = time.perf_counter()
        for rule in Rule:
            line_table(rule)
        if on_group is not None:
            on_group("rule tables", time.perf_counter() - started)
    return time.perf_counter() - began
