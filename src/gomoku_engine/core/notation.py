"""Move notation: protocol pairs ``x,y`` and position strings like ``h8i9j10``.

In a position string a letter gives the column ``x`` (``a`` = 0) and the number the row
``y`` + 1, black first, as in the ``.pos`` opening files of ``gomoku-engine match`` and
the Gomocup submission checks (``docs/protocol.md`` section 7.1).  Both forms use the
protocol's orientation.
"""

from __future__ import annotations

import re

from .constants import MATE, mate_in
from .errors import InvalidMoveError

Point = tuple[int, int]

_LETTER_NUMBER = re.compile(r"([a-zA-Z])(\d{1,2})")
#: at most nine digits a number: a longer one is off every board, and Python's int() refuses
#: more than 4,300 digits (a ValueError where an InvalidMoveError is due)
_PAIR = re.compile(r"\s*(-?\d{1,9})\s*,\s*(-?\d{1,9})\s*")


def parse_pair(text: str) -> Point:
    """Parse a protocol coordinate ``"x,y"`` (spaces around the numbers are tolerated).

    :raises InvalidMoveError: if the text is not two comma-separated integers.
    """
    match = _PAIR.fullmatch(text)
    if not match:
        raise InvalidMoveError(f"bad coordinates {text.strip()[:40]!r}: expected x,y")
    return int(match.group(1)), int(match.group(2))


def format_pair(point: Point) -> str:
    """The protocol form ``x,y`` of a point."""
    return f"{point[0]},{point[1]}"


def parse_moves(text: str) -> list[Point]:
    """Parse a move sequence: ``"h8i9j10"`` or ``"7,7 8,8 9,9"`` (``;`` also separates pairs).

    :raises InvalidMoveError: on anything else.
    """
    text = text.strip()
    if not text:
        return []
    if "," in text:
        parts = [p for p in re.split(r"[;\s]+", text) if p]
        return [parse_pair(p) for p in parts]
    moves: list[Point] = []
    pos = 0
    for match in _LETTER_NUMBER.finditer(text):
        if match.start() != pos:
            break
        moves.append((ord(match.group(1).lower()) - ord("a"), int(match.group(2)) - 1))
        pos = match.end()
    if pos != len(text):
        raise InvalidMoveError(f"bad move string {text!r}: expected letter+number moves like h8i9")
    return moves


def format_point(point: Point) -> str:
    """Letter-number form of a point (``(7, 7)`` -> ``"h8"``)."""
    return f"{chr(ord('a') + point[0])}{point[1] + 1}"


_SCORE_TEXT = re.compile(r"(-?\d+)|(win|loss) in (\d+)")


def format_score(score: int) -> str:
    """A search score as text: centi-values, or ``win in N`` / ``loss in N`` (plies to
    the five, :func:`gomoku_engine.core.constants.mate_in`); :func:`parse_score` reads it."""
    mate = mate_in(score)
    if mate is None:
        return str(score)
    return f"win in {mate}" if mate > 0 else f"loss in {-mate}"


def parse_score(text: str) -> int:
    """The score written by :func:`format_score` (``"-163"``, ``"win in 5"``).

    :raises ValueError: on any other text.
    """
    match = _SCORE_TEXT.fullmatch(text.strip())
    if not match:
        raise ValueError(f"bad score {text.strip()!r}: expected a number or win/loss in N")
    if match.group(1) is not None:
        return int(match.group(1))
    plies = int(match.group(3))
    return MATE - plies if match.group(2) == "win" else -(MATE - plies)
