"""The protocol fuzz: hostile lines into real engine processes, every answer checked.

``gomoku-engine fuzz`` sends ``--lines`` lines in chunks (:data:`CHUNK_LINES` each, every
chunk from its own seed, so shards and resumed runs send the same lines).  A chunk starts an
engine process (:class:`gomoku_engine.protocol.client.EngineProcess`), starts a game
(``START`` and every ``INFO`` setting) and then sends *steps*: a few hostile items
(:class:`gomoku_engine.arena.fuzz_lines.HostileLines`), perhaps one well-formed action
(``TURN``, ``BOARD``, ``TAKEBACK``, ...; a move request is followed at once by more
hostile lines, which arrive while the engine searches), and a line of its own,
``FUZZSYNC <n>``, whose ``UNKNOWN`` answer ends the step.  The protocol answers in order,
so everything read before it belongs to the step.  After each step it checks:

- *crash*: the process is alive (its output did not end, a write did not fail);
- *hang*: the step's last answer came within ``hang_s`` (plus the turn time);
- *illegal*: a move answered is on the board, on an empty point and, for black under
  renju, no foul, judged on the fuzz's own copy of the game (:class:`Shadow`), which
  follows only the actions;
- *state*: the action got exactly its answer (``OK``, a move, or none) and no hostile line
  got one: a refused ``TURN`` on a point the copy holds empty, or a hostile ``TURN`` on a
  point the copy holds taken that was played, means the engine lost the game;
- *internal*: ``ERROR internal error`` (an exception the loop caught), and *stray*: a line
  that is no protocol line (a traceback on the merged stderr), counted but not fatal.

After a crash, hang, illegal move or lost state the chunk goes on in a fresh process, and
everything sent to the failed one is saved in the output folder for replay
(``gomoku-engine < fuzz-failure-....txt``).  ``ERROR`` and ``UNKNOWN`` are the expected
answers to bad input, not failures (docs/protocol.md sections 2 and 7).
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.constants import RULE_NAMES, Rule
from ..core.notation import Point, format_pair
from ..game.board import Board
from ..protocol.client import EngineProcess, EngineTimeout
from .clock import STARTUP_MS
from .fuzz_lines import (CANONICAL_INFO, Action, HostileLines, Item, board_lines, encode,
                         info_reset, opponent_point, random_position)
from .shards import RecordFile, pending
from .soak import THIS_ENGINE

FUZZ_LINES = 10_000
#: lines per chunk: one seed, one engine process (a fresh one after a failure)
CHUNK_LINES = 500
FUZZ_KIND = "fuzz"
#: the rules the chunks take in turn (caro as Gomocup runs it)
FUZZ_RULES = ("freestyle", "standard", "renju", "caro")
#: failures after which the chunk goes on in a fresh process
FATAL = ("crash", "hang", "illegal", "state")
_MOVE = re.compile(r"(-?\d+),(-?\d+)")
#: the first words of the lines the engine may print besides moves
_PROTOCOL_WORDS = ("OK", "ERROR", "UNKNOWN", "MESSAGE", "DEBUG", "FORBID", "SWAP",
                   'name="')


@dataclass(frozen=True)
class FuzzSettings:
    """How the fuzz drives the engine (times in ms, except ``hang_s``)."""

    command: tuple[str, ...] = THIS_ENGINE
    turn_ms: int = 100  #: ``INFO timeout_turn`` of every game
    hang_s: float = 10.0  #: longest wait for a step's answers beyond the turn time
    startup_ms: int = STARTUP_MS  #: extra wait for the first answers of a process


class Shadow:
    """The game as the engine must see it, replayed from the actions only (as
    ``protocol/loop.py`` documents them: TURN places the opponent's stone, the answer
    ours; BOARD/YXBOARD set the stones and our colour; TAKEBACK removes a stone)."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.board: Board | None = None
        self.me: int | None = None  #: the engine's colour, once known

    def apply(self, action: Action) -> None:
        """The effect of ``action`` before the engine's answer."""
        if action.kind == "start":
            self.board, self.me = Board(action.size, rule=self.rule), None
        elif action.kind == "restart":
            assert self.board is not None
            self.board, self.me = Board(self.board.width, rule=self.rule), None
        elif action.kind in ("board", "yxboard"):
            assert self.board is not None
            self.board.set_stones(action.stones, to_move=action.to_move)
            self.me = action.to_move
        elif action.kind == "turn":
            assert self.board is not None and action.point is not None
            me = self.me if self.me is not None else 3 - self.board.to_move
            self.board.play(*action.point, colour=3 - me)
            self.me = me
        elif action.kind == "begin":
            assert self.board is not None
            self.me = self.board.to_move
        elif action.kind == "takeback":
            assert self.board is not None and action.point is not None
            self.board.remove(*action.point)

    def preview(self, action: Action) -> Board | None:
        """The board after ``action`` (before the engine's answer), leaving this one as
        it is."""
        trial = Shadow(self.rule)
        trial.board = self.board.copy() if self.board is not None else None
        trial.me = self.me
        trial.apply(action)
        return trial.board

    def illegal(self, point: Point) -> str | None:
        """Why the engine may not play ``point`` now, or None."""
        board = self.board
        assert board is not None
        x, y = point
        if not (0 <= x < board.width and 0 <= y < board.height):
            return f"{format_pair(point)} is off the board"
        if board.at(x, y) != 0:
            return f"{format_pair(point)} is taken"
        if not board.is_legal(x, y):
            return f"{format_pair(point)} is a renju foul for black"
        return None

    def over(self) -> bool:
        """True when the next action must start a new game (a five, or 10 points left)."""
        board = self.board
        return board is None or bool(board.winner) or (
            board.width * board.height - board.ply <= 10)


def next_action(shadow: Shadow, rng: random.Random, size: int) -> Action:
    """A well-formed command for the game ``shadow`` holds: a new game when it is over,
    else mostly a ``TURN``."""
    board = shadow.board
    if board is None:
        return Action("start", size=size)
    if shadow.over():
        kind = rng.choices(("start", "restart", "board", "yxboard"), (2, 2, 3, 1))[0]
    else:
        kind = rng.choices(("turn", "board", "yxboard", "begin", "takeback", "restart",
                            "start"),
                           (12, 1, 0.5, 2 if board.ply == 0 else 0, 1 if board.ply else 0,
                            0.3, 0.3))[0]
    if kind == "start":
        return Action("start", size=rng.choice((size, size, 15, 20, 9, 32)))
    if kind in ("board", "yxboard"):
        stones, to_move = random_position(rng, board.width, int(shadow.rule),
                                          rng.randint(0, 30))
        return Action(kind, stones=stones, to_move=to_move)
    if kind == "takeback":
        return Action("takeback", point=board.moves()[-1])
    if kind == "turn":
        me = shadow.me if shadow.me is not None else 3 - board.to_move
        point = opponent_point(board, 3 - me, rng)
        if point is not None:
            return Action("turn", point=point)
    return Action("restart") if kind == "restart" or board.ply else Action("begin")


def action_item(action: Action, rng: random.Random) -> Item:
    """The lines of ``action`` (random case and line ends)."""
    if action.kind in ("board", "yxboard"):
        lines: list[str | bytes] = board_lines(action.kind.upper(), action.stones,
                                               action.to_move, rng)
    elif action.kind == "start":
        lines = [f"START {action.size}" + (f" {action.size}" if rng.random() < 0.2 else "")]
    elif action.kind in ("turn", "takeback"):
        assert action.point is not None
        lines = [f"{action.kind.upper()} {format_pair(action.point)}"]
    else:
        lines = [action.kind.upper()]
    if action.kind not in ("board", "yxboard") and rng.random() < 0.3:
        text = str(lines[0])
        lines[0] = (text.lower() if rng.random() < 0.5 else " " + text + " ")
    return Item(encode(lines, rng), len(lines), action=action, hostile=False)


@dataclass
class Step:
    """What one step sends: items before the action, the action, items during its search."""

    before: list[Item]
    action: Item | None
    during: list[Item]

    def lines(self) -> int:
        """Protocol lines sent, the fuzz's own ``INFO`` restores excluded."""
        return sum(i.lines for i in (*self.before, *self.during, self.action)
                   if i is not None and (i.hostile or i.action is not None))

    def data(self) -> bytes:
        return b"".join(i.data for i in (*self.before, *(self.action and [self.action] or []),
                                         *self.during))


@dataclass
class Outcome:
    """Counts of one chunk, and its failures (each with the step's bytes, cut short)."""

    counts: Counter = field(default_factory=Counter)
    failures: list[dict] = field(default_factory=list)


class Session:
    """One engine process of a chunk, its game and its checks.

    :param folder: where a failed process's input is saved for replay.
    :param name: the replay file's stem.
    """

    def __init__(self, settings: FuzzSettings, rule: Rule, folder: Path, name: str) -> None:
        self.settings = settings
        self.rule = rule
        self.shadow = Shadow(rule)
        self.sent = bytearray()  # everything written, for the replay file
        self.touched: set[str] = set(CANONICAL_INFO)  # INFO keys to set before an action
        self.folder, self.name = folder, name
        self.engine = EngineProcess(settings.command)
        self.syncs = 0
        self.replay: str | None = None

    def write(self, data: bytes) -> None:
        """Send raw bytes (no line end added).

        :raises OSError: if the process is gone.
        """
        stdin = self.engine.process.stdin
        assert stdin is not None
        self.sent += data
        stdin.write(data)
        stdin.flush()

    def make_step(self, rng: random.Random, hostile: HostileLines, size: int) -> Step:
        """The next step for the game the shadow holds."""
        board = self.shadow.board
        before = [hostile.item(board) for _ in range(rng.randint(0, 4))]
        for item in before:
            self.touched |= item.info_keys
        action = None
        if board is None or rng.random() < 0.6:
            action = action_item(next_action(self.shadow, rng, size), rng)
            if self.touched:  # junk INFO values must not time the searches
                before.append(info_reset(sorted(self.touched), self.settings.turn_ms,
                                         int(self.rule), rng))
                self.touched.clear()
        during = []
        if action is not None and action.action is not None and action.action.reply == "move":
            after = self.shadow.preview(action.action)  # the points the action takes
            during = [hostile.item(after, searching=True) for _ in range(rng.randint(0, 3))]
        return Step(before, action, during)

    def run_step(self, step: Step, outcome: Outcome) -> bool:
        """Send ``step`` and check its answers; False after a fatal failure."""
        first = self.syncs == 0
        self.syncs += 1
        tag = f"FUZZSYNC {self.syncs}"
        action = step.action.action if step.action is not None else None
        for item in step.during:  # arrive after the action: restored before the next
            self.touched |= item.info_keys
        try:
            self.write(b"".join(i.data for i in step.before)
                       + (step.action.data if step.action is not None else b""))
            if step.during:
                time.sleep(random.Random(self.syncs).uniform(0, 0.03))  # the search runs
                self.write(b"".join(i.data for i in step.during))
            self.write(tag.encode() + b"\n")
        except OSError:
            return self.fail(outcome, "crash", "the engine's input closed", step)
        wait = self.settings.hang_s + (self.settings.turn_ms / 1000 if action else 0)
        if first:
            wait += self.settings.startup_ms / 1000
        answers = self.read_until(tag, wait, outcome, step)
        if answers is None:
            return False
        if action is not None:
            self.shadow.apply(action)
        return self.check(action, answers, outcome, step)

    def read_until(self, tag: str, wait: float, outcome: Outcome, step: Step
                   ) -> list[str] | None:
        """The lines read before the ``UNKNOWN`` answer naming ``tag`` (``UNKNOWN command
        FUZZSYNC 3`` here, ``UNKNOWN FUZZSYNC`` from engines that quote the word only);
        None after a crash or a hang (recorded)."""
        word = tag.split()[0]
        deadline = time.perf_counter() + wait
        answers = []
        while True:
            try:
                line = self.engine.read_line(deadline - time.perf_counter())
            except EngineTimeout:
                self.fail(outcome, "hang", f"no answer to the step within {wait:.1f} s", step)
                return None
            except EOFError:
                try:
                    code = self.engine.process.wait(timeout=5)
                except subprocess.TimeoutExpired:  # output closed, process still there
                    code = None
                self.fail(outcome, "crash", f"the engine exited (code {code})", step)
                return None
            if line.upper().startswith("UNKNOWN") and (tag in line or line.endswith(word)):
                return answers
            answers.append(line)

    def check(self, action: Action | None, answers: Sequence[str], outcome: Outcome,
              step: Step) -> bool:
        """Judge a step's answers (see the module's docstring); False after a fatal one."""
        replies = []
        for line in answers:
            if line == "OK" or _MOVE.fullmatch(line):
                replies.append(line)
            elif line.startswith("ERROR internal error"):
                self.fail(outcome, "internal", line, step)
            elif not line.startswith(_PROTOCOL_WORDS):
                self.fail(outcome, "stray", line, step)
        expected = [] if action is None or action.reply is None else [action.reply]
        if len(replies) != len(expected):
            return self.fail(outcome, "state", f"expected {expected or 'no answer'} to "
                             f"{action.kind if action else 'hostile lines'}, got {replies} "
                             f"(all answers: {list(answers)[:8]})", step)
        if expected == ["OK"] and replies[0] != "OK":
            return self.fail(outcome, "state", f"{action.kind} answered {replies[0]}", step)
        if expected == ["move"]:
            match = _MOVE.fullmatch(replies[0])
            if match is None:
                return self.fail(outcome, "state", f"{action.kind} answered {replies[0]}",
                                 step)
            point = (int(match.group(1)), int(match.group(2)))
            why = self.shadow.illegal(point)
            if why is not None:
                return self.fail(outcome, "illegal", why, step)
            assert self.shadow.board is not None
            self.shadow.board.play(*point)
            outcome.counts["moves"] += 1
        return True

    def fail(self, outcome: Outcome, kind: str, detail: str, step: Step) -> bool:
        """Record a failure (the first of a process saves its input); False if fatal."""
        outcome.counts[kind] += 1
        if self.replay is None:
            self.replay = f"fuzz-failure-{self.name}.txt"
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / self.replay).write_bytes(bytes(self.sent))
        outcome.failures.append({"kind": kind, "detail": detail[:500],
                                 "step": repr(step.data()[:600]), "replay": self.replay})
        return kind not in FATAL

    def close(self, outcome: Outcome) -> None:
        """Send END: the process must exit at once with code 0 (else a hang or crash)."""
        code = self.engine.close(grace=2.0)
        if code is None:
            outcome.counts["hang"] += 1
            outcome.failures.append({"kind": "hang", "detail": "no exit within 2 s of END",
                                     "replay": self.replay})
        elif code != 0:
            outcome.counts["crash"] += 1
            outcome.failures.append({"kind": "crash", "detail": f"exit code {code} after END",
                                     "replay": self.replay})


def run_chunk(number: int, lines: int, seed: int, settings: FuzzSettings, folder: Path
              ) -> dict:
    """Send chunk ``number``'s ``lines`` lines (its rule and board size by its number, its
    lines from ``(seed, number)``) and return its record: the counts (``lines``,
    ``protocol_lines`` with the fuzz's own, ``moves`` checked, ``processes``, and each
    failure kind) and the failures."""
    rng = random.Random(f"fuzz:{seed}:{number}")
    hostile = HostileLines(rng)
    rule_name = FUZZ_RULES[number % len(FUZZ_RULES)]
    size = (15, 20)[number // len(FUZZ_RULES) % 2]
    outcome = Outcome()
    sent = 0
    while sent < lines:
        outcome.counts["processes"] += 1
        session = Session(settings, RULE_NAMES[rule_name], folder,
                          f"chunk{number:04d}-{outcome.counts['processes']}")
        alive = True
        while alive and sent < lines:
            step = session.make_step(rng, hostile, size)
            alive = session.run_step(step, outcome)
            sent += step.lines()
            outcome.counts["protocol_lines"] += step.lines() + sum(
                i.lines for i in step.before if not i.hostile and i.action is None) + 1
        if alive:
            session.close(outcome)
        else:
            session.engine.close(grace=0.5)
    counts = {k: outcome.counts[k] for k in ("moves", "processes", "protocol_lines",
                                              "crash", "hang", "illegal", "state",
                                              "internal", "stray")}
    return {"chunk": number, "seed": seed, "rule": rule_name, "size": size, "lines": sent,
            **counts, "failures": outcome.failures[:20]}


def run_fuzz(total_lines: int, seed: int, shard: tuple[int, int], done: Iterable[int],
             out: RecordFile, settings: FuzzSettings, chunk_lines: int = CHUNK_LINES,
             on_chunk: Callable[[dict], None] | None = None) -> int:
    """Run the chunks of ``shard`` not in ``done`` one after another, appending each
    record to ``out``; returns the number of chunks run.

    :param total_lines: lines of the whole fuzz, all shards (the last chunk may be short).
    """
    chunks = -(-total_lines // chunk_lines)
    ran = 0
    for number in pending(range(chunks), done, shard):
        lines = min(chunk_lines, total_lines - number * chunk_lines)
        record = run_chunk(number, lines, seed, settings, out.path.parent)
        out.append(record)
        ran += 1
        if on_chunk is not None:
            on_chunk(record)
    return ran


def fuzz_summary(records: Sequence[dict]) -> dict:
    """Totals over chunk records: ``chunks``, ``lines``, ``protocol_lines``, ``moves``,
    ``processes``, the failure counts (``crash``, ``hang``, ``illegal``, ``state``,
    ``internal``, ``stray``) and ``first_failure`` (a failure entry, or None)."""
    keys = ("lines", "protocol_lines", "moves", "processes", "crash", "hang", "illegal",
            "state", "internal", "stray")
    totals = {k: sum(r[k] for r in records) for k in keys}
    failures = [f for r in sorted(records, key=lambda r: r["chunk"]) for f in r["failures"]]
    return {"chunks": len(records), **totals,
            "first_failure": failures[0] if failures else None}


def summary_lines(records: Sequence[dict]) -> list[str]:
    """The fuzz's report as text (:func:`fuzz_summary`)."""
    s = fuzz_summary(records)
    lines = [f"chunks: {s['chunks']}, lines sent: {s['lines']} ({s['protocol_lines']} with "
             f"the fuzz's own sync and INFO lines), moves checked: {s['moves']}, engine "
             f"processes: {s['processes']}",
             f"crashes: {s['crash']}, hangs: {s['hang']}, illegal moves: {s['illegal']}, "
             f"state losses: {s['state']}, internal errors: {s['internal']}, stray "
             f"output lines: {s['stray']}"]
    first = s["first_failure"]
    if first is not None:
        lines.append(f"first failure: {first['kind']}: {first['detail']} (input saved in "
                     f"{first['replay']})")
    return lines


__all__ = ["CHUNK_LINES", "FUZZ_KIND", "FUZZ_LINES", "FUZZ_RULES", "FuzzSettings", "Session",
           "Shadow", "fuzz_summary", "next_action", "run_chunk", "run_fuzz",
           "summary_lines"]
