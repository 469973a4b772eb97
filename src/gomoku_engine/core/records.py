"""Game records: Piskvork's PSQ format and SGF, written and read back.

* PSQ (Piskvork): a header ``Piskvorky WxH, 11:11, 1``, then one ``x,y,ms`` line per move
  with 1-based coordinates and the move's time in ms (docs/protocol.md section 7.2).
* SGF (FF[4], ``GM[4]`` is Gomoku): ``;B[hh]`` / ``;W[ii]`` moves with letters for the
  0-based column and row, ``SZ`` the size, ``PB``/``PW`` the players, ``RE`` the result.
  The letters are ``a``-``z`` for 0-25 then ``A``-``Z`` for 26-51 (the SGF FF[4]
  specification, "Move/Point" type, which allows boards up to 52x52), so every size
  this engine plays (5-32) has a point for every intersection.
"""

from __future__ import annotations

import re
import string

from ..core.notation import Point

Move = tuple[int, int, int]  # x, y (0-based), milliseconds

#: a game's result as SGF's RE and ``match``'s summary.json write it, by winner (0 none,
#: 1 black, 2 white)
RESULT_CODES = {0: "0", 1: "B+", 2: "W+"}
#: the winner (0 none, 1 black, 2 white) of each of :data:`RESULT_CODES`
RESULT_WINNERS = {code: winner for winner, code in RESULT_CODES.items()}
#: SGF FF[4]'s point letters: index i is coordinate i (0-51).
SGF_LETTERS = string.ascii_lowercase + string.ascii_uppercase
#: One SGF property: its identifier and its first value (escapes `\]` and `\\` kept).
_SGF_PROPERTY = re.compile(r"([A-Z]+)\s*\[((?:\\.|[^\\\]])*)\]", re.DOTALL)


def write_psq(moves: list[Move], width: int, height: int | None = None) -> str:
    """PSQ text of a game (black first)."""
    lines = [f"Piskvorky {width}x{height or width}, 11:11, 1"]
    lines += [f"{x + 1},{y + 1},{ms}" for x, y, ms in moves]
    return "\n".join(lines) + "\n"


def read_psq(text: str) -> tuple[int, int, list[Move]]:
    """``(width, height, moves)`` of a PSQ text; lines after the moves are ignored.

    :raises ValueError: if the header is missing.
    """
    lines = text.splitlines()
    header = re.match(r"Piskvorky (\d+)x(\d+)", lines[0] if lines else "")
    if not header:
        raise ValueError("not a PSQ record: missing 'Piskvorky WxH' header")
    moves = []
    for line in lines[1:]:
        parts = line.strip().split(",")
        if len(parts) != 3 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            break
        x, y, ms = (int(p) for p in parts)
        moves.append((x - 1, y - 1, ms))
    return int(header.group(1)), int(header.group(2)), moves


def write_sgf(points: list[Point], size: int, black: str = "", white: str = "",
              result: str = "") -> str:
    """SGF text of a game (black first); ``result`` like ``B+`` / ``W+`` / ``0``.

    :param points: 0-based ``(x, y)`` of the stones in order, each below ``size``.
    :raises ValueError: if a point is off a ``size`` x ``size`` board or ``size`` is over
        52 (SGF has no letter for it).
    """
    def esc(text: str) -> str:
        return text.replace("\\", "\\\\").replace("]", "\\]")

    if not 1 <= size <= len(SGF_LETTERS):
        raise ValueError(f"SGF boards are 1 to {len(SGF_LETTERS)} wide, not {size}")
    head = f"(;GM[4]FF[4]SZ[{size}]PB[{esc(black)}]PW[{esc(white)}]RE[{esc(result)}]"
    moves = []
    for i, (x, y) in enumerate(points):
        if not (0 <= x < size and 0 <= y < size):
            raise ValueError(f"move {i + 1} ({x}, {y}) is off the {size}x{size} board")
        moves.append(f";{'BW'[i % 2]}[{SGF_LETTERS[x]}{SGF_LETTERS[y]}]")
    return head + "".join(moves) + ")\n"


def read_sgf(text: str) -> tuple[int, list[Point]]:
    """``(size, points)`` of an SGF game written by :func:`write_sgf`: every ``;B[..]`` /
    ``;W[..]`` move in order, as 0-based ``(x, y)``.

    :raises ValueError: if there is no ``SZ`` property, or (with the offending text) if a
        move's value is not two SGF point letters on the board (a pass ``B[]`` included).
    """
    # Whole property values (escapes included) are matched, so a player's name holding
    # "SZ[" or ";B[" is read as part of that name, not as a property.
    properties = [(m.group(1), m.group(2)) for m in _SGF_PROPERTY.finditer(text)]
    sizes = [value for name, value in properties if name == "SZ"]
    if not sizes or not sizes[0].isdigit():
        raise ValueError("not an SGF game record: no SZ[number] property")
    size = int(sizes[0])
    points = []
    for name, value in properties:
        if name not in ("B", "W"):
            continue
        coordinates = [SGF_LETTERS.find(letter) for letter in value]
        if len(value) != 2 or not all(0 <= c < size for c in coordinates):
            raise ValueError(f"SGF move {name}[{value}] is not a point of a "
                             f"{size}x{size} board")
        points.append((coordinates[0], coordinates[1]))
    return size, points
