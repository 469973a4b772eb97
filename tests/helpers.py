"""Helpers shared by the tests: the one five-in-a-row detector, the one stone-setup builder,
``replay`` of a refereed game, ``engine_after`` a sequence of moves, a
``fixed_depth_search`` from it, the one VCF-line check, the one winning-line check,
the one recomputation of a board's incremental state, the engine as a protocol subprocess
(``run_session``, ``LiveEngine`` and the ``live`` fixture), the one fake engine
(``engines/random_brain.py``, scriptable), and the shared data beside the checkout
(``../shared``), which is loudly skipped when absent.

Test modules import from here (and the browser game's server from ``web_server.py``),
never from one another.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pytest

from gomoku_engine.game.board import Board
from gomoku_engine.game.position import X_MAX, X_MIN, Y_MAX, Y_MIN, point_patterns
from gomoku_engine.core.constants import BLACK, EMPTY, N_THREATS, T_NONE, WHITE, Rule
from gomoku_engine.engine import Engine
from gomoku_engine.eval.classical import (
    combination_tables, reference_evaluation, reference_point_patterns,
)
from gomoku_engine.core.notation import parse_moves
from gomoku_engine.core.constants import MATE_BOUND
from gomoku_engine.search.alphabeta import NODES, clear_search_state, search_depth
from gomoku_engine.eval import evaluate
from gomoku_engine.core.rules import foul_type

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
ENGINES = Path(__file__).parent / "engines"
#: this engine as a subprocess speaking the protocol
ENGINE = [sys.executable, "-m", "gomoku_engine"]
#: the greedy engine (pure Python), an independent opponent
GREEDY = [sys.executable, str(ENGINES / "greedy_brain.py")]
RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU}

Point = tuple[int, int]


def command_line(argv: Sequence[str]) -> str:
    """``argv`` as one ``--engine NAME=COMMAND`` command line (each part quoted)."""
    return " ".join(f'"{part}"' for part in argv)


DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


# --- shared data -----------------------------------------------------------------------------
def load_jsonl(name: str) -> list[dict]:
    """Records of ``../shared/puzzles/<name>``; the calling test is skipped, with the
    reason, if the file is not there (never an empty pass)."""
    path = SHARED / "puzzles" / name
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data must be beside the checkout")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert records, f"{path} holds no records"
    return records


def shared_params(name: str, select: Callable[[dict], bool] = lambda r: True,
                  marks: Callable[[dict], list] = lambda r: []) -> list:
    """``pytest.param`` per selected record of a shared puzzle file (id: the record's id).

    Without ``../shared`` the list holds one parameter that is skipped with the reason, so
    a parametrized test shows as skipped, loudly, instead of collecting nothing; with the
    file, selecting nothing is an error, not an empty pass.
    """
    path = SHARED / "puzzles" / name
    if not path.exists():
        return [pytest.param(None, id="no-shared-data", marks=pytest.mark.skip(
            reason=f"{path} not found: the shared data must be beside the checkout"))]
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    params = [pytest.param(r, id=r["id"], marks=marks(r)) for r in records if select(r)]
    assert params, f"no record of {path} selected"
    return params


# --- five in a row ---------------------------------------------------------------------------
def five_through(stone_at: Callable[[int, int], int], width: int, height: int, point: Point,
                 colour: int, exact: bool = False, caro: bool = False) -> bool:
    """Is ``colour``'s stone at ``point`` part of a winning line (protocol notes 4.2)?

    :param stone_at: the colour at ``(x, y)`` (0: empty), asked for on-board points only.
    :param exact: only exactly five wins (an overline does not).
    :param caro: a line blocked by the opponent at both ends does not win.
    """
    def on(x: int, y: int) -> bool:
        return 0 <= x < width and 0 <= y < height

    for dx, dy in DIRECTIONS:
        n, ends = 1, []
        for sign in (1, -1):
            x, y = point[0] + sign * dx, point[1] + sign * dy
            while on(x, y) and stone_at(x, y) == colour:
                n, x, y = n + 1, x + sign * dx, y + sign * dy
            ends.append((x, y))
        blocked = all(on(*e) and stone_at(*e) == 3 - colour for e in ends)
        if (n == 5 or (n > 5 and not exact)) and not (caro and blocked):
            return True
    return False


def has_five(board: Board, colour: int) -> bool:
    """Slow scan of the whole board: has ``colour`` a winning line under the board's rule?"""
    return stones_have_five(board.stones(), colour, board.width, board.height,
                            board.rule.exact_five(colour), board.rule.caro)


def assert_winning_line(board: Board, line: list[Point], colour: int) -> None:
    """``line`` is five of ``colour``'s stones on ``board`` that make a win, or more where
    the rule lets an overline win (checked by :func:`five_through`, not by the code that
    reported the line)."""
    overline_wins = not board.rule.exact_five(colour)
    assert len(line) == 5 or (len(line) > 5 and overline_wins)
    assert all(board.at(x, y) == colour for x, y in line)
    assert five_through(board.at, board.width, board.height, line[0], colour)


def stones_have_five(stones: Iterable[tuple[int, int, int]], colour: int, width: int,
                     height: int, exact: bool = False, caro: bool = False) -> bool:
    """:func:`has_five` for stones not on a :class:`Board` (e.g. a BOARD command's).

    :param stones: ``(x, y, colour)``, on the ``width`` x ``height`` board, no point twice.
    :param exact, caro: as for :func:`five_through`; by default five or more in a row wins.
    """
    at = {(x, y): c for x, y, c in stones}

    def stone_at(x: int, y: int) -> int:
        return at.get((x, y), 0)

    return any(five_through(stone_at, width, height, point, colour, exact, caro)
               for point, c in at.items() if c == colour)


def five_points(board: Board, colour: int, near: Point | None = None) -> list[Point]:
    """Empty points where ``colour`` would win at once, judged by :func:`five_through`.

    :param near: look only on the four lines through this point, up to 4 points away
        (where a stone just played there can have made new five points).
    """
    exact, caro = board.rule.exact_five(colour), board.rule.caro
    if near is None:
        candidates = [(x, y) for y in range(board.height) for x in range(board.width)]
    else:
        candidates = sorted({(near[0] + k * dx, near[1] + k * dy) for dx, dy in DIRECTIONS
                             for k in range(-4, 5)
                             if 0 <= near[0] + k * dx < board.width
                             and 0 <= near[1] + k * dy < board.height})
    points = []
    for x, y in candidates:
        if board.at(x, y) == 0:
            def stone_at(px: int, py: int, x=x, y=y) -> int:
                return colour if (px, py) == (x, y) else board.at(px, py)
            if five_through(stone_at, board.width, board.height, (x, y), colour, exact, caro):
                points.append((x, y))
    return points


# --- threat sequences ----------------------------------------------------------------------
#: The node budget of a VCF solve (nodes, not time, so that a loaded machine cannot change a
#: result): ~25 times the most a shared VCF puzzle needs (1,330 nodes over the 8
#: symmetries), measured on 2026-11-24 at 9239358.
VCF_NODES = 50_000


def check_vcf_line(board: Board, line) -> None:
    """Every attacker move is a four (or the five), every defender move the forced block."""
    attacker = board.to_move
    defender = 3 - attacker
    board = board.copy()
    for i, (x, y) in enumerate(line):
        if i % 2 == 0:
            threats_before = five_points(board, defender)
            board.play(x, y, attacker)
            if board.winner == attacker:
                assert i == len(line) - 1, "the five must end the line"
                return
            assert not threats_before or (x, y) in threats_before, "a defender four was ignored"
            assert five_points(board, attacker), f"attacker move {(x, y)} is not a four"
            assert not five_points(board, defender), "the defender could make five instead"
        else:
            forced = five_points(board, attacker)
            if defender == BLACK and len(forced) == 1 and board.foul(*forced[0]):
                # renju: black may not block on a foul, so any move loses
                assert (x, y) != forced[0]
            else:
                assert (x, y) in forced and len(forced) <= 2, f"defender move {(x, y)} not forced"
            board.play(x, y, defender)
    pytest.fail("the line does not end in a five")


# --- positions ---------------------------------------------------------------------------------
def stone_list(black: Iterable[Point], white: Iterable[Point]) -> list[tuple[int, int, int]]:
    """``(x, y, colour)`` of the black and the white stones."""
    return [(x, y, BLACK) for x, y in black] + [(x, y, WHITE) for x, y in white]


def in_move_order(stones: Sequence[Point]) -> tuple[list[Point], list[Point], int]:
    """Stones in move order (black first) as ``(black, white, side to move)``."""
    return (list(stones[::2]), list(stones[1::2]), WHITE if len(stones) % 2 else BLACK)


def board_with(black: Iterable[Point], white: Iterable[Point], to_move: int = BLACK,
               size: int = 15, rule: Rule = Rule.FREESTYLE) -> Board:
    """A board with these stones and side to move (no move order, no win check)."""
    board = Board(size, rule=rule)
    board.set_stones(stone_list(black, white), to_move)
    return board


def engine_with(black: Iterable[Point], white: Iterable[Point], to_move: int = BLACK,
                size: int = 15, rule: Rule = Rule.FREESTYLE, hash_mb: float = 4,
                **kwargs) -> Engine:
    """An engine whose board holds these stones (see :func:`board_with`)."""
    engine = Engine(size, rule=rule, hash_mb=hash_mb, **kwargs)
    engine.board.set_stones(stone_list(black, white), to_move)
    return engine


def engine_after(moves: str | Iterable[Point], size: int = 15, rule: Rule = Rule.FREESTYLE,
                 hash_mb: float = 4) -> Engine:
    """An engine after ``moves`` played in order (a pos string like ``h8i9`` or points)."""
    engine = Engine(size, rule=rule, hash_mb=hash_mb)
    for x, y in (parse_moves(moves) if isinstance(moves, str) else moves):
        engine.board.play(x, y)
    return engine


def fixed_depth_search(moves: str, depth: int, first_depth: int | None = None,
                       **params: float) -> tuple[int, int, list[int], Engine]:
    """Score, nodes (every iteration's) and principal variation (flat cells) of a fresh
    search of the position after ``moves``, with the tunables ``params``: iterations from
    ``first_depth`` (default ``depth``: one search) to ``depth`` plies, each ordered by the
    transposition table of the one before, as in play."""
    engine = engine_after(moves, hash_mb=1)
    for name, value in params.items():
        engine.set_param(name, value)
    ss = engine._state
    clear_search_state(ss)
    ss.counters[NODES] = 0
    score = 0
    for d in range(first_depth or depth, depth + 1):
        score = search_depth(engine.board.position, engine.board.tables, ss, engine._threats,
                             d, -MATE_BOUND, MATE_BOUND)
    pv = [int(m) for m in ss.pv[0, :ss.pv_len[0]]]
    return score, int(ss.counters[NODES]), pv, engine


def shared_engine(record: dict, hash_mb: float = 4) -> Engine:
    """The position of a shared puzzle record (``black``/``white`` stones or ``moves``)."""
    rule = RULES.get(record["rule"], record["rule"])
    if "moves" in record:
        return engine_after([tuple(m) for m in record["moves"]], record["size"], rule, hash_mb)
    to_move = BLACK if record["to_move"] == "black" else WHITE
    return engine_with(record["black"], record["white"], to_move, record["size"], rule,
                       hash_mb)


def replay(record, size: int = 15, rule: Rule = Rule.FREESTYLE) -> Board:
    """The board of a refereed game (:class:`~gomoku_engine.arena.referee.GameRecord`), each move
    checked to be the colour to move and legal (``Board.play`` raises otherwise)."""
    board = Board(size, rule=rule)
    for x, y in record.opening_moves:
        board.play(x, y)
    for move in record.moves:
        assert board.to_move == move.colour
        board.play(*move.point)
    return board


# --- incremental state against a recomputation ----------------------------------------------
def reference_zobrist(board: Board) -> int:
    """The Zobrist key of ``board`` recomputed from its stones."""
    key = np.uint64(0)
    z = board.tables.zobrist
    for x, y, colour in board.stones():
        key ^= z[colour, board.geometry.index(x, y)] ^ z[0, 0]
    return int(key)


@functools.cache
def _threat_table() -> np.ndarray:
    """The threat class of each combination of four line patterns (read-only)."""
    return combination_tables()[0]


def check_against_reference(board: Board) -> None:
    """Every incrementally kept array of ``board`` equals its recomputation from scratch
    (evaluation, line patterns, threats and their counts, renju fouls, key, neighbourhood)."""
    pos, g, threats = board.position, board.geometry, _threat_table()
    black, white, score = reference_evaluation(g, pos.cells, board.rule, board.to_move)
    assert list(pos.eval_sum) == [black, white]
    if board.tables.net_embed.shape[2] == 0:
        assert evaluate(pos, board.tables) == score
    else:  # a network plays (the default where one ships): its value from the stones alone
        fresh = Board(board.width, board.height, rule=board.rule, evaluation=board.evaluation)
        fresh.load(board.stones(), board.to_move)
        assert evaluate(pos, board.tables) == evaluate(fresh.position, fresh.tables)
    counts = np.zeros((2, N_THREATS), np.int64)
    unpacked = [point_patterns(pos, side) for side in range(2)]
    for cell in g.points:
        if pos.cells[cell] != EMPTY:
            assert pos.threat[0, cell] == pos.threat[1, cell] == 0
            continue
        for side, colour in enumerate((BLACK, WHITE)):
            patterns = reference_point_patterns(g, pos.cells, board.rule, int(cell), colour)
            assert list(unpacked[side][cell]) == patterns
            code = sum(p << (4 * d) for d, p in enumerate(patterns))
            threat = threats[code]
            if side == 0 and board.rule == Rule.RENJU:
                foul = foul_type(pos.cells.copy(), g.directions, int(cell))
                assert pos.foul[cell] == foul
                if foul:
                    threat = T_NONE
            assert pos.threat[side, cell] == threat
            counts[side, threat] += 1
    assert (pos.threat_count == counts).all()
    assert board.key() == reference_zobrist(board)
    stones = [g.index(x, y) for x, y, _ in board.stones()]
    near = np.zeros_like(pos.near)
    for cell in stones:
        near[cell + g.neighbourhood] += 1
    assert (pos.near == near).all()
    box = [pos.state[i] for i in (X_MIN, X_MAX, Y_MIN, Y_MAX)]
    if stones:
        cols, rows = [c % g.stride for c in stones], [c // g.stride for c in stones]
        assert box == [min(cols), max(cols), min(rows), max(rows)]
    else:
        assert box[0] > box[1] and box[2] > box[3]  # empty: no rectangle


# --- fake engines ----------------------------------------------------------------------------
def random_brain(*args: str) -> list[str]:
    """``tests/engines/random_brain.py`` with its options (``--seed``, ``--delay-ms``, ...)."""
    return [sys.executable, str(ENGINES / "random_brain.py"), *args]


# --- the engine as a protocol subprocess ----------------------------------------------------
#: Longest wait for a whole transcript session, seconds. It includes the compile of the
#: numba kernels (10-30 s) when their on-disk cache is cold; ``make test`` warms it first.
SESSION_TIMEOUT = 60.0
#: Longest wait for the first reply that needs the kernels, in the live-process tests.
WARM_TIMEOUT = 120.0
#: a move reply, ``x,y``
MOVE = re.compile(r"(\d+),(\d+)")


def engine_command(*python_flags: str) -> list[str]:
    """:data:`ENGINE` run with these flags of the Python interpreter (``-W error``, ...)."""
    return [sys.executable, *python_flags, "-m", "gomoku_engine"]


def run_session(data: bytes, cwd: Path, python_flags: tuple[str, ...] = (),
                timeout: float = SESSION_TIMEOUT) -> tuple[int, bytes, bytes]:
    """Write ``data`` at once, close stdin, read all output until EOF.

    Returns ``(exit code, stdout, stderr)``.
    """
    proc = subprocess.Popen(engine_command(*python_flags), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"engine did not finish within {timeout} s\n"
                    f"stdout so far:\n{out.decode('ascii', 'replace')}")
    return proc.returncode, out, err


def split_output(out: bytes) -> list[str]:
    """The stdout lines; also checks that every line ends with a bare LF."""
    assert b"\r" not in out, f"CR in the engine's output: {out!r}"
    text = out.decode("ascii", "replace")
    if text:
        assert text.endswith("\n"), f"last output line not terminated: {text[-80:]!r}"
    return text.splitlines()


class LiveEngine:
    """An engine process driven line by line, with a timestamped stdout reader."""

    def __init__(self, cwd: Path, *python_flags: str) -> None:
        self.proc = subprocess.Popen(engine_command(*python_flags), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, bufsize=0)
        self.lines: list[tuple[float, str]] = []
        self._cond = threading.Condition()
        self._eof = False
        self._stderr = b""
        self._threads = [threading.Thread(target=self._pump, daemon=True),
                         threading.Thread(target=self._drain_stderr, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._cond:
                self.lines.append((time.perf_counter(), raw.decode("ascii", "replace")))
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        self._stderr = self.proc.stderr.read()

    def send(self, text: str) -> float:
        """Write ``text`` in one write; returns the time it was written."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("ascii"))
        self.proc.stdin.flush()
        return time.perf_counter()

    def mark(self) -> int:
        """The number of lines read so far (for :meth:`wait_line`)."""
        with self._cond:
            return len(self.lines)

    def wait_line(self, predicate, timeout: float, start: int = 0) -> tuple[float, str]:
        """The first line from index ``start`` on (without its newline) that satisfies
        ``predicate``, and the time it was read."""
        deadline = time.perf_counter() + timeout
        seen = start
        with self._cond:
            while True:
                for stamp, raw in self.lines[seen:]:
                    if predicate(raw.rstrip("\n")):
                        return stamp, raw.rstrip("\n")
                seen = len(self.lines)
                left = deadline - time.perf_counter()
                if self._eof or left <= 0:
                    raise AssertionError(f"no such line within {timeout} s; output so far: "
                                         f"{[raw for _, raw in self.lines]}")
                self._cond.wait(left)

    def output(self) -> str:
        with self._cond:
            return "".join(raw for _, raw in self.lines)

    def finish(self, timeout: float = 5.0) -> tuple[str, bytes]:
        """After the process has exited: all of stdout, and stderr."""
        for thread in self._threads:
            thread.join(timeout)
        return self.output(), self._stderr

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def live(tmp_path: Path):
    """``live(*python_flags)`` starts a :class:`LiveEngine`; each is killed after the test."""
    engines: list[LiveEngine] = []

    def make(*python_flags: str) -> LiveEngine:
        engine = LiveEngine(tmp_path, *python_flags)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()
