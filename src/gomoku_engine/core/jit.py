"""numba set-up shared by every kernel module.

* :data:`njit` is ``numba.njit(cache=True, nogil=True)``: compiled code is cached on disk
  (paid once by ``gomoku-engine warmup``) and releases the GIL so the protocol's reader
  thread keeps running while a search thinks (``docs/protocol.md`` section 1).
* numba's cache does not notice when a kernel's *callee* in another file changes (numba
  docs, "developer/caching").  :func:`_drop_stale_cache` therefore keys the whole cache on a
  hash of the sources the kernels are made of (:func:`kernel_sources`: the modules that
  define jitted code or cached tables and every module of the package they import) and
  clears it when one of them changed; editing the CLI, the protocol loop or a document
  recompiles nothing.
* :func:`atomic_load` reads a stop flag with an atomic (monotonic) load; a plain load in a
  tight loop can be hoisted by LLVM and never see the flag change.
* :func:`monotonic_ns` reads the monotonic clock from inside a kernel (``clock_gettime``,
  which numba does not offer: numba issue #4003), so the search keeps its own deadline
  even when the machine is so loaded that a timer thread wakes late.  On Windows it
  returns 0 and the timer thread alone stops the search.
* :func:`unmanaged` hands a named tuple of arrays to kernels without numba's atomic
  reference counting (the entry points called from Python use it; see its docstring).
* :func:`cached_arrays` keeps a table built in plain Python (a tuple of arrays) in memory
  and beside numba's cache, so a process loads it instead of building it again.
* :func:`skip_blas_probe`: the first kernel a process loads imports numba's numpy
  support, whose ``numba.np.arraymath`` probes for scipy's BLAS by importing
  ``scipy.linalg`` (scipy is installed beside the engine by its extras); a process that
  only loads cached kernels skips that probe.
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
import warnings
from collections.abc import Callable
from functools import partial, wraps
from pathlib import Path
from typing import TypeVar

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import NumbaWarning
from numba.extending import intrinsic

# numba warnings would reach stderr, which some managers read as protocol lines.
warnings.simplefilter("ignore", category=NumbaWarning)

#: the package's root folder (``gomoku_engine/``): kernels live in several subpackages
_PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: numba writes each module's cache into the ``__pycache__`` beside it; the stamp and the
#: derived arrays of :func:`cache_path` live in the package root's
_CACHE_DIR = _PACKAGE_DIR / "__pycache__"
_STAMP = _CACHE_DIR / "numba-source-hash.txt"
#: numba's index and code files, our derived arrays, and the stamps of compiled kernel
#: groups (:func:`gomoku_engine.kernels.is_compiled`)
_CACHE_SUFFIXES = (".nbi", ".nbc", ".npy", ".npz", ".stamp")


#: names whose use (as a decorator or a call) makes a module a kernel module: it defines
#: compiled code, or a table cached beside it (:func:`cached_arrays`)
_KERNEL_MAKERS = frozenset({"njit", "jit", "intrinsic", "overload", "cached_arrays"})


def _module_name(path: Path, package_dir: Path) -> tuple[str, ...]:
    """``search/alphabeta.py`` -> ``("search", "alphabeta")``; a package's ``__init__.py``
    is the package itself (``()`` for the root)."""
    parts = path.relative_to(package_dir).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _makes_kernels(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        target = node.func if isinstance(node, ast.Call) else node
        name = (target.id if isinstance(target, ast.Name)
                else target.attr if isinstance(target, ast.Attribute) else None)
        if (isinstance(target, ast.Attribute) and name in ("jit", "njit")
                and not (isinstance(target.value, ast.Name) and target.value.id == "numba")):
            continue  # another library's jit (JAX's ``jax.jit`` in training): no kernel
        if name in _KERNEL_MAKERS and isinstance(node, (ast.Call, ast.Name, ast.Attribute)):
            return True
    return False


def _imported(tree: ast.AST, module: tuple[str, ...], is_package: bool,
              root: str) -> set[tuple[str, ...]]:
    """The package's modules ``module`` imports (names relative to the package root), with
    each ``from X import a`` also naming ``X.a`` in case ``a`` is a submodule."""
    found: set[tuple[str, ...]] = set()
    here = module if is_package else module[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
                if node.level - 1 > len(here):
                    continue
                base = base + tuple(node.module.split(".")) if node.module else base
            elif node.module and node.module.split(".")[0] == root:
                base = tuple(node.module.split(".")[1:])
            else:
                continue
            found.add(base)
            found.update(base + (alias.name,) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == root:
                    found.add(tuple(parts[1:]))
    return found


def kernel_sources(package_dir: Path = _PACKAGE_DIR) -> list[Path]:
    """The source files the compiled kernels are made of, in a fixed order: every module
    of the package that defines jitted code or a cached table (it uses ``njit``,
    ``intrinsic``, ``cached_arrays``...), and every module of the package such a module
    imports, transitively (the constants and callees numba compiles in).  A module only
    imported *by* them (the CLI, the protocol loop, the driver) is not one of them."""
    texts = {_module_name(path, package_dir): (path, path.read_bytes())
             for path in package_dir.rglob("*.py")}
    trees: dict[tuple[str, ...], ast.AST | None] = {}

    def tree(name: tuple[str, ...]) -> ast.AST | None:
        # parsed only when needed: parsing all of the package cost 0.4 s at every start
        if name not in trees:
            try:
                trees[name] = ast.parse(texts[name][1])
            except SyntaxError:
                trees[name] = None  # it cannot hold a kernel; importing it fails anyway
        return trees[name]

    root = package_dir.name
    todo = [name for name, (_, text) in texts.items()
            if any(word.encode() in text for word in _KERNEL_MAKERS)
            and _makes_kernels(tree(name) or ast.Module(body=[], type_ignores=[]))]
    seen = set(todo)
    while todo:
        name = todo.pop()
        parsed = tree(name)
        if parsed is None:
            continue
        for other in _imported(parsed, name, texts[name][0].name == "__init__.py", root):
            if other in texts and other not in seen:
                seen.add(other)
                todo.append(other)
    return sorted(texts[name][0] for name in seen)


def kernel_source_hash(package_dir: Path = _PACKAGE_DIR) -> str:
    """SHA-256 of the :func:`kernel_sources` (names and contents): the key of the cache."""
    digest = hashlib.sha256()
    for path in kernel_sources(package_dir):
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_dirs() -> list[Path]:
    """Every ``__pycache__`` folder of the package (numba's cache files and ours)."""
    return sorted(p for p in _PACKAGE_DIR.rglob("__pycache__") if p.is_dir())


def _files_signature(package_dir: Path = _PACKAGE_DIR) -> str:
    """A digest of every source file's name, size and modification time: when it is the
    one the stamp recorded, no source changed and the kernels' sources need not be read
    (finding them costs about 0.1 s, at every start of the engine)."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package_dir).as_posix()} {stat.st_size} "
                      f"{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _drop_stale_cache() -> None:
    """Delete numba's cache files, in every folder of the package, when a source the
    kernels are made of (:func:`kernel_sources`) has changed.  The stamp holds the
    kernels' source hash and the files' signature (:func:`_files_signature`)."""
    try:
        files = _files_signature()
        recorded = _STAMP.read_text().split() if _STAMP.exists() else []
        if len(recorded) == 2 and recorded[1] == files:
            return
        current = kernel_source_hash()
        if not recorded or recorded[0] != current:
            _CACHE_DIR.mkdir(exist_ok=True)
            for folder in _cache_dirs():
                for path in folder.iterdir():
                    if path.suffix in _CACHE_SUFFIXES:
                        path.unlink(missing_ok=True)
        tmp = _STAMP.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(f"{current}\n{files}\n")
        tmp.replace(_STAMP)
    except OSError:
        # A read-only install still works: numba then compiles in memory.
        pass


_drop_stale_cache()


def skip_blas_probe() -> bool:
    """Import ``numba.np.arraymath`` without its probe for scipy's BLAS: the probe imports
    ``scipy.linalg`` (0.2-0.4 s at the first kernel load when scipy is installed, under
    cProfile on the 2-core development machine, 2026-12-03) and only decides how a
    *compile* of ``np.dot`` and its kin is lowered (without BLAS: numba's own loop;
    ``numba/np/arraymath.py``, ``_HAVE_BLAS``).  No kernel of this package calls them, and
    code loaded from the cache is not lowered again, so a process that loads cached
    kernels (the protocol loop's, :func:`gomoku_engine.kernels.warmup` of compiled
    groups) calls this before its first load; a compiling process does not.

    :returns: whether the probe was skipped (False: numba's numpy support was already
        imported, with or without it).
    """
    if "numba.np.arraymath" in sys.modules:
        return False
    probe = "scipy.linalg.cython_blas"
    blocked = probe not in sys.modules
    if blocked:
        sys.modules[probe] = None  # type: ignore[assignment]  # "import" now fails at once
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if blocked and sys.modules.get(probe, 0) is None:
            del sys.modules[probe]  # scipy stays importable for anyone who asks later
    return blocked


def cache_path(name: str) -> Path:
    """Where to keep a derived array (e.g. a pattern table) next to numba's cache files.

    Cleared together with them when the sources change.
    """
    return _CACHE_DIR / name


njit = partial(numba.njit, cache=True, nogil=True)

_Tables = TypeVar("_Tables", bound=tuple)


def cached_arrays(name: str) -> Callable[[Callable[[], _Tables]], Callable[[], _Tables]]:
    """Decorator for a function without arguments that builds a tuple of numpy arrays.

    The first call in a process reads the arrays from ``<name>.npz`` beside numba's cache
    (cleared with it when any source file changes), or builds and saves them; every call
    returns the same arrays, read-only (also when read back: numba types a read-only array
    apart from a writable one).  A read-only install builds them once in every process.
    """
    def decorate(build: Callable[[], _Tables]) -> Callable[[], _Tables]:
        kept: list[_Tables] = []

        @wraps(build)
        def cached() -> _Tables:
            if not kept:
                path = cache_path(f"{name}.npz")
                try:
                    with np.load(path) as data:
                        arrays = tuple(data[f"arr_{i}"] for i in range(len(data.files)))
                except Exception:  # noqa: BLE001 - missing, or unreadable (a torn write)
                    arrays = build()
                    try:
                        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
                        np.savez(tmp, *arrays)
                        tmp.replace(path)
                    except OSError:
                        pass
                for array in arrays:
                    array.flags.writeable = False
                kept.append(arrays)  # type: ignore[arg-type]
            return kept[0]

        return cached

    return decorate


@intrinsic
def atomic_load(typingctx, flags):  # type: ignore[no-untyped-def]
    """Atomically load ``flags[0]`` of a C-contiguous ``int64`` array (monotonic ordering)."""
    sig = types.int64(flags)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.load_atomic(array.data, ordering="monotonic", align=8)

    return sig, codegen


# clock id of CLOCK_MONOTONIC; None where there is no clock_gettime to call.
_CLOCK_MONOTONIC = {"linux": 1, "darwin": 6}.get(sys.platform)


@intrinsic
def monotonic_ns(typingctx):  # type: ignore[no-untyped-def]
    """Nanoseconds of the monotonic clock (an arbitrary origin), or 0 if unavailable."""
    sig = types.int64()

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i64, i32 = ir.IntType(64), ir.IntType(32)
        if _CLOCK_MONOTONIC is None:
            return ir.Constant(i64, 0)
        timespec = ir.LiteralStructType([i64, i64])  # tv_sec, tv_nsec (64-bit platforms)
        clock_gettime = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]), "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(clock_gettime, [ir.Constant(i32, _CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return sig, codegen


@intrinsic
def unmanaged(typingctx, bundle):  # type: ignore[no-untyped-def]
    """The same named tuple of arrays, with arrays numba does not reference-count.

    numba passes every array of a named tuple to each kernel it calls, and counts the
    references with atomic (``lock``-prefixed) increments and decrements of the array's
    memory-info block.  With ``Position``, ``Tables`` and ``ThreatState`` (45 arrays) that
    was 37% of the VCT solver's time (``perf``: all of it in ``NRT_incref``/``NRT_decref``).
    An array whose memory-info pointer is NULL skips them (those functions return at once
    on NULL).  Safe only while something else keeps the arrays alive for the whole call:
    the jitted entry points called from Python use it (the Python caller holds the
    arrays), never a kernel on arrays it creates or returns.
    """
    if not (isinstance(bundle, types.BaseNamedTuple)
            and all(isinstance(t, types.Array) for t in bundle.types)):
        return None
    sig = bundle(bundle)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        value = args[0]
        for i, array_type in enumerate(signature.args[0].types):
            array = context.make_array(array_type)(context, builder,
                                                   builder.extract_value(value, i))
            array.meminfo = cgutils.get_null_value(array.meminfo.type)
            array.parent = cgutils.get_null_value(array.parent.type)
            value = builder.insert_value(value, array._getvalue(), i)
        return value

    return sig, codegen
