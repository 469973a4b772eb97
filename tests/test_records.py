"""Game records: SGF on every board size the engine plays, checked by an independent reader."""

from __future__ import annotations

import pytest

from gomoku_engine.arena.records import read_psq, read_sgf, write_psq, write_sgf


def spec_coordinate(letter: str) -> int:
    """SGF FF[4] "Point" letters, written out from the specification: 'a'..'z' are 0..25,
    'A'..'Z' are 26..51."""
    if "a" <= letter <= "z":
        return ord(letter) - ord("a")
    if "A" <= letter <= "Z":
        return 26 + ord(letter) - ord("A")
    raise AssertionError(f"{letter!r} is not an SGF point letter")


def spec_moves(text: str) -> tuple[int, list[tuple[str, int, int]]]:
    """``(SZ, [(colour, x, y)])`` read character by character (not the package's reader):
    property identifiers are upper-case letters, values are bracketed with ``\\``
    escaping the next character."""
    size, moves, ident, i = 0, [], "", 0
    while i < len(text):
        char = text[i]
        if char.isupper():
            ident += char
        elif char == "[":
            value, i = "", i + 1
            while text[i] != "]":
                if text[i] == "\\":
                    i += 1
                value += text[i]
                i += 1
            if ident == "SZ":
                size = int(value)
            elif ident in ("B", "W"):
                assert len(value) == 2, value
                moves.append((ident, spec_coordinate(value[0]), spec_coordinate(value[1])))
            ident = ""
        elif char in ";()":
            ident = ""
        i += 1
    return size, moves


def corner_game(size: int) -> list[tuple[int, int]]:
    """A stone on each corner, the centre, and the points next to the last letters."""
    far = size - 1
    points = [(0, 0), (far, 0), (0, far), (far, far), (size // 2, size // 2)]
    return points + [p for p in [(25, 26), (26, 25), (27, 28), (far - 1, 1)]
                     if max(p) < size and p not in points]


@pytest.mark.parametrize("size", [5, 15, 20, 26, 27, 32])
def test_sgf_round_trips_and_reads_as_the_specification_says(size: int) -> None:
    points = corner_game(size)
    text = write_sgf(points, size, black="a;B[zz] SZ[5]\\", white="x]y", result="B+")
    assert read_sgf(text) == (size, points)
    assert spec_moves(text) == (size, [("BW"[i % 2], x, y) for i, (x, y) in enumerate(points)])


def test_sgf_letters_past_z_are_upper_case() -> None:
    text = write_sgf([(27, 28), (0, 31), (31, 31)], 32)
    assert text.endswith(";B[BC];W[aF];B[FF])\n")


@pytest.mark.parametrize("move", ["B[|}]", "B[]", "W[abc]", "B[pa]", "W[aP]", "B[a1]"])
def test_read_sgf_refuses_a_point_it_cannot_read(move: str) -> None:
    with pytest.raises(ValueError, match=move.replace("[", r"\[").replace("]", r"\]")):
        read_sgf(f"(;GM[4]FF[4]SZ[15];B[hh];{move})")


def test_write_sgf_refuses_a_point_off_the_board() -> None:
    with pytest.raises(ValueError, match="off the 15x15 board"):
        write_sgf([(7, 7), (15, 0)], 15)
    with pytest.raises(ValueError, match="52"):
        write_sgf([], 53)


def test_psq_round_trips_on_a_large_board() -> None:
    moves = [(0, 0, 5), (31, 31, 10), (27, 28, 0)]
    assert read_psq(write_psq(moves, 32)) == (32, 32, moves)
