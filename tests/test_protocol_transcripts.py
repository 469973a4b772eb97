"""Replay the annotated protocol transcripts in ``protocol_examples/`` against the engine.

The transcript format is defined in ``protocol_examples/README.md``. Every transcript runs a
real engine subprocess (``python -m gomoku_engine``). All of its ``>`` lines are written at
once and then stdin is closed. The whole output is read until EOF and compared with the
``<`` lines, while the test tracks the board itself.

The other tests here check what a transcript cannot. END sent on its own during a search,
YXSTOP during a search, the exit at end of input, and a run under ``python -W error``.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import (MOVE, WARM_TIMEOUT, LiveEngine, live,  # noqa: F401 (a fixture)
                     run_session, split_output, stones_have_five)

from gomoku_engine.protocol.settings import NAMED_SETTINGS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "protocol_examples"
TRANSCRIPTS = sorted(EXAMPLES.glob("*.txt"))

#: Transcripts that show an engine bug: they must fail until the bug is fixed.
KNOWN_BUGS: dict[str, str] = {}

#: Command words the engine knows. A BOARD block cut short by one of them is rejected.
COMMANDS = {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "INFO",
            "END", "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "STOP", "YXSHOWINFO",
            "YXHASHCLEAR", "SWAP2BOARD", "YXSHOWFORBID", "YXBLOCK", "YXBLOCKUNDO",
            "YXBLOCKRESET", "YXNBEST", "YXSEARCHDEFEND", "YXBALANCEONE", "YXBALANCETWO"}
#: Yixin-Board's and Rapfi's block commands the engine does not support: read up to DONE,
#: then one UNKNOWN line (docs/protocol.md).
UNSUPPORTED_BLOCKS = {"YXBLOCKPATH", "YXBLOCKPATHUNDO", "YXQUERYDATABASEALL",
                      "YXQUERYDATABASEONE", "YXDELETEDATABASEONE", "YXSOOSORVSTEP3"}
#: the commands whose block is x,y points that change no stone
POINT_BLOCKS = {"YXBLOCK", "YXBLOCKUNDO"} | UNSUPPORTED_BLOCKS
MIN_SIZE, MAX_SIZE = 5, 32
ABOUT_KEYS = {"name", "version", "author", "country", "www"}

_MOVES = re.compile(r"\d+,\d+( \d+,\d+){1,2}")  # a SWAP2BOARD answer of 2 or 3 stones
_PAIR_OF_MOVES = re.compile(r"\d+,\d+ \d+,\d+")  # YXBALANCETWO's answer
_FORBID = re.compile(r"FORBID (\d{4})*\.")
#: expectations that list moves: "ONE OF 6,7 11,7" (one of them), "NOT 6,8" (none of them)
_MOVE_LISTS = {"ONE OF ": "oneof", "NOT ": "not"}
_PAIR = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*")
_ABOUT_PAIR = re.compile(r'(\w+)="([^"]*)"')
#: Yixin-Board's detail lines (``INFO show_detail`` bit 2): an upper-case key and a value
_DETAIL = re.compile(r"INFO [A-Z]+ \S.*")


def is_chatter(line: str) -> bool:
    """A line no expectation needs to ask for: a MESSAGE or a detail INFO line."""
    return line.startswith("MESSAGE") or line.startswith("INFO ")

Point = tuple[int, int]


# --- the engine's output (run by helpers.run_session and helpers.LiveEngine) -------------
def protocol_problem(line: str) -> str | None:
    """Why ``line`` is not a line a manager can read, or None if it is fine."""
    if not line.isascii() or not line.replace("\t", " ").isprintable():
        return "non-ASCII or control characters"
    if line in ("OK", "SWAP") or MOVE.fullmatch(line) or _MOVES.fullmatch(line):
        return None
    if line.startswith("FORBID"):
        return None if _FORBID.fullmatch(line) else "FORBID needs 4-digit points and a '.'"
    for word in ("ERROR", "UNKNOWN", "MESSAGE"):
        if line.startswith(word):
            if not line.startswith(word + " ") or not line[len(word):].strip():
                return f"{word} needs a non-empty text after one space"
            return None
    if line.startswith("name="):
        return about_problem(line)
    if line.startswith("INFO "):
        return None if _DETAIL.fullmatch(line) else "INFO needs an upper-case key and a value"
    return "neither OK, a move, ERROR, UNKNOWN, MESSAGE nor an ABOUT line"


def about_problem(line: str) -> str | None:
    """Check the ABOUT reply as the strict managers parse it (protocol.md §2.11)."""
    pairs = [p.strip() for p in line.split(",")]
    keys = []
    for pair in pairs:
        match = _ABOUT_PAIR.fullmatch(pair)
        if not match:
            return f"ABOUT part {pair!r} is not key=\"value\" (or a value holds , = or \")"
        keys.append(match.group(1))
    if "name" not in keys:
        return "ABOUT has no name"
    if not set(keys) <= ABOUT_KEYS:
        return f"ABOUT has keys outside {sorted(ABOUT_KEYS)}: {keys}"
    return None


def assert_protocol_output(lines: list[str]) -> None:
    bad = [(line, problem) for line in lines if (problem := protocol_problem(line))]
    assert not bad, "non-protocol lines on stdout:\n" + "\n".join(
        f"  {line!r}: {problem}" for line, problem in bad)


# --- transcripts ---------------------------------------------------------------------------
@dataclass
class Send:
    text: str
    lineno: int


@dataclass
class Expect:
    kind: str  # "exact", "prefix", "move", "oneof", "not", "swap2" or "pair"
    value: str
    choices: tuple[str, ...]
    lineno: int

    def __str__(self) -> str:
        if self.kind == "prefix":
            return f"{self.value}*"
        if self.kind == "oneof":
            return "ONE OF " + " ".join(self.choices)
        if self.kind == "not":
            return "NOT " + " ".join(self.choices)
        return self.value

    def matches(self, line: str) -> bool:
        if self.kind == "exact":
            return line == self.value
        if self.kind == "prefix":
            return line.startswith(self.value)
        if self.kind == "move":
            return MOVE.fullmatch(line) is not None
        if self.kind == "not":
            return MOVE.fullmatch(line) is not None and line not in self.choices
        if self.kind == "swap2":
            return line == "SWAP" or bool(MOVE.fullmatch(line) or _MOVES.fullmatch(line))
        if self.kind == "pair":
            return _PAIR_OF_MOVES.fullmatch(line) is not None
        return line in self.choices

    @property
    def is_message(self) -> bool:
        return self.value.startswith("MESSAGE")


@dataclass
class Transcript:
    path: Path
    steps: list[Send | Expect]
    newline: bytes = b"\n"

    def input_bytes(self) -> bytes:
        return b"".join(s.text.encode("ascii") + self.newline
                        for s in self.steps if isinstance(s, Send))


def _unescape(text: str, where: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code not in ("s", "t", "\\"):
            raise ValueError(f"{where}: unknown escape \\{code}")
        return {"s": " ", "t": "\t", "\\": "\\"}[code]

    return re.sub(r"\\(.)", one, text)


def parse_transcript(path: Path) -> Transcript:
    transcript = Transcript(path, [])
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{lineno}"
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith("#"):
            directive = line[1:].strip()
            if directive == "@crlf":
                transcript.newline = b"\r\n"
            elif directive == "@cr":
                transcript.newline = b"\r"
            elif directive.startswith("@"):
                raise ValueError(f"{where}: unknown directive {directive!r}")
            continue
        if line == ">" or line.startswith("> "):
            transcript.steps.append(Send(_unescape(line[2:], where), lineno))
        elif line.startswith("< "):
            text = line[2:]
            prefix = next((p for p in _MOVE_LISTS if text.startswith(p)), None)
            if text in ("MOVE", "SWAP2", "PAIR"):
                expect = Expect(text.lower(), text, (), lineno)
            elif prefix is not None:
                choices = tuple(text[len(prefix):].split())
                if not choices or not all(MOVE.fullmatch(c) for c in choices):
                    raise ValueError(f"{where}: {prefix.strip()} needs moves x,y")
                expect = Expect(_MOVE_LISTS[prefix], text, choices, lineno)
            elif text.endswith("*"):
                expect = Expect("prefix", text[:-1], (), lineno)
            else:
                expect = Expect("exact", text, (), lineno)
            transcript.steps.append(expect)
        else:
            raise ValueError(f"{where}: a line must start with '#', '> ' or '< ': {raw!r}")
    if not any(isinstance(s, Send) for s in transcript.steps):
        raise ValueError(f"{path.name}: nothing to send")
    return transcript


# --- the board as the test sees it ---------------------------------------------------------
class TrackError(AssertionError):
    """The engine's reply disagrees with the tracked game."""


def parse_pair(text: str) -> Point | None:
    match = _PAIR.fullmatch(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass
class Tracker:
    """An independent model of the game state, for judging the engine's replies."""

    size: Point | None = None  # (width, height) after a valid START
    stones: set[Point] = field(default_factory=set)
    block: tuple[str, list[str], int] | None = None  # open BOARD-like block
    pending: str | None = None  # the last command still waiting for its reply
    valid: bool = True  # whether the tracker accepted that command
    played: Point | None = None  # the point of the last PLAY
    swap2_given: int = 0  # stones in the last valid SWAP2BOARD
    rule_sent: bool = False  # an INFO rule came, whose refusal may precede a reply
    param_sent: bool = False  # an INFO param came (its name and value are not judged here)
    #: INFO keys of named settings (evaluation, algorithm, opening) given an unknown name
    refused_names: set[str] = field(default_factory=set)
    ended: bool = False  # after END nothing is run

    # commands
    def feed(self, send: Send) -> None:
        tokens = send.text.split()
        if self.ended or not tokens:
            return
        word = tokens[0].upper()
        if self.block is not None:
            if word in COMMANDS:
                self.close_block(terminated=False)
            else:
                self._block_tokens(tokens)
                return
        rest = send.text.strip()[len(tokens[0]):].strip()
        self.pending, self.valid = word, True
        if word == "START":
            try:
                sizes = [int(n) for n in rest.replace(",", " ").split()]
            except ValueError:
                sizes = []
            self.valid = len(sizes) in (1, 2) and self._new_game(sizes[0], sizes[-1])
        elif word == "RECTSTART":
            pair = parse_pair(rest)
            self.valid = pair is not None and self._new_game(*pair)
        elif word == "RESTART":
            self.valid = self.size is not None and self._new_game(*self.size)
        elif word == "BEGIN":
            self.valid = self.size is not None
        elif word in ("TURN", "PLAY"):
            point = parse_pair(rest)
            self.valid = point is not None and self._is_free(point)
            if self.valid:
                self.stones.add(point)
                self.played = point
        elif word == "TAKEBACK":
            point = parse_pair(rest)
            self.valid = self.size is not None and point in self.stones
            if self.valid:
                self.stones.discard(point)
        elif word in ("BOARD", "YXBOARD", "SWAP2BOARD") or word in POINT_BLOCKS:
            self.block = (word, [], send.lineno)
            self._block_tokens(tokens[1:])
        elif word == "YXSHOWFORBID":
            self.valid = self.size is not None
        elif word in ("YXNBEST", "YXBALANCEONE", "YXBALANCETWO"):
            self.valid = self.size is not None and re.fullmatch(r"-?\d+", rest) is not None
        elif word == "YXSEARCHDEFEND":
            self.valid = self.size is not None
        elif word == "END":
            self.ended = True
        elif word == "INFO" and rest.lower().startswith("rule"):
            self.rule_sent = True
            self.pending = None  # INFO gets no reply
        elif word == "INFO" and rest.lower().startswith("param"):
            self.param_sent = True
            self.pending = None  # an ERROR at most, at once
        elif word == "INFO" and rest.split()[:1] and rest.split()[0].lower() in NAMED_SETTINGS:
            key, _, name = rest.partition(" ")
            if name.strip().lower() not in NAMED_SETTINGS[key.lower()][1]:
                self.refused_names.add(key.lower())  # judged: its ERROR must come
            self.pending = None  # INFO gets no reply
        # INFO, ABOUT, YXSTOP, STOP, YXSHOWINFO, YXHASHCLEAR, YXBLOCKRESET and unknown
        # words: no change

    def _new_game(self, width: int, height: int) -> bool:
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
            return False
        self.size = (width, height)
        self.stones = set()
        return True

    def _on_board(self, point: Point) -> bool:
        assert self.size is not None
        return 0 <= point[0] < self.size[0] and 0 <= point[1] < self.size[1]

    def _is_free(self, point: Point) -> bool:
        return self.size is not None and self._on_board(point) and point not in self.stones

    def _block_tokens(self, tokens: list[str]) -> None:
        assert self.block is not None
        for token in tokens:
            if token.upper() == "DONE":
                self.close_block()
                return  # the engine ignores the rest of a line after DONE
            self.block[1].append(token)

    def close_block(self, terminated: bool = True) -> None:
        """End the open BOARD/YXBOARD/SWAP2BOARD/YXBLOCK block and judge it as the engine must.

        A block cut short (no DONE) is rejected whole with an ERROR line, the position
        unchanged.
        """
        if self.block is None:
            return
        word, tokens, _ = self.block
        self.block = None
        self.pending, self.valid = word, terminated
        if not terminated:
            return
        if word in UNSUPPORTED_BLOCKS:  # one UNKNOWN line, whatever the block holds
            return
        if word in POINT_BLOCKS:  # points the moves avoid: the board is unchanged
            points = [parse_pair(token) for token in tokens]
            self.valid = (self.size is not None
                          and all(p is not None and self._on_board(p) for p in points))
            return
        if word == "SWAP2BOARD":
            points = [parse_pair(token) for token in tokens]
            self.valid = (self.size is not None and len(points) in (0, 3, 5)
                          and all(p is not None and self._on_board(p) for p in points)
                          and len(set(points)) == len(points))
            if self.valid:
                self.stones = set(points)  # type: ignore[arg-type]
                self.swap2_given = len(points)
            return
        stones: list[tuple[int, int, int]] = []
        for token in tokens:
            parts = token.split(",")
            try:
                x, y, f = (int(p) for p in parts)
            except ValueError:
                self.valid = False
                return
            stones.append((x, y, f))
        points = [(x, y) for x, y, _ in stones]
        # any counts are a position (a composed one); a five already on the board is not
        self.valid = (self.size is not None
                      and all(f in (1, 2) for _, _, f in stones)
                      and len(set(points)) == len(points)
                      and all(self._on_board(p) for p in points)
                      and not any(stones_have_five(stones, f, *self.size) for f in (1, 2)))
        if self.valid:
            self.stones = set(points)

    # replies
    def reply(self, line: str) -> None:
        """Account for a matched reply line (never called for MESSAGE lines)."""
        command, valid = self.pending, self.valid
        if line.startswith("ERROR rule ") and self.rule_sent:
            self.rule_sent = False  # a refused INFO rule (after OK when it came with START)
            return
        if line.startswith("ERROR INFO param ") and self.param_sent:
            return  # a refused INFO param, answered at once
        words = line.split()
        named = words[2].lower() if words[:2] == ["ERROR", "INFO"] and len(words) > 2 else ""
        if named in self.refused_names:
            self.refused_names.discard(named)  # an unknown name of INFO evaluation, ...
            return
        if line.startswith("ERROR"):
            if command is not None and valid:
                raise TrackError(f"ERROR for {command}, which the test judged valid")
            self.pending = None
            return
        if command == "SWAP2BOARD" and valid:
            self._swap2_answer(line)
            self.pending = None
            return
        if line.startswith("FORBID"):
            if command != "YXSHOWFORBID" or self.size is None:
                raise TrackError(f"FORBID after {command}")
            points = [(int(c[:2]), int(c[2:])) for c in re.findall(r"\d{4}", line)]
            if not all(self._is_free(p) for p in points):
                raise TrackError(f"FORBID lists a point that is off the board or taken: {line}")
            self.pending = None
            return
        if command == "YXBALANCETWO" and valid and _MOVES.fullmatch(line):
            pair = [parse_pair(token) for token in line.split()]
            if len(pair) != 2 or len(set(pair)) != 2 or not all(
                    p is not None and self._is_free(p) for p in pair):
                raise TrackError(f"YXBALANCETWO answered {line}: not two free points")
            self.stones.update(pair)  # type: ignore[arg-type]
            self.pending = None
            return
        move = MOVE.fullmatch(line)
        if line == "OK":
            if command not in ("START", "RECTSTART", "RESTART", "TAKEBACK") or not valid:
                raise TrackError(f"OK after {command} (judged {'valid' if valid else 'invalid'})")
        elif move:
            point = (int(move.group(1)), int(move.group(2)))
            if command == "PLAY" and valid:
                if point != self.played:
                    raise TrackError(f"PLAY echoed {line}, expected {self.played}")
            elif command in ("BEGIN", "TURN", "BOARD", "YXNBEST", "YXSEARCHDEFEND",
                             "YXBALANCEONE") and valid:
                if not self._is_free(point):
                    raise TrackError(f"illegal move {line}: off the {self.size} board or "
                                     "occupied")
                self.stones.add(point)
            else:
                raise TrackError(f"a move after {command} "
                                 f"(judged {'valid' if valid else 'invalid'})")
        self.pending = None


    def _swap2_answer(self, line: str) -> None:
        """Check a SWAP2BOARD answer against the case (protocol.md section 2.12)."""
        given = self.swap2_given
        if line == "SWAP":
            if given == 0:
                raise TrackError("SWAP in Swap2 case 1 (the stones must be placed)")
            return
        points = [parse_pair(token) for token in line.split()]
        allowed = {0: (3,), 3: (1, 2), 5: (1,)}[given]
        if len(points) not in allowed:
            raise TrackError(f"{len(points)} stones answered to {given} given")
        if not all(p is not None and self._is_free(p) for p in points) or \
                len(set(points)) != len(points):
            raise TrackError(f"Swap2 stones off the board, taken or repeated: {line}")


# --- comparison ----------------------------------------------------------------------------
def compare(transcript: Transcript, lines: list[str]) -> None:
    tracker = Tracker()
    index = 0

    def fail(message: str, lineno: int) -> None:
        shown = "\n".join(f"  {'>>' if i == index else '  '} {line}"
                          for i, line in enumerate(lines))
        pytest.fail(f"{transcript.path.name}:{lineno}: {message}\nengine output "
                    f"(>> = current line):\n{shown}", pytrace=False)

    for step in transcript.steps:
        if isinstance(step, Send):
            tracker.feed(step)
            continue
        tracker.close_block(terminated=False)  # a reply: the engine has ended the block
        while True:
            if index >= len(lines):
                fail(f"expected {step}, but the output ended", step.lineno)
            line = lines[index]
            if step.matches(line):
                break
            if not is_chatter(line):
                fail(f"expected {step}, got {line!r}", step.lineno)
            index += 1  # chatter that this expectation does not ask for
        if not is_chatter(line):
            try:
                tracker.reply(line)
            except TrackError as exc:
                fail(str(exc), step.lineno)
        index += 1
    extra = [line for line in lines[index:] if not is_chatter(line)]
    if extra:
        fail(f"unexpected output after the last expectation: {extra}",
             transcript.steps[-1].lineno)


# --- tests ---------------------------------------------------------------------------------
def test_transcripts_exist() -> None:
    assert len(TRANSCRIPTS) >= 20, f"protocol transcripts missing in {EXAMPLES}"


def _transcript_params() -> list:
    params = []
    for path in TRANSCRIPTS:
        marks = []
        if path.stem in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[path.stem]))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def test_known_bug_transcripts_exist() -> None:
    assert set(KNOWN_BUGS) <= {p.stem for p in TRANSCRIPTS}


def test_readme_lists_every_transcript() -> None:
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in TRANSCRIPTS if f"`{p.name}`" not in readme]
    assert not missing, f"add these to the table in protocol_examples/README.md: {missing}"


@pytest.mark.parametrize("path", _transcript_params())
def test_transcript(path: Path, tmp_path: Path) -> None:
    transcript = parse_transcript(path)
    code, out, err = run_session(transcript.input_bytes(), tmp_path)
    assert err == b"", f"stderr not empty: {err.decode('ascii', 'replace')[:2000]}"
    lines = split_output(out)
    assert_protocol_output(lines)
    compare(transcript, lines)
    assert code == 0, f"exit code {code}"


#: A quiet middle-game position: nobody has a three, so the search runs its full time.
QUIET_BOARD = "BOARD\n7,7,1\n8,8,2\n8,7,1\n6,8,2\nDONE\n"
QUIET_STONES = {(7, 7), (8, 8), (8, 7), (6, 8)}


#: How long a stop may take to show, s: far less than the ~10 s the search plans by itself
#: (so a stop that did not work fails), far more than scheduling under load can add.
STOP_WITHIN_S = 5.0


def start_long_search(engine: LiveEngine) -> int:
    """Start a search with a 20 s turn (about 10 s planned) and return once it runs.

    BEGIN first, so that the engine has finished its warm-up and built the board.  With
    ``INFO show_detail 1`` the engine reports each iteration: the first report shows that
    the search runs (an event, not a guess by sleeping).  Returns the number of lines read
    before BOARD was sent.
    """
    engine.send("START 15\nINFO timeout_turn 20000\nINFO show_detail 1\nBEGIN\n")
    engine.wait_line(lambda line: line == "7,7", timeout=WARM_TIMEOUT)
    before = engine.mark()
    engine.send(QUIET_BOARD)
    engine.wait_line(lambda line: line.startswith("MESSAGE depth"), timeout=WARM_TIMEOUT,
                     start=before)
    assert engine.proc.poll() is None
    replies = [raw for _, raw in engine.lines[before:] if not raw.startswith("MESSAGE")]
    assert not replies, "the search ended before the stop"
    return before


def test_end_alone_during_search_exits_at_once(live) -> None:
    engine = live()
    before = start_long_search(engine)
    sent = engine.send("END\n")
    code = engine.proc.wait(timeout=STOP_WITHIN_S)
    elapsed = time.perf_counter() - sent
    assert code == 0
    assert elapsed < STOP_WITHIN_S, f"END took {elapsed:.3f} s"
    out, err = engine.finish()
    # (the search's own lines for show_detail 1 may come before END: MESSAGE lines)
    assert [line for line in out.splitlines()[before:]
            if not line.startswith("MESSAGE ")] == [], "END must print nothing"
    assert err == b""


def test_yxstop_alone_during_search_returns_the_move(live) -> None:
    engine = live()
    start_long_search(engine)
    start = engine.mark()
    sent = engine.send("YXSTOP\n")
    stamp, line = engine.wait_line(lambda text: not text.startswith("MESSAGE"), timeout=5,
                                   start=start)
    assert stamp - sent < STOP_WITHIN_S, f"move {stamp - sent:.3f} s after YXSTOP"
    move = MOVE.fullmatch(line)
    assert move, f"not a move: {line!r}"
    point = (int(move.group(1)), int(move.group(2)))
    assert 0 <= point[0] < 15 and 0 <= point[1] < 15 and point not in QUIET_STONES
    # The game goes on after the stop: the next TURN is answered normally.
    start = engine.mark()
    engine.send("INFO show_detail 0\nINFO max_depth 2\nTURN 0,0\n")
    _, reply = engine.wait_line(lambda text: not text.startswith("MESSAGE"), timeout=10,
                                start=start)
    assert MOVE.fullmatch(reply), reply
    reply_point = tuple(int(n) for n in reply.split(","))
    assert reply_point not in QUIET_STONES | {point, (0, 0)}
    engine.proc.stdin.close()
    assert engine.proc.wait(timeout=10) == 0
    out, err = engine.finish()
    assert err == b""
    assert_protocol_output(split_output(out.encode()))


@pytest.mark.parametrize("data, expected", [
    (b"", []),
    (b"ABOUT", ["name="]),  # the last line needs no newline
    (b"START 15\nINFO max_depth 2\nBEGIN\nTURN 0,0\n", ["OK", "7,7", r"\d+,\d+"]),
], ids=["empty", "no-final-newline", "queued-moves"])
def test_end_of_input_exits_with_code_0(data: bytes, expected: list[str],
                                        tmp_path: Path) -> None:
    """Every queued command is answered (each reply matching its pattern), then exit 0."""
    code, out, err = run_session(data, tmp_path)  # fails if the engine does not exit
    assert code == 0
    assert err == b""
    lines = [line for line in split_output(out) if not line.startswith("MESSAGE")]
    assert_protocol_output(lines)
    assert len(lines) == len(expected), lines
    for line, pattern in zip(lines, expected):
        assert re.match(pattern, line), lines
    if len(lines) == 3:
        assert lines[2] not in ("7,7", "0,0"), lines  # a free point


# Regression: a line made only of an ASCII separator (0x1c..0x1f) passed the bytes.strip()
# test but str.strip() emptied it, and the reader thread died on text.split()[0].
def test_control_character_line_is_ignored(tmp_path: Path) -> None:
    code, out, err = run_session(b"START 15\n\x1c\nABOUT\n", tmp_path, timeout=5)
    assert code == 0 and err == b""
    lines = split_output(out)
    assert lines[0] == "OK" and lines[-1].startswith("name="), lines


# Regression: UNKNOWN echoed the command's control characters (NUL, ESC) raw.
def test_unknown_reply_is_printable(tmp_path: Path) -> None:
    code, out, err = run_session(b"\x00\x1b[2J\nABOUT\n", tmp_path)
    assert code == 0 and err == b""
    lines = split_output(out)
    assert lines[0].startswith("UNKNOWN") and lines[1].startswith("name="), lines
    assert_protocol_output(lines)


def test_eof_when_idle_exits_promptly(live) -> None:
    engine = live()
    engine.send("START 15\n")
    engine.wait_line(lambda line: line == "OK", timeout=WARM_TIMEOUT)
    engine.proc.stdin.close()
    assert engine.proc.wait(timeout=STOP_WITHIN_S) == 0  # (an idle engine has nothing to do)


WARNINGS_SESSION = """\
ABOUT
INFO timeout_turn 300
INFO max_memory 367001600
INFO game_type 1
INFO rule 1
START 15
BEGIN
TURN 7,8
BOARD
7,7,2
8,8,1
6,6,2
DONE
TAKEBACK 6,6
TURN 0,14
YXBOARD 7,7,1 8,8,2 DONE
YXSHOWINFO
YXHASHCLEAR
SWAP2BOARD
DONE
TURN 99,99
BOGUS
RESTART
START 20
BEGIN
END
"""


def test_python_warnings_as_errors_still_only_protocol_lines(tmp_path: Path) -> None:
    code, out, err = run_session(WARNINGS_SESSION.encode(), tmp_path,
                                 python_flags=("-W", "error", "-X", "dev"))
    assert err == b"", err.decode("ascii", "replace")
    assert code == 0
    lines = split_output(out)
    assert_protocol_output(lines)
    replies = [line for line in lines if not line.startswith("MESSAGE")]
    assert len(replies) == 13, replies
    assert replies[0].startswith("name=") and replies[1] == "OK"
    assert not any(line.startswith("ERROR internal") for line in replies), replies


def test_sessions_leave_no_files(tmp_path: Path) -> None:
    """The engine writes nothing into its working directory (protocol.md §1.1)."""
    run_session(b"START 15\nINFO max_depth 2\nBEGIN\nTURN 1,1\n", tmp_path)
    assert os.listdir(tmp_path) == []


# --- the comparator itself (no engine) -----------------------------------------------------
def _transcript(text: str, tmp_path: Path) -> Transcript:
    path = tmp_path / "t.txt"
    path.write_text(text)
    return parse_transcript(path)


@pytest.mark.parametrize("text, output", [
    # a move on a stone the opponent just played
    ("> START 15\n< OK\n> TURN 7,7\n< MOVE\n", ["OK", "7,7"]),
    # a move off the board
    ("> START 15\n< OK\n> BEGIN\n< MOVE\n", ["OK", "15,3"]),
    # an ERROR where the test judged the command valid
    ("> START 15\n< OK\n> TURN 7,7\n< ERROR*\n", ["OK", "ERROR TURN 7,7: occupied"]),
    # a reply where the test judged the command invalid
    ("> START 15\n< OK\n> TURN 7,7\n< MOVE\n> TURN 7,7\n< MOVE\n", ["OK", "8,8", "9,9"]),
    # a reply to a command that needs none
    ("> INFO rule 0\n> ABOUT\n< name=*\n", ["OK", 'name="x"']),
    # output left over
    ("> START 15\n< OK\n", ["OK", "OK"]),
    # output missing
    ("> START 15\n< OK\n> BEGIN\n< 7,7\n", ["OK", "MESSAGE depth 0"]),
    # an expected MESSAGE that does not come before the reply
    ("> INFO rule 4\n> START 15\n< MESSAGE rule 4*\n< OK\n", ["MESSAGE other", "OK"]),
    # a wrong PLAY echo
    ("> START 15\n< OK\n> PLAY 3,3\n< MOVE\n", ["OK", "3,4"]),
    # a move after the stones of an invalid BOARD
    ("> START 15\n< OK\n> BOARD\n> 1,1,3\n> DONE\n< MOVE\n", ["OK", "7,7"]),
])
def test_comparator_rejects(text: str, output: list[str], tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception):
        compare(_transcript(text, tmp_path), output)


def test_comparator_accepts_and_tracks(tmp_path: Path) -> None:
    text = """\
> START 15
< OK
> BOARD
> 7,7,2
> 8,8,1
> 6,6,2
< ERROR*
> TURN 9,9
< MOVE
> TAKEBACK 9,9
< OK
> TURN 9,9
< ONE OF 1,1 2,2
> INFO rule 4
> ABOUT
< MESSAGE rule 4*
< name=*
"""
    output = ["OK", "ERROR BOARD not terminated by DONE: position unchanged",
              "MESSAGE depth 1", "4,4", "OK", "2,2", "MESSAGE rule 4 is not supported",
              'name="x"', "MESSAGE trailing chatter"]
    compare(_transcript(text, tmp_path), output)


def test_protocol_line_check() -> None:
    good = ["OK", "7,7", "ERROR bad", "UNKNOWN x", "MESSAGE depth 1",
            'name="a", version="1", author="b c", country="CZ"', "INFO PV 0",
            "INFO BESTLINE 7,7 8,8"]
    bad = ["ok", "7, 7", "7,7 ", "ERROR", "ERRORx", "DEBUG hi", "SUGGEST 7,7", "",
           "INFO", "INFO PV", "INFO pv 0",
           'name="a", email="x"', 'name="a,b"', "MESSAGE caf\u00e9", "Traceback (most recent"]
    assert [protocol_problem(line) for line in good] == [None] * len(good)
    assert all(protocol_problem(line) for line in bad)
