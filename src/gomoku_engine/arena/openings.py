"""Opening suites for matches: balanced openings made with a reference engine, and the
built-in sets the package ships.

**Making a suite** (``gomoku-engine openings make``) follows Yixin-Board's way: a few
random stones near the centre, black first, drawn from a seeded random generator, then a
reference engine's ``YXBALANCETWO <bias>`` (or ``YXBALANCEONE``) adds the pair of moves
(the move) after which the side to move's score is nearest the bias: 0, an even opening
(Yixin-Board's and Rapfi's command, docs/protocol.md section 6; Rapfi's own ``opengen``
places random stones in a local area and balances them the same way).  Any Gomocup engine
with these commands serves: this one, Rapfi.  The engine runs as one process for the whole
suite through the match runner's client (:class:`gomoku_engine.protocol.client.EngineProcess`
and its ``START`` handshake, :func:`gomoku_engine.protocol.client.start_lines`); each
opening is a new game (``START``), the position sent as ``YXBOARD`` (field 1 the side to
move's stones), and every command has a timeout.

An opening is kept when it is legal (the engine's moves on empty points, no renju foul:
:func:`gomoku_engine.arena.referee.foul_reason`), holds no five and leaves the side to move
no four (a win in one move), differs from every kept one under the board's 8 symmetries
(:func:`canonical`), and, with a ``window``, when the engine's reported score (its
``MESSAGE ... ev N`` line) is within ``window`` of the bias.  The random stones themselves
make no four for either side (so that the engine balances an opening, not a won game).

Suites are written in the "pos" format that ``match --openings`` reads
(:func:`gomoku_engine.arena.match.load_openings`, the one reader): one opening a line,
``h8i9j7`` (letter = x, ``a`` = 0; number = y + 1), black first, nothing else on the
file, so that c-gomoku-cli reads it too (its ``type=pos`` takes every line as an
opening).  A written suite is read back with that reader and compared.

**Built-in sets** live in ``data/`` beside this module: ``NAME.pos`` and their provenance
(the command, commit and date that made each) in ``data/sets.json``.  ``match --openings``
takes a set's name (or ``builtin:NAME``) as well as a file (:func:`resolve_openings`).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..core.constants import BLACK, Rule
from ..core.errors import GomokuError
from ..core.notation import Point, format_pair, format_point, parse_pair, parse_score
from ..game.board import Board
from ..protocol.client import (MAX_MEMORY_BYTES, EngineProcess, EngineRefused, EngineTimeout,
                               start_lines)
from .clock import START_REPLY_MS, STARTUP_MS
from .referee import foul_reason

#: the built-in sets: ``NAME.pos`` files and ``sets.json``, their provenance
DATA = Path(__file__).parent / "data"
#: ``match --openings builtin:NAME`` names a built-in set even when a file NAME exists
BUILTIN_PREFIX = "builtin:"
#: answers rejected in a row (duplicates, fives, scores outside the window) after which
#: the maker gives up: the engine or the settings cannot give more distinct openings
MAX_REJECTED_IN_A_ROW = 50
#: tries at one random stone before the seed is drawn again (a stone that would make a
#: four, or a renju foul)
STONE_TRIES = 100
#: the ``ev`` of an engine's ``MESSAGE`` line: this engine's ``MESSAGE balance ... ev N``
#: (protocol/messages.py) and its search lines; ``win in N`` / ``loss in N`` are mates
_EV = re.compile(r"\bev (-?\d+|win in \d+|loss in \d+)")


class BalanceError(RuntimeError):
    """The reference engine failed: it did not start, did not answer in time, exited, or
    answered a balance command with ``UNKNOWN``/``ERROR``, an unreadable or illegal move,
    or the suite could not be completed."""


# --- built-in sets ------------------------------------------------------------------------
@dataclass(frozen=True)
class OpeningSet:
    """A built-in suite: its file and how it was made (``data/sets.json``)."""

    name: str
    path: Path
    rule: str  #: a ``--rule`` name
    size: int
    count: int
    stones: tuple[int, int]  #: fewest and most stones of an opening
    command: str  #: the command that made it
    commit: str  #: the repository's commit it was made at
    date: str  #: ISO date
    note: str = ""


@lru_cache(maxsize=None)
def builtin_sets() -> dict[str, OpeningSet]:
    """The built-in sets by name, from ``data/sets.json``.

    :raises FileNotFoundError: if the package was installed without its data.
    """
    entries = json.loads((DATA / "sets.json").read_text())
    return {name: OpeningSet(name=name, path=DATA / entry["file"], rule=entry["rule"],
                             size=entry["size"], count=entry["count"],
                             stones=tuple(entry["stones"]), command=entry["command"],
                             commit=entry["commit"], date=entry["date"],
                             note=entry.get("note", ""))
            for name, entry in entries.items()}


def resolve_openings(text: str) -> Path:
    """The opening file that ``match --openings TEXT`` means: ``builtin:NAME`` is a
    built-in set; otherwise an existing file, else a built-in set's name.

    :raises ValueError: naming the built-in sets, if ``TEXT`` is neither.
    """
    name = text[len(BUILTIN_PREFIX):] if text.startswith(BUILTIN_PREFIX) else None
    if name is None and Path(text).is_file():
        return Path(text)
    sets = builtin_sets()
    found = sets.get(text if name is None else name)
    if found is None:
        what = "no built-in set" if name is not None else "neither a file nor a built-in set"
        raise ValueError(f"{text!r} is {what}; the built-in sets: {', '.join(sorted(sets))} "
                         "(gomoku-engine openings list)")
    return found.path


def set_of_file(path: str | Path) -> OpeningSet | None:
    """The built-in set whose file is ``path``, or None."""
    resolved = Path(path).resolve()
    return next((s for s in builtin_sets().values() if s.path.resolve() == resolved), None)


# --- symmetry -----------------------------------------------------------------------------
def symmetric_images(point: Point, size: int) -> list[Point]:
    """The 8 images of ``point`` on a ``size`` x ``size`` board under its symmetries (the
    identity first, then the mirrors, the transposes and the rotations)."""
    x, y = point
    far_x, far_y = size - 1 - x, size - 1 - y
    return [(x, y), (far_x, y), (x, far_y), (far_x, far_y),
            (y, x), (far_y, x), (y, far_x), (far_y, far_x)]


def canonical(opening: Sequence[Point], size: int) -> tuple[tuple[int, int, int], ...]:
    """The opening's key under the board's 8 symmetries: the least, over the images, of its
    sorted ``(x, y, colour)`` stones (colour 1 black, 2 white: black first, alternating).
    Two openings have the same key exactly when one is a symmetric image of the other,
    whatever the order of their moves."""
    images = [symmetric_images(p, size) for p in opening]
    return min(tuple(sorted((*image[k], 1 + i % 2) for i, image in enumerate(images)))
               for k in range(8))


@lru_cache(maxsize=8)
def _segments(size: int) -> tuple[tuple[Point, ...], ...]:
    """Every five-point line segment of a ``size`` x ``size`` board."""
    segments = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for x in range(size):
            for y in range(size):
                cells = tuple((x + k * dx, y + k * dy) for k in range(5))
                if all(0 <= cx < size and 0 <= cy < size for cx, cy in cells):
                    segments.append(cells)
    return tuple(segments)


def has_four(stones: dict[Point, int], colour: int, size: int) -> bool:
    """Whether ``colour`` has four stones in some five-point segment whose fifth point is
    empty: a point that makes five or more (whatever the rule says of overlines)."""
    for cells in _segments(size):
        owners = [stones.get(p, 0) for p in cells]
        if owners.count(colour) == 4 and owners.count(0) == 1:
            return True
    return False


# --- the reference engine -----------------------------------------------------------------
@dataclass(frozen=True)
class MakeSettings:
    """How a suite is made (the options of ``gomoku-engine openings make``)."""

    engine: tuple[str, ...]  #: the reference engine's argv
    count: int  #: openings to make
    size: int = 15
    rule: Rule = Rule.FREESTYLE
    stones: tuple[int, int] = (3, 8)  #: fewest and most stones of an opening
    seed: int = 1  #: seeds the random stones (and the number of stones)
    turn_ms: int = 300  #: INFO timeout_turn: the engine's time for one balance command
    tolerance_ms: int = 1000  #: lateness accepted before a command counts as unanswered
    startup_ms: int = STARTUP_MS  #: extra time for the engine's first answer to START
    pair: bool = True  #: YXBALANCETWO (the last two stones); False: YXBALANCEONE (one)
    bias: int = 0  #: the score aimed at, for the side to move before the engine's moves
    window: int | None = None  #: keep only openings whose reported score is this near
    radius: int = 3  #: random stones within this many lines of the centre (Chebyshev)
    info: tuple[tuple[str, str], ...] = ()  #: extra ``INFO key value`` lines

    def __post_init__(self) -> None:
        added = 2 if self.pair else 1
        if self.count < 1 or not added <= self.stones[0] <= self.stones[1]:
            raise ValueError(f"need a count of at least 1 and {added} <= fewest stones <= most "
                             f"stones, not {self.count} and {self.stones}")
        if not 0 <= self.radius or self.stones[1] - added > (2 * self.radius + 1) ** 2:
            raise ValueError(f"{self.stones[1] - added} random stones do not fit within "
                             f"{self.radius} lines of the centre")

    @property
    def command_name(self) -> str:
        return "YXBALANCETWO" if self.pair else "YXBALANCEONE"


@dataclass
class Answer:
    """A balance command's answer: the moves and the score the engine reported (None when
    it wrote no ``ev``)."""

    moves: list[Point]
    score: int | None


class BalanceEngine:
    """The reference engine as one process for a whole suite (use :func:`reference_engine`)."""

    def __init__(self, process: EngineProcess, settings: MakeSettings) -> None:
        self.process = process
        self.settings = settings
        self.first = True

    def failure(self, what: str) -> BalanceError:
        """The error to raise: the engine's command line, ``what`` it did, and the last
        lines exchanged with it."""
        tail = "\n".join(self.process.transcript[-8:])
        return BalanceError(f"the engine {' '.join(self.settings.engine)!r} {what}"
                            + (f"\nlast lines exchanged:\n{tail}" if tail else ""))

    def new_game(self) -> None:
        """``START`` and the settings, and the engine's ``OK``.

        :raises BalanceError: if it answers anything else or nothing in time.
        """
        s = self.settings
        grace = s.startup_ms if self.first else 0
        lines = start_lines(s.size, int(s.rule), s.turn_ms, 0, max_memory=MAX_MEMORY_BYTES,
                            info=s.info)
        try:
            self.process.start_game(lines, (START_REPLY_MS + grace) / 1000)
        except EngineRefused as exc:
            raise self.failure(str(exc)) from None
        except OSError as exc:
            raise self.failure(f"is gone ({exc})") from None
        self.first = False

    def balance(self, moves: Sequence[Point]) -> Answer:
        """The engine's balancing move(s) after ``moves`` (black first): a new game, the
        position as ``YXBOARD`` (field 1: the side to move's stones), then the command.

        :raises BalanceError: on no answer within the turn plus the tolerance, an exit,
            ``UNKNOWN``/``ERROR``, or an answer that is not points ``x,y``.
        """
        s = self.settings
        self.new_game()
        mover = len(moves) % 2  # 0: black to move
        command = f"{s.command_name} {s.bias}"
        try:
            self.process.send("YXBOARD", *(f"{format_pair(p)},{1 if i % 2 == mover else 2}"
                                           for i, p in enumerate(moves)), "DONE")
            said = len(self.process.transcript)
            self.process.send(command)
            reply = self.process.read_reply((s.turn_ms + s.tolerance_ms) / 1000)
        except EngineTimeout:
            raise self.failure(f"gave no answer to {command} within {s.turn_ms} ms + "
                             f"{s.tolerance_ms} ms") from None
        except (EOFError, OSError):
            raise self.failure(f"exited instead of answering {command}") from None
        if reply.split()[:1] and reply.split()[0].upper() in ("UNKNOWN", "ERROR"):
            raise self.failure(f"answered {command} with {reply!r}: it needs Yixin-Board's "
                             "balance commands YXBOARD and YXBALANCEONE/YXBALANCETWO (this "
                             "engine and Rapfi have them)")
        try:
            points = [parse_pair(token) for token in reply.split()]
        except GomokuError:
            raise self.failure(f"answered {command} with {reply!r}, not x,y points") from None
        return Answer(points, _reported_score(self.process.transcript[said:]))


def _reported_score(lines: Sequence[str]) -> int | None:
    """The score of the engine's last ``MESSAGE`` line with an ``ev`` (the ``MESSAGE
    balance`` line first, where there is one), None without any."""
    messages = [line[2:] for line in lines if line.startswith("< MESSAGE")]
    balance = [m for m in messages if m.startswith("MESSAGE balance")]
    for text in reversed(balance or messages):
        found = _EV.search(text)
        if found:
            return parse_score(found.group(1))
    return None


@contextmanager
def reference_engine(settings: MakeSettings) -> Iterator[BalanceEngine]:
    """The reference engine started and through its first ``START``; closed on exit.

    :raises BalanceError: if it cannot be started or does not answer ``START`` with ``OK``.
    """
    try:
        process = EngineProcess(settings.engine)
    except OSError as exc:
        raise BalanceError(f"the engine {' '.join(settings.engine)!r} could not start: "
                           f"{exc}") from None
    engine = BalanceEngine(process, settings)
    try:
        engine.new_game()
        yield engine
    finally:
        process.close()


# --- making a suite -----------------------------------------------------------------------
@dataclass
class Made:
    """What a run of :func:`make_openings` gave."""

    openings: list[list[Point]] = field(default_factory=list)
    asked: int = 0  #: balance commands sent
    rejected: Counter[str] = field(default_factory=Counter)  #: rejected answers by reason


def random_stones(rng: random.Random, count: int, size: int, rule: Rule,
                  radius: int) -> list[Point] | None:
    """``count`` random stones, black first, on empty points within ``radius`` lines of the
    centre: none makes a four for either side (:func:`has_four`) and, under renju, no black
    stone is a foul.  None if a stone found no such point in :data:`STONE_TRIES` tries."""
    centre = size // 2
    low, high = max(0, centre - radius), min(size - 1, centre + radius)
    board = Board(size, rule=rule)
    stones: dict[Point, int] = {}
    for _ in range(count):
        for _ in range(STONE_TRIES):
            point = (rng.randint(low, high), rng.randint(low, high))
            if point in stones or foul_reason(board, *point) is not None:
                continue
            stones[point] = board.to_move
            if not has_four(stones, stones[point], size):
                break
            del stones[point]
        else:
            return None
        board.play(*point)
    return list(stones)


def judge(opening: Sequence[Point], size: int, rule: Rule) -> str | None:
    """Why ``opening`` (black first) is no opening to keep, or None: a stone off the board
    or on a taken point (the text says which), a renju foul, a five, or a four for the
    side to move (it wins at once)."""
    board = Board(size, rule=rule)
    for x, y in opening:
        try:
            foul = foul_reason(board, x, y)
        except GomokuError:
            return f"illegal point {x},{y}"
        if foul is not None:
            return "a renju foul"
        board.play(x, y)
        if board.winner:
            return "a five"
    stones = {(x, y): colour for x, y, colour in board.stones()}
    if has_four(stones, board.to_move, size):
        return "a four for the side to move"
    return None


def make_openings(engine: BalanceEngine, on_opening: Callable[[list[Point]], None]
                  = lambda opening: None) -> Made:
    """Balanced openings, distinct under symmetry, until ``engine.settings.count``.

    The random stones and the number of stones of each opening come from
    ``random.Random(seed)`` alone, so an engine that answers the same position the same way
    gives the same suite for the same seed.

    :param on_opening: called with each opening kept, in order.
    :raises BalanceError: as :meth:`BalanceEngine.balance`; for an illegal point; and after
        :data:`MAX_REJECTED_IN_A_ROW` rejected answers in a row (with their reasons).
    """
    s = engine.settings
    rng = random.Random(s.seed)
    added = 2 if s.pair else 1
    made, keys, in_a_row = Made(), set(), 0
    while len(made.openings) < s.count:
        stones = rng.randint(*s.stones)
        start = random_stones(rng, stones - added, s.size, s.rule, s.radius)
        if start is None:
            raise BalanceError(f"no {stones - added} random stones without a four fit within "
                               f"{s.radius} lines of the centre")
        answer = engine.balance(start)
        made.asked += 1
        opening = start + answer.moves
        why = _rejection(opening, answer, s, added, keys)
        if why is not None and why.startswith("illegal"):
            raise engine.failure(f"answered {s.command_name} after "
                               f"{''.join(map(format_point, start)) or 'no stones'} with an "
                               f"{why}")
        if why is None:
            keys.add(canonical(opening, s.size))
            made.openings.append(opening)
            on_opening(opening)
            in_a_row = 0
            continue
        made.rejected[why] += 1
        in_a_row += 1
        if in_a_row >= MAX_REJECTED_IN_A_ROW:
            reasons = ", ".join(f"{n} {reason}" for reason, n in made.rejected.most_common())
            raise BalanceError(f"gave up after {in_a_row} rejected answers in a row, with "
                               f"{len(made.openings)} of {s.count} openings made "
                               f"(rejected: {reasons})")
    return made


def _rejection(opening: list[Point], answer: Answer, s: MakeSettings, added: int,
               keys: set) -> str | None:
    """Why an answered opening is not kept (see :func:`make_openings`), or None."""
    if len(answer.moves) != added:
        return f"{len(answer.moves)} moves instead of {added}"
    why = judge(opening, s.size, s.rule)
    if why is not None:
        return why
    if s.window is not None:
        if answer.score is None:
            return "no score reported"
        if abs(answer.score - s.bias) > s.window:
            return "a score outside the window"
    if canonical(opening, s.size) in keys:
        return "a duplicate under symmetry"
    return None


def pos_line(opening: Sequence[Point]) -> str:
    """An opening as a "pos" line: ``h8i9j7``."""
    return "".join(format_point(p) for p in opening)


def write_suite(engine: BalanceEngine, out: str | Path,
                on_opening: Callable[[list[Point]], None] = lambda opening: None) -> Made:
    """Make a suite (:func:`make_openings`) into the file ``out``, one line as each opening
    is kept (a run stopped early keeps the openings it made; one that made none leaves
    no file), then read it back with the match
    runner's reader and check that it gives the same openings.

    :raises BalanceError: as :func:`make_openings`, or if the file reads back otherwise.
    """
    from .match import load_openings

    path = Path(out)
    written = 0
    with path.open("w") as file:
        def kept(opening: list[Point]) -> None:
            nonlocal written
            file.write(pos_line(opening) + "\n")
            file.flush()
            written += 1
            on_opening(opening)

        try:
            made = make_openings(engine, kept)
        except BalanceError:
            if not written:  # no empty file left behind
                file.close()
                path.unlink()
            raise
    size = engine.settings.size
    if load_openings(path, size) != made.openings:
        raise BalanceError(f"{path} does not read back as the openings made")
    return made


__all__ = ["BUILTIN_PREFIX", "DATA", "MAX_REJECTED_IN_A_ROW", "Answer", "BalanceEngine",
           "BalanceError", "Made", "MakeSettings", "OpeningSet", "builtin_sets", "canonical",
           "has_four", "judge", "make_openings", "pos_line", "random_stones",
           "reference_engine", "resolve_openings", "set_of_file", "symmetric_images",
           "write_suite"]
