"""Time management: from the manager's ``INFO`` time keys to a soft and a hard budget.

Semantics follow the Gomocup protocol (``docs/protocol.md`` section 5):

* ``timeout_turn`` is the per-move limit in ms; 0 means "play as fast as possible";
* ``timeout_match`` is the whole-game limit in ms; 0 means unlimited;
* ``time_left`` is the match time still available in ms, 2147483647 meaning unlimited
  (it may be negative when a manager lets an engine overrun);
* ``time_increment`` (Yixin-Board's key, sent by this project's match runner) is added to
  the match time after each move (Fischer), so each move's share of the match time grows
  by it; the cap of a quarter of the time left still holds.

The *hard* budget is when the search must stop (the move is then sent at once); the *soft*
budget is the time after which no new iteration starts, scaled by the search between 0.75x
(the best move has been stable) and 2x (it keeps changing, or the score falls), see
:meth:`gomoku_engine.engine.Engine.search`.  An iteration the hard budget interrupts still
gives its best completed root move, so the soft budget can start iterations late: at a
fixed turn time, moves take 60-90% of the turn.  A safety margin keeps Python and pipe
overheads out of the manager's tolerance, which the engine never plans to use.
"""

from __future__ import annotations

from dataclasses import dataclass

UNLIMITED = 2147483647
#: Budget for ``timeout_turn 0`` ("as fast as possible") when no match time applies, ms.
FAST_MOVE_MS = 150.0
#: Moves we expect still to play when spreading the match time (rapfi-like estimate).
MIN_MOVES_TO_GO = 16
#: the soft budget as a share of the hard one
SOFT_SHARE = 0.8


@dataclass
class TimeControl:
    """The manager's time settings, all in milliseconds (protocol defaults)."""

    turn_ms: int = 30_000  #: ``INFO timeout_turn``
    match_ms: int = 0  #: ``INFO timeout_match`` (0 = unlimited)
    left_ms: int = UNLIMITED  #: ``INFO time_left``
    increment_ms: int = 0  #: ``INFO time_increment``: added to the match time after each move

    def match_limited(self) -> bool:
        return 0 < self.match_ms < UNLIMITED and self.left_ms != UNLIMITED

    def new_game(self) -> None:
        """A new game: the whole match time is left (unlimited without ``timeout_match``)."""
        self.left_ms = self.match_ms if self.match_ms > 0 else UNLIMITED

    def set_match(self, match_ms: int) -> None:
        """``INFO timeout_match``: a match time sent before ``time_left`` is all left."""
        self.match_ms = max(0, match_ms)
        if self.left_ms == UNLIMITED and match_ms > 0:
            self.left_ms = match_ms

    def charge(self, used_ms: float) -> None:
        """After our move: ``used_ms`` off the time left and the increment on (Fischer);
        an unlimited time left stays unlimited."""
        if self.left_ms != UNLIMITED:
            self.left_ms += self.increment_ms - int(used_ms)

    def budget(self, moves_played: int) -> tuple[float, float]:
        """``(soft_ms, hard_ms)`` for the next move, counted from when the command arrived.

        :param moves_played: stones on the board (to estimate the moves still to come).
        """
        hard = float("inf")
        if self.turn_ms > 0:
            hard = self.turn_ms - self.margin(self.turn_ms)
        if self.match_limited():
            left = max(0, self.left_ms)
            to_go = max(MIN_MOVES_TO_GO, 50 - moves_played // 4)
            share = left / to_go + self.increment_ms
            hard = min(hard, left * 0.25 - self.margin(left), share * 3)
            # a move takes one to two soft budgets on average (see the module docstring)
            soft = min(hard * SOFT_SHARE, share * 0.6)
        elif self.turn_ms > 0:
            soft = hard * SOFT_SHARE
        else:  # timeout_turn 0 and no match limit: move at once
            hard = FAST_MOVE_MS
            soft = FAST_MOVE_MS / 2
        hard = max(hard, 5.0)
        return max(1.0, min(soft, hard)), hard

    @staticmethod
    def margin(limit_ms: float) -> float:
        """Safety margin kept back from a limit: 10% + 30 ms, at most 500 ms.

        Measured: with two games on two cores, a reply took up to ~50 ms longer than the
        engine's own clock said (scheduling and pipe latency), hence the fixed part.
        """
        return min(500.0, 0.1 * limit_ms + 30.0)
