"""The numba helpers of :mod:`gomoku_engine.core.jit` that are not kernels of their own."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import pytest

from gomoku_engine.core.jit import unmanaged


class Pair(NamedTuple):
    counts: np.ndarray
    values: np.ndarray


class Mixed(NamedTuple):
    counts: np.ndarray
    size: int


@numba.njit
def _bump_and_sum(pair):  # type: ignore[no-untyped-def]
    view = unmanaged(pair)
    view.counts[0] += 1
    return view.values.sum()


@numba.njit
def _unmanaged_mixed(mixed):  # type: ignore[no-untyped-def]
    return unmanaged(mixed)


def test_unmanaged_arrays_are_the_callers_memory():
    """The arrays handed on without reference counting are views of the caller's arrays
    (what a kernel writes through them, the caller sees), not copies."""
    pair = Pair(np.zeros(3, np.int64), np.arange(4, dtype=np.int64))
    assert _bump_and_sum(pair) == 6
    assert _bump_and_sum(pair) == 6
    assert pair.counts.tolist() == [2, 0, 0]


def test_unmanaged_takes_only_tuples_of_arrays():
    with pytest.raises(numba.core.errors.TypingError):
        _unmanaged_mixed(Mixed(np.zeros(2, np.int64), 2))


CALLEE = """
from ..core.jit import njit


@njit
def callee():
    return {value}
"""

CALLER = """
from ..core.jit import njit
from ..probe_callee.kernel import callee


@njit
def caller():
    return callee() + 1
"""


def test_an_edited_kernel_in_a_subpackage_is_recompiled(tmp_path):
    """numba's cache keys a kernel on its own file only: a kernel whose callee lives in
    another subpackage would run stale compiled code after the callee's file changed.
    The package's source hash covers every subpackage, so the edit is seen."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import gomoku_engine

    package = tmp_path / "gomoku_engine"
    shutil.copytree(Path(gomoku_engine.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in (("probe_callee", CALLEE.format(value=1)), ("probe_caller", CALLER)):
        (package / name).mkdir()
        (package / name / "__init__.py").write_text("")
        (package / name / "kernel.py").write_text(text)
    run = [sys.executable, "-c",
           "from gomoku_engine.probe_caller.kernel import caller; print(caller())"]

    def result() -> str:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": ""}
        return subprocess.run(run, env=env, capture_output=True, text=True, check=True,
                              timeout=300).stdout.strip()

    assert result() == "2"
    assert list((package / "probe_caller" / "__pycache__").glob("*.nbi")), "no cache written"
    (package / "probe_callee" / "kernel.py").write_text(CALLEE.format(value=41))
    assert result() == "42"


def test_the_cache_key_is_the_kernels_sources_only():
    """The kernels are made of the modules that define jitted code and what they import
    from the package; the CLI, the protocol loop and the driver only call them."""
    from gomoku_engine.core.jit import _PACKAGE_DIR, kernel_sources

    names = {p.relative_to(_PACKAGE_DIR).as_posix() for p in kernel_sources()}
    assert {"search/alphabeta.py", "search/params.py", "search/threats.py",
            "game/position.py", "core/constants.py", "core/jit.py",
            "eval/evaluator.py"} <= names
    assert not names & {"cli/group.py", "cli/engine_commands.py", "protocol/loop.py",
                        "search/driver.py", "engine.py", "kernels.py", "bench.py"}
    # JAX's jit (the network's training) compiles no numba kernel: editing the training
    # code must not drop the kernels' cache
    assert not names & {"training/network_fit.py", "training/network_data.py",
                        "protocol/messages.py"}


def test_editing_a_help_text_keeps_the_cache_and_editing_a_kernel_module_drops_it(tmp_path):
    """Both directions, on a copy of the package with one compiled kernel: an edited CLI
    help text leaves numba's cache files in place; an edited tunables module (imported by
    the kernels) deletes them."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import gomoku_engine

    package = tmp_path / "gomoku_engine"
    shutil.copytree(Path(gomoku_engine.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (package / "probe_callee").mkdir()
    (package / "probe_callee" / "__init__.py").write_text("")
    (package / "probe_callee" / "kernel.py").write_text(CALLEE.format(value=1))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": ""}

    def run(code: str) -> None:
        subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300,
                       capture_output=True)

    def cached() -> list[Path]:
        return list((package / "probe_callee" / "__pycache__").glob("*.nbi"))

    run("from gomoku_engine.probe_callee.kernel import callee; callee()")
    assert cached(), "no cache written"
    group = package / "cli" / "group.py"
    group.write_text(group.read_text().replace("Gomoku engine speaking", "A Gomoku engine speaking"))
    run("import gomoku_engine.core.jit")
    assert cached(), "a help text's edit dropped the compiled kernels"
    params = package / "search" / "params.py"
    params.write_text(params.read_text() + "\n# an edit\n")
    run("import gomoku_engine.core.jit")
    assert not cached(), "an edit of a module the kernels import kept stale kernels"
