"""Where a warm start's time goes: imports, loading each cached numba kernel, building tables.

Runs in a fresh interpreter (run it several times and take medians: the first run after
a change of the sources also rebuilds the pattern tables and recompiles).  Prints one line
per phase with its milliseconds, and for the kernel loads one line per kernel loaded
from numba's on-disk cache (``numba.core.caching.Cache.load_overload``, timed by wrapping
it).  The phases follow what the protocol loop does for its first move at the default
settings; ``--all`` also loads the optional kernels (VCT, the horizon VCF, the genetic
algorithm), which a default game never calls.  Figures are in ``docs/startup.md``.

Usage::

    .venv/bin/python tools/startup_profile.py [--all]
    .venv/bin/python -X importtime -c "import gomoku_engine.protocol.loop" 2> imports.txt
"""

from __future__ import annotations

import argparse
import time

BEGAN = time.perf_counter()
PHASES: list[tuple[str, float]] = []
LOADS: list[tuple[str, float]] = []


def phase(name: str, since: float) -> float:
    now = time.perf_counter()
    PHASES.append((name, (now - since) * 1000))
    return now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true",
                        help="also load the optional kernels (VCT, horizon VCF, GA)")
    args = parser.parse_args()

    t = time.perf_counter()
    import numpy  # noqa: F401
    t = phase("import numpy", t)
    import numba  # noqa: F401
    t = phase("import numba", t)
    from numba.core import caching

    original = caching.Cache.load_overload

    def timed(self, sig, target_context):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        try:
            return original(self, sig, target_context)
        finally:
            LOADS.append((self._name.split(" at ")[0].replace("<function ", ""),
                          (time.perf_counter() - began) * 1000))

    caching.Cache.load_overload = timed
    import gomoku_engine.core.jit  # noqa: F401
    t = phase("import gomoku_engine.core.jit (source hash)", t)
    from gomoku_engine import engine
    t = phase("import gomoku_engine.engine (kernel modules)", t)
    from gomoku_engine import protocol  # noqa: F401
    t = phase("import gomoku_engine.protocol.loop", t)
    PHASES.append(("imports in all", (t - BEGAN) * 1000))

    from gomoku_engine.core.constants import Rule
    from gomoku_engine.core.patterns import line_table

    t = time.perf_counter()
    line_table(Rule.FREESTYLE)
    t = phase("line table (freestyle; built or read from .npy)", t)
    e = engine.Engine(15)
    t = phase("Engine(15): tables, position, hash (64 MiB)", t)
    for x, y in ((7, 7), (8, 8), (8, 7), (6, 7), (9, 9)):
        e.board.play(x, y)
    t = phase("five moves (make_move)", t)
    e.search(engine.Limits(depth=2))
    t = phase("a default search to depth 2 (root VCF + alpha-beta)", t)
    defence = engine.Engine(15, hash_mb=1)
    for x, y in ((7, 7), (0, 0), (8, 7), (1, 1), (9, 7), (2, 2), (5, 9)):
        defence.board.play(x, y)
    defence.search(engine.Limits(depth=2))
    t = phase("a default search facing a VCF (root filter)", t)
    e.board.undo()
    t = phase("undo", t)
    if args.all:
        e.search(engine.Limits(depth=2, vct=True, horizon_vcf=True))
        t = phase("optional: VCT at the root and the horizon VCF", t)
        e.solve("vct", time_ms=None, depth=2)
        t = phase("optional: solve VCT", t)
        e.set_algorithm("ga")
        from gomoku_engine.search import ga
        e.ga_config = ga.GAConfig(pop_init=20, elite=4, cap=30, stall=1, max_generations=2)
        e.search(engine.Limits(hard_ms=5000))
        t = phase("optional: genetic algorithm", t)
    PHASES.append(("total", (t - BEGAN) * 1000))

    for name, ms in PHASES:
        print(f"{ms:8.1f} ms  {name}")
    print(f"kernels loaded from the cache: {len(LOADS)}, "
          f"{sum(ms for _, ms in LOADS):.1f} ms in all")
    for name, ms in sorted(LOADS, key=lambda item: -item[1]):
        print(f"{ms:8.1f} ms  load {name}")


if __name__ == "__main__":
    main()
