"""The time control of refereed games, and the start-up allowance every caller shares.

A light module (no numba, no board) so that the command line can read the defaults
without loading the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Extra time (ms) for each engine's first reply of a game: the process's start and the
#: loading of its compiled kernels, neither a forfeit nor charged to the game clock.  This
#: engine answers its first move within about 1 s of its start once ``gomoku-engine
#: warmup`` has filled the kernel cache (docs/startup.md); 15 s leaves room for slower
#: engines and a loaded machine.  A cold kernel cache (1-2 min of compiling) is not
#: covered: warm up first, or raise ``--startup-ms``.
STARTUP_MS = 15_000


@dataclass(frozen=True)
class Clock:
    """Time control of every game (all in ms)."""

    turn_ms: int = 1000  #: per move (``INFO timeout_turn``); 0: none (needs ``match_ms``)
    match_ms: int = 0  #: per engine and game (``INFO timeout_match``); 0: none
    increment_ms: int = 0  #: added to an engine's game clock after each of its moves
    tolerance_ms: int = 1000  #: lateness accepted before a time forfeit
    startup_ms: int = STARTUP_MS  #: extra time for an engine's first reply of a game


__all__ = ["STARTUP_MS", "Clock"]
