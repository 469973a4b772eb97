"""Start-up: a protocol game loads only what its settings can call, and START does not wait
for kernels past its deadline.  No timings are asserted (the figures are in
docs/startup.md); what is checked is which modules are imported and which kernels are
loaded, in fresh interpreters.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku_engine.core import jit
from gomoku_engine.protocol import kernel_loader
from gomoku_engine.cli import main
from gomoku_engine.kernels import CORE, GA, VCT, kernel_groups, warmup
from gomoku_engine.core.combinations import class_tables
from gomoku_engine.eval.classical import _base_tables, combination_tables
from gomoku_engine.protocol.loop import START_WAIT_LATE_S, START_WAIT_S, ProtocolLoop

#: A protocol game in a fresh interpreter with the imports of ``pbrain-gomoku-engine``
#: (gomoku_engine.pbrain, then the loop); prints which modules and kernels it loaded.
GAME = """
import gc, io, json, sys
import gomoku_engine.pbrain
from gomoku_engine.protocol.loop import ProtocolLoop
commands = sys.argv[1].replace("|", "\\n") + "\\n"
out = io.BytesIO()
ProtocolLoop(io.BytesIO(commands.encode()), out).run()
from gomoku_engine.search import threats
ga = sys.modules.get("gomoku_engine.search.ga")
print(json.dumps({
    "replies": out.getvalue().decode().splitlines(),
    "modules": sorted(m for m in sys.modules if m.split(".")[0] in
                      ("gomoku_engine", "click", "tqdm")),
    "vcf": len(threats.solve_vcf.signatures),
    "vct": len(threats._vct_root.signatures),
    "ga": None if ga is None else len(ga.ga_search.signatures),
    "collectable": len(gc.get_objects()),
    "scipy.linalg": "scipy.linalg" in sys.modules,
}))
"""


def play(*commands: str) -> dict:
    result = subprocess.run([sys.executable, "-c", GAME, "|".join(commands)],
                            capture_output=True, text=True, timeout=600, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_a_default_game_imports_no_cli_match_runner_or_ga_and_loads_no_vct():
    seen = play("START 15", "INFO timeout_turn 500", "BEGIN", "TURN 8,8")
    assert seen["replies"][0] == "OK" and seen["replies"][-1].count(",") == 1
    for module in ("gomoku_engine.search.ga", "gomoku_engine.arena.match", "gomoku_engine.cli",
                   "gomoku_engine.arena.referee", "click", "tqdm"):
        assert module not in seen["modules"], module
    assert seen["vcf"] == 1  # the default root VCF was loaded ...
    assert seen["vct"] == 0 and seen["ga"] is None  # ... the optional kernels were not
    # numba's probe for scipy's BLAS (an import of scipy.linalg, 0.2-0.4 s) was skipped
    assert not seen["scipy.linalg"]


def test_skipping_the_blas_probe_leaves_scipy_importable():
    """:func:`jit.skip_blas_probe` blocks scipy's BLAS only while numba's numpy support is
    imported, in a fresh interpreter: the first call skips the probe, the second finds
    that support imported, and scipy's BLAS module is not left blocked."""
    script = ("import sys; from gomoku_engine.core import jit; "
              "print(jit.skip_blas_probe(), jit.skip_blas_probe(), "
              "sys.modules.get('scipy.linalg.cython_blas', 'absent'))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.split() == ["True", "False", "absent"]


def test_the_loaded_kernels_are_left_out_of_the_garbage_collector():
    # Loading the kernels leaves ~100,000 objects, whose full collection took 150 ms: a
    # stall inside whichever timed move triggered it.  Frozen after the load, they are
    # not scanned again, so the collector tracks only what the game itself made.
    seen = play("START 15", "INFO timeout_turn 500", "BEGIN", "TURN 8,8")
    assert seen["replies"][-1].count(",") == 1
    assert seen["collectable"] < 20_000


def test_info_selecting_the_vct_or_the_ga_loads_their_kernels_before_the_move():
    # a move waits for the optional kernels up to half its budget (move_reply), which
    # at 5 s covers their load from the cache many times over
    seen = play("START 15", "INFO timeout_turn 5000", "INFO threats 5", "INFO algorithm ga",
                "BEGIN", "TURN 8,8")
    assert seen["replies"][-1].count(",") == 1
    assert seen["vct"] >= 1 and seen["ga"] == 1


def test_kernel_groups_follow_the_settings():
    assert kernel_groups() == (CORE,)
    assert kernel_groups("alphabeta", vct=True) == (CORE, VCT)
    assert kernel_groups("ga") == (CORE, GA)


class _Replies(io.BytesIO):
    """Output that sets an event when the engine has written ``OK``."""

    def __init__(self) -> None:
        super().__init__()
        self.ok = threading.Event()

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if data == b"OK\n":
            self.ok.set()
        return super().write(data)


def test_start_answers_at_its_deadline_and_the_move_waits_for_the_kernels(monkeypatch):
    """The kernels are held back until OK is written: OK must not wait for them past its
    deadline (a cold compile), and the move waits for them within its own time (it is
    still a legal move)."""
    out = _Replies()
    released = []

    def slow_warmup(groups):
        released.append(out.ok.wait(120))  # loads only once OK is out
        return warmup(groups)

    monkeypatch.setattr(kernel_loader, "warmup", slow_warmup)
    loop = ProtocolLoop(io.BytesIO(b"START 15\nINFO timeout_turn 2000\nBEGIN\nTURN 8,8\n"),
                        out, started_at=-2 * START_WAIT_S)  # the deadline has passed
    loop.run()
    lines = out.getvalue().decode().splitlines()
    assert released == [True], "START waited for the kernels past its deadline"
    assert lines[0] == "OK" and lines[2] == "7,7" and lines[-1].count(",") == 1


def test_a_start_after_about_waits_less_for_the_kernels(monkeypatch):
    """A START that arrives after the reader began (c-gomoku-cli's, after ABOUT) waits
    for the kernels at most START_WAIT_LATE_S from its arrival, not START_WAIT_S: its
    manager's tolerance may be 1 s."""
    out = _Replies()

    def slow_warmup(groups):
        out.ok.wait(120)  # loads only once OK is out
        return warmup(groups)

    monkeypatch.setattr(kernel_loader, "warmup", slow_warmup)
    read_end, write_end = os.pipe()
    loop = ProtocolLoop(os.fdopen(read_end, "rb", buffering=0), out)
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    with os.fdopen(write_end, "wb", buffering=0) as commands:
        commands.write(b"ABOUT\n")
        time.sleep(0.3)
        sent = time.perf_counter()
        commands.write(b"START 15\n")
        assert out.ok.wait(30)
        waited = time.perf_counter() - sent
        commands.write(b"END\n")
    runner.join(60)
    assert START_WAIT_LATE_S - 0.05 <= waited < START_WAIT_S, waited


def test_warmup_compiles_what_it_is_asked_with_a_line_per_group():
    default = CliRunner().invoke(main, ["warmup"])
    assert default.exit_code == 0, default.output
    assert "kernels: core" in default.output and "vct" not in default.output
    assert "kernels ready in" in default.output
    everything = CliRunner().invoke(main, ["warmup", "--all"])
    assert everything.exit_code == 0, everything.output
    for group in ("core", "vct", "ga", "pattern tables"):
        assert group in everything.output


def test_warmup_rejects_an_unknown_group():
    with pytest.raises(ValueError, match="unknown kernel group"):
        warmup(("alphabeta",))


def test_cached_arrays_are_built_once_then_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(jit, "_CACHE_DIR", tmp_path)
    builds = []

    def build():
        builds.append(1)
        return np.arange(5, dtype=np.int8), np.full((2, 3), 7, np.int32)

    first = jit.cached_arrays("demo")(build)
    a = first()
    assert first() is a and len(builds) == 1  # kept in memory
    again = jit.cached_arrays("demo")(build)()  # a new process: read from the disk
    assert len(builds) == 1 and (tmp_path / "demo.npz").exists()
    assert [x.dtype for x in again] == [np.int8, np.int32]
    assert not any(x.flags.writeable for x in (*a, *again))  # read-only either way
    assert all(np.array_equal(x, y) for x, y in zip(a, again))


@pytest.mark.parametrize("build, count", [(_base_tables, 2), (class_tables, 2)])
def test_the_cached_combination_tables_equal_a_fresh_build(build, count):
    fresh = build.__wrapped__()
    cached = build()
    assert len(fresh) == len(cached) == count
    for x, y in zip(fresh, cached):
        assert x.dtype == y.dtype and np.array_equal(x, y) and not y.flags.writeable


def test_the_evaluation_tables_share_the_rules_tables():
    threat, value, foul = combination_tables(evaluation="handset")
    assert threat is class_tables()[0] and foul is class_tables()[1]
    assert value is _base_tables()[0]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process check")
def test_a_compile_lock_is_live_while_its_child_runs(tmp_path):
    lock = tmp_path / "kernels-core.compiling"
    assert not kernel_loader._compiling(lock)  # no lock
    lock.write_text("")
    assert kernel_loader._compiling(lock)  # just taken, the pid not yet written
    lock.write_text(str(os.getpid()))
    assert kernel_loader._compiling(lock)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    lock.write_text(str(ended.pid))
    assert not kernel_loader._compiling(lock)


def test_a_cold_group_is_compiled_by_a_child_process_then_loaded(monkeypatch):
    children = []

    class Child:  # stands in for subprocess.Popen: records the command, "compiles" at once
        def __init__(self, command, **kwargs):
            children.append(command)
            self.pid = os.getpid()

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(kernel_loader, "is_compiled", lambda group: bool(children))
    monkeypatch.setattr(kernel_loader.subprocess, "Popen", Child)
    loader = kernel_loader.KernelLoader()
    assert loader.wait([CORE], 300)
    assert children == [[sys.executable, "-m", "gomoku_engine", "warmup", "--group", "core"]]
    assert not jit.cache_path("kernels-core.compiling").exists()  # the lock is released


@pytest.mark.parametrize("arguments, code", [(["--help"], 0), (["-h"], 0),
                                             (["--level", "3"], 2), (["x"], 2)])
def test_pbrain_answers_help_and_refuses_unknown_options(arguments, code):
    """``pbrain-gomoku-engine --help`` prints its usage; an option it does not know is
    refused (exit status 2, on stderr), not ignored."""
    script = ("import sys; sys.argv = ['pbrain-gomoku-engine'] + sys.argv[1:]; "
              "from gomoku_engine.pbrain import main; main()")
    result = subprocess.run([sys.executable, "-c", script, *arguments], input="",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == code, result
    if code == 0:
        assert result.stdout.startswith("usage: pbrain-gomoku-engine")
    else:
        assert f"no such option {arguments[0]!r}" in result.stderr and not result.stdout
