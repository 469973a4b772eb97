"""Time management: from the manager's ``INFO`` time keys to a soft and a hard budget.

Semantics follow the Gomocup protocol (``docs/protocol.md`` section 5):

* ``timeout_turn`` is the per-move limit in ms; 0 means "play as fast as possible";
* ``timeout_match`` is the whole-game limit in ms; 0 means unlimited;
* ``time_left`` is the match time still available in ms, 2147483647 meaning unlimited
  (it may be negative when a manager lets an engine overrun);
* ``time_increment`` (Yixin-Board's key, sent by this project's match runner) is added to
  the match time after each move (Fischer).

The *hard* budget is when the search must stop (the move is then sent at once); the *soft*
budget is the time after which no new iteration starts, scaled by the search between the
tunables ``time_stable`` (0.85: the best move has been stable) and ``time_factor_max`` (2:
it keeps changing, or the score falls), see :func:`gomoku_engine.search.driver._time_factor`.
An iteration the hard budget interrupts still gives its best completed root move, so the
soft budget can start iterations late.

**A turn limit only** (no match clock, or an ample one, see below): hard is the turn less
:meth:`TimeControl.margin`, and soft the same (:data:`TURN_SOFT_SHARE`): time a move
leaves unused is lost to it, so iterations start until the search is stopped, as Rapfi
uses about 90% of such a turn.  Only a stable best move (the tunable ``time_stable``) or
a forced result ends a move sooner (docs/protocol.md section 5).

**A match clock** follows the model of Rapfi's time control (Rapfi 2022, file
``Rapfi/search/timecontrol.cpp``, constants from ``Rapfi/config.cpp``; GPL-3, only the
model and its numbers are taken): a *maximum* per move, the time left over a few moves
(Rapfi's ``MatchSpaceMin`` 7), capped by the turn limit, and an *optimum*, the time left
over the moves still expected (at most Rapfi's ``MatchSpace`` 22, see :func:`moves_to_go`),
capped at :data:`SOFT_SHARE` of the maximum (Rapfi's ``AdvancedStopRatio`` caps it at
0.9; 0.8 here, as with a turn limit only, since this search scales its soft budget by up
to 2 where Rapfi's factors mostly stay below 1.5).  The
match time is *ample* when the turn limit times :data:`MOVE_HORIZON` moves (Rapfi's 64)
fits in it: the turn limit alone then applies.  Rapfi scales its optimum by the best
move's changes and the score's fall when it checks for a stop; here the search does that
with the soft budget (the tunables ``time_*``, :mod:`gomoku_engine.search.params`).
Differences from Rapfi: the moves expected shrink as the game goes on (Rapfi counts the
empty points, which is 22 or more until the board is nearly full), so that a game of
usual length uses most of the clock; the increment is added to the optimum and to the
maximum; and the clock's own margin (:meth:`TimeControl.margin` of the time left, up to
500 ms) is never planned for, so that a game that takes the hard budget every move still
ends with time on its clock.
"""

from __future__ import annotations

from dataclasses import dataclass

UNLIMITED = 2147483647
#: Hard budget of ``timeout_turn 0`` ("play as fast as possible") without a match clock,
#: ms: the first iteration completes whatever the budget (well under a millisecond), and
#: the root threat search is cut at this time.
FAST_MOVE_MS = 20.0
#: Soft budget of ``timeout_turn 0``, ms: no second iteration starts after it.
FAST_SOFT_MS = 1.0
#: the soft budget as a share of the hard one with a match clock
SOFT_SHARE = 0.8
#: the soft budget as a share of the hard one with a turn limit only: all of it, since a
#: turn's unused time is not saved for later moves.  An iteration the hard budget stops
#: still gives its best completed root move.  Against Rapfi at 1000 ms a move, 0.8 had our
#: moves take a mean 534 ms of the 870 ms budget (c6240d4, docs/strength.md).
TURN_SOFT_SHARE = 1.0
#: Rapfi's ``MatchSpaceMin``: the hard budget is at most the time left over this many moves.
MATCH_SPACE_MIN = 7.0
#: Rapfi's ``MatchSpace``: the most moves the optimum spreads the time left over.
MATCH_SPACE = 22.0
#: The fewest moves the optimum spreads the time left over, however long the game has
#: lasted (a game that goes on keeps a 1/MOVES_TO_GO_MIN share of its clock a move).
MOVES_TO_GO_MIN = 12.0
#: Plies by which a game is expected to be over, for :func:`moves_to_go`: the games of
#: 15x15 freestyle in this project's matches (494 games against Rapfi and in self-play,
#: 2026-11-28: plies median 47, upper quartile 68, counting the opening's stones).
EXPECTED_PLIES = 60
#: Rapfi's ``MoveHorizon``: the match time is ample when the turn limit times this many
#: moves fits in it.
MOVE_HORIZON = 64
#: Smallest hard budget, ms (the first iteration completes anyway).
MIN_HARD_MS = 5.0


def moves_to_go(moves_played: int) -> float:
    """Our moves still expected in a game with ``moves_played`` stones on the board.

    Half the plies left to :data:`EXPECTED_PLIES`, between :data:`MOVES_TO_GO_MIN` and
    :data:`MATCH_SPACE`: 22 up to ply 16 (Rapfi's constant), then fewer, so that the clock
    is mostly spent by the time most games end, and never below 12 (from ply 36 on), so
    that a game that goes on still has time for its moves (the time left then shrinks by
    about a twelfth a move: a tenth of it is still there 27 moves later).
    """
    return min(MATCH_SPACE, max(MOVES_TO_GO_MIN, (EXPECTED_PLIES - moves_played) / 2))


@dataclass
class TimeControl:
    """The manager's time settings, all in milliseconds (protocol defaults)."""

    turn_ms: int = 30_000  #: ``INFO timeout_turn`` (0: as fast as possible)
    match_ms: int = 0  #: ``INFO timeout_match`` (0 = unlimited)
    left_ms: int = UNLIMITED  #: ``INFO time_left``
    increment_ms: int = 0  #: ``INFO time_increment``: added to the match time after each move

    def match_limited(self) -> bool:
        """Whether a match clock applies: ``timeout_match`` set and ``time_left`` known."""
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

        See the module docstring for the model.  ``0 < soft <= hard``; hard is at least
        :data:`MIN_HARD_MS`, never more than the turn less its margin and, with a match
        clock, never more than the time left less its margin (unless that is below
        :data:`MIN_HARD_MS`: a move must be made).

        :param moves_played: stones on the board (to estimate the moves still to come).
        """
        if self.turn_ms <= 0:  # "as fast as possible", match clock or not
            return FAST_SOFT_MS, FAST_MOVE_MS
        turn_hard = self.turn_ms - self.margin(self.turn_ms)
        soft, hard = turn_hard * TURN_SOFT_SHARE, turn_hard
        if self.match_limited():
            usable = max(0.0, self.left_ms - self.margin(self.match_ms))
            if self.turn_ms * MOVE_HORIZON > usable:  # not ample: spread the clock
                increment = self.increment_ms
                maximum = min(hard, usable / MATCH_SPACE_MIN + increment,
                              max(usable, MIN_HARD_MS))
                optimum = usable / moves_to_go(moves_played) + increment
                hard = maximum
                soft = min(optimum, maximum * SOFT_SHARE)
        hard = max(hard, MIN_HARD_MS)
        return max(1.0, min(soft, hard)), hard

    @staticmethod
    def margin(limit_ms: float) -> float:
        """Safety margin kept back from a limit: 10% + 30 ms, at most 500 ms.

        Measured: with two games on two cores, a reply took up to ~50 ms longer than the
        engine's own clock said (scheduling and pipe latency), hence the fixed part.
        """
        return min(500.0, 0.1 * limit_ms + 30.0)
