"""Game records: Piskvork's PSQ format and SGF, written and read back.

* PSQ (Piskvork): a header ``Piskvorky WxH, 11:11, 1``, then one ``x,y,ms`` line per move
  with 1-based coordinates and the move's time in ms (``../shared/protocol.md`` and the
  match-runner issue).
* SGF (FF[4], ``GM[4]`` is Gomoku): ``;B[hh]`` / ``;W[ii]`` moves with letters for the
  0-based column and row, ``SZ`` the size, ``PB``/``PW`` the players, ``RE`` the result.
"""

from __future__ import annotations

import re

from ..core.notation import Point

Move = tuple[int, int, int]  # x, y (0-based), milliseconds


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
    """SGF text of a game (black first); ``result`` like ``B+`` / ``W+`` / ``0``."""
    def esc(text: str) -> str:
        return text.replace("\\", "\\\\").replace("]", "\\]")

    head = f"(;GM[4]FF[4]SZ[{size}]PB[{esc(black)}]PW[{esc(white)}]RE[{esc(result)}]"
    body = "".join(f";{'B' if i % 2 == 0 else 'W'}[{chr(97 + x)}{chr(97 + y)}]"
                   for i, (x, y) in enumerate(points))
    return head + body + ")\n"


def read_sgf(text: str) -> tuple[int, list[Point]]:
    """``(size, points)`` of an SGF game written by :func:`write_sgf`.

    :raises ValueError: if there is no ``SZ`` property.
    """
    size = re.search(r"SZ\[(\d+)\]", text)
    if not size:
        raise ValueError("not an SGF game record: no SZ[] property")
    points = [(ord(m.group(1)) - 97, ord(m.group(2)) - 97)
              for m in re.finditer(r";[BW]\[([a-z])([a-z])\]", text)]
    return int(size.group(1)), points
