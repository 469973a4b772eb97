"""Opening rules that restrict where black's first stone may go.

* ``none``: no restriction (the game's rule alone decides).
* ``lin``: Lin's open-gomoku rule (proposed by Prof. Shun-Shii Lin in 2011, presented at
  TAAI 2012; the rule under which Wang and Huang's genetic-algorithm paper plays): black's
  *first* stone must lie on the two outermost rows or columns of the board, that is
  ``x`` or ``y`` in ``{0, 1, size-2, size-1}`` (rows 1, 2, 14, 15 or columns A, B, N, O on
  15x15).  After that nothing is forbidden, and a full board without five is a draw.  It
  takes away black's first-move advantage without a swap.

The rule concerns black's first stone only; every later stone follows the game's rule.
The match referee (:mod:`gomoku_engine.arena.referee`) forfeits a black first stone that breaks
it, and the engine chooses its first stone within it under ``INFO opening lin``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .notation import Point, format_pair

#: Opening rules by name (``--opening-rule``, ``INFO opening``).
OPENING_RULES = ("none", "lin")
#: Lin's rule: how many outermost rows and columns black's first stone may use.
LIN_BORDER = 2


def _check_name(rule: str) -> None:
    if rule not in OPENING_RULES:
        raise ValueError(f"unknown opening rule {rule!r}: expected one of "
                         + ", ".join(OPENING_RULES))


def first_move_allowed(rule: str, x: int, y: int, width: int, height: int) -> bool:
    """May black's first stone go on ``(x, y)`` of a ``width`` x ``height`` board?

    :raises ValueError: for an unknown rule name.
    """
    _check_name(rule)
    if rule == "none":
        return True
    return (min(x, width - 1 - x) < LIN_BORDER) or (min(y, height - 1 - y) < LIN_BORDER)


def allowed_first_moves(rule: str, width: int, height: int) -> list[Point]:
    """Every point black's first stone may take, row by row (``(x, y)`` pairs).

    Lin's rule on 15x15 allows 104 of the 225 points.

    :raises ValueError: for an unknown rule name.
    """
    return [(x, y) for y in range(height) for x in range(width)
            if first_move_allowed(rule, x, y, width, height)]


def first_move_violation(rule: str, point: Point, width: int, height: int) -> str | None:
    """Why black's first stone on ``point`` breaks ``rule`` (a sentence), or None."""
    if first_move_allowed(rule, point[0], point[1], width, height):
        return None
    return (f"broke Lin's rule (first stone {format_pair(point)} is not on the "
            f"{LIN_BORDER} outermost rows or columns)")


def opening_violation(rule: str, opening: Sequence[Point], width: int,
                      height: int) -> str | None:
    """Why an opening (stones in move order, black first) breaks ``rule``, or None.

    Only its first stone is judged: the rule says nothing of later ones.
    """
    if not opening:
        return None
    return first_move_violation(rule, opening[0], width, height)


def board_symmetries(width: int, height: int) -> list[tuple[int, int, int]]:
    """The symmetries of a ``width`` x ``height`` board as ``(swap, flip_x, flip_y)``:
    reflect x and/or y, then (``swap``) exchange x and y; 8 on a square board, 4 else."""
    swaps = (0, 1) if width == height else (0,)
    return [(s, fx, fy) for s in swaps for fx in (0, 1) for fy in (0, 1)]


def _image(point: Point, symmetry: tuple[int, int, int], width: int, height: int) -> Point:
    swap, flip_x, flip_y = symmetry
    x, y = point
    x = width - 1 - x if flip_x else x
    y = height - 1 - y if flip_y else y
    return (y, x) if swap else (x, y)


def distinct_first_moves(rule: str, width: int, height: int) -> list[Point]:
    """The allowed first stones up to the board's symmetry (one point of each class),
    nearest the centre first: the candidates an engine must compare (15 under Lin's
    rule on 15x15).

    :raises ValueError: for an unknown rule name.
    """
    symmetries = board_symmetries(width, height)
    chosen = [p for p in allowed_first_moves(rule, width, height)
              if p == min(_image(p, s, width, height) for s in symmetries)]
    cx, cy = (width - 1) / 2, (height - 1) / 2
    return sorted(chosen, key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2, p[1], p[0]))
