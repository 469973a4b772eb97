"""Shared constants: cell codes, rules, line patterns, threat classes and score bounds.

Every module of the engine agrees on these integers; the jitted kernels receive them as
plain ints (numba freezes module globals into compiled code, which is what we want for
constants that never change).
"""

from __future__ import annotations

from enum import IntEnum

# --- Cell codes of the flat int8 board -------------------------------------------------
EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

# Width of the wall border around the playing area. Five cells on every side let a line
# scan or a line-key update step five cells from any on-board point without a bounds check.
PAD = 5

# Board sizes the engine accepts (square START n, or RECTSTART w,h per side).
MIN_SIZE = 5
MAX_SIZE = 32


class Rule(IntEnum):
    """Win conditions, numbered by their ``INFO rule`` code.

    Source: Gomocup protocol, ``INFO rule`` bitmask (1 exactly five, 4 renju, 8 caro) and
    the referees' win checks; see ``docs/protocol.md`` section 4.1.
    """

    FREESTYLE = 0  #: five or more in a row wins
    STANDARD = 1  #: exactly five wins; an overline (six or more) does not
    RENJU = 4  #: black: exactly five, no double three, double four or overline (fouls)
    CARO = 8  #: five or more wins unless the opponent blocks both ends
    CARO_STANDARD = 9  #: exactly five, not blocked at both ends

    def exact_five(self, colour: int) -> bool:
        """True if an overline of ``colour`` (1 black, 2 white) is no five."""
        if self is Rule.RENJU:
            return colour == BLACK
        return self in (Rule.STANDARD, Rule.CARO_STANDARD)

    @property
    def caro(self) -> bool:
        """A five blocked by the opponent at both ends does not win."""
        return self in (Rule.CARO, Rule.CARO_STANDARD)


#: The rules by the names the Gomocup uses, offered to a person (``play``, ``web``); the
#: command line adds ``caro5`` (:data:`gomoku_engine.cli.RULES`).
RULE_NAMES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU,
              "caro": Rule.CARO}
#: The rules by the command line's names (``--rule``, and ``summary.json``'s ``rule``):
#: :data:`RULE_NAMES`, with caro as Gomocup runs it (rule 8, overlines count), and caro5
#: for Piskvork's "standard caro" (rule 9, exactly five)
COMMAND_RULES = {**RULE_NAMES, "caro5": Rule.CARO_STANDARD}


# --- Line patterns -----------------------------------------------------------------------
# What a stone placed on an empty point makes along ONE line (one of four directions),
# judged on the eleven cells centred on the point.  Ordered by strength.  The names are the
# field's standard terms; "open three" covers both the straight (_XXX_) and the broken
# (_X_XX_) three, because both become an open four in one move.  Rapfi's codes in brackets.
DEAD = 0  #: no five can ever pass through the point on this line
ONE = 1  #: a five is still possible, nothing more [B1/F1]
TWO = 2  #: one move from a three [B2]
OPEN_TWO = 3  #: one move from an open three [F2]
THREE = 4  #: one move from a four (a closed three) [B3]
OPEN_THREE = 5  #: one move from an open four (straight or broken three) [F3]
FOUR = 6  #: one move from a five, with exactly one five point (a closed four) [B4]
OPEN_FOUR = 7  #: two or more five points on the line (renju black: a straight four) [F4]
FIVE = 8  #: a winning line under the rule [F5]
OVERLINE = 9  #: six or more in a row where the rule wants exactly five [OL]
#: renju, black only: two five points on the line that are not the two ends of one straight
#: four (x_xxx_x, xx_xx_xx, xxx_x_xxx), i.e. a double four in one line, a foul.
DOUBLE_FOUR = 10
N_PATTERNS = 11

PATTERN_NAMES = (
    "dead", "one", "two", "open two", "three", "open three",
    "four", "open four", "five", "overline", "double four",
)

# --- Threat classes of a point (the four line patterns combined) -----------------------
# What one move on the point threatens for one colour; this drives forced replies, move
# ordering and the pruning of replies to a threat.  Rapfi's Pattern4 in brackets.
T_NONE = 0
T_THREE = 1  #: makes a closed three somewhere
T_OPEN_THREE = 2  #: makes one open three [H_FLEX3]
T_DOUBLE_THREE = 3  #: makes two open threes [F_FLEX3_2X]
T_FOUR = 4  #: makes a closed four [E_BLOCK4]
T_FOUR_THREE = 5  #: makes a four and an open three [C_BLOCK4_FLEX3]
T_OPEN_FOUR = 6  #: makes an open four or a double four: wins by force [B_FLEX4]
T_FIVE = 7  #: makes five: wins now [A_FIVE]
N_THREATS = 8

THREAT_NAMES = (
    "none", "three", "open three", "double three", "four", "four-three",
    "open four", "five",
)

# --- Scores ---------------------------------------------------------------------------------
# Scores are int32 centi-stones of "advantage" from the side to move's point of view.
# A won position scores MATE - plies-to-win; static evaluations are clamped well inside
# +-EVAL_LIMIT so they can never be mistaken for a mate (sunfish's MATE_LOWER/UPPER band).
MATE = 1_000_000
MAX_PLY = 128
MATE_BOUND = MATE - 2 * MAX_PLY  #: any |score| above this is a forced win or loss
EVAL_LIMIT = 500_000
INFINITY = MATE + 1


def mate_in(score: int) -> int | None:
    """Plies to a forced win (positive) or loss (negative) if ``score`` is a mate score."""
    if score > MATE_BOUND:
        return MATE - score
    if score < -MATE_BOUND:
        return -(MATE + score)
    return None
