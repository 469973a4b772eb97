"""What a cluster's worker checks before its first game: the engines, the kernels, its speed.

Run on every worker by :func:`gomoku_engine.arena.cluster.preflight` (as a Dask task
pinned to that worker), so that a match never mixes different engines under one name, or
times a move on a worker still compiling:

* each engine command must resolve on the worker (``PATH`` or a path), and its identity
  is hashed: for this package's entry points (``gomoku-engine``, ``pbrain-gomoku-engine``,
  ``python -m gomoku_engine``) the package's source and data files with the versions of
  Python, numpy and numba (what decides its moves); for any other engine the executable's
  file and every argument that names a file (a script run by an interpreter);
* the numba kernels are compiled into the worker's own on-disk cache (as ``gomoku-engine
  warmup`` does; a shared network cache would be written by every worker at once);
* a short bench gives the worker's nodes per second, so that a worker much slower than
  the others is named (time controls are per move: a slow worker weakens the engines it
  runs); the warm-up and the bench are one ``gomoku-engine bench --warmup`` process.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

#: the console scripts of this package (pyproject.toml's ``project.scripts``)
PACKAGE_SCRIPTS = ("gomoku-engine", "pbrain-gomoku-engine")
#: the bench depth of the speed check: about a second on a 2020s core
BENCH_DEPTH = 5
#: a worker under this fraction of the median nodes per second is named in a warning
SLOW_FRACTION = 0.5
#: seconds allowed to the warm-up (a cold numba cache compiles for minutes) and the bench
WARMUP_TIMEOUT = 900
BENCH_TIMEOUT = 300


def resolve(program: str) -> str | None:
    """The file ``program`` runs: itself if it is a path (relative to the working folder),
    else its match on ``PATH``; None if there is no such file."""
    if os.sep in program or (os.altsep and os.altsep in program):
        path = os.path.abspath(program)
        return path if os.path.isfile(path) else None
    return shutil.which(program)


def is_package_command(command: Sequence[str]) -> bool:
    """Whether ``command`` runs this package: one of its scripts or ``python -m
    gomoku_engine``."""
    name = Path(command[0]).name.removesuffix(".exe")
    return name in PACKAGE_SCRIPTS or list(command[1:3]) == ["-m", "gomoku_engine"]


def package_identity() -> str:
    """16 hex digits of SHA-256 over the package's ``.py`` and ``.npz`` files (relative
    path and bytes, in path order) and the Python, numpy and numba versions."""
    import numba
    import numpy

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".npz") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    digest.update(f"python {platform.python_version()} numpy {numpy.__version__} "
                  f"numba {numba.__version__}".encode())
    return digest.hexdigest()[:16]


def engine_identity(command: Sequence[str]) -> str:
    """``package <hash>`` or ``file <hash>`` (see the module docstring) of an engine
    command on this machine.

    :raises FileNotFoundError: if the command's program does not resolve.
    """
    program = resolve(command[0])
    if program is None:
        raise FileNotFoundError(f"{command[0]!r} not found")
    if is_package_command(command):
        return "package " + package_identity()
    digest = hashlib.sha256(Path(program).read_bytes())
    for argument in command[1:]:
        if os.path.isfile(argument):  # a script the program runs
            digest.update(argument.encode() + b"\0" + Path(argument).read_bytes())
    return "file " + digest.hexdigest()[:16]


def warm_and_bench(depth: int = BENCH_DEPTH) -> tuple[float, int]:
    """Compile (or load) the kernels of a game, then run ``bench --depth depth``, in one
    ``gomoku-engine bench --warmup`` process: (seconds of the warm-up, nodes per second
    of the bench).

    :raises RuntimeError: if either command fails or the bench prints no nodes per second.
    """
    # one process for both: a second start of Python, numpy and numba cost more than the bench
    text = _package_command(["bench", "--warmup", "--depth", str(depth)],
                            WARMUP_TIMEOUT + BENCH_TIMEOUT)
    warm = re.search(r"Warm-up \(s\)\s*:\s*([\d.]+)", text)
    found = re.search(r"Nodes/second\s*:\s*(\d+)", text)
    if warm is None or found is None:
        raise RuntimeError(f"bench printed no warm-up time or nodes per second: "
                           f"{text[-300:]!r}")
    return float(warm.group(1)), int(found.group(1))


def _package_command(arguments: list[str], timeout: float) -> str:
    """Run ``python -m gomoku_engine ARGUMENTS`` with this interpreter; its output."""
    done = subprocess.run([sys.executable, "-m", "gomoku_engine", *arguments],
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"gomoku-engine {' '.join(arguments)} failed: "
                           f"{done.stderr.strip()[-300:]}")
    return done.stdout


def check_worker(commands: Mapping[str, Sequence[str]], bench_depth: int | None) -> dict:
    """The report of this worker: ``{"engines": {name: identity or "error: ..."},
    "nodes_per_second": int or None, "warmup_seconds": float or None}``.

    :param bench_depth: the bench's depth; None: no warm-up and no bench.
    """
    engines = {}
    for name, command in commands.items():
        try:
            engines[name] = engine_identity(command)
        except OSError as exc:
            engines[name] = f"error: {exc}"
    report: dict = {"engines": engines, "nodes_per_second": None, "warmup_seconds": None}
    if bench_depth is not None:
        warm, nps = warm_and_bench(bench_depth)
        report.update(nodes_per_second=nps, warmup_seconds=round(warm, 2))
    return report


def engine_problems(reports: Mapping[str, Mapping]) -> list[str]:
    """Every engine that does not resolve on a worker, or differs from the one most
    workers have, as ``worker W: ...`` lines (empty: all workers run the same engines)."""
    problems = []
    names = sorted({name for report in reports.values() for name in report["engines"]})
    for name in names:
        seen = {worker: report["engines"].get(name, "error: not checked")
                for worker, report in reports.items()}
        for worker, identity in seen.items():
            if identity.startswith("error:"):
                problems.append(f"worker {worker}: engine {name!r} cannot run "
                                f"({identity.removeprefix('error: ')})")
        good = [i for i in seen.values() if not i.startswith("error:")]
        if not good:
            continue
        common = max(set(good), key=good.count)
        for worker, identity in seen.items():
            if identity != common and not identity.startswith("error:"):
                problems.append(f"worker {worker}: engine {name!r} is not the same engine "
                                f"({identity}; {good.count(common)} other worker(s) have "
                                f"{common})")
    return problems


def slow_workers(reports: Mapping[str, Mapping]) -> list[str]:
    """The workers whose bench nodes per second is under :data:`SLOW_FRACTION` of the
    workers' median."""
    speeds = {w: r["nodes_per_second"] for w, r in reports.items() if r["nodes_per_second"]}
    if len(speeds) < 2:
        return []
    ordered = sorted(speeds.values())
    median = ordered[len(ordered) // 2]
    return sorted(w for w, nps in speeds.items() if nps < SLOW_FRACTION * median)
