"""numba set-up shared by every kernel module.

* :data:`njit` is ``numba.njit(cache=True, nogil=True)``: compiled code is cached on disk
  (paid once by ``gomoku-engine warmup``) and releases the GIL so the protocol's reader
  thread keeps running while a search thinks (``../shared/protocol.md`` section 9.4).
* numba's cache does not notice when a kernel's *callee* in another file changes (numba
  docs, "developer/caching").  :func:`_drop_stale_cache` therefore keys the whole cache on a
  hash of every source file of the package and clears it when any file changed.
* :func:`atomic_load` reads a stop flag with an atomic (monotonic) load; a plain load in a
  tight loop can be hoisted by LLVM and never see the flag change (protocol notes 9.4).
* :func:`monotonic_ns` reads the monotonic clock from inside a kernel (``clock_gettime``,
  which numba does not offer: numba issue #4003), so the search keeps its own deadline
  even when the machine is so loaded that a timer thread wakes late.  On Windows it
  returns 0 and the timer thread alone stops the search.
* :func:`unmanaged` hands a named tuple of arrays to kernels without numba's atomic
  reference counting (the entry points called from Python use it; see its docstring).
* :func:`cached_arrays` keeps a table built in plain Python (a tuple of arrays) in memory
  and beside numba's cache, so a process loads it instead of building it again.
"""

from __future__ import annotations

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


def _source_files() -> list[Path]:
    """Every Python source of the package, subpackages included, in a fixed order."""
    return sorted(_PACKAGE_DIR.rglob("*.py"))


def _source_hash() -> str:
    digest = hashlib.sha256()
    for path in _source_files():
        digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_dirs() -> list[Path]:
    """Every ``__pycache__`` folder of the package (numba's cache files and ours)."""
    return sorted(p for p in _PACKAGE_DIR.rglob("__pycache__") if p.is_dir())


def _drop_stale_cache() -> None:
    """Delete numba's cache files, in every folder of the package, when any source file
    of the package (subpackages included) has changed."""
    try:
        current = _source_hash()
        if _STAMP.exists() and _STAMP.read_text().strip() == current:
            return
        _CACHE_DIR.mkdir(exist_ok=True)
        for folder in _cache_dirs():
            for path in folder.iterdir():
                if path.suffix in _CACHE_SUFFIXES:
                    path.unlink(missing_ok=True)
        tmp = _STAMP.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(current)
        tmp.replace(_STAMP)
    except OSError:
        # A read-only install still works: numba then compiles in memory.
        pass


_drop_stale_cache()


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
