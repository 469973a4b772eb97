"""``gomoku-engine bench``: fixed positions searched to a fixed depth, with a signature.

Modelled on Stockfish's and rapfi's ``bench`` (Stockfish's ``benchmark.cpp``): every
position is searched from a cleared transposition table with no time limit, so the node
counts depend only on the search code.  The signature is a CRC-32 of every position's node
count and root score; any change to search behaviour changes it, and a test pins it at a
small depth.  Nodes per second are reported, never asserted.

The positions come from the engine's own games from the shared opening sets: openings,
middle games (one of them renju), and tactical positions (the side to move wins by force
on 15x15; it loses by force, and must find the longest defence, on 20x20).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from .core.calibration import calibration_rate
from .core.constants import Rule
from .engine import Engine, Limits
from .eval import DEFAULT_EVALUATION
from .core.notation import parse_moves

BENCH_HASH_MB = 16.0
DEFAULT_DEPTH = 8
#: depth of the speed check (``bench --check``): under a second of search at full speed
CHECK_DEPTH = 14
#: the speed check's ratio (bench nodes per CPU second at CHECK_DEPTH over the calibration
#: walk's rounds per CPU second, :mod:`gomoku_engine.core.calibration`) per evaluation: its
#: median and lowest of ten runs on the 2-core development machine, the classical table at
#: 1e9e335 (2026-12-06, while two games against Rapfi ran beside it), the network of six
#: runs on the commit that gave the standard and renju positions networks of their own
#: (2026-12-07, nothing beside it; docs/development.md, "Speed")
SPEED_RATIOS = {"classical": (0.00164, 0.00151), "network": (0.00120, 0.00117)}
#: the floor: 0.65 of the median, so that a 2x fall fails on any machine whose ratio is
#: up to 1.3 times this one's, and the spread of a loaded machine passes
FLOOR_SHARE = 0.65
SPEED_FLOORS = {name: FLOOR_SHARE * median for name, (median, _) in SPEED_RATIOS.items()}


@dataclass(frozen=True)
class BenchPosition:
    name: str
    size: int
    rule: Rule
    moves: str  #: position string, black first (``h8i9...``)


POSITIONS = (
    BenchPosition("15 opening", 15, Rule.FREESTYLE, "b6b5e6f4e2d7b4a1c7d5d8e9"),
    BenchPosition("15 midgame A", 15, Rule.FREESTYLE,
                  "j12o10m10m12o12l9o7k7j7n6j13l11j9j11j8j6l8k8k9k6"),
    BenchPosition("15 midgame B", 15, Rule.FREESTYLE,
                  "g8l6m8g12j11k9d5j9i10h9i9i8k10l9j10h10h8k11g9g7"),
    BenchPosition("15 midgame standard", 15, Rule.STANDARD,
                  "m2k3i5k2m6l7m7m5l8k5k4l5n5l3l4j3m3j5h3i4"),
    # renju: black's fouls are kept up to date on every make/unmake (cd3dc75 found them
    # costing 3x in renju searches, which no freestyle position showed)
    BenchPosition("15 midgame renju", 15, Rule.RENJU,
                  "b6b5e6f4e2d7b4a1c7c6e8e4d5g4d4f7d8e9f8g8"),
    BenchPosition("15 tactical", 15, Rule.FREESTYLE, "g5k2n2k5g6j4i3k4k3l4i4l3m4"),
    BenchPosition("20 opening", 20, Rule.FREESTYLE, "j10k11l9j11i11k9"),
    BenchPosition("20 midgame", 20, Rule.FREESTYLE,
                  "j10k11l9j11i11k9i10k10k8i12k13n11j9h11j8l11m11j7l7m6"),
    BenchPosition("20 tactical", 20, Rule.FREESTYLE,
                  "k10l10k12m10j11l9l13i10k11k13l11m11m12j9n13"),
)


@dataclass
class BenchLine:
    position: BenchPosition
    nodes: int
    score: int
    move: tuple[int, int]
    seconds: float


@dataclass
class BenchReport:
    lines: list[BenchLine]
    depth: int

    @property
    def nodes(self) -> int:
        return sum(line.nodes for line in self.lines)

    @property
    def seconds(self) -> float:
        return sum(line.seconds for line in self.lines)

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    @property
    def signature(self) -> str:
        """CRC-32 of the node counts and scores, as 8 hex digits."""
        text = ";".join(f"{line.nodes}:{line.score}" for line in self.lines)
        return f"{zlib.crc32(text.encode()):08x}"


def run_bench(depth: int = DEFAULT_DEPTH,
              positions: tuple[BenchPosition, ...] = POSITIONS,
              params: Mapping[str, float] | None = None,
              evaluation: str = DEFAULT_EVALUATION) -> BenchReport:
    """Search every position to ``depth`` plies from a cleared TT of 16 MiB, with the
    search's tunables ``params`` (name to value; defaults for the others) and the static
    ``evaluation`` (a name of :data:`gomoku_engine.eval.EVALUATIONS`).

    :raises ValueError: for an unknown tunable or a value outside its range, or an
        unknown evaluation.
    """
    engines: dict[tuple[int, Rule], Engine] = {}
    lines = []
    for pos in positions:
        if (pos.size, pos.rule) not in engines:
            engines[pos.size, pos.rule] = Engine(pos.size, rule=pos.rule,
                                                 hash_mb=BENCH_HASH_MB, params=params,
                                                 evaluation=evaluation)
        engine = engines[pos.size, pos.rule]
        engine.new_game()
        for x, y in parse_moves(pos.moves):
            engine.board.play(x, y)
        began = time.perf_counter()
        result = engine.search(Limits(depth=depth))
        lines.append(BenchLine(pos, result.nodes, result.score, result.move,
                               time.perf_counter() - began))
    return BenchReport(lines, depth)


@dataclass
class SpeedCheck:
    """The speed check's figures: the bench's best nodes per CPU second of two runs at
    ``depth``, the calibration walk's best rate (rounds per CPU second) of three
    measurements around them, their ratio, the floor and the bench's signature."""

    evaluation: str
    nps: int
    calibration: float
    depth: int
    floor: float
    signature: str

    @property
    def ratio(self) -> float:
        return self.nps / self.calibration

    @property
    def passed(self) -> bool:
        return self.ratio >= self.floor


def speed_check(evaluation: str = "classical", depth: int = CHECK_DEPTH) -> SpeedCheck:
    """The bench's speed with ``evaluation`` held against a machine-independent floor:
    nodes per second of the process's CPU time, divided by the rate of a calibration kernel
    that shares no code with the engine
    (:func:`gomoku_engine.core.calibration.calibration_rate`), measured in this process
    before, between and after two bench runs (the best of each).  CPU time, not wall time,
    on both sides: time spent waiting for a core on a loaded machine counts on neither.
    The kernels are loaded by a bench at depth 1 first, unmeasured.

    :param evaluation: a key of :data:`SPEED_FLOORS` (each evaluation has its own floor:
        the network's updates and MLP cost nodes the classical table does not pay).
    :returns: the figures; :attr:`SpeedCheck.passed` says whether the ratio is at least
        the floor.
    :raises KeyError: for an evaluation without a recorded floor.
    """
    floor = SPEED_FLOORS[evaluation]
    run_bench(1, evaluation=evaluation)  # load the kernels and tables: no run pays for it
    rates = [calibration_rate()]
    speeds, signature = [], ""
    for _ in range(2):
        began = time.process_time()
        report = run_bench(depth, evaluation=evaluation)
        speeds.append(report.nodes / max(time.process_time() - began, 1e-9))
        signature = report.signature
        rates.append(calibration_rate())
    return SpeedCheck(evaluation, int(max(speeds)), max(rates), depth, floor, signature)
