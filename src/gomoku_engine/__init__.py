"""Gomoku and Renju engine: a numba alpha-beta core behind the Gomocup protocol.

The public API, importable from here (the README's "From Python" shows it in use)::

    from gomoku_engine import Engine, Limits, Rule, warmup

Each name is imported on first use (PEP 562 ``__getattr__``), so that importing the
package, as the protocol's entry point does first, loads neither numba's kernels nor
click, the web server or the tournament tooling.  The layers behind it are
subpackages: ``core`` (board primitives), ``eval`` (the evaluation), ``game`` (the
position and :class:`Board`), ``search``, ``protocol``, and the engine's users
``arena``, ``training``, ``play`` and ``lessons`` (docs/development.md).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "Board": "gomoku_engine.game.board",
    "Engine": "gomoku_engine.engine",
    "Limits": "gomoku_engine.search.limits",
    "SearchInfo": "gomoku_engine.search.limits",
    "SearchResult": "gomoku_engine.search.limits",
    "SolveResult": "gomoku_engine.search.limits",
    "warmup": "gomoku_engine.kernels",
    "Rule": "gomoku_engine.core.constants",
    "GomokuError": "gomoku_engine.core.errors",
    "InvalidMoveError": "gomoku_engine.core.errors",
    "IllegalMoveError": "gomoku_engine.core.errors",
}

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ imports lazily
    from .core.constants import Rule
    from .core.errors import GomokuError, IllegalMoveError, InvalidMoveError
    from .engine import Engine
    from .game.board import Board
    from .search.limits import Limits, SearchInfo, SearchResult, SolveResult
    from .kernels import warmup


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first read (PEP 562).

    :raises AttributeError: for a name that is not part of the public API.
    """
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gomoku_engine' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later reads skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
