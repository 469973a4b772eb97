"""Where the search's time goes, per jitted kernel, with Linux ``perf``.

``perf`` cannot name numba's JIT code by itself: it shows bare addresses.  This script
compiles the kernels in memory (a fresh ``NUMBA_CACHE_DIR``, so numba keeps each
library's LLVM module and its function names), writes ``/tmp/perf-<pid>.map`` (perf's
map file for JIT code: start, size, name), and then searches the 15x15 freestyle
``bench`` positions to a fixed depth (:func:`gomoku_engine.bench.run_bench`).  The size
of each function is taken as the distance to the next known function, so a few bytes of
padding may be charged to the wrong name, and numba's small helpers that have no kernel
name (its reference counting among them) show as bare addresses.

    perf record -o kernels.data python tools/profile_kernels.py --depth 16
    perf report -i kernels.data --no-children --sort dso,sym | grep JIT

With ``--code-dir DIR`` the machine code of ``negamax`` and ``_collect_moves`` is also
written there (``<name>-<address>.bin``), so that the samples can be placed on single
instructions inside a kernel (into which numba and LLVM inline most callees)::

    perf script -i kernels.data -F ip,sym | grep negamax
    objdump -D -b binary -mi386:x86-64 --adjust-vma=0x<address> DIR/negamax-<address>.bin

Compilation takes most of the run's samples; the ``[JIT]`` rows are the search.  Kernels
that are inlined into their callers (``evaluate``, the TT probe, ``_collect_moves``) are
charged to the caller.  CPU time per node is printed from the process's own clock, so
another job on the machine changes it less than wall time.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import tempfile
import time

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="gomoku-profile-")

import click  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

from gomoku_engine.bench import POSITIONS, run_bench  # noqa: E402
from gomoku_engine.cli.group import EVALUATION_CHOICE  # noqa: E402
from gomoku_engine.core import patterns, rules  # noqa: E402
from gomoku_engine.core.constants import Rule  # noqa: E402
from gomoku_engine.eval import DEFAULT_EVALUATION, classical, evaluator  # noqa: E402
from gomoku_engine.game import position  # noqa: E402
from gomoku_engine.search import alphabeta, smp, threats  # noqa: E402

#: the modules whose kernels are named in the map
KERNEL_MODULES = (patterns, rules, classical, evaluator, position, alphabeta, smp, threats)
#: a length-prefixed name in numba's mangled symbols (Itanium ABI):
#: ``...13gomoku_engine6search9alphabeta7negamaxB...``
_SEGMENT = re.compile(r"(\d+)")
FREESTYLE_15 = tuple(p for p in POSITIONS if p.size == 15 and p.rule == Rule.FREESTYLE)


def _search_all(depth: int, evaluation: str) -> int:
    """Nodes of ``gomoku-engine bench``'s search of the 15x15 freestyle positions."""
    return run_bench(depth, FREESTYLE_15, evaluation=evaluation).nodes


def _jit_symbols() -> list[tuple[int, str]]:
    """(address, kernel name) of every function numba compiled for our modules."""
    found: set[tuple[int, str]] = set()
    for module in KERNEL_MODULES:
        for dispatcher in vars(module).values():
            if not isinstance(dispatcher, CPUDispatcher):
                continue
            for compiled in dispatcher.overloads.values():
                library = compiled.library
                for function in library._final_module.functions:  # noqa: SLF001
                    if function.is_declaration:
                        continue
                    address = library.get_pointer_to_function(function.name)
                    name = _kernel_name(function.name)
                    if address and name:
                        found.add((address, name))
    return sorted(found)


def _kernel_name(symbol: str) -> str | None:
    """The function's own name in a mangled symbol of this package (its last
    length-prefixed segment after ``gomoku_engine`` and the module path), or None."""
    at = symbol.find("13gomoku_engine")
    if at < 0:
        return None
    at += len("13gomoku_engine")
    parts = []
    while (m := _SEGMENT.match(symbol, at)) is not None:
        length = int(m.group(1))
        parts.append(symbol[m.end():m.end() + length])
        at = m.end() + length
    return parts[-1] if len(parts) > 1 else None


def _write_perf_map(symbols: list[tuple[int, str]]) -> str:
    path = f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as out:
        for i, (address, name) in enumerate(symbols):
            size = symbols[i + 1][0] - address if i + 1 < len(symbols) else 1 << 16
            out.write(f"{address:x} {min(size, 1 << 20):x} {name}\n")
    return path


#: kernels whose code ``--code-dir`` writes (the search's own time is in these two)
DUMPED = ("negamax", "_collect_moves")


def _write_code(symbols: list[tuple[int, str]], folder: str) -> None:
    """Each compiled copy of the :data:`DUMPED` kernels, from its address to the next
    known function's (a symbol without a next one, or implausibly large, is skipped:
    reading past the end of its mapping would crash the process)."""
    os.makedirs(folder, exist_ok=True)
    for (address, name), (following, _) in zip(symbols, symbols[1:]):
        size = following - address
        if name in DUMPED and 0 < size < 1 << 20:
            with open(os.path.join(folder, f"{name}-{address:x}.bin"), "wb") as out:
                out.write(ctypes.string_at(address, size))


@click.command()
@click.option("--depth", type=int, default=16, show_default=True,
              help="Search depth of every 15x15 freestyle bench position.")
@click.option("--repeat", type=int, default=10, show_default=True,
              help="Searches of the positions (more samples of the search, fewer of the compiler).")
@click.option("--code-dir", type=click.Path(file_okay=False), default=None,
              help="Also write the machine code of negamax and _collect_moves here.")
@click.option("--evaluation", type=EVALUATION_CHOICE, default=DEFAULT_EVALUATION,
              show_default=True, help="The static evaluation of the searches.")
def main(depth: int, repeat: int, code_dir: str | None, evaluation: str) -> None:
    """Compile, write the perf map, then search the positions."""
    _search_all(4, evaluation)  # compiles every kernel the search uses
    symbols = _jit_symbols()
    path = _write_perf_map(symbols)
    if code_dir:
        _write_code(symbols, code_dir)
    start = time.process_time()
    nodes = sum(_search_all(depth, evaluation) for _ in range(repeat))
    seconds = time.process_time() - start
    click.echo(f"perf map {path}; {nodes} nodes, {seconds * 1e6 / nodes:.2f} us of CPU a node",
               err=True)


if __name__ == "__main__":
    sys.exit(main())
