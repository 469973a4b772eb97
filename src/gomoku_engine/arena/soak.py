"""The soak: many self-play games through real engine processes, every move timed.

``gomoku-engine soak`` plans a numbered list of games from its settings alone
(:func:`plan_soak`: rule x board size x search threads, cycled, each game with a short
random opening from the seed), plays a shard of it (:mod:`gomoku_engine.arena.shards`)
through the match runner's referee (:func:`gomoku_engine.arena.referee.play_game`: two
fresh engine processes a game, each move timed from writing its command to reading the
reply) and appends one JSON line per finished game, so that a run stopped at any point
resumes where it was.  :func:`soak_summary` counts what the issue asks of a soak: forfeits,
crashes, illegal moves, moves over the turn (each side's first move, which carries the
process's start, counted apart), and the 99th-percentile and slowest move per rule and
board size.

Games with two search threads are played one at a time (each engine's two threads need the
machine's two cores while it moves); games with one thread may be played side by side.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..core.constants import RULE_NAMES
from ..core.notation import Point
from ..core.records import RESULT_CODES
from .clock import STARTUP_MS
from .referee import DRAW_REASONS, GameRecord, play_game
from .shards import RecordFile, pending

#: the issue's soak: 1,000 games over every combination below
SOAK_GAMES = 1000
SOAK_RULES = ("freestyle", "standard", "renju", "caro")
SOAK_SIZES = (15, 20)
SOAK_THREADS = (1, 2)
#: this engine as the match runner and the tests start it (``python -m gomoku_engine``)
THIS_ENGINE = (sys.executable, "-m", "gomoku_engine")
#: the shard files' prefix in the output folder
SOAK_KIND = "soak"
#: an opening has 0 to this many stones, on the 5x5 square at the centre
OPENING_STONES = 3


@dataclass(frozen=True)
class SoakGame:
    """One planned game: its number, setting and opening stones (black first)."""

    index: int
    rule: str  #: a name of :data:`gomoku_engine.core.constants.RULE_NAMES`
    size: int
    threads: int  #: ``INFO thread_num`` of both engines
    opening: tuple[Point, ...]


def plan_soak(games: int = SOAK_GAMES, seed: int = 0, rules: Sequence[str] = SOAK_RULES,
              sizes: Sequence[int] = SOAK_SIZES, threads: Sequence[int] = SOAK_THREADS
              ) -> list[SoakGame]:
    """The soak's games: game ``i`` has the ``i % k``-th of the ``k`` combinations of
    ``rules`` x ``sizes`` x ``threads`` and an opening of 0 to :data:`OPENING_STONES`
    random stones drawn from ``(seed, i)`` (so any shard plans the same list).

    :raises ValueError: for an unknown rule name or an empty setting.
    """
    unknown = [r for r in rules if r not in RULE_NAMES]
    if unknown:
        raise ValueError(f"unknown rule {unknown[0]!r}: expected one of {sorted(RULE_NAMES)}")
    settings = list(itertools.product(rules, sizes, threads))
    if not settings:
        raise ValueError("the soak needs at least one rule, size and thread count")
    plan = []
    for index in range(games):
        rule, size, n_threads = settings[index % len(settings)]
        rng = random.Random(f"soak:{seed}:{index}")
        centre = size // 2
        square = [(centre + dx, centre + dy) for dx in range(-2, 3) for dy in range(-2, 3)]
        opening = tuple(rng.sample(square, rng.randint(0, OPENING_STONES)))
        plan.append(SoakGame(index, rule, size, n_threads, opening))
    return plan


def game_entry(game: SoakGame, record: GameRecord, turn_ms: int) -> dict:
    """The JSON line of a finished game: its setting, result, reason, what went wrong
    (``forfeit``: the reason of a game not ended by a five or a draw; ``crash``,
    ``illegal``) and every move as ``[colour, ms, first, kernel_free]`` (``first``: that
    side's first move of the game, which carries the process's start; ``kernel_free``:
    played without the search, :attr:`gomoku_engine.arena.referee.MoveRecord.kernel_free`;
    entries written before it have three items)."""
    seen: set[int] = set()
    moves = []
    for move in record.moves:
        moves.append([move.colour, round(move.seconds * 1000, 2), move.colour not in seen,
                      move.kernel_free])
        seen.add(move.colour)
    forfeit = record.reason not in ("five", *DRAW_REASONS)
    return {"game": game.index, "rule": game.rule, "size": game.size,
            "threads": game.threads, "opening": [list(p) for p in game.opening],
            "turn_ms": turn_ms, "result": RESULT_CODES[record.winner],
            "reason": record.reason, "forfeit": record.reason if forfeit else None,
            "crash": forfeit and ("crashed" in record.reason
                                  or "could not start" in record.reason),
            "illegal": forfeit and ("illegal reply" in record.reason
                                    or "played a foul" in record.reason),
            "moves": moves, "transcript": record.log}


@dataclass(frozen=True)
class SoakSettings:
    """How the soak's games are played (times in ms)."""

    command: tuple[str, ...] = THIS_ENGINE  #: the engine, playing both colours
    turn_ms: int = 200
    tolerance_ms: int = 1000  #: lateness before a move loses on time (the referee's)
    startup_ms: int = STARTUP_MS  #: extra time for each side's first move
    max_moves: int | None = None  #: adjudicate a draw after this many moves
    concurrency: int = 2  #: one-thread games played side by side


def play_soak_game(game: SoakGame, settings: SoakSettings) -> dict:
    """Play one planned game (:func:`gomoku_engine.arena.referee.play_game`) and return
    its :func:`game_entry`."""
    info = (("thread_num", str(game.threads)),)
    record = play_game(settings.command, settings.command, size=game.size,
                       rule=RULE_NAMES[game.rule], turn_ms=settings.turn_ms,
                       opening_moves=game.opening, tolerance_ms=settings.tolerance_ms,
                       first_move_grace_ms=settings.startup_ms,
                       max_moves=settings.max_moves, black_info=info, white_info=info)
    return game_entry(game, record, settings.turn_ms)


def run_soak(plan: Sequence[SoakGame], shard: tuple[int, int], done: Iterable[int],
             out: RecordFile, settings: SoakSettings,
             on_game: Callable[[dict], None] | None = None) -> int:
    """Play the games of ``shard`` not in ``done``, appending each entry to ``out`` as it
    ends: the one-thread games ``settings.concurrency`` at a time, then the two-thread
    games one at a time.  Returns the number of games played.

    :param on_game: called with each entry (progress).
    """
    by_index = {g.index: g for g in plan}
    todo = [by_index[n] for n in pending(sorted(by_index), done, shard)]

    def one(game: SoakGame) -> None:
        entry = play_soak_game(game, settings)
        out.append(entry)
        if on_game is not None:
            on_game(entry)

    alone = [g for g in todo if g.threads == 1]
    with ThreadPoolExecutor(max_workers=max(1, settings.concurrency)) as pool:
        list(pool.map(one, alone))
    for game in todo:
        if game.threads != 1:
            one(game)
    return len(todo)


def check_plan(plan: Sequence[SoakGame], entries: Iterable[dict]) -> None:
    """Refuse a folder whose finished games were planned otherwise (another seed, rule
    list, ...): resuming would mix two soaks.

    :raises ValueError: naming the first game that differs.
    """
    by_index = {g.index: g for g in plan}
    for entry in entries:
        game = by_index.get(entry["game"])
        if game is not None and (entry["rule"], entry["size"], entry["threads"],
                                 [list(p) for p in game.opening]) != (
                game.rule, game.size, game.threads, entry["opening"]):
            raise ValueError(f"game {entry['game']} in the folder was planned with other "
                             "settings (seed, rules, sizes or threads): use another folder")


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0 < p <= 100) of ``values`` by the nearest-rank method
    (the smallest value with at least p% of the values at or below it); 0 if empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _times(entries: Iterable[dict], first: bool) -> list[float]:
    return [move[1] for e in entries for move in e["moves"] if move[2] == first]


def _over(entries: Iterable[dict], first: bool) -> int:
    return sum(1 for e in entries for move in e["moves"]
               if move[2] == first and move[1] > e["turn_ms"])


def _kernel_free(entries: Iterable[dict], first: bool) -> int:
    return sum(1 for e in entries for move in e["moves"]
               if move[2] == first and len(move) > 3 and move[3])


def _setting_order(entry: dict) -> tuple[int, str, int]:
    """The report's order of settings: the rules as :data:`SOAK_RULES` lists them, then
    the size."""
    rule = entry["rule"]
    known = SOAK_RULES.index(rule) if rule in SOAK_RULES else len(SOAK_RULES)
    return known, rule, entry["size"]


def soak_summary(entries: Sequence[dict]) -> dict:
    """The soak's figures from its game entries.

    ``games``, ``forfeits``, ``crashes``, ``illegal``; ``moves`` and ``over_turn`` (moves
    after each side's first, and those that took longer than the turn time, ms >
    ``turn_ms``); ``first_moves``, ``first_over_turn`` and ``first_slowest_ms``; and per
    ``"rule SIZExSIZE"`` in ``settings``: ``games``, ``moves``, ``over_turn``, ``mean_ms``,
    ``p99_ms``, ``slowest_ms`` (first moves excluded).  Move times are ms.
    """
    groups: dict[str, list[dict]] = {}
    for e in sorted(entries, key=_setting_order):
        groups.setdefault(f"{e['rule']} {e['size']}x{e['size']}", []).append(e)
    settings = {}
    for name, group in groups.items():
        times = _times(group, first=False)
        settings[name] = {"games": len(group), "moves": len(times),
                          "over_turn": _over(group, first=False),
                          "mean_ms": sum(times) / len(times) if times else 0.0,
                          "p99_ms": percentile(times, 99),
                          "slowest_ms": max(times, default=0.0)}
    later, firsts = _times(entries, first=False), _times(entries, first=True)
    return {"games": len(entries),
            "forfeits": sum(1 for e in entries if e["forfeit"]),
            "crashes": sum(1 for e in entries if e["crash"]),
            "illegal": sum(1 for e in entries if e["illegal"]),
            "moves": len(later), "over_turn": _over(entries, first=False),
            "p99_ms": percentile(later, 99), "slowest_ms": max(later, default=0.0),
            "first_moves": len(firsts), "first_over_turn": _over(entries, first=True),
            "first_slowest_ms": max(firsts, default=0.0),
            "kernel_free": _kernel_free(entries, first=False),
            "first_kernel_free": _kernel_free(entries, first=True), "settings": settings}


def summary_lines(entries: Sequence[dict], planned: int | None = None) -> list[str]:
    """The soak's report as text (:func:`soak_summary`), with each forfeit's game and
    reason."""
    s = soak_summary(entries)
    of = f" of {planned}" if planned is not None else ""
    lines = [f"games: {s['games']}{of}; forfeits: {s['forfeits']}, crashes: {s['crashes']}, "
             f"illegal moves: {s['illegal']}",
             f"moves after each side's first: {s['moves']}, over the turn: {s['over_turn']}, "
             f"99th percentile {s['p99_ms']:.1f} ms, slowest {s['slowest_ms']:.1f} ms",
             f"first moves (with the process's start): {s['first_moves']}, over the turn: "
             f"{s['first_over_turn']}, slowest {s['first_slowest_ms']:.1f} ms",
             f"kernel-free moves (not searched): {s['kernel_free']} after each side's "
             f"first, {s['first_kernel_free']} first moves",
             f"  {'setting':16s} {'games':>5} {'moves':>6} {'over':>4} {'mean':>8} "
             f"{'p99':>8} {'slowest':>8}"]
    for name, row in s["settings"].items():
        lines.append(f"  {name:16s} {row['games']:5d} {row['moves']:6d} {row['over_turn']:4d} "
                     f"{row['mean_ms']:6.1f}ms {row['p99_ms']:6.1f}ms "
                     f"{row['slowest_ms']:6.1f}ms")
    if s["kernel_free"] or s["first_kernel_free"]:
        lines.insert(4, "WARNING: kernel-free moves were played: those games did not "
                        "measure the search (docs/startup.md)")
    for e in sorted(entries, key=lambda e: e["game"]):
        if e["forfeit"]:
            lines.append(f"  game {e['game']} ({e['rule']} {e['size']}x{e['size']}, "
                         f"{e['threads']} thread(s)): {e['forfeit']}")
    return lines


__all__ = ["SOAK_GAMES", "SOAK_KIND", "SOAK_RULES", "SOAK_SIZES", "SOAK_THREADS", "SoakGame",
           "SoakSettings", "THIS_ENGINE", "check_plan", "game_entry", "percentile",
           "plan_soak", "play_soak_game", "run_soak", "soak_summary", "summary_lines"]
