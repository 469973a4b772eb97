"""Minimax and alpha-beta side by side on tic-tac-toe, as the course slides teach them.

MAX plays X and moves first, MIN plays O.  The static evaluation of a position ``p`` is
the slides' (Nilsson, "Principles of Artificial Intelligence", 1980, section 3.3)::

    f(p) = (rows, columns and diagonals still open for MAX)
         - (rows, columns and diagonals still open for MIN)

with ``+inf`` when MAX has three in a row and ``-inf`` when MIN has; a full board
without three is 0.  A line is open for a player when the other has no stone on it.
Both searches use the same move order (points 0..8, row by row) and count every position
they visit, the root included, so the difference in nodes is the pruning alone.

A board is two 9-bit masks (X's and O's stones); point ``i`` is ``(x, y) = (i % 3, i // 3)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

INF = 1_000  #: stands for infinity: above every value of f (at most 8)
LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100,
         0b100010001, 0b001010100)
FULL = 0b111111111


@lru_cache(maxsize=None)  # 5,478 positions can occur: a table, in effect
def evaluate(x: int, o: int) -> int:
    """f(p) for the position with X stones ``x`` and O stones ``o`` (9-bit masks)."""
    if any(x & line == line for line in LINES):
        return INF
    if any(o & line == line for line in LINES):
        return -INF
    return sum(1 for line in LINES if not o & line) - sum(1 for line in LINES if not x & line)


@lru_cache(maxsize=None)
def _terminal(x: int, o: int) -> int | None:
    """+INF, -INF or 0 for a game that is over, else None."""
    value = evaluate(x, o)
    if abs(value) == INF:
        return value
    if (x | o) == FULL:
        return 0
    return None


@dataclass
class Search:
    """The result of one search: value for MAX, the best move (point 0..8) and the
    positions visited."""

    value: int
    move: int | None
    nodes: int


def minimax(x: int, o: int, depth: int, max_to_move: bool = True) -> Search:
    """Plain minimax to ``depth`` plies (f at the horizon)."""
    return _search(x, o, depth, max_to_move, prune=False)


def alphabeta(x: int, o: int, depth: int, max_to_move: bool = True) -> Search:
    """Alpha-beta to ``depth`` plies (f at the horizon): the minimax value with the
    branches that cannot change it cut off (Knuth and Moore, "An analysis of alpha-beta
    pruning", 1975)."""
    return _search(x, o, depth, max_to_move, prune=True)


def _search(x: int, o: int, depth: int, max_to_move: bool, prune: bool) -> Search:
    """Minimax, cutting off with alpha-beta bounds when ``prune``: the same code either
    way, so the difference in nodes is the pruning alone."""
    nodes = 0

    def visit(x: int, o: int, depth: int, alpha: int, beta: int,
              max_to_move: bool) -> tuple[int, int | None]:
        nonlocal nodes
        nodes += 1
        over = _terminal(x, o)
        if over is not None:
            return over, None
        if depth == 0:
            return evaluate(x, o), None
        best, best_move = (-INF - 1, None) if max_to_move else (INF + 1, None)
        for i in range(9):
            bit = 1 << i
            if (x | o) & bit:
                continue
            if max_to_move:
                value, _ = visit(x | bit, o, depth - 1, alpha, beta, False)
                if value > best:
                    best, best_move = value, i
                alpha = max(alpha, value)
            else:
                value, _ = visit(x, o | bit, depth - 1, alpha, beta, True)
                if value < best:
                    best, best_move = value, i
                beta = min(beta, value)
            if prune and alpha >= beta:
                break  # the opponent will not allow this position: the rest is cut off
        return best, best_move

    value, move = visit(x, o, depth, -INF - 1, INF + 1, max_to_move)
    return Search(value, move, nodes)


def position(text: str) -> tuple[int, int, bool]:
    """Masks and side to move of a board written row by row, e.g. ``"....X...."``
    (``X``, ``O``, ``.``; blanks and ``/`` ignored).

    :raises ValueError: unless it has 9 points and a count of stones a game can reach.
    """
    cells = [c for c in text.upper() if c not in " /"]
    if len(cells) != 9 or any(c not in "XO." for c in cells):
        raise ValueError(f"{text!r}: expected 9 points of X, O or .")
    x = sum(1 << i for i, c in enumerate(cells) if c == "X")
    o = sum(1 << i for i, c in enumerate(cells) if c == "O")
    nx, no = bin(x).count("1"), bin(o).count("1")
    if nx - no not in (0, 1):
        raise ValueError(f"{text!r}: X moves first, so X has as many stones as O or one more")
    return x, o, nx == no


def show(x: int, o: int) -> str:
    """The board in three rows of ``X``, ``O`` and ``.``, joined by ``/``."""
    return "/".join("".join("X" if x >> (3 * r + c) & 1 else "O" if o >> (3 * r + c) & 1
                            else "." for c in range(3)) for r in range(3))


#: Positions of the slides' kind (Nilsson's three stages of a depth-2 game): the empty
#: board; X in the centre and O beside it; and a later position where X must see O's
#: threat.
LESSON_POSITIONS = (".../.../...", ".O./.X./...", "XO./.X./..O")
