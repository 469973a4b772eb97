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
maximum; the maximum is also at most :data:`MAX_PER_OPTIMUM` optimums (the most the
search stretches its soft budget), so that an iteration started near the end of the soft
budget cannot run on to the time left over 7 moves (4.2 s of a 30 s clock on the first
move, where Rapfi planned 1.4 s: c-gomoku-cli, tc=30/5, at 54f820d); and a *reserve*
(:meth:`TimeControl.reserve`: a tenth of the match time, 1.5 to 5 s) is never planned
for, so that a move that stalls a second past its budget still leaves time on the clock
(with only the 500 ms margin kept back, games against Rapfi at 30 s a game ended with
0.75 s left, at 54f820d).
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
#: The match clock's reserve (never planned for) as a share of the match time, its least
#: value (ms: a move that overruns its budget by a second, a stall of the machine or a slow
#: reply, still leaves half a second) and its largest (ms: five such stalls).
RESERVE_SHARE = 0.1
RESERVE_MIN_MS = 1500.0
RESERVE_MAX_MS = 5000.0
#: The hard budget with a match clock is at most this many optimums: the default of the
#: search's ``time_factor_max`` (:mod:`gomoku_engine.search.params`), the most it stretches
#: its soft budget before it starts no iteration.
MAX_PER_OPTIMUM = 2.0


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
        clock, never more than the time left less its :meth:`reserve` (unless that is
        below :data:`MIN_HARD_MS`: a move must be made).

        :param moves_played: stones on the board (to estimate the moves still to come).
        """
        if self.turn_ms <= 0:  # "as fast as possible", match clock or not
            return FAST_SOFT_MS, FAST_MOVE_MS
        turn_hard = self.turn_ms - self.margin(self.turn_ms)
        soft, hard = turn_hard * TURN_SOFT_SHARE, turn_hard
        if self.match_limited():
            usable = max(0.0, self.left_ms - self.reserve())
            if self.turn_ms * MOVE_HORIZON > usable:  # not ample: spread the clock
                increment = self.increment_ms
                optimum = usable / moves_to_go(moves_played) + increment
                maximum = min(hard, usable / MATCH_SPACE_MIN + increment,
                              MAX_PER_OPTIMUM * optimum, max(usable, MIN_HARD_MS))
                hard = maximum
                soft = min(optimum, maximum * SOFT_SHARE)
        hard = max(hard, MIN_HARD_MS)
        return max(1.0, min(soft, hard)), hard

    def reserve(self) -> float:
        """The part of the match clock no move plans for (ms): :data:`RESERVE_SHARE` of
        ``timeout_match`` between :data:`RESERVE_MIN_MS` and :data:`RESERVE_MAX_MS`, at
        most half the match time."""
        share = min(RESERVE_MAX_MS, max(RESERVE_MIN_MS, RESERVE_SHARE * self.match_ms))
        return min(0.5 * self.match_ms, share)

    @staticmethod
    def margin(limit_ms: float) -> float:
        """Safety margin kept back from a limit: 10% + 30 ms, at most 500 ms.

        Measured: with two games on two cores, a reply took up to ~50 ms longer than the
        engine's own clock said (scheduling and pipe latency), hence the fixed part.
        """
        return min(500.0, 0.1 * limit_ms + 30.0)
