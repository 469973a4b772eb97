"""The search's hot path, and a check that numba and LLVM still inline it.

A call between two of our kernels passes every array of the named tuples it takes
(``Position`` and ``Tables``: about 57 arrays, each several machine words), so a helper of
``make_move`` that stops being inlined costs more than its work.  That happened once
unseen: e9a2ce0 added the network's loops to ``update_point`` and ``clear_point``, LLVM
stopped inlining ``_refresh_line`` and ``_classify_point`` into ``make_move`` on its own
judgement, and the search ran 7.5 times slower with the same tree (the bench signature did
not move).  Since then every hot helper is ``@njit(inline="always")`` (numba inlines it in
its own IR, before LLVM decides anything), and this module says which calls each hot
kernel may still make.

:data:`HOT_PATH` maps each hot kernel to the kernels of the package it may call, each with
its reason; any other call out of it is a lost inlining.  :func:`hot_path_calls` compiles
the kernels in memory and reads the calls out of their optimised LLVM IR (numba's
``inspect_llvm``), which cached code does not keep: run it in a process with an empty
``NUMBA_CACHE_DIR`` (:func:`main` does, ``python -m gomoku_engine.inlining``; about a
minute and a half of compiling).  The test suite runs it (``tests/test_inlining.py``).

Written to run against another checkout too (``PYTHONPATH=OTHER/src python
src/gomoku_engine/inlining.py``): it imports the package's kernels by name only.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tempfile

#: Helpers that must be inlined into the hot kernels, and why (each ``inline="always"``).
HOT_HELPERS: dict[str, str] = {
    "game.position._refresh_line": "make_move: up to 40 a move, one per point of its lines",
    "game.position._classify_point": "make_move: one per changed point and colour",
    "game.position._log_point": "make_move: one per changed point (the undo log)",
    "game.position._remove_point": "make_move: one a move",
    "game.position._restore_points": "unmake_move: one a move, over the undo log",
    "eval.evaluator.evaluate": "every leaf of negamax and quiescence",
    "game.defences.five_defences": "negamax and the VCF: every answer to a four",
}

_RECURSION = "the search's own recursion"
_CARO = "caro only (rule 8): a four's defences past its open end"
_EXACT = "exact five and caro only: an overline or a blocked five when a window fills"
_RENJU = "renju only: black's fouls after the move"
_REFRESH = ("the network evaluation only: bringing its state up to the position (the "
            "convolution around the changed points), with its own arrays, costs more than "
            "the call")

#: Each hot kernel, and the package's kernels it may call (a call, not inlined), with the
#: reason.  Any other call out of a hot kernel fails :func:`violations`.
HOT_PATH: dict[str, dict[str, str]] = {
    "game.position.make_move": {
        "game.position._wins": _EXACT,
        "game.position._renju_update": _RENJU,
    },
    "game.position.unmake_move": {},
    "search.alphabeta.quiescence": {
        "search.alphabeta.quiescence": _RECURSION,
        "game.position._wins": _EXACT,
        "game.position._renju_update": _RENJU,
        "game.defences._caro_five_defences": _CARO,
        "eval.evaluator._network_logit": "the network evaluation only: its MLP, with its "
                                         "own arrays, costs more than the call",
        "eval.evaluator._refresh": _REFRESH,
    },
    "search.alphabeta.negamax": {
        "search.alphabeta.negamax": _RECURSION,
        "search.alphabeta.quiescence": "the horizon",
        "search.threats.vcf": "the horizon VCF, a search of its own",
        "search.alphabeta._collect_moves": "once per inner node, a large loop of its own "
                                           "(kept out so that negamax stays compilable)",
        "search.alphabeta._a_block_makes_four": _CARO,
        "game.defences._caro_five_defences": _CARO,
        "game.position._wins": _EXACT,
        "game.position._renju_update": _RENJU,
        "eval.evaluator._network_logit": "the network evaluation only: its MLP, with its "
                                         "own arrays, costs more than the call",
        "eval.evaluator._refresh": _REFRESH,
    },
    "search.threats.vcf": {
        "search.threats.vcf": _RECURSION,
        "game.position.make_move": "one per attacker move (as at 54f820d, at full speed)",
        "game.position.unmake_move": "one per attacker move",
        "game.defences._caro_five_defences": _CARO,
    },
}

_PACKAGE = "gomoku_engine"


def _demangle(symbol: str) -> str:
    """numba's Itanium-style symbol (``_ZN13gomoku_engine4game8position9make_move...``) to
    its dotted name (``gomoku_engine.game.position.make_move``)."""
    i, parts = 3, []
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts)


def calls_in_ir(ir: str, kernel: str) -> set[str]:
    """The package's functions called (a ``call`` instruction) from the bodies of
    ``kernel`` (a dotted name under the package, ``game.position.make_move``) in the LLVM
    IR ``ir``, as dotted names under the package."""
    found: set[str] = set()
    qualified = f"{_PACKAGE}.{kernel}"
    for block in re.split(r"\n(?=define )", ir):
        if not block.startswith("define"):
            continue
        head = block.split("\n", 1)[0]
        name = re.search(r'@"?(_ZN[^"(\s]*)', head)
        if name is None or _demangle(name.group(1)) != qualified:
            continue
        for callee in re.findall(r'call [^@\n]*@"?(_ZN[^"(\s]*)', block):
            dotted = _demangle(callee)
            if dotted.startswith(_PACKAGE + "."):
                found.add(dotted[len(_PACKAGE) + 1:])
    return found


def _compile_hot_path() -> None:
    """Run every hot kernel once (a short search, the VCF) so numba compiles them."""
    engine_module = importlib.import_module(f"{_PACKAGE}.engine")
    engine = engine_module.Engine(15, hash_mb=1)
    for x, y in ((7, 7), (8, 8), (8, 7), (6, 7), (9, 9), (7, 9), (7, 8)):
        engine.board.play(x, y)
    engine.search(engine_module.Limits(depth=3))
    engine.solve("vcf", time_ms=None)


def hot_path_calls() -> dict[str, set[str]]:
    """Compile the hot kernels and return, per kernel of :data:`HOT_PATH`, the package's
    functions its compiled code calls.

    :raises RuntimeError: if numba serves the kernels from its cache (no IR to read): set
        ``NUMBA_CACHE_DIR`` to an empty folder first, as :func:`main` does.
    """
    _compile_hot_path()
    calls: dict[str, set[str]] = {}
    for kernel in HOT_PATH:
        module_name, _, name = kernel.rpartition(".")
        dispatcher = getattr(importlib.import_module(f"{_PACKAGE}.{module_name}"), name)
        if not dispatcher.signatures:
            raise RuntimeError(f"{kernel} was not compiled by the search")
        calls[kernel] = set()
        for signature in dispatcher.signatures:
            ir = dispatcher.inspect_llvm(signature)
            if "define" not in ir:
                raise RuntimeError("the kernels came from numba's cache: run with an empty "
                                   "NUMBA_CACHE_DIR")
            calls[kernel] |= calls_in_ir(ir, kernel)
    return calls


def violations(calls: dict[str, set[str]]) -> dict[str, set[str]]:
    """Per hot kernel, the calls :data:`HOT_PATH` does not allow (empty: all inlined)."""
    return {kernel: found - set(HOT_PATH[kernel]) for kernel, found in calls.items()
            if found - set(HOT_PATH[kernel])}


def main() -> int:
    """Print each hot kernel's calls and the lost inlinings; exit status 1 if any.

    Re-runs itself with an empty ``NUMBA_CACHE_DIR`` unless one is set."""
    if "GOMOKU_INLINING_CHILD" not in os.environ:
        with tempfile.TemporaryDirectory(prefix="gomoku-inlining-") as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, GOMOKU_INLINING_CHILD="1")
            # as a module where it was run as one, else as the script it is (another
            # checkout's package on PYTHONPATH, which may not have this module)
            spec = globals().get("__spec__")
            command = ([sys.executable, "-m", spec.name] if spec is not None
                       else [sys.executable, os.path.abspath(__file__)])
            return subprocess.call(command, env=env)
    calls = hot_path_calls()
    lost = violations(calls)
    for kernel, found in calls.items():
        print(f"{kernel}: calls {', '.join(sorted(found)) or 'nothing'}")
    for kernel, extra in lost.items():
        print(f"LOST INLINING in {kernel}: {', '.join(sorted(extra))}")
    print("hot path inlined" if not lost else "hot path NOT inlined")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
