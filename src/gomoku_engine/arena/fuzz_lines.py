"""The protocol fuzz's input: hostile lines from a seeded generator, and the well-formed
commands whose effect on the game the fuzz models.

A *hostile* item (:class:`HostileLines`) is something a careless or broken manager might
send and that must leave the game as it was: unknown commands, known commands with bad
arguments (sizes out of range, points off the board or taken, huge numbers, malformed
pairs), ``INFO`` with junk values, malformed or unterminated ``BOARD``/``YXBOARD``/
``SWAP2BOARD``/``YXBLOCK`` blocks, binary bytes and invalid UTF-8, very long lines, blank
lines; every line ends in LF, CRLF or a bare CR at random (docs/protocol.md sections
1 and 2).  The expected answers are ``ERROR``/``UNKNOWN``/``MESSAGE`` lines or nothing.
An *action* (:class:`Action`) is a well-formed command that changes the game (``START``,
``RESTART``, ``BOARD``, ``YXBOARD``, ``TURN``, ``BEGIN``, ``TAKEBACK``) and whose answer
the fuzz checks against its own copy of the board.

Lines that would change the game are never generated as hostile: a hostile ``TURN`` names
a point off the board or taken, a hostile ``START`` a size no engine supports, a hostile
block holds at least one bad token, and an unterminated block is always cut short by a
known command (the protocol's end of a block) so that it cannot swallow the next lines.
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.constants import BLACK, MAX_SIZE
from ..core.notation import Point, format_pair
from ..game.board import Board

#: the protocol's command words (docs/protocol.md sections 2 and 6), block ends
#: and END: a random word is never one of these
COMMAND_WORDS = frozenset({
    "START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "INFO", "END",
    "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "STOP", "YXSHOWINFO", "YXHASHCLEAR",
    "SWAP2BOARD", "YXSHOWFORBID", "YXBLOCK", "YXBLOCKRESET", "DONE", "YXNBEST",
    "YXBALANCEONE", "YXBALANCETWO", "YXQUERY", "SUGGEST"})
#: commands that change nothing in the game whatever their arguments
HARMLESS = ("ABOUT", "YXSHOWINFO", "YXHASHCLEAR", "YXSHOWFORBID", "YXSTOP", "STOP",
            "YXBLOCKRESET")
#: ``INFO`` keys the engine reads (``protocol/settings.py``), and the values the fuzz
#: restores after junk reached them (``{turn}`` and ``{rule}`` filled in per game)
CANONICAL_INFO = {
    "timeout_turn": "{turn}", "timeout_match": "0", "time_left": "2147483647",
    "time_increment": "0", "max_memory": "367001600", "hash_size": "0", "rule": "{rule}",
    "max_depth": "0", "max_node": "0", "show_detail": "0", "strength": "100", "seed": "0",
    "thread_num": "1", "threats": "1", "algorithm": "alphabeta", "evaluation": "classical",
    "opening": "none"}
#: ``INFO`` keys of other managers and engines (ignored), made-up ones, and a known key in
#: capitals (the engine reads keys in any case; the fuzz restores it as the known key)
OTHER_INFO_KEYS = ("game_type", "folder", "evaluate", "usedatabase", "pondering", "caution",
                   "", "TIMEOUT_TURN", "x" * 300)
#: a line's end: LF mostly, CRLF and bare CR as Windows and old Mac managers send them
TERMINATORS = (b"\n",) * 6 + (b"\r\n",) * 3 + (b"\r",)
#: numbers no board has: huge, negative, not integers
BAD_NUMBERS = ("-1", "-15", "0x10", "1e9", "15.5", "NaN", "+-3", "", " ", "\u0663",
               "9" * 25, "-" + "9" * 40, "1" * 5000)


@dataclass(frozen=True)
class Action:
    """A well-formed command whose effect the fuzz models.

    ``kind`` is ``start`` (``size``), ``restart``, ``board`` and ``yxboard`` (``stones``
    ``(x, y, colour)`` and ``to_move``, the side the engine plays), ``turn`` (``point``,
    the opponent's stone), ``begin`` or ``takeback`` (``point``)."""

    kind: str
    size: int = 0
    stones: tuple[tuple[int, int, int], ...] = ()
    to_move: int = 0
    point: Point | None = None

    @property
    def reply(self) -> str | None:
        """What the engine must answer: ``"OK"``, ``"move"`` (a legal ``x,y``) or None."""
        if self.kind in ("start", "restart", "takeback"):
            return "OK"
        return "move" if self.kind in ("board", "turn", "begin") else None


@dataclass
class Item:
    """Bytes sent in one go: a hostile item, an action, or the fuzz's own lines."""

    data: bytes
    lines: int  #: protocol lines in ``data``
    action: Action | None = None
    hostile: bool = True
    #: ``INFO`` keys a hostile item may have changed (restored before the next action)
    info_keys: frozenset[str] = field(default_factory=frozenset)


def encode(lines: Sequence[str | bytes], rng: random.Random) -> bytes:
    """``lines`` joined with random terminators (:data:`TERMINATORS`); text as UTF-8
    (so non-ASCII text arrives as invalid bytes for an ASCII reader)."""
    out = bytearray()
    for line in lines:
        out += line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        out += rng.choice(TERMINATORS)
    return bytes(out)


def _case(word: str, rng: random.Random) -> str:
    """A command word as managers write it: upper, lower (Yixin-Board) or mixed."""
    return rng.choice((word, word, word.lower(), word.capitalize()))


def _junk(rng: random.Random, length: int) -> str:
    """Printable junk without line ends."""
    return "".join(rng.choice(string.printable[:-5]) for _ in range(length))


def _binary(rng: random.Random, length: int) -> bytes:
    """Random bytes with no CR or LF (each line stays one line), led by a byte over
    127 so that the line's first word is never a command (nor blank)."""
    body = bytes(b for b in rng.randbytes(length) if b not in (10, 13))
    return bytes([rng.randint(128, 255)]) + body


def random_position(rng: random.Random, size: int, rule: int, stones: int
                    ) -> tuple[tuple[tuple[int, int, int], ...], int]:
    """Up to ``stones`` stones played alternately from black at random points near the
    centre, none a renju foul and none making a five; returns ``(stones, side to move)``."""
    board = Board(size, rule=rule)
    lo, hi = max(0, size // 2 - 5), min(size - 1, size // 2 + 5)
    for _ in range(stones * 4):
        if board.ply >= stones:
            break
        x, y = rng.randint(lo, hi), rng.randint(lo, hi)
        if not board.is_legal(x, y):
            continue
        board.play(x, y)
        if board.winner:
            board.undo()
    return tuple(board.stones()), board.to_move


def board_lines(word: str, stones: Sequence[tuple[int, int, int]], me: int,
                rng: random.Random) -> list[str]:
    """A ``BOARD``/``YXBOARD`` block of ``stones`` (field 1: ``me``'s), one stone a line
    or all on the command's line (``YXBOARD 7,7,1 8,8,2 DONE``)."""
    tokens = [f"{x},{y},{1 if c == me else 2}" for x, y, c in stones]
    done = _case("DONE", rng)
    if rng.random() < 0.3:
        return [" ".join([_case(word, rng), *tokens, done])]
    return [_case(word, rng), *(("  " if rng.random() < 0.1 else "") + t for t in tokens),
            done]


class HostileLines:
    """The hostile items, drawn from ``rng``.

    Every method takes the game the fuzz believes the engine has (``board``, or None
    before the first ``START``) so that a point it names as taken is taken.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._searching = False

    def item(self, board: Board | None, searching: bool = False) -> Item:
        """One hostile item of a random kind.

        :param searching: the item follows a move request at once, so the engine's move
            (not yet known) will take one of ``board``'s empty points.
        """
        self._searching = searching
        makers = ((self.unknown, 3), (self.bad_arguments, 4), (self.info, 4),
                  (self.bad_block, 3), (self.binary, 2), (self.blank, 1), (self.harmless, 2),
                  (self.long_line, 0.3), (self.valid_block_list, 0.3))
        make = self.rng.choices([m for m, _ in makers], [w for _, w in makers])[0]
        return make(board)

    def _item(self, lines: Sequence[str | bytes], keys: frozenset[str] = frozenset()
              ) -> Item:
        return Item(encode(lines, self.rng), len(lines), info_keys=keys)

    def unknown(self, board: Board | None) -> Item:
        """A word that is no command, with junk arguments: ``UNKNOWN`` expected."""
        rng = self.rng
        while True:
            word = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 12)))
            if word.upper() not in COMMAND_WORDS:
                break
        args = _junk(rng, rng.randint(0, 60)) if rng.random() < 0.7 else ""
        return self._item([f"{word} {args}".rstrip()])

    def _bad_point(self, board: Board | None) -> str:
        """A point no move may take: off the board, taken, huge or malformed."""
        rng = self.rng
        size = board.width if board is not None else 15
        taken = board.moves() if board is not None else []
        choices = [f"{size},0", f"0,{size}", f"{size + rng.randint(0, 99)},{rng.randint(0, 9)}",
                   f"-1,{rng.randint(0, size - 1)}", f"{rng.choice(BAD_NUMBERS)},3",
                   f"3,{rng.choice(BAD_NUMBERS)}", "7", "7,", ",7", "7,7,7", "a,b", "7;7",
                   "7 7", "7,7x", "", _junk(rng, 8) + ",,"]
        if taken:
            choices += [format_pair(rng.choice(taken))] * 4
        return rng.choice(choices)

    def bad_arguments(self, board: Board | None) -> Item:
        """A known command whose arguments are refused: ``ERROR`` expected."""
        rng = self.rng
        word = rng.choice(("START", "RECTSTART", "TURN", "PLAY", "TAKEBACK"))
        if word == "START":
            arg = rng.choice(("", "x", "4", "0", "-15", "33", "100", "15 15 15", "15.0",
                              "9" * rng.randint(20, 5000), "15 x", "abc def", "4,15",
                              "15 33", "-20 -20"))
        elif word == "RECTSTART":
            arg = rng.choice(("", "15", "4,15", "15,4", f"{MAX_SIZE + 1},15",
                              "15," + "9" * 30, "a,b", "15,15,15", "-1,-1"))
        elif word == "TAKEBACK":
            empty = [] if board is None or self._searching else [
                (x, y) for x in range(board.width) for y in range(board.height)
                if board.at(x, y) == 0][:1]
            arg = rng.choice([format_pair(p) for p in empty] + [f"{MAX_SIZE},{MAX_SIZE}",
                             "-3,-3", "x,y", "", "9" * 50 + ",1"])
        else:
            arg = self._bad_point(board)
        return self._item([f"{_case(word, rng)} {arg}".rstrip()])

    def info(self, board: Board | None) -> Item:
        """``INFO`` with a known key and a junk value, or an unknown key; no answer until the
        next command (then perhaps a ``MESSAGE``)."""
        rng = self.rng
        key = rng.choice(list(CANONICAL_INFO) * 2 + list(OTHER_INFO_KEYS))
        value = rng.choice(BAD_NUMBERS + ("abc", "ga", "lin", "handset", "1", "5", "2", "4",
                                          "2147483647", "-2147483648", "0",
                                          _junk(rng, rng.randint(0, 40))))
        # the engine reads INFO keys in any case: TIMEOUT_TURN sets the turn time too
        keys = frozenset({key.lower()}) if key.lower() in CANONICAL_INFO else frozenset()
        return self._item([f"{_case('INFO', rng)} {key} {value}"], keys)

    def bad_block(self, board: Board | None) -> Item:
        """A ``BOARD``/``YXBOARD``/``SWAP2BOARD``/``YXBLOCK`` block with at least one bad
        token, ended by ``DONE`` or cut short by a known command: ``ERROR`` expected."""
        rng = self.rng
        word = rng.choice(("BOARD", "YXBOARD", "SWAP2BOARD", "YXBLOCK"))
        size = board.width if board is not None else 15
        points = [(rng.randrange(size), rng.randrange(size)) for _ in range(rng.randint(0, 6))]
        if word in ("SWAP2BOARD", "YXBLOCK"):
            tokens = [format_pair(p) for p in points]
        else:
            tokens = [f"{x},{y},{rng.choice((1, 2))}" for x, y in points]
        tokens.insert(rng.randint(0, len(tokens)), self._bad_token(word, size, tokens))
        lines: list[str | bytes] = [_case(word, rng), *tokens]
        if rng.random() < 0.25:  # unterminated: a known command ends it (and then runs)
            lines.append(rng.choice(("ABOUT", "YXSHOWINFO", "INFO fuzz_key 1", "TURN -1,-1",
                                     "yxhashclear")))
        else:
            lines.append(_case("DONE", rng))
        return self._item(lines)

    def _bad_token(self, word: str, size: int, tokens: list[str]) -> str | bytes:
        rng = self.rng
        if word == "YXBLOCK":  # YXBLOCK takes any set of points on the board
            return rng.choice((f"{size},1", "-1,-1", "x,y", "1,2,3", _binary(rng, 5)))
        pairs = word == "SWAP2BOARD"
        bad = [f"{size},0" + ("" if pairs else ",1"), "-1,-1" + ("" if pairs else ",2"),
               "1,2,3,4", "a,b,c", "9" * 30 + ",1" + ("" if pairs else ",1"),
               _binary(rng, 6)]
        if not pairs:
            bad += ["3,3,0", "3,3,3", "3,3", "3,3,-1"]
        if tokens and rng.random() < 0.3:
            return tokens[0]  # the same stone twice
        return rng.choice(bad)

    def binary(self, board: Board | None) -> Item:
        """Bytes that are no text: ``UNKNOWN`` expected."""
        return self._item([_binary(self.rng, self.rng.randint(1, 200))])

    def blank(self, board: Board | None) -> Item:
        """Empty and white-space lines: ignored."""
        return self._item([self.rng.choice(("", " ", "\t", "   \t ", "\x0b"))])

    def harmless(self, board: Board | None) -> Item:
        """A command that changes nothing, perhaps with junk after it."""
        rng = self.rng
        args = _junk(rng, rng.randint(1, 20)) if rng.random() < 0.3 else ""
        return self._item([f"{_case(rng.choice(HARMLESS), rng)} {args}".rstrip()])

    def long_line(self, board: Board | None) -> Item:
        """One line of 10 to 300 thousand characters (an unknown command or an ``INFO``)."""
        rng = self.rng
        length = rng.randint(10_000, 300_000)
        body = rng.choice(("x" * length, "9" * length, _junk(rng, 200) * (length // 200)))
        head = rng.choice(("FUZZLONG ", "INFO fuzz_long ", "INFO timeout_turn "))
        keys = frozenset({"timeout_turn"}) if "timeout_turn" in head else frozenset()
        return self._item([head + body], keys)

    def valid_block_list(self, board: Board | None) -> Item:
        """A well-formed ``YXBLOCK`` (no answer): it only narrows the engine's choice."""
        rng = self.rng
        size = board.width if board is not None else 15
        points = {(rng.randrange(size), rng.randrange(size)) for _ in range(rng.randint(1, 4))}
        return self._item([_case("YXBLOCK", rng), *(format_pair(p) for p in points),
                           _case("DONE", rng)])


def info_reset(keys: Sequence[str], turn_ms: int, rule: int, rng: random.Random) -> Item:
    """The fuzz's own ``INFO`` lines putting ``keys`` back to :data:`CANONICAL_INFO`."""
    lines = [f"INFO {k} {CANONICAL_INFO[k].format(turn=turn_ms, rule=rule)}"
             for k in sorted(keys)]
    return Item(encode(lines, rng), len(lines), hostile=False)


def opponent_point(board: Board, colour: int, rng: random.Random) -> Point | None:
    """A random empty point where a ``colour`` stone is no renju foul and makes no five
    (None if 50 tries find none)."""
    trial = board.copy()  # a stone of the colour not to move would change who moves
    for _ in range(50):
        x, y = rng.randrange(board.width), rng.randrange(board.height)
        if board.at(x, y) != 0 or (colour == BLACK and board.foul(x, y)):
            continue
        trial.play(x, y, colour)
        five = trial.winner
        trial.undo()
        if not five:
            return x, y
    return None


__all__ = ["Action", "CANONICAL_INFO", "COMMAND_WORDS", "HostileLines", "Item", "board_lines",
           "encode", "info_reset", "opponent_point", "random_position"]
