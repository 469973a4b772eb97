"""The hot path stays inlined: a helper of make_move or of the search's leaves that numba or
LLVM stops inlining is a call passing every array of the position (e9a2ce0 made the search
7.5 times slower that way, with the same tree).  The list is
:mod:`gomoku_engine.inlining`'s; the compiled code is read in a process with an empty
numba cache (cached code keeps no IR), about two minutes of compiling, started in a child
process when this module is collected."""

from __future__ import annotations

import atexit
import importlib
import os
import subprocess
import sys

from gomoku_engine import inlining


def _dispatcher(dotted: str):  # type: ignore[no-untyped-def]
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(f"gomoku_engine.{module}"), name)


def test_every_hot_helper_is_inlined_by_numba() -> None:
    for helper in inlining.HOT_HELPERS:
        options = _dispatcher(helper).targetoptions
        assert options.get("inline") == "always", f"{helper} is not inline='always'"


def test_the_allowed_calls_name_kernels_that_exist() -> None:
    for kernel, allowed in inlining.HOT_PATH.items():
        assert hasattr(_dispatcher(kernel), "signatures"), kernel
        for callee in allowed:
            assert hasattr(_dispatcher(callee), "signatures"), f"{kernel}: {callee}"
            assert callee not in inlining.HOT_HELPERS, f"{callee} is hot and allowed"


def test_calls_are_read_from_a_kernels_own_body() -> None:
    def symbol(*parts: str) -> str:
        return "_ZN" + "".join(f"{len(p)}{p}" for p in parts) + "B3v12B52sig"

    kernel = symbol("gomoku_engine", "game", "position", "make_move")
    helper = symbol("gomoku_engine", "game", "position", "_refresh_line")
    other = symbol("gomoku_engine", "game", "position", "_wins")
    ir = (f'define i32 @"{kernel}"(i8* %a) {{\n  %r = call i32 @"{helper}"(i8* %a)\n}}\n'
          f'define i32 @"{helper}"(i8* %a) {{\n  %r = call i32 @"{other}"(i8* %a)\n'
          f'  %s = call i32 @"NRT_decref"(i8* %a)\n}}\n')
    assert inlining.calls_in_ir(ir, "game.position.make_move") == {"game.position._refresh_line"}
    assert inlining.calls_in_ir(ir, "game.position._refresh_line") == {"game.position._wins"}
    found = {"game.position.make_move": {"game.position._refresh_line", "game.position._wins"}}
    assert inlining.violations(found) == {"game.position.make_move": {
        "game.position._refresh_line"}}


def _start_check() -> subprocess.Popen:
    """The check in a child process, started when this module is collected: its two
    minutes of compiling run on the machine's other core while the suite's tests run
    (niced, so that the timed tests beside it keep their core)."""
    env = {k: v for k, v in os.environ.items() if k != "GOMOKU_INLINING_CHILD"}
    return subprocess.Popen([sys.executable, "-m", "gomoku_engine.inlining"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.nice(10)) if hasattr(os, "nice") else None)


_CHECK = _start_check()
# a run that deselects the test leaves no compiling child behind
atexit.register(lambda: _CHECK.kill() if _CHECK.poll() is None else None)


def test_the_compiled_hot_path_makes_no_call_it_may_not() -> None:
    stdout, stderr = _CHECK.communicate(timeout=1200)
    assert "hot path inlined" in stdout and _CHECK.returncode == 0, stdout + stderr[-3000:]
