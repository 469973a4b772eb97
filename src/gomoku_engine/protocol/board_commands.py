"""The blocks of ``BOARD``, ``YXBOARD``, ``SWAP2BOARD`` and ``YXBLOCK``: reading them and
their stones or points.

A block is the command line, then one token per line up to ``DONE``
(docs/protocol.md sections 2 and 6.1): ``x,y,field`` stones for
``BOARD``/``YXBOARD`` (field 1 the side to move's, 2 the opponent's), ``x,y`` points in move
order for ``SWAP2BOARD``, ``x,y`` points the engine must not play for ``YXBLOCK``.  A known command before ``DONE`` cuts the block short: the position is left unchanged and that command runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..core.constants import BLACK, WHITE
from ..core.notation import Point, parse_pair
from .reader import Line

#: A stone to place: ``(x, y, colour)``.
Stone = tuple[int, int, int]


def read_block(first: str, next_line: Callable[[], Line | None], commands: Collection[str]
               ) -> tuple[list[str], Line | None]:
    """The tokens of a block up to ``DONE``, and the command line that cut it short.

    :param first: the text after the command word (tokens may follow it on its line).
    :param next_line: the next queued line (None at the end of input, which ends the
        block as ``DONE`` does).
    :param commands: the known command words (upper case).
    """
    tokens: list[str] = []
    text = first
    while True:
        for token in text.split():
            if token.upper() == "DONE":
                return tokens, None
            tokens.append(token)
        nxt = next_line()
        if nxt is None:
            return tokens, None
        if nxt.text.split()[0].upper() in commands:
            return tokens, nxt
        text = nxt.text


def board_stones(tokens: list[str]) -> tuple[list[Stone], int]:
    """The stones of a ``BOARD``/``YXBOARD`` block and the colour of the side to move.

    Field 1 is the side to move.  Its colour follows the counts where a game could have
    reached them (equal: black; one fewer: white); a composed position (a puzzle, a GUI's
    edit) may have any counts, and then the side with more stones is black (under renju
    its fouls apply).

    :raises ValueError: for a token that is not ``x,y,1`` or ``x,y,2``.
    """
    fields = []
    for token in tokens:
        parts = token.split(",")
        if len(parts) != 3 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            raise ValueError(f"bad stone {token!r}: expected x,y,field")
        x, y, f = (int(p) for p in parts)
        if f not in (1, 2):
            raise ValueError(f"bad stone {token!r}: field must be 1 (own) or 2 (opponent)")
        fields.append((x, y, f))
    own = sum(1 for s in fields if s[2] == 1)
    me = BLACK if own >= len(fields) - own else WHITE
    return [(x, y, me if f == 1 else 3 - me) for x, y, f in fields], me


def swap2_stones(tokens: list[str]) -> tuple[list[Stone], int]:
    """The stones of a ``SWAP2BOARD`` block (black first, then alternating) and the colour
    to move.

    :raises ValueError: for a token that is not ``x,y``
        (:class:`gomoku_engine.core.errors.InvalidMoveError`), or a count other than the
        0, 3 or 5 stones of Swap2.
    """
    points = [parse_pair(token) for token in tokens]
    if len(points) not in (0, 3, 5):
        raise ValueError(f"{len(points)} stones: Swap2 gives 0, 3 or 5")
    stones = [(x, y, BLACK if i % 2 == 0 else WHITE) for i, (x, y) in enumerate(points)]
    return stones, BLACK if len(points) % 2 == 0 else WHITE


def block_points(tokens: list[str], width: int, height: int) -> set[Point]:
    """The points of a ``YXBLOCK`` block (Yixin-Board: root moves the engine must not play)
    on a ``width`` x ``height`` board.

    :raises ValueError: for a token that is not ``x,y``
        (:class:`gomoku_engine.core.errors.InvalidMoveError`) or a point off the board.
    """
    points = {parse_pair(token) for token in tokens}
    for x, y in points:
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"point {x},{y} is off the {width}x{height} board")
    return points


__all__ = ["Stone", "block_points", "board_stones", "read_block", "swap2_stones"]
