"""The tables of a match: by pair, by pairs of games, SPRT, standings, forfeits, move times.

``gomoku-engine match`` prints them at the end of a match; ``gomoku-engine report``
prints them again from the ``summary.json`` files that ``match --out`` saves
(:func:`gomoku_engine.arena.match.save_tournament`), summing several runs of the same
engines.  Every function returns the lines to print.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..core.records import RESULT_WINNERS
from .match import MatchResult, engine_figures, standings
from .referee import GameRecord
from .stats import Sprt, elo_estimate, elo_estimate_pairs

Results = Mapping[object, MatchResult]


def interval(low: float, high: float) -> str:
    """``[-12.3, +45.6]``; ``n/a`` when every game was won (or every one lost): the normal
    approximation has no spread then."""
    if low == high and abs(low) == float("inf"):
        return "n/a"
    return f"[{low + 0.0:+.1f}, {high + 0.0:+.1f}]"


def _pair_width(results: Results) -> int:
    return max((len(f"{r.first} vs {r.second}") for r in results.values()), default=4)


def pair_lines(results: Results) -> list[str]:
    """Per pair, for its first engine: games, wins, losses, draws, score, Elo difference with
    its 95% interval and the likelihood of superiority (:func:`stats.elo_estimate`)."""
    width = _pair_width(results)
    lines = ["Results by pair (for the first engine of each pair):",
             f"  {'pair':{width}s} {'games':>5} {'W':>4} {'L':>4} {'D':>4} "
             f"{'score':>6} {'Elo':>7} {'95% interval':>17} {'LOS':>6}"]
    for result in results.values():
        wins, losses, draws = result.score()
        total = wins + losses + draws
        if not total:
            continue
        est = elo_estimate(wins, losses, draws)
        lines.append(f"  {result.first + ' vs ' + result.second:{width}s} {total:5d} "
                     f"{wins:4d} {losses:4d} {draws:4d} "
                     f"{100 * (wins + draws / 2) / total:5.1f}% "
                     f"{est.elo + 0.0:+7.1f} {interval(est.low, est.high):>17s} "
                     f"{100 * est.los:5.1f}%")
    return lines


def pentanomial_lines(results: Results) -> list[str]:
    """Per pair, its results counted by pairs of games (the pentanomial) and the Elo
    difference estimated from them (:func:`stats.elo_estimate_pairs`)."""
    width = _pair_width(results)
    lines = ["By pairs of games (one opening, colours swapped; points 0, 1/2, 1, 3/2, 2):"]
    for result in results.values():
        pairs = result.pentanomial()
        if sum(pairs):
            est = elo_estimate_pairs(pairs)
            lines.append(f"  {result.first + ' vs ' + result.second:{width}s} "
                         f"{sum(pairs):5d} pairs {' '.join(map(str, pairs))}: Elo "
                         f"{est.elo + 0.0:+.1f} {interval(est.low, est.high)}")
    return lines


def sprt_lines(results: Results, test: Sprt) -> list[str]:
    """Per pair, the log-likelihood ratio of ``test`` on its pentanomial and the verdict."""
    lower, upper = test.bounds
    lines = []
    for result in results.values():
        verdict = {"H1": f"H1 accepted (elo >= {test.elo1:g})",
                   "H0": f"H0 accepted (elo <= {test.elo0:g})"}.get(result.sprt or "",
                                                                   "undecided")
        blind = result.kernel_free_after_first()
        if blind:
            verdict = (f"no decision: {blind} kernel-free moves after an engine's first "
                       "move of a game (moves not searched; play again with a warm cache, "
                       "longer turns or fewer games at a time)")
        lines.append(f"SPRT {result.first} vs {result.second} (by pairs): LLR "
                     f"{test.llr_pairs(result.pentanomial()):.2f} "
                     f"[{lower:.2f}, {upper:.2f}]: {verdict}")
    return lines


def standing_lines(results: Results) -> list[str]:
    """Every engine's total against the field, best first (:func:`match.standings`)."""
    rows = standings(results)
    width = max((len(row.name) for row in rows), default=6)
    lines = ["Standings:",
             f"  {'#':>2} {'engine':{width}s} {'games':>5} {'W':>4} {'L':>4} {'D':>4} "
             f"{'points':>7} {'score':>6} {'Elo vs field':>12}  95% interval"]
    for rank, row in enumerate(rows, start=1):
        if not row.games:
            continue
        est = elo_estimate(row.wins, row.losses, row.draws)
        lines.append(f"  {rank:2d} {row.name:{width}s} {row.games:5d} {row.wins:4d} "
                     f"{row.losses:4d} {row.draws:4d} {row.points:7.1f} "
                     f"{100 * row.points / row.games:5.1f}% "
                     f"{est.elo + 0.0:+7.1f} {interval(est.low, est.high)}")
    return lines


def forfeit_lines(results: Results) -> list[str]:
    """``Forfeits: N`` and one line per forfeit (:meth:`MatchResult.forfeit_details`)."""
    forfeits = [f for r in results.values() for f in r.forfeit_details()]
    return [f"Forfeits: {len(forfeits)}"] + [f"  {f}" for f in forfeits]


def move_time_lines(results: Results, names: Sequence[str], turn_ms: int) -> list[str]:
    """Per engine: moves, mean and slowest move time (ms) and, with a turn limit
    ``turn_ms`` > 0, the moves over it; each game's first move of an engine is counted
    apart, since the referee times it from the engine's start (start-up included)."""
    limit = turn_ms if turn_ms > 0 else None
    lines = []
    for name in names:
        parts = []
        for first_moves, label in ((False, "moves"), (True, "first moves of a game")):
            times = [t for r in results.values()
                     for is_first, engine in ((True, r.first), (False, r.second))
                     if engine == name for t in r.move_times(is_first, first_moves)]
            if times:
                late = f", over {limit} ms: {sum(1 for t in times if t * 1000 > limit)}" \
                    if limit else ""
                parts.append(f"{len(times)} {label}, mean {1000 * sum(times) / len(times):.0f}"
                             f" ms, max {1000 * max(times):.0f} ms{late}")
        if parts:
            lines.append(f"{name}: " + "; ".join(parts))
    return lines


def engine_lines(results: Results) -> list[str]:
    """Per engine (:func:`match.engine_figures`): moves, kernel-free moves (all, and after
    its first move of a game), moves after the first over the time they had, the first
    move's median and slowest time (start-up included) and the slowest other move; then a
    warning if any engine played a kernel-free move."""
    figures = engine_figures(results)
    if not any(f["moves"] for f in figures.values()):
        return []
    width = max(len(name) for name in figures)

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    lines = ["Moves by engine (kernel-free: played without the search; first: each game's "
             "first move, start-up included):",
             f"  {'engine':{width}s} {'moves':>6} {'kernel-free':>11} {'after 1st':>9} "
             f"{'over turn':>9} {'1st median':>10} {'1st max':>8} {'slowest':>8}"]
    for name, f in figures.items():
        lines.append(f"  {name:{width}s} {f['moves']:6d} {f['kernel_free']:11d} "
                     f"{f['kernel_free_after_first']:9d} {f['over_turn']:9d} "
                     f"{ms(f['first_move_ms_median']):>8}ms {ms(f['first_move_ms_max']):>6}ms "
                     f"{ms(f['slowest_ms']):>6}ms")
    return lines + _kernel_free_warning({name: f["kernel_free"] for name, f in figures.items()})


def _kernel_free_warning(counts: Mapping[str, int]) -> list[str]:
    """A warning naming every engine with kernel-free moves (``counts``: by name), or
    nothing."""
    blind = {name: n for name, n in counts.items() if n}
    if not blind:
        return []
    return ["WARNING: kernel-free moves (not searched) by "
            + ", ".join(f"{name} ({n})" for name, n in blind.items())
            + ": the result does not measure those engines' search (docs/startup.md)"]


def saved_engine_totals(folders: Sequence[str | Path]) -> dict[str, dict[str, int]]:
    """Per engine, its moves, kernel-free moves (all, and after its first of a game) and
    moves over the turn summed over the ``summary.json`` of each folder (those written
    since the runner counts them; empty without them)."""
    keys = ("moves", "kernel_free", "kernel_free_after_first", "over_turn")
    totals: dict[str, dict[str, int]] = {}
    for folder in folders:
        summary = json.loads((Path(folder) / "summary.json").read_text())
        for name, figures in summary.get("engines", {}).items():
            row = totals.setdefault(name, dict.fromkeys(keys, 0))
            for key in keys:
                row[key] += figures.get(key, 0)
    return totals


def saved_engine_lines(folders: Sequence[str | Path]) -> list[str]:
    """:func:`saved_engine_totals` as lines, with :func:`engine_lines`' warning; no lines
    without them."""
    totals = saved_engine_totals(folders)
    if not totals:
        return []
    lines = [f"{name}: {row['moves']} moves, kernel-free {row['kernel_free']} "
             f"({row['kernel_free_after_first']} after its first of a game), over the turn "
             f"{row['over_turn']}" for name, row in totals.items()]
    return lines + _kernel_free_warning({name: row["kernel_free"]
                                         for name, row in totals.items()})


def load_results(folders: Sequence[str | Path]) -> dict[tuple[str, str], MatchResult]:
    """The results saved by ``match --out`` in each folder's ``summary.json``, summed over
    the folders by pair of engine names (the order of the pair as first saved).

    Games are rebuilt from the summary's ``games`` entries (winner, reason and the worker
    of a cluster's game; no moves) and renumbered as :func:`match._plan` numbers a round
    robin of all the pairs, the openings of each folder after those of the folders before
    it: the two games of one opening stay a pair (:meth:`MatchResult.pentanomial`),
    openings of different runs never mix, and one folder keeps its own game numbers.

    :raises FileNotFoundError: if a folder has no ``summary.json``.
    :raises ValueError: if a game names a pair of engines the summary's pairs do not have.
    """
    summaries = [json.loads((Path(folder) / "summary.json").read_text()) for folder in folders]
    keys: dict[frozenset[str], tuple[str, str]] = {}
    for summary in summaries:
        for pair in summary.get("pairs", []):
            keys.setdefault(frozenset((pair["first"], pair["second"])),
                            (pair["first"], pair["second"]))
    stride = 2 * max(1, len(keys))  # games per opening of the merged round robin
    results = {key: MatchResult(first=key[0], second=key[1], pair_stride=stride)
               for key in keys.values()}
    position = {key: number for number, key in enumerate(results)}
    openings_before = 0  # openings of the folders already read
    for folder, summary in zip(folders, summaries):
        own_stride = 2 * max(1, len(summary.get("pairs", [])))  # this run's (match._plan)
        most = -1
        for game in summary.get("games", []):
            key = keys.get(frozenset((game["black"], game["white"])))
            if key is None:
                raise ValueError(f"{folder}: game {game['game']} of {game['black']} and "
                                 f"{game['white']}, a pair the summary does not list")
            opening, colour_swap = (game["game"] - 1) // own_stride, (game["game"] - 1) % 2
            most = max(most, opening)
            index = (openings_before + opening) * stride + 2 * position[key] + colour_swap
            winner = RESULT_WINNERS.get(game["result"], 0)
            record = GameRecord([], winner=winner, reason=game["reason"])
            results[key].games.append((index, game["black"] == key[0], record))
            if "worker" in game:
                results[key].workers[index] = game["worker"]
        openings_before += most + 1
    for result in results.values():
        result.games.sort(key=lambda g: g[0])
    return results


__all__ = ["engine_lines", "forfeit_lines", "interval", "load_results", "move_time_lines",
           "pair_lines", "pentanomial_lines", "saved_engine_lines", "saved_engine_totals",
           "sprt_lines",
           "standing_lines"]
