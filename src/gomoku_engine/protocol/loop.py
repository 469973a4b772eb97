"""The Gomocup ("pbrain") protocol loop on a pair of byte streams.

Layout (``../shared/protocol.md`` sections 1.6 and 9.4): a *reader* thread reads stdin,
stamps every line with its arrival time and queues it; it acts on ``END`` (sent on its own)
and ``YXSTOP``/``STOP`` at once, even while a search runs (the search kernel releases the
GIL).  A *command* thread executes the queued commands in order and runs the searches,
and the calling thread only waits for the end, so END ends the loop even while the
command thread is busy.  The kernels the settings can call are loaded (from numba's cache,
or compiled when it is cold) in a thread of its own from the start
(:class:`gomoku_engine.protocol.kernel_loader.KernelLoader`), and optional ones (the VCT solver,
the genetic algorithm) as soon as ``INFO`` selects them: ``ABOUT`` is answered at once,
``START`` waits for them until ``START_WAIT_S`` after the manager sent it (the process's
start, when it was already waiting in the pipe), and only a move that comes before they
are ready waits longer (a cold compile).

Replies are single lines ending in ``\\n``, written under one lock and flushed at once.
Nothing else reaches stdout; bad input gets ``ERROR <reason>`` with the game state left as
it was, unknown commands ``UNKNOWN <text>``; a move request is never answered with ERROR
once a game exists.  Only :class:`gomoku_engine.engine.Engine`'s public API is used here.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from .. import __version__
from ..core.constants import BLACK, MAX_SIZE, MIN_SIZE, WHITE, Rule, mate_in
from ..kernels import kernel_groups
from ..engine import (
    ALGORITHMS, DEFAULT_ALGORITHM, MAX_THREADS, Engine, Limits, SearchInfo, SearchResult,
)
from ..core.errors import GomokuError
from ..eval.classical import EVALUATIONS
from .kernel_loader import KernelLoader
from ..search.levels import LEVELS, MAX_LEVEL, blunder_move, combine, level_for_strength
from ..core.notation import Point, format_pair, format_point, format_score, parse_pair
from ..core.opening_rules import OPENING_RULES
from .swap2 import OpeningChoice, answer_five, answer_three, propose_opening
from ..search.timeman import UNLIMITED, TimeControl

ABOUT = (f'name="gomoku-engine", version="{__version__}", '
         'author="gomoku-engine developers", country="International"')

#: MiB of INFO max_memory kept for Python, numba and the tables; the rest is hash
#: (numba and llvmlite alone take ~150 MiB, protocol notes 5.5).
MEMORY_RESERVE_MB = 230
#: Longest wait for the kernels before START answers OK, in seconds from when the manager
#: sent START (see ``_start_game``): managers want OK within 3 s, and the kernels a move
#: needs load in well under a second from a warm cache.
START_WAIT_S = 1.3
#: Input the reader's first read returns within this many seconds of its start was
#: already waiting in the pipe (it may have been sent when the process started).
PIPE_SLACK_S = 0.05
#: Commands the reader thread acts on itself, without waiting for the main thread.
_IMMEDIATE = {"END", "YXSTOP", "STOP"}
#: Known command words (an unterminated BOARD block ends when one of these arrives).
_COMMANDS = {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "INFO",
             "END", "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "STOP", "YXSHOWINFO",
             "YXHASHCLEAR", "SWAP2BOARD", "YXSHOWFORBID"}
_BLOCK_COMMANDS = {"BOARD", "YXBOARD", "SWAP2BOARD"}
#: ``INFO`` keys (this engine's extensions) whose value is one of a few names, and the
#: names (each key is a :class:`_Settings` field)
_NAMED_SETTINGS = {"algorithm": ALGORITHMS, "evaluation": EVALUATIONS, "opening": OPENING_RULES}


# ``INFO threats`` bits: which parts of the threat-space search a game move uses.
THREATS_VCF = 1  #: our VCF and the opponent's (root move filter) at the root
THREATS_HORIZON = 2  #: a short VCF at the horizon of the alpha-beta search
THREATS_VCT = 4  #: our VCT at the root
DEFAULT_THREATS = THREATS_VCF

@dataclass
class _Line:
    text: str
    arrived: float  # time.perf_counter() when the reader got it
    early: bool = False  # already in the pipe when the reader began: sent at any time since


@dataclass
class _Settings:
    """Everything ``INFO`` can set; kept across START (managers send INFO in any order)."""

    time: TimeControl = field(default_factory=TimeControl)
    max_memory: int = 0
    rule_code: int = 0
    swap1: bool = False  #: ``INFO rule 5`` (Rapfi): SWAP2BOARD case 2 without two stones
    max_depth: int | None = None
    max_nodes: int | None = None
    level: int = MAX_LEVEL  #: strength level 1..10 (``INFO strength`` or ``--level``)
    show_detail: int = 0
    #: ``INFO algorithm``: a name of :data:`gomoku_engine.engine.ALGORITHMS`
    algorithm: str = DEFAULT_ALGORITHM
    #: ``INFO seed``: seed of the genetic algorithm's random numbers
    seed: int = 0
    #: ``INFO evaluation``: a name of :data:`gomoku_engine.eval.classical.EVALUATIONS`
    evaluation: str = "learned"
    #: ``INFO threats``: threat-space search in the game search, a sum of THREATS_* bits
    threats: int = DEFAULT_THREATS
    #: ``INFO opening``: the opening rule of black's first stone (``none`` or ``lin``)
    opening: str = "none"
    #: ``INFO thread_num``: search threads (lazy SMP, :meth:`Engine.set_threads`)
    threads: int = 1
    #: MESSAGE/ERROR lines held until the next non-INFO command (the manager is not
    #: reading while it sends INFO, protocol notes section 3), by topic
    pending_lines: dict[str, str] = field(default_factory=dict)


class Output:
    """Thread-safe line writer: one lock around write and flush (protocol notes 1.4)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False  # set by END: nothing more may be printed

    def line(self, text: str) -> None:
        printable = "".join(c if " " <= c <= "~" else "?" for c in text)  # one ASCII line
        data = (printable + "\n").encode("ascii")
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                self.closed = True  # the manager went away; keep quiet from now on


class ProtocolLoop:
    """The protocol loop of one engine process.

    :param stdin: binary input stream (the manager's commands).
    :param stdout: binary output stream (our replies).
    :param engine_factory: builds an :class:`Engine` for ``(width, height)``; tests may
        pass a factory with a small hash table.
    :param level: strength level 1..10 (:mod:`gomoku_engine.search.levels`); ``INFO strength``
        changes it.
    :param algorithm: search algorithm until ``INFO algorithm`` changes it.
    :param seed: random seed until ``INFO seed`` changes it.
    :param max_depth: depth limit until ``INFO max_depth`` changes it (``None``: none).
    :param threads: search threads until ``INFO thread_num`` changes it (the engine
        clamps it to 1..MAX_THREADS).
    :param warm_up: load the kernels in the background (False: each loads on first use).
    :param started_at: ``time.perf_counter()`` when the process started (default: now),
        from which the first ``START`` waits at most ``START_WAIT_S`` for the kernels.
    :raises ValueError: for an unknown ``algorithm``.
    """

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO,
                 engine_factory: Callable[[int, int], Engine] | None = None,
                 warm_up: bool = True, level: int = MAX_LEVEL,
                 algorithm: str = DEFAULT_ALGORITHM, seed: int = 0,
                 max_depth: int | None = None, started_at: float | None = None,
                 threads: int = 1) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        self._stdin = stdin
        self.out = Output(stdout)
        self._queue: queue.Queue[_Line | None] = queue.Queue()
        self._factory = engine_factory or (lambda w, h: Engine(w, h))
        self._settings = _Settings(level=level, algorithm=algorithm, seed=seed,
                                   max_depth=max_depth,
                                   threads=threads)
        self._rng = random.Random(0)  # a level's blunders; reseeded at every START
        self._size: tuple[int, int] | None = None
        self._engine: Engine | None = None
        self._busy = threading.Event()  # set while a command is being executed
        self._stop_requested = False  # YXSTOP arrived for the current command
        self._me: int | None = None  # our colour in the current game, once known
        self._ending = threading.Event()
        self._started_at = time.perf_counter() if started_at is None else started_at
        self._loader = KernelLoader(enabled=warm_up)
        self._loader.request(self._kernel_groups())

    def _kernel_groups(self) -> tuple[str, ...]:
        """The kernel groups a move at the current settings can call."""
        bits = self._settings.threats
        return kernel_groups(self._settings.algorithm,
                             vct=bool(bits & THREATS_VCF and bits & THREATS_VCT))

    # --- threads ---------------------------------------------------------------------------
    def _read(self) -> None:
        """Reader thread: split stdin into lines at CR, LF or CRLF and queue them."""
        pending = b""
        began, first = time.perf_counter(), True
        read = getattr(self._stdin, "read1", self._stdin.read)  # whatever is there: a bare
        while True:                                              # CR must not wait for LF
            try:
                chunk = read(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                break
            early = first and time.perf_counter() - began < PIPE_SLACK_S
            first = False
            pending += chunk
            parts = pending.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            pending = parts.pop()
            lines = [raw for raw in parts if raw.strip()]
            for raw in lines:
                self._accept(raw, alone=len(lines) == 1, early=early)
        if pending.strip():
            self._accept(pending, alone=False, early=False)
        self._queue.put(None)  # end of input: finish the queued commands, then exit

    def _accept(self, raw: bytes, alone: bool, early: bool) -> None:
        """Queue one line, or act on it at once.

        END sent on its own (a manager's END, a user typing it) acts at once, even during a
        search.  END that arrives together with other lines (a script piped in) is queued
        like any command, so that every earlier command is answered first.
        """
        text = raw.decode("ascii", "replace").strip()
        if not text:
            return  # a line of control characters only
        word = text.split()[0].upper()
        if word == "END" and alone:
            self._end()
            return
        if word in ("YXSTOP", "STOP"):
            # Stop the search of the command being executed, even if it has not begun yet
            # (waiting for warm-up); an idle YXSTOP does nothing.
            if self._busy.is_set():
                self._stop_requested = True
                if self._engine is not None:
                    self._engine.stop()
            return
        self._queue.put(_Line(text, time.perf_counter(), early))

    def _end(self) -> None:
        """END: stop any search at once and print nothing more."""
        self.out.closed = True
        self._ending.set()
        if self._engine is not None:
            self._engine.stop()

    def run(self) -> None:
        """Serve commands until END or the end of input; returns at once on END.

        The commands run in a daemon worker thread, so that END can end the loop even
        while that thread is busy (a search, or waiting for the first compile).
        """
        threading.Thread(target=self._read, name="stdin-reader", daemon=True).start()
        threading.Thread(target=self._execute, name="commands", daemon=True).start()
        self._ending.wait()

    def _execute(self) -> None:
        while not self._ending.is_set():
            line = self._queue.get()
            if line is None:
                break
            self._busy.set()
            try:
                self._dispatch(line)
            except Exception as exc:  # never die: report and keep the game going
                self.out.line(f"ERROR internal error: {type(exc).__name__}: {exc}")
            finally:
                self._stop_requested = False
                self._busy.clear()
        self._ending.set()

    # --- dispatch --------------------------------------------------------------------------
    def _dispatch(self, line: _Line) -> None:
        word, rest = _split_word(line.text)
        word = word.upper()
        handler = getattr(self, f"_cmd_{word.lower()}", None) if word in _COMMANDS else None
        if handler is None:
            self.out.line(f"UNKNOWN command {line.text[:200]}")
            return
        if word != "INFO":
            self._flush_pending()
        handler(rest, line)

    def _flush_pending(self) -> None:
        for text in self._settings.pending_lines.values():
            self.out.line(text)
        self._settings.pending_lines.clear()

    def _next_line(self) -> _Line | None:
        line = self._queue.get()
        if line is None:
            self._queue.put(None)  # let run() see the end too
        return line

    # --- game set-up -----------------------------------------------------------------------
    def _need_engine(self) -> Engine | None:
        """The engine for the current game (built on first use), or None before START."""
        if self._size is None:
            self.out.line("ERROR no game started: send START first")
            return None
        self._loader.wait(self._kernel_groups())  # at once, unless a move comes too early
        if self._engine is None or (self._engine.board.width,
                                    self._engine.board.height) != self._size:
            self._engine = self._factory(*self._size)
            self._apply_settings()
        return self._engine

    def _apply_settings(self) -> None:
        engine = self._engine
        if engine is None:
            return
        engine.set_rule(Rule(self._settings.rule_code))
        engine.set_algorithm(self._settings.algorithm)
        engine.set_evaluation(self._settings.evaluation)
        engine.seed = self._settings.seed
        engine.set_opening_rule(self._settings.opening)
        engine.set_threads(self._settings.threads)
        memory = self._settings.max_memory
        if memory > 0:
            # Reserve ~200 MiB for Python, numba and tables (protocol notes 5.5).
            engine.set_hash_size(float(max(1, min(256, (memory >> 20) - MEMORY_RESERVE_MB))))

    def _start_game(self, width: int, height: int, line: _Line) -> None:
        time_control = self._settings.time
        time_control.left_ms = time_control.match_ms if time_control.match_ms > 0 else UNLIMITED
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
            self.out.line(f"ERROR unsupported size {width}x{height}: sides must be "
                          f"{MIN_SIZE}..{MAX_SIZE}")
            return
        self._size = (width, height)
        self._me = None
        self._rng.seed(0)
        if self._engine is not None and (self._engine.board.width,
                                         self._engine.board.height) == self._size:
            self._engine.new_game()
        else:
            self._engine = None
        # With a warm numba cache the kernels are loaded well within the wait, and the
        # first move is not charged for them; a cold compile takes longer, and then OK must
        # not wait (c-gomoku-cli wants it within 3 s): the move waits instead.
        # START was sent when it arrived, unless it was already waiting in the pipe when
        # the reader began (sent with the process's start, or during the imports).
        since = self._started_at if line.early else line.arrived
        if self._loader.wait(self._kernel_groups(),
                             max(0.0, since + START_WAIT_S - time.perf_counter())):
            self._need_engine()
        self.out.line("OK")

    def _cmd_start(self, rest: str, line: _Line) -> None:
        numbers = rest.replace(",", " ").split()
        try:
            sizes = [int(n) for n in numbers]
        except ValueError:
            sizes = []
        if len(sizes) not in (1, 2):
            self.out.line(f"ERROR bad START {rest!r}: expected START <size>")
            return
        self._start_game(sizes[0], sizes[-1], line)

    def _cmd_rectstart(self, rest: str, line: _Line) -> None:
        try:
            width, height = parse_pair(rest)
        except GomokuError:
            self.out.line(f"ERROR bad RECTSTART {rest!r}: expected RECTSTART <width>,<height>")
            return
        self._start_game(width, height, line)

    def _cmd_restart(self, rest: str, line: _Line) -> None:
        if self._size is None:
            self.out.line("ERROR no game started: send START first")
            return
        self._start_game(*self._size, line)

    def _cmd_info(self, rest: str, line: _Line) -> None:
        key, value = _split_word(rest)
        key = key.lower()
        settings = self._settings
        known = {"timeout_turn", "timeout_match", "time_left", "max_memory", "rule",
                 "max_depth", "max_node", "show_detail", "strength", "seed", "threats",
                 "time_increment", "thread_num"}
        if key in _NAMED_SETTINGS:
            self._set_name(key, value)
            return
        if key not in known:
            return  # game_type, folder, evaluate and every extension key: ignored silently
        try:
            number = int(value)
        except ValueError:
            settings.pending_lines[key] = f"MESSAGE ignored INFO {key} {value!r}: not an integer"
            return
        if key == "timeout_turn":
            settings.time.turn_ms = max(0, number)
        elif key == "timeout_match":
            settings.time.match_ms = max(0, number)
            if settings.time.left_ms == UNLIMITED and number > 0:
                settings.time.left_ms = number
        elif key == "time_left":
            settings.time.left_ms = number
        elif key == "time_increment":
            settings.time.increment_ms = max(0, number)
        elif key == "max_memory":
            settings.max_memory = max(0, number)
            self._apply_settings()
        elif key == "rule":
            self._set_rule(number)
        elif key == "max_depth":
            settings.max_depth = number if number > 0 else None
        elif key == "max_node":
            settings.max_nodes = number if number > 0 else None
        elif key == "show_detail":
            settings.show_detail = number
        elif key == "strength":
            settings.level = level_for_strength(number)
        elif key == "seed":
            settings.seed = number
            self._apply_settings()
        elif key == "thread_num":
            settings.threads = number  # the engine clamps it
            self._apply_settings()
        elif key == "threats":
            settings.threats = number
            self._loader.request(self._kernel_groups())  # in the background, from now

    def _set_name(self, key: str, name: str) -> None:
        """``INFO algorithm alphabeta|ga``, ``INFO evaluation learned|handset`` or ``INFO
        opening none|lin``; an unknown name is reported and changes nothing."""
        choices = _NAMED_SETTINGS[key]
        pending = self._settings.pending_lines
        pending.pop(key, None)
        name = name.lower()
        if name not in choices:
            pending[key] = (f"MESSAGE ignored INFO {key} {name!r}: expected "
                            + " or ".join(choices))
            return
        setattr(self._settings, key, name)
        self._loader.request(self._kernel_groups())  # in the background, from now
        self._apply_settings()

    def _set_rule(self, code: int) -> None:
        rule, swap1, problem = rule_from_info(code)
        pending = self._settings.pending_lines
        pending.pop("rule", None)
        if problem:
            pending["rule"] = f"ERROR {problem}"
        self._settings.rule_code = int(rule)
        self._settings.swap1 = swap1
        self._apply_settings()

    def _cmd_about(self, rest: str, line: _Line) -> None:
        self.out.line(ABOUT)

    def _cmd_yxshowinfo(self, rest: str, line: _Line) -> None:
        self.out.line(f"MESSAGE gomoku-engine {__version__}")
        self.out.line(f"MESSAGE INFO MAX_THREAD_NUM {MAX_THREADS}")
        self.out.line("MESSAGE INFO MAX_HASH_SIZE 20")

    def _cmd_yxhashclear(self, rest: str, line: _Line) -> None:
        if self._engine is not None:
            self._engine.clear_hash()

    def _cmd_yxstop(self, rest: str, line: _Line) -> None:
        pass  # handled by the reader thread; idle YXSTOP does nothing

    _cmd_stop = _cmd_yxstop

    def _cmd_end(self, rest: str, line: _Line) -> None:
        self._end()

    # --- moves -----------------------------------------------------------------------------
    def _cmd_begin(self, rest: str, line: _Line) -> None:
        engine = self._need_engine()
        if engine is not None:
            self._me = engine.board.to_move
            self._reply_move(engine, line)

    def _place(self, rest: str, name: str, ours: bool) -> Engine | None:
        """Play the point of a TURN (``ours`` False) or PLAY; None after an ERROR.

        The stone gets the opponent's or our colour as known from the game so far (after
        YXBOARD the side to move is us, and TURN still places the opponent's stone).
        """
        engine = self._need_engine()
        if engine is None:
            return None
        me = self._me if self._me is not None else (
            engine.board.to_move if ours else 3 - engine.board.to_move)
        try:
            engine.board.play(*parse_pair(rest), colour=me if ours else 3 - me)
        except GomokuError as exc:
            self.out.line(f"ERROR {name} {rest}: {exc}")
            return None
        self._me = me
        return engine

    def _cmd_turn(self, rest: str, line: _Line) -> None:
        engine = self._place(rest, "TURN", ours=False)  # the opponent's move ...
        if engine is not None:
            self._reply_move(engine, line)  # ... and ours

    def _cmd_play(self, rest: str, line: _Line) -> None:
        engine = self._place(rest, "PLAY", ours=True)  # the manager imposes our move
        if engine is not None:
            self.out.line(format_pair(engine.board.moves()[-1]))

    def _cmd_takeback(self, rest: str, line: _Line) -> None:
        engine = self._need_engine()
        if engine is None:
            return
        try:
            x, y = parse_pair(rest)
            engine.board.remove(x, y)
        except GomokuError as exc:
            self.out.line(f"ERROR TAKEBACK {rest}: {exc}")
            return
        self.out.line("OK")

    def _read_block(self, first: str) -> tuple[list[str], _Line | None]:
        """Tokens of a BOARD-like block up to DONE, and a command that cut it short."""
        tokens: list[str] = []
        text = first
        while True:
            for token in text.split():
                if token.upper() == "DONE":
                    return tokens, None
                tokens.append(token)
            nxt = self._next_line()
            if nxt is None:
                return tokens, None
            word = nxt.text.split()[0].upper()
            if word in _COMMANDS and word != "DONE":
                return tokens, nxt
            text = nxt.text

    def _parse_stones(self, tokens: list[str]) -> list[tuple[int, int, int]]:
        stones = []
        for token in tokens:
            parts = token.split(",")
            if len(parts) != 3 or not all(p.strip().lstrip("-").isdigit() for p in parts):
                raise ValueError(f"bad stone {token!r}: expected x,y,field")
            x, y, f = (int(p) for p in parts)
            if f not in (1, 2):
                raise ValueError(f"bad stone {token!r}: field must be 1 (own) or 2 (opponent)")
            stones.append((x, y, f))
        return stones

    def _set_board(self, rest: str, line: _Line, reply: bool, name: str) -> None:
        tokens, interrupted = self._read_block(rest)
        if interrupted is not None:
            self.out.line(f"ERROR {name} not terminated by DONE: position unchanged")
            self._dispatch(interrupted)
            return
        engine = self._need_engine()
        if engine is not None:
            try:
                stones = self._parse_stones(tokens)
                own = sum(1 for s in stones if s[2] == 1)
                # Field 1 is the side to move.  Its colour follows the counts where a game
                # could have reached them (equal: black; one fewer: white); a composed
                # position (a puzzle, a GUI's edit) may have any counts, and then the side
                # with more stones is black (under renju its fouls apply).
                me = BLACK if own >= len(stones) - own else WHITE
                engine.board.set_stones(  # validates every stone before changing anything
                    [(x, y, me if f == 1 else 3 - me) for x, y, f in stones], to_move=me)
            except (ValueError, GomokuError) as exc:
                self.out.line(f"ERROR {name}: {exc}")
            else:
                self._me = me
                if reply:
                    self._reply_move(engine, line)

    def _cmd_board(self, rest: str, line: _Line) -> None:
        self._set_board(rest, line, reply=True, name="BOARD")

    def _cmd_yxboard(self, rest: str, line: _Line) -> None:
        self._set_board(rest, line, reply=False, name="YXBOARD")

    def _cmd_swap2board(self, rest: str, line: _Line) -> None:
        tokens, interrupted = self._read_block(rest)
        if interrupted is not None:
            self.out.line("ERROR SWAP2BOARD not terminated by DONE")
            self._dispatch(interrupted)
            return
        engine = self._need_engine()
        if engine is None:
            return
        try:
            points = [parse_pair(token) for token in tokens]
            if len(points) not in (0, 3, 5):
                raise ValueError(f"{len(points)} stones: Swap2 gives 0, 3 or 5")
            colours = [BLACK if i % 2 == 0 else WHITE for i in range(len(points))]
            engine.board.set_stones([(x, y, c) for (x, y), c in zip(points, colours)],
                                    to_move=BLACK if len(points) % 2 == 0 else WHITE)
        except (ValueError, GomokuError) as exc:
            self.out.line(f"ERROR SWAP2BOARD: {exc}")
            return
        _, budget = self._settings.time.budget(len(points))
        budget -= (time.perf_counter() - line.arrived) * 1000.0
        if len(points) == 0:
            choice = propose_opening(engine, budget)
        elif len(points) == 3:
            choice = answer_three(engine, budget, two_stones=not self._settings.swap1)
        else:
            choice = answer_five(engine, budget)
        self.out.line(f"MESSAGE swap2 ev {format_score(choice.score)} (white to move)")
        self.out.line(_swap2_reply(choice))

    def _cmd_yxshowforbid(self, rest: str, line: _Line) -> None:
        engine = self._need_engine()
        if engine is not None:
            points = engine.board.foul_points()
            self.out.line("FORBID " + "".join(f"{x:02d}{y:02d}" for x, y in points) + ".")

    def _reply_move(self, engine: Engine, line: _Line) -> None:
        board = engine.board
        if board.is_full:
            self.out.line("ERROR the board is full: no move left")
            return
        settings = self._settings
        soft, hard = settings.time.budget(board.ply)
        level = LEVELS[settings.level]
        limits = Limits(hard_ms=hard, soft_ms=soft, depth=combine(settings.max_depth, level.depth),
                        nodes=combine(settings.max_nodes, level.nodes), start=line.arrived,
                        threats=bool(settings.threats & THREATS_VCF),
                        vct=bool(settings.threats & THREATS_VCT),
                        horizon_vcf=bool(settings.threats & THREATS_HORIZON))
        on_iteration = self._report if settings.show_detail > 0 else None
        if self._stop_requested:
            engine.stop()  # YXSTOP came while this command waited: move at once
        result = engine.search(limits, on_iteration)
        if level.blunder and mate_in(result.score) is None and self._rng.random() < level.blunder:
            move = blunder_move(board.moves(), board.is_legal, self._rng, board.width,
                                board.height)
            if move is not None:
                result.move, result.pv = move, [move]
        board.play(*result.move)
        if settings.time.left_ms != UNLIMITED:
            settings.time.left_ms += settings.time.increment_ms - int(result.time_ms)
        self.out.line(f"MESSAGE {_summary(result)}")
        self.out.line(format_pair(result.move))

    def _report(self, info: SearchInfo) -> None:
        pv = " ".join(format_point(p) for p in info.pv)
        self.out.line(f"MESSAGE depth {info.depth}-{info.seldepth} ev {format_score(info.score)} "
                      f"n {info.nodes} n/ms {info.nps // 1000} tm {info.time_ms:.0f} pv {pv}")


def rule_from_info(code: int) -> tuple[Rule, bool, str | None]:
    """Decode ``INFO rule``: ``(rule, swap1, message or None)``.

    The bitmask of the protocol (1 exactly five, 2 continuous, 4 renju, 8 caro), plus
    Yixin-Board's 2 for renju and Rapfi's 5 for freestyle with the swap1 opening
    (``../shared/protocol.md`` section 4.1).  Continuous games are not supported: the
    rule is played without bit 2 and the message (sent as an ERROR line) says so.
    """
    if code == 5:
        return Rule.FREESTYLE, True, None
    if code == 2:
        return Rule.RENJU, False, None
    problem = None
    if code < 0 or code & ~15:
        problem = f"rule {code} is unknown; playing freestyle"
        return Rule.FREESTYLE, False, problem
    if code & 2:
        problem = (f"rule {code}: continuous games (bit 2) are not supported; playing rule "
                   f"{code & ~2}")
    if code & 4:
        rule = Rule.RENJU
    elif code & 8:
        rule = Rule.CARO_STANDARD if code & 1 else Rule.CARO
    else:
        rule = Rule.STANDARD if code & 1 else Rule.FREESTYLE
    return rule, False, problem


def _swap2_reply(choice: OpeningChoice) -> str:
    return "SWAP" if choice.swap else " ".join(format_pair(p) for p in choice.moves)


def _split_word(text: str) -> tuple[str, str]:
    """First word and the stripped rest; any whitespace separates them."""
    parts = text.split(None, 1)
    return (parts[0] if parts else ""), (parts[1].strip() if len(parts) > 1 else "")


def _summary(result: SearchResult) -> str:
    pv = " ".join(format_point(p) for p in result.pv[:10])
    return (f"depth {result.depth}-{result.seldepth} ev {format_score(result.score)} "
            f"n {result.nodes} tm {result.time_ms:.0f} pv {pv}")


__all__ = ["ABOUT", "Output", "ProtocolLoop", "Point"]
