"""Engine-vs-engine games from an opening list, colours swapped per opening, in parallel.

A first version of the match runner: two engines, paired openings, per-move time, and a
summary of results, forfeits and move times (no Elo yet).  Each game is refereed by
:func:`gomoku_engine.game.play_game`.
"""

from __future__ import annotations

import json
import random
import shlex
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .constants import Rule
from .game import GameRecord, play_game
from .notation import Point, parse_moves
from .stats import Sprt


def load_openings(path: str | Path, size: int) -> list[list[Point]]:
    """Read an opening file: "pos" lines (``h8i9j7``) or "offset" lines (``0,0, 1,0, 1,3``).

    Offsets are relative to the centre (``x = dx + size // 2``), as in Piskvork's list.
    Openings with a stone outside a ``size`` x ``size`` board are left out.

    :raises InvalidMoveError: on a line in neither format.
    """
    openings = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "," in line:
            numbers = [int(v) for v in line.replace(",", " ").split()]
            openings.append([(size // 2 + dx, size // 2 + dy)
                             for dx, dy in zip(numbers[::2], numbers[1::2])])
        else:
            openings.append(parse_moves(line))
    return [o for o in openings if all(0 <= x < size and 0 <= y < size for x, y in o)]


@dataclass
class MatchResult:
    """Results from the first engine's point of view."""

    games: list[tuple[int, bool, GameRecord]] = field(default_factory=list)  #: (index, first engine is black, record)
    turn_ms: int = 0
    sprt: str | None = None  #: "H0" / "H1" once an SPRT was decided

    def score(self) -> tuple[int, int, int]:
        """(wins, losses, draws) of the first engine."""
        wins = losses = draws = 0
        for _, first_black, record in self.games:
            if record.winner == 0:
                draws += 1
            elif (record.winner == 1) == first_black:
                wins += 1
            else:
                losses += 1
        return wins, losses, draws

    def forfeits(self) -> list[str]:
        """Reasons of every game not ended by a five, a full board or the move limit."""
        return [r.reason for _, _, r in self.games
                if r.reason not in ("five", "board full", "move limit")]

    def move_times(self, first_engine: bool) -> list[float]:
        """Seconds per move of one engine (its first move, with start-up, excluded)."""
        times = []
        for _, first_black, record in self.games:
            colour = 1 if first_black == first_engine else 2
            own = [m.seconds for m in record.moves if m.colour == colour]
            times.extend(own[1:])
        return times


def run_match(first: Sequence[str], second: Sequence[str], openings: Sequence[Sequence[Point]],
              games: int, size: int = 15, rule: Rule = Rule.FREESTYLE, turn_ms: int = 1000,
              concurrency: int = 1, seed: int | None = None, max_moves: int | None = None,
              on_game: Callable[[int, bool, GameRecord], None] | None = None,
              sprt: Sprt | None = None) -> MatchResult:
    """Play ``games`` games; game ``2k`` and ``2k+1`` use opening ``k`` with colours swapped.

    :param seed: shuffle the openings with this seed (``None``: file order).
    :param sprt: stop starting new games once this test is decided (``result.sprt``).
    """
    order = list(openings) or [[]]
    if seed is not None:
        random.Random(seed).shuffle(order)
    plan = [(i, i % 2 == 0, order[(i // 2) % len(order)]) for i in range(games)]
    result = MatchResult(turn_ms=turn_ms)
    lock = threading.Lock()

    def one(item: tuple[int, bool, Sequence[Point]]) -> None:
        index, first_black, opening = item
        if result.sprt is not None:
            return  # decided: games not yet started are not played
        black, white = (first, second) if first_black else (second, first)
        record = play_game(black, white, size=size, rule=rule, turn_ms=turn_ms,
                           opening=opening, max_moves=max_moves)
        with lock:
            result.games.append((index, first_black, record))
            if sprt is not None and result.sprt is None:
                result.sprt = sprt.decision(*result.score())
            if on_game is not None:
                on_game(index, first_black, record)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        list(pool.map(one, plan))
    result.games.sort(key=lambda g: g[0])
    return result


def split_command(command: str) -> list[str]:
    """Shell-like split of an engine command line."""
    return shlex.split(command)


def save_match(result: MatchResult, folder: str | Path, first_name: str, second_name: str,
               size: int) -> None:
    """Write every game as ``game_NNN.psq`` and ``game_NNN.sgf``, and ``summary.json``."""
    from .records import write_psq, write_sgf
    from .stats import elo_estimate

    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    games = []
    for index, first_black, record in result.games:
        black, white = (first_name, second_name) if first_black else (second_name, first_name)
        moves = [(x, y, 0) for x, y in record.opening]
        moves += [(m.point[0], m.point[1], round(m.seconds * 1000)) for m in record.moves]
        outcome = {0: "0", 1: "B+", 2: "W+"}[record.winner]
        stem = path / f"game_{index + 1:03d}"
        stem.with_suffix(".psq").write_text(write_psq(moves, size))
        stem.with_suffix(".sgf").write_text(
            write_sgf([(x, y) for x, y, _ in moves], size, black, white, outcome))
        games.append({"game": index + 1, "black": black, "white": white, "result": outcome,
                      "reason": record.reason, "stones": len(moves)})
    wins, losses, draws = result.score()
    est = elo_estimate(wins, losses, draws)
    summary = {"first": first_name, "second": second_name, "wins": wins, "losses": losses,
               "draws": draws, "elo": est.elo, "elo_low": est.low, "elo_high": est.high,
               "los": est.los, "forfeits": result.forfeits(), "turn_ms": result.turn_ms,
               "games": games}
    (path / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
