"""``gomoku-engine play``: a game against the engine in the terminal, in plain text.

The board (:meth:`Board.__str__`: ``X`` black, ``O`` white, columns ``a..``, rows from 1)
is redrawn after every move, the last stone in brackets (``[X]``).  The person types a move as ``h8`` or ``7,7`` (``x,y`` as in
the protocol), or ``undo``, ``hint``, ``help``, ``quit``; a wrong input gets a message and
changes nothing.  The game itself is :class:`gomoku_engine.play.human.HumanGame`, as in the
browser.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import GomokuError
from ..core.notation import Point, format_pair, format_point, parse_moves
from .human import COLOUR_NAMES, HumanGame, Refused

HELP = ("Type a move as h8 (column letter, row number) or 7,7 (x,y from 0); "
        "'undo' takes back your last move and the engine's reply, 'hint' suggests a move, "
        "'quit' ends.")
QUIT = ("quit", "q", "exit")


def parse_point(text: str) -> Point:
    """One move typed by a person: ``h8`` or ``7,7``.

    :raises GomokuError: if the text is not exactly one move.
    """
    moves = parse_moves(text)
    if len(moves) != 1:
        raise GomokuError(f"{text.strip()!r} is not one move: {HELP}")
    return moves[0]


def mark_last(board_text: str, point: Point | None) -> str:
    """``board_text`` (:meth:`Board.__str__`'s layout: a header line, then a row number in
    two characters, a space and the cells two characters apart) with brackets around the
    stone on ``point`` (``None``: unchanged)."""
    if point is None:
        return board_text
    lines = board_text.split("\n")
    row = list(lines[point[1] + 1].ljust(3 + 2 * point[0] + 2))
    at = 3 + 2 * point[0]
    row[at - 1], row[at + 1] = "[", "]"
    lines[point[1] + 1] = "".join(row).rstrip()
    return "\n".join(lines)


def run(game: HumanGame, read: Callable[[str], str], write: Callable[[str], None],
        clear: Callable[[], None] = lambda: None) -> str | None:
    """Play ``game`` with a person: ``read(prompt)`` gets a line (``EOFError`` ends the
    game like ``quit``), ``write`` prints text, ``clear`` blanks the screen before a board.

    :returns: the result (``"black"``, ``"white"``, ``"draw"``) or ``None`` if the person quit.
    """
    name = {game.human: "you", game.computer: "engine"}
    write(f"You play {COLOUR_NAMES[game.human]} "
          f"({'X' if game.human == 1 else 'O'}) at level {game.level}. {HELP}")
    news = ""
    if game.start() is not None:
        news = f"engine plays {format_point(game.moves()[-1])}"
    while True:
        clear()
        moves = game.moves()
        write(mark_last(game.board_text(), moves[-1] if moves else None))
        if news:
            write(news)
        if game.result is not None:
            line = " ".join(format_point(p) for p in game.winning_line())
            write("Draw: the board is full." if game.result == "draw" else
                  f"{COLOUR_NAMES[game.winner]} ({name[game.winner]}) wins: {line}")
            return game.result
        try:
            text = read(f"{COLOUR_NAMES[game.human]} to play> ").strip()
        except EOFError:
            return None
        command = text.lower()
        news = ""
        try:
            if command in QUIT:
                write("Bye.")
                return None
            if command in ("help", "?", ""):
                news = HELP
            elif command == "undo":
                taken = game.undo()
                news = "took back " + " ".join(format_point(p) for p in reversed(taken))
            elif command == "hint":
                move, analysis = game.hint()
                news = (f"hint: {format_point(move)} ({format_pair(move)}), "
                        f"score {analysis.as_dict()['score']}")
            else:
                x, y = parse_point(text)
                game.play(x, y)
                reply = game.reply()
                news = f"you play {format_point((x, y))}" + (
                    f", engine plays {format_point(reply)} ({format_pair(reply)})"
                    if reply else "")
        except Refused as exc:
            news = f"refused: {exc}"
        except GomokuError as exc:
            news = f"bad input: {exc}"
