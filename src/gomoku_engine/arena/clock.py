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
#: engines and a loaded machine.  With 0 the first move has the turn like any other (a cold
#: cache then gets the kernel-free moves until its kernels are compiled: docs/startup.md).
STARTUP_MS = 15_000
#: Time (ms) for the answer to ``START``, besides the start-up allowance: c-gomoku-cli's
#: default tolerance (docs/protocol.md section 7), so that a match
#: with ``--startup-ms 0`` still lets an engine start.
START_REPLY_MS = 3_000


@dataclass(frozen=True)
class Clock:
    """Time control of every game (all in ms)."""

    turn_ms: int = 1000  #: per move (``INFO timeout_turn``); 0: none (needs ``match_ms``)
    match_ms: int = 0  #: per engine and game (``INFO timeout_match``); 0: none
    increment_ms: int = 0  #: added to an engine's game clock after each of its moves
    tolerance_ms: int = 1000  #: lateness accepted before a time forfeit
    startup_ms: int = STARTUP_MS  #: extra time for an engine's first reply of a game


__all__ = ["START_REPLY_MS", "STARTUP_MS", "Clock"]
