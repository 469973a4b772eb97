"""The Gomocup ("pbrain") protocol loop on a pair of byte streams: the commands' dispatch.

Layout (docs/protocol.md section 1): a *reader* thread queues the
lines and acts on ``END`` and ``YXSTOP`` at once, a *command* thread runs the commands
(:class:`gomoku_engine.protocol.reader.CommandThreads`).  The kernels the settings can call
are loaded (from numba's cache, or compiled when it is cold) in a thread of its own from
the start (:class:`gomoku_engine.protocol.kernel_loader.KernelLoader`), and optional ones
(the VCT solver, the genetic algorithm) as soon as ``INFO`` selects them: ``ABOUT`` is
answered at once, ``START`` waits for them until ``START_WAIT_S`` after the process's start
when it was already waiting in the pipe, else ``START_WAIT_LATE_S`` after its arrival
(c-gomoku-cli's tolerance), and a move that comes
before they are ready waits only as long as its time allows
(:mod:`gomoku_engine.protocol.move_reply`).  Nothing a command does may wait for the
engine's build or for a new transposition table while a move waits behind it
(:mod:`gomoku_engine.protocol.held_settings`).  The game itself is kept in plain Python
(:mod:`gomoku_engine.protocol.game_state`) and the engine, built outside any move
(:mod:`gomoku_engine.protocol.engine_holder`), follows it.

Replies are single lines ending in ``\\n``, written under one lock and flushed at once
(:class:`gomoku_engine.protocol.reader.Output`); every ``MESSAGE`` line comes from
:mod:`gomoku_engine.protocol.messages`, ``INFO`` is read by
:mod:`gomoku_engine.protocol.settings`, the blocks of ``BOARD``-like commands by
:mod:`gomoku_engine.protocol.board_commands`, and a move request is answered by
:mod:`gomoku_engine.protocol.move_reply`.  Nothing else reaches stdout; bad input gets
``ERROR <reason>`` with the game state left as it was, unknown commands ``UNKNOWN <text>``;
a move request is never answered with ERROR once a game exists.  Only
:class:`gomoku_engine.engine.Engine`'s public API is used here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import BinaryIO

from .. import __version__
from ..core.constants import MAX_SIZE, MIN_SIZE
from ..core.errors import GomokuError
from ..core.notation import Point, format_pair, parse_pair
from ..engine import ALGORITHMS, DEFAULT_ALGORITHM, MAX_THREADS, Engine
from ..search.levels import MAX_LEVEL
from ..search.params import check_params
from .board_commands import board_stones, read_block, swap2_stones
from .game_state import GameState
from .engine_holder import EngineHolder
from .held_settings import TABLE_GRACE_S, HeldSettings
from .move_reply import KERNEL_FREE_MS, MoveReply
from .ponder import Ponder
from .messages import engine_info_lines, swap2_line
from .reader import CommandThreads, Line, Output, split_word
from .settings import (MAX_HASH_MB, MEMORY_RESERVE_MB, Changed, Settings, apply_info,
                       evaluation_setting, rule_from_info)
from .swap2 import answer_five, answer_three, kernel_free_choice, propose_opening
from .yixin import YixinCommands

ABOUT = (f'name="gomoku-engine", version="{__version__}", '
         'author="gomoku-engine developers", country="International", '
         'www="https://pypi.org/project/gomoku-engine/"')

#: Longest wait for the kernels before START answers OK, in seconds from when the manager
#: sent START (see ``_start_game``): managers want OK within 3 s, and building the engine
#: after the wait takes 0.1-0.4 s more. From a warm cache the kernels a move needs are in
#: about 1.35 s after the process starts on an idle 2-core machine, later on a busy one
#: (docs/startup.md); a first move that comes before them pays for their loading.
START_WAIT_S = 2.0
#: The same for a ``START`` that arrived after the reader began (after an ``ABOUT``
#: handshake, or a later game), from its arrival: c-gomoku-cli gives ``START`` its
#: ``tolerance`` (1 s in the README's example) and the engine's build after the wait takes
#: 0.1-0.4 s more, so it waits less.
START_WAIT_LATE_S = 0.6
#: Known command words (an unterminated BOARD block ends when one of these arrives).
_COMMANDS = {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "INFO",
             "END", "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "STOP", "YXSHOWINFO",
             "YXHASHCLEAR", "SWAP2BOARD", "YXSHOWFORBID", "YXBLOCK", "YXBLOCKUNDO",
             "YXBLOCKRESET", "YXNBEST", "YXSEARCHDEFEND", "YXBALANCEONE", "YXBALANCETWO"}
#: Commands of Yixin-Board and Rapfi that this engine does not support and that send a
#: block (lines up to ``DONE``, as ``BOARD``): the block is read and answered with one
#: ``UNKNOWN`` line, so that its lines are not each taken for a command.  (Yixin-Board's
#: opening database, its Soosorv opening steps and its path blocks; taken from what
#: Yixin-Board sends and what Rapfi reads.)
_UNSUPPORTED_BLOCKS = {
    "YXBLOCKPATH", "YXBLOCKPATHUNDO", "YXSOOSORVSTEP2", "YXSOOSORVSTEP3", "YXSOOSORVSTEP4",
    "YXSOOSORVSTEP5", "YXSOOSORVSTEP6", "YXQUERYDATABASEALL", "YXQUERYDATABASEONE",
    "YXQUERYDATABASETEXT", "YXQUERYDATABASEALLT", "YXEDITTVDDATABASE", "YXEDITTEXTDATABASE",
    "YXEDITLABELDATABASE", "YXDELETEDATABASEONE", "YXDELETEDATABASEALL",
    "YXSETBESTMOVEDATABASE", "YXCLEARBESTMOVEDATABASE"}


def _swap2_reply(engine: Engine | None, game: GameState, budget_ms: float,
                 settings: Settings) -> list[str]:
    """The lines answering ``SWAP2BOARD`` with the stones of ``game`` (0, 3 or 5) within
    ``budget_ms`` ms (:mod:`gomoku_engine.protocol.swap2`; ``settings.swap1``: ``INFO rule
    5``, case 2 without two stones; no ``engine``: its kernels are still loading): the
    score, then ``SWAP`` or the stones placed."""
    given = game.ply
    if engine is None:
        choice = kernel_free_choice(game.width, game.height, settings.rule, game.stones)
    elif given == 0:
        choice = propose_opening(engine, budget_ms)
    elif given == 3:
        choice = answer_three(engine, budget_ms, two_stones=not settings.swap1)
    else:
        choice = answer_five(engine, budget_ms)
    return [swap2_line(choice.score),
            "SWAP" if choice.swap else " ".join(format_pair(p) for p in choice.moves)]


class ProtocolLoop(YixinCommands):
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
    :param params: the search's tunables away from their defaults, by name, until ``INFO
        param`` changes them (``--param``).
    :param evaluation: a name of :data:`gomoku_engine.eval.EVALUATIONS` until ``INFO
        evaluation`` changes it (``None``: the default evaluation; ``--evaluation``).
    :raises ValueError: for an unknown ``algorithm``, an unknown tunable or a value outside
        its range.
    """

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO,
                 engine_factory: Callable[[int, int], Engine] | None = None,
                 warm_up: bool = True, level: int = MAX_LEVEL,
                 algorithm: str = DEFAULT_ALGORITHM, seed: int = 0,
                 max_depth: int | None = None, started_at: float | None = None,
                 threads: int = 1, params: Mapping[str, float] | None = None,
                 evaluation: str | None = None) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        self.out = Output(stdout)
        self._threads = CommandThreads(stdin, self.out, self._dispatch, self._stop_search)
        self._settings = Settings(level=level, algorithm=algorithm, seed=seed,
                                  max_depth=max_depth, threads=threads, params=check_params(
                                      params or {}), **evaluation_setting(evaluation))
        self._game: GameState | None = None  # from START on; the engine's board follows it
        self._started_at = time.perf_counter() if started_at is None else started_at
        #: while START applies the INFO lines that came with it: their answers wait for OK
        self._hold_info_replies = False
        self._engines = EngineHolder(engine_factory or (lambda w, h: Engine(w, h)),
                                     self._settings, warm_up)
        self._moves = MoveReply(self.out, self._settings)
        self._ponder = Ponder(self._settings, self._engines, self._threads.has_queued)
        self._held = HeldSettings(self._settings, self._engines, self._threads.has_queued)
        self._threads.idle, self._threads.wake = self._idle, self._wake

    def run(self) -> None:
        """Serve commands until END or the end of input; returns at once on END."""
        self._threads.run()

    def _stop_search(self) -> None:
        engine = self._engines.engine
        if engine is not None:
            engine.stop()

    def _idle(self) -> None:
        """With no command queued: a held table (:mod:`.held_settings`), then the ponder
        search, if asked for, until the next line."""
        if self._held.at_idle():
            self._ponder.run()

    def _wake(self) -> None:
        """In the reader thread, for every line (and the end of input)."""
        self._held.line_arrived()
        self._ponder.wake()

    # --- dispatch --------------------------------------------------------------------------
    def _dispatch(self, line: Line) -> None:
        word, rest = split_word(line.text)
        word = word.upper()
        handler = getattr(self, f"_cmd_{word.lower()}", None) if word in _COMMANDS else None
        if handler is None:
            if word in _UNSUPPORTED_BLOCKS:
                self._unsupported_block(word, rest)
            else:  # a one-line command: what follows is the next command
                self.out.line(f"UNKNOWN command {line.text[:200]}")
            return
        if word != "INFO":
            self._flush_pending()
        handler(rest, line)
        if word != "INFO" or not self._hold_info_replies:
            self._flush_pending()  # a bad value at once; a command's own (a network's fallback)

    def _flush_pending(self) -> None:
        for text in self._settings.pending_lines.values():
            self.out.line(text)
        self._settings.pending_lines.clear()

    # --- game set-up -----------------------------------------------------------------------
    def _need_game(self) -> GameState | None:
        """The current game, or None (after an ERROR) before START."""
        if self._game is None:
            self.out.line("ERROR no game started: send START first")
        return self._game

    def _start_game(self, width: int, height: int, line: Line, restart: bool = False) -> None:
        """A new game (``START``, ``RECTSTART``; ``restart``: ``RESTART``).  On a board of
        the same size the ``YXBLOCK`` points stay, and after ``START`` the engine's
        transposition table and board too (Yixin-Board sends ``START`` before every move
        it asks for, then the position: only its new stones are placed)."""
        self._settings.time.new_game()
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
            self.out.line(f"ERROR unsupported size {width}x{height}: sides must be "
                          f"{MIN_SIZE}..{MAX_SIZE}")
            return
        same_size = self._game is not None and self._game.size == (width, height)
        self._game = game = GameState(width, height)
        self._moves.new_game(keep_blocks=same_size)
        self._engines.new_game(game.size, keep_hash=same_size and not restart)
        self._ponder.new_game()
        # With a warm numba cache the kernels are loaded well within the wait, and the
        # first move is not charged for them; a cold compile takes longer, and then OK must
        # not wait (c-gomoku-cli wants it within 3 s): the game is kept in plain Python and
        # a move that comes before the kernels gets the kernel-free move (move_reply).
        # START was sent when it arrived, unless it was already waiting in the pipe when
        # the reader began (sent with the process's start, or during the imports).
        deadline = (self._started_at + START_WAIT_S if line.early
                    else line.arrived + START_WAIT_LATE_S)
        if self._engines.loader.wait(self._settings.kernel_groups(),
                                     max(0.0, deadline - time.perf_counter())):
            # The INFO lines a manager sent right after START (a referee writes them with
            # it, before waiting for OK) are applied first, so the engine is built with
            # their transposition-table size: resized by a later INFO max_memory, the
            # table (120 MiB at Gomocup's limit, 180-290 ms to write, more on a busy
            # machine) was charged to the first move (docs/startup.md).
            self._hold_info_replies = True  # their answers come after OK, which the
            try:                            # manager waits for (an ERROR first is a refusal)
                for info in self._threads.take_queued("INFO"):
                    self._dispatch(info)
            finally:
                self._hold_info_replies = False
            self._held.before_ok()  # the table: the first move is asked for on OK
            self._engines.build()
        self.out.line("OK")
        self._flush_pending()

    def _cmd_start(self, rest: str, line: Line) -> None:
        numbers = rest.replace(",", " ").split()
        try:
            sizes = [int(n) for n in numbers]
        except ValueError:
            sizes = []
        if len(sizes) not in (1, 2):
            self.out.line(f"ERROR bad START {rest!r}: expected START <size>")
            return
        self._start_game(sizes[0], sizes[-1], line)

    def _cmd_rectstart(self, rest: str, line: Line) -> None:
        try:
            width, height = parse_pair(rest)
        except GomokuError:
            self.out.line(f"ERROR bad RECTSTART {rest!r}: expected RECTSTART <width>,<height>")
            return
        self._start_game(width, height, line)

    def _cmd_restart(self, rest: str, line: Line) -> None:
        game = self._need_game()
        if game is not None:
            self._start_game(*game.size, line, restart=True)

    def _cmd_info(self, rest: str, line: Line) -> None:
        changed = apply_info(self._settings, rest)
        if changed & Changed.KERNELS:
            self._engines.loader.request(self._settings.kernel_groups())  # in the background
        self._held.changed(changed)  # the engine's settings and table, no move waiting

    def _cmd_about(self, rest: str, line: Line) -> None:
        self.out.line(ABOUT)

    def _cmd_yxshowinfo(self, rest: str, line: Line) -> None:
        for text in engine_info_lines(__version__, MAX_THREADS, MAX_HASH_MB):
            self.out.line(text)

    def _cmd_yxhashclear(self, rest: str, line: Line) -> None:
        engine = self._engines.engine
        if engine is not None:
            engine.clear_hash()

    def _cmd_yxstop(self, rest: str, line: Line) -> None:
        pass  # handled by the reader thread; idle YXSTOP does nothing

    _cmd_stop = _cmd_yxstop

    def _cmd_end(self, rest: str, line: Line) -> None:
        self._threads.end()

    # --- moves -----------------------------------------------------------------------------
    def _cmd_begin(self, rest: str, line: Line) -> None:
        game = self._need_game()
        if game is not None:
            game.me = game.to_move
            self._reply_move(game, line)

    def _place(self, rest: str, name: str, ours: bool) -> GameState | None:
        """Play the point of a TURN (``ours`` False) or PLAY; None after an ERROR.

        The stone gets the opponent's or our colour as known from the game so far (after
        YXBOARD the side to move is us, and TURN still places the opponent's stone).
        """
        game = self._need_game()
        if game is None:
            return None
        me = game.me if game.me is not None else (
            game.to_move if ours else 3 - game.to_move)
        try:
            game.place(*parse_pair(rest), colour=me if ours else 3 - me)
        except GomokuError as exc:
            self.out.line(f"ERROR {name} {rest}: {exc}")
            return None
        game.me = me
        return game

    def _cmd_turn(self, rest: str, line: Line) -> None:
        game = self._place(rest, "TURN", ours=False)  # the opponent's move ...
        if game is not None:
            self._reply_move(game, line)  # ... and ours

    def _cmd_play(self, rest: str, line: Line) -> None:
        game = self._place(rest, "PLAY", ours=True)  # the manager imposes our move
        if game is not None:
            self.out.line(format_pair(game.stones[-1][:2]))

    def _cmd_takeback(self, rest: str, line: Line) -> None:
        game = self._need_game()
        if game is None:
            return
        try:
            game.remove(*parse_pair(rest))
        except GomokuError as exc:
            self.out.line(f"ERROR TAKEBACK {rest}: {exc}")
            return
        self.out.line("OK")

    def _block(self, rest: str, error: str) -> tuple[list[str], GameState] | None:
        """The tokens of a block and the game, or None after an ERROR (a block cut short
        by a command, which then runs; no game)."""
        tokens, interrupted = read_block(rest, self._threads.next_line, _COMMANDS)
        if interrupted is not None:
            self.out.line(error)
            self._dispatch(interrupted)
            return None
        game = self._need_game()
        return None if game is None else (tokens, game)

    def _unsupported_block(self, word: str, rest: str) -> None:
        """One ``UNKNOWN`` line for a whole unsupported block (:data:`_UNSUPPORTED_BLOCKS`),
        read up to its ``DONE``; a known command before it ends the block and runs."""
        _, interrupted = read_block(rest, self._threads.next_line,
                                    _COMMANDS | _UNSUPPORTED_BLOCKS)
        end = "DONE" if interrupted is None else "the next command (no DONE)"
        self.out.line(f"UNKNOWN command {word}: not supported; its block was read up to {end}")
        if interrupted is not None:
            self._dispatch(interrupted)

    def _set_board(self, rest: str, line: Line, reply: bool, name: str) -> None:
        block = self._block(rest, f"ERROR {name} not terminated by DONE: position unchanged")
        if block is None:
            return
        tokens, game = block
        try:
            stones, me = board_stones(tokens)
            game.set_stones(stones, me, self._settings.rule)  # checks every stone first
        except (ValueError, GomokuError) as exc:
            self.out.line(f"ERROR {name}: {exc}")
            return
        game.me = me
        if reply:
            self._reply_move(game, line)

    def _cmd_board(self, rest: str, line: Line) -> None:
        self._set_board(rest, line, reply=True, name="BOARD")

    def _cmd_yxboard(self, rest: str, line: Line) -> None:
        self._set_board(rest, line, reply=False, name="YXBOARD")

    def _cmd_swap2board(self, rest: str, line: Line) -> None:
        block = self._block(rest, "ERROR SWAP2BOARD not terminated by DONE")
        if block is None:
            return
        tokens, game = block
        try:
            stones, to_move = swap2_stones(tokens)
            game.set_stones(stones, to_move, self._settings.rule)
        except (ValueError, GomokuError) as exc:
            self.out.line(f"ERROR SWAP2BOARD: {exc}")
            return
        _, budget = self._settings.time.budget(len(stones))
        engine = self._engines.for_game(game, line.arrived + (budget - KERNEL_FREE_MS) / 1000.0)
        budget -= (time.perf_counter() - line.arrived) * 1000.0
        for text in _swap2_reply(engine, game, budget, self._settings):
            self.out.line(text)

    def _reply_move(self, game: GameState, line: Line) -> None:
        self._moves.answer(game, self._engines.for_move, line.arrived,
                           self._threads.stop_requested)
        self._ponder.after_move(game)


__all__ = ["ABOUT", "MEMORY_RESERVE_MB", "Output", "ProtocolLoop", "Point",
           "START_WAIT_LATE_S", "START_WAIT_S", "TABLE_GRACE_S", "rule_from_info"]
