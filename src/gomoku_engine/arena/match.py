"""Engine-vs-engine matches: round robin, paired openings, time controls, in parallel.

Two or more engines (:class:`EngineSpec`: name, command, extra ``INFO`` lines) play every
other one; each opening is played twice with colours swapped.  Each game runs two fresh
engine processes and is refereed by :func:`gomoku_engine.arena.referee.play_game` under a
:class:`Clock` (turn time, game time with increment, tolerance).  Results are kept per
pair (:class:`MatchResult`) and summed into :func:`standings`; :func:`save_tournament`
writes every game as PSQ and SGF and a JSON summary.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import shlex
import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..core.constants import Rule
from ..core.records import RESULT_CODES
from .clock import Clock
from .engines import FreshEngines, ReusedEngines
from .referee import DRAW_REASONS, GameRecord, MoveRecord, play_game
from ..core.notation import Point, format_pair, parse_moves
from ..core.opening_rules import opening_violation
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


def check_openings(openings: Sequence[Sequence[Point]], opening_rule: str,
                   size: int) -> None:
    """Refuse openings that break ``opening_rule`` (only black's first stone is judged).

    :raises ValueError: naming every offending opening (1-based, in the given order), or
        for an unknown rule name.
    """
    bad = []
    for number, opening_moves in enumerate(openings, start=1):
        problem = opening_violation(opening_rule, opening_moves, size, size)
        if problem is not None:
            bad.append(f"opening {number} ({' '.join(format_pair(p) for p in opening_moves)}) "
                       f"{problem}")
    opening_violation(opening_rule, [(0, 0)], size, size)  # an unknown name raises
    if bad:
        raise ValueError("; ".join(bad))


@dataclass(frozen=True)
class EngineSpec:
    """An engine in a match: its display name, command line and extra ``INFO`` lines."""

    name: str
    command: tuple[str, ...]
    info: tuple[tuple[str, str], ...] = ()  #: ``INFO key value`` sent at the start of each game


@dataclass
class MatchResult:
    """One pair's results, from the first engine's point of view."""

    games: list[tuple[int, bool, GameRecord]] = field(default_factory=list)  #: (index, first engine is black, record)
    turn_ms: int = 0
    sprt: str | None = None  #: "H0" / "H1" once an SPRT was decided
    first: str = "first"  #: the engines' names
    second: str = "second"
    #: games of the whole schedule per opening (2 x the pairs of engines): game ``index``
    #: of this pair was played from opening ``index // pair_stride`` (see :func:`_plan`)
    pair_stride: int = 2
    #: the cluster worker that played game ``index`` (empty on this machine's threads)
    workers: dict[int, str] = field(default_factory=dict)

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

    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """The first engine's results counted by pairs of games (one opening, colours
        swapped): pairs scoring 0, 1/2, 1, 3/2 and 2 points (:func:`stats.pentanomial`).
        An opening with one game played so far is left out."""
        from .stats import pentanomial

        points: dict[int, list[float]] = {}
        for index, first_black, record in self.games:
            won = 0.5 if record.winner == 0 else float((record.winner == 1) == first_black)
            points.setdefault(index // self.pair_stride, []).append(won)
        return pentanomial(sum(p) for p in points.values() if len(p) == 2)

    def forfeits(self) -> list[str]:
        """Reasons of every game not ended by a five or a draw (:data:`DRAW_REASONS`)."""
        return [r.reason for _, _, r in self.games
                if r.reason != "five" and r.reason not in DRAW_REASONS]

    def forfeit_details(self) -> list[str]:
        """``game N: NAME (black) <reason>`` for every forfeit."""
        details = []
        for index, first_black, r in self.games:
            if r.reason == "five" or r.reason in DRAW_REASONS:
                continue
            loser_black = r.winner == 2
            loser = self.first if loser_black == first_black else self.second
            details.append(f"game {index + 1}: {loser} {r.reason}")
        return details

    def engine_moves(self, first_engine: bool) -> list[tuple[MoveRecord, bool]]:
        """Every move of one engine (the pair's first, or its second) in game order, each
        with whether it was that engine's first move of its game."""
        moves = []
        for _, first_black, record in self.games:
            colour = 1 if first_black == first_engine else 2
            own = [m for m in record.moves if m.colour == colour]
            moves.extend((m, n == 0) for n, m in enumerate(own))
        return moves

    def kernel_free_after_first(self) -> int:
        """Kernel-free moves of either engine after its first move of a game: moves that
        were not searched once the game was under way (a result that holds them does not
        measure the engines' strength)."""
        return sum(1 for first_engine in (True, False)
                   for m, first in self.engine_moves(first_engine)
                   if m.kernel_free and not first)

    def move_times(self, first_engine: bool, first_moves: bool = False) -> list[float]:
        """Seconds per move of one engine: every move but its first of each game, or with
        ``first_moves`` only those first moves (which may include the engine's start-up)."""
        times = []
        for _, first_black, record in self.games:
            colour = 1 if first_black == first_engine else 2
            own = [m.seconds for m in record.moves if m.colour == colour]
            times.extend(own[:1] if first_moves else own[1:])
        return times


#: one game of a round robin: (index in the schedule, (i, j) the pair's engine numbers,
#: engine i is black, the opening stones)
ScheduledGame = tuple[int, tuple[int, int], bool, Sequence[Point]]
OnGame = Callable[[int, "MatchResult", bool, GameRecord], None]
#: plays a plan: ``(plan, results by pair, play one game, sprt, on_game)``, tallying each
#: game with :func:`_tally` as it ends (:func:`_run` on threads, or a cluster's runner)
Runner = Callable[[Sequence[ScheduledGame], dict[tuple[int, int], MatchResult],
                   Callable[[ScheduledGame], GameRecord], Sprt | None, OnGame | None], None]


def _plan(n_engines: int, openings: Sequence[Sequence[Point]], games: int,
          seed: int | None) -> list[ScheduledGame]:
    """``(index, (i, j), i is black, opening stones)`` for every game of a round robin.

    Every pair plays ``games`` games; its games ``2k`` and ``2k+1`` use opening ``k`` (in
    file order, or shuffled with ``seed``; the same order for every pair) with colours
    swapped.  Pairs take turns opening by opening, so all of them advance together.
    """
    order = list(openings) or [[]]
    if seed is not None:
        random.Random(seed).shuffle(order)
    pairs = list(itertools.combinations(range(n_engines), 2))
    rows = [(g // 2, p, g % 2) for g in range(games) for p in range(len(pairs))]
    rows.sort()
    plan = []
    for index, (k, p, swap) in enumerate(rows):
        plan.append((index, pairs[p], swap == 0, order[k % len(order)]))
    return plan


def _empty_results(engines: Sequence[EngineSpec], clock: Clock
                   ) -> dict[tuple[int, int], MatchResult]:
    """A :class:`MatchResult` with no game yet for every pair ``(i, j)``, ``i < j``."""
    pairs = list(itertools.combinations(range(len(engines)), 2))
    return {pair: MatchResult(turn_ms=clock.turn_ms, first=engines[pair[0]].name,
                              second=engines[pair[1]].name, pair_stride=2 * len(pairs))
            for pair in pairs}


def log_paths(log_dir: str | Path, index: int, black: str, white: str
              ) -> tuple[Path, Path]:
    """The I/O logs of game ``index`` (0-based) in ``log_dir``:
    ``game_NNN_black_NAME.log`` and ``game_NNN_white_NAME.log`` (N: ``index + 1``)."""
    folder = Path(log_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return (folder / f"game_{index + 1:03d}_black_{black}.log",
            folder / f"game_{index + 1:03d}_white_{white}.log")


def _referee(engines: Sequence[EngineSpec], game: ScheduledGame, size: int, rule: Rule,
             clock: Clock, max_moves: int | None, opening_rule: str,
             processes: FreshEngines | None = None,
             log_dir: str | None = None) -> GameRecord:
    """Play one scheduled game (:func:`gomoku_engine.arena.referee.play_game`), its
    engines from ``processes`` (fresh ones by default), their I/O logged in ``log_dir``
    (:func:`log_paths`) if given."""
    index, pair, first_black, opening_moves = game
    a, b = engines[pair[0]], engines[pair[1]]
    black, white = (a, b) if first_black else (b, a)
    logs = log_paths(log_dir, index, black.name, white.name) if log_dir else (None, None)
    return play_game(black.command, white.command, size=size, rule=rule,
                     turn_ms=clock.turn_ms, match_ms=clock.match_ms,
                     increment_ms=clock.increment_ms, tolerance_ms=clock.tolerance_ms,
                     first_move_grace_ms=clock.startup_ms, opening_moves=opening_moves,
                     max_moves=max_moves, black_info=black.info, white_info=white.info,
                     opening_rule=opening_rule, engines=processes, logs=logs)


def _tally(result: MatchResult, game: ScheduledGame, record: GameRecord,
           sprt: Sprt | None) -> None:
    """Add a finished game to its pair's result and judge the pair's SPRT on it; a pair
    with a kernel-free move after an engine's first move of a game
    (:meth:`MatchResult.kernel_free_after_first`) is not decided (its games did not all
    measure the engines)."""
    index, _, first_black, _ = game
    result.games.append((index, first_black, record))
    if sprt is not None and result.sprt is None and not result.kernel_free_after_first():
        result.sprt = sprt.decision_pairs(result.pentanomial())


def _run(plan: Sequence[ScheduledGame], results: dict[tuple[int, int], MatchResult],
         play: Callable[[ScheduledGame], GameRecord], concurrency: int,
         sprt: Sprt | None, on_game: OnGame | None) -> None:
    """Play the ``plan`` on ``concurrency`` threads, tallying each game as it ends; a pair
    whose SPRT is decided starts no more games."""
    lock = threading.Lock()

    def one(game: ScheduledGame) -> None:
        index, pair, first_black, _ = game
        result = results[pair]
        if result.sprt is not None:
            return  # decided: games not yet started are not played
        record = play(game)
        with lock:
            _tally(result, game, record, sprt)
            if on_game is not None:
                on_game(index, result, first_black, record)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        list(pool.map(one, plan))


def run_round_robin(engines: Sequence[EngineSpec], openings: Sequence[Sequence[Point]],
                    games: int, size: int = 15, rule: Rule = Rule.FREESTYLE,
                    clock: Clock | None = None, concurrency: int = 1,
                    seed: int | None = None, max_moves: int | None = None,
                    on_game: OnGame | None = None, sprt: Sprt | None = None,
                    opening_rule: str = "none", runner: Runner | None = None,
                    reuse_engines: bool = False, log_dir: str | None = None
                    ) -> dict[tuple[int, int], MatchResult]:
    """Every pair of ``engines`` plays ``games`` games (see :func:`_plan`); results by pair.

    A crashed or hung engine loses that game (the referee kills it) and is started
    afresh for the next one.  By default every game runs its own two processes; with
    ``reuse_engines`` each thread keeps one process per engine across its games
    (:class:`gomoku_engine.arena.engines.ReusedEngines`: ``START`` again each game, a
    fresh process after a fault), as c-gomoku-cli does.

    :param openings: the opening stones of each opening, black first.
    :param sprt: per pair: stop starting that pair's games once its test, on the results
        counted in pairs of games (:meth:`MatchResult.pentanomial`), is decided.
    :param on_game: called after each game with (index, the pair's result so far, first
        engine of the pair is black, record).
    :param opening_rule: where black's first stone may go (``"lin"``: Lin's rule, see
        :mod:`gomoku_engine.core.opening_rules`); engines are told by ``INFO opening``, a stone
        that breaks it is a forfeit.  Without openings the games start from the empty
        board and black's engine chooses its first stone.
    :param runner: plays the games instead of ``concurrency`` threads on this machine (a
        cluster's, :class:`gomoku_engine.arena.cluster.ClusterRunner`); the game function
        it is given is picklable.
    :param log_dir: write each engine's I/O of each game there, timestamped
        (:func:`log_paths`).
    :raises ValueError: with fewer than two engines, openings that break the rule, or
        ``reuse_engines`` with a ``runner`` (a cluster's workers start their own).
    """
    if len(engines) < 2:
        raise ValueError("a match needs at least two engines")
    if reuse_engines and runner is not None:
        raise ValueError("engines are reused on this machine's threads only, not on a "
                         "cluster")
    check_openings(openings, opening_rule, size)
    clock = clock or Clock()
    results = _empty_results(engines, clock)
    processes = ReusedEngines() if reuse_engines else None

    # a partial of a module function, not a closure: a cluster pickles it to its workers
    play = functools.partial(_referee, engines, size=size, rule=rule, clock=clock,
                             max_moves=max_moves, opening_rule=opening_rule,
                             processes=processes, log_dir=log_dir)
    plan = _plan(len(engines), openings, games, seed)
    try:
        if runner is None:
            _run(plan, results, play, concurrency, sprt, on_game)
        else:
            runner(plan, results, play, sprt, on_game)
    finally:
        if processes is not None:
            processes.close()
    for result in results.values():
        result.games.sort(key=lambda g: g[0])
    return results


def run_match(first: Sequence[str], second: Sequence[str], openings: Sequence[Sequence[Point]],
              games: int, size: int = 15, rule: Rule = Rule.FREESTYLE, turn_ms: int = 1000,
              concurrency: int = 1, seed: int | None = None, max_moves: int | None = None,
              on_game: Callable[[int, bool, GameRecord], None] | None = None,
              sprt: Sprt | None = None, clock: Clock | None = None,
              first_info: Sequence[tuple[str, str]] = (),
              second_info: Sequence[tuple[str, str]] = ()) -> MatchResult:
    """Two engines: game ``2k`` and ``2k+1`` use opening ``k`` with colours swapped.

    :param seed: shuffle the openings with this seed (``None``: file order).
    :param sprt: stop starting new games once this test is decided (``result.sprt``).
    :param clock: the full time control (``turn_ms`` is used when it is None).
    """
    engines = [EngineSpec("first", tuple(first), tuple(first_info)),
               EngineSpec("second", tuple(second), tuple(second_info))]
    report = None
    if on_game is not None:
        def report(index: int, _: MatchResult, first_black: bool, record: GameRecord) -> None:
            on_game(index, first_black, record)
    results = run_round_robin(engines, openings, games, size=size, rule=rule,
                              clock=clock or Clock(turn_ms=turn_ms), concurrency=concurrency,
                              seed=seed, max_moves=max_moves, on_game=report, sprt=sprt)
    return results[(0, 1)]


@dataclass
class Standing:
    name: str
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def standings(results: Mapping[object, MatchResult]) -> list[Standing]:
    """Every engine's total against the field, best first (points, then fewer games)."""
    table: dict[str, Standing] = {}
    for result in results.values():
        wins, losses, draws = result.score()
        for name, w, l in ((result.first, wins, losses), (result.second, losses, wins)):
            row = table.setdefault(name, Standing(name))
            row.wins += w
            row.losses += l
            row.draws += draws
    return sorted(table.values(), key=lambda s: (-s.points, s.games))


def split_command(command: str) -> list[str]:
    """Shell-like split of an engine command line."""
    return shlex.split(command)


def colours(result: MatchResult, first_black: bool) -> tuple[str, str]:
    """Names of the black and the white engine of one of ``result``'s games."""
    return (result.first, result.second) if first_black else (result.second, result.first)


def move_figures(moves: Sequence[tuple[MoveRecord, bool]]) -> dict:
    """What an engine's moves (each with whether it was its first of a game) show about
    its time use: ``moves``; ``kernel_free`` and ``kernel_free_after_first`` (moves played
    without the search, :attr:`MoveRecord.kernel_free`); ``over_turn`` (moves after the
    first that took longer than they had, :attr:`MoveRecord.over_turn`);
    ``first_move_ms_median``/``_max`` (first moves of a game, start-up included) and
    ``slowest_ms`` (the other moves).  Times in ms, None without such moves."""
    later = [m.seconds * 1000 for m, first in moves if not first]
    firsts = [m.seconds * 1000 for m, first in moves if first]
    return {"moves": len(moves),
            "kernel_free": sum(1 for m, _ in moves if m.kernel_free),
            "kernel_free_after_first": sum(1 for m, first in moves
                                           if m.kernel_free and not first),
            "over_turn": sum(1 for m, first in moves if m.over_turn and not first),
            "first_move_ms_median": round(statistics.median(firsts), 1) if firsts else None,
            "first_move_ms_max": round(max(firsts), 1) if firsts else None,
            "slowest_ms": round(max(later), 1) if later else None}


def engine_figures(results: Mapping[object, MatchResult]) -> dict[str, dict]:
    """:func:`move_figures` of every engine over all its pairs, by name."""
    moves: dict[str, list[tuple[MoveRecord, bool]]] = {}
    for result in results.values():
        moves.setdefault(result.first, []).extend(result.engine_moves(True))
        moves.setdefault(result.second, []).extend(result.engine_moves(False))
    return {name: move_figures(own) for name, own in moves.items()}


def game_entry(result: MatchResult, index: int, first_black: bool,
               record: GameRecord) -> dict:
    """Game ``index`` (0-based) of ``result``'s pair as its entry of ``summary.json``
    (with moves, each side's :func:`move_figures` under ``black_moves``/``white_moves``)."""
    black, white = colours(result, first_black)
    game = {"game": index + 1, "black": black, "white": white,
            "result": RESULT_CODES[record.winner], "reason": record.reason,
            "stones": len(record.opening_moves) + len(record.moves)}
    for colour, key in ((1, "black_moves"), (2, "white_moves")):
        own = [m for m in record.moves if m.colour == colour]
        if own:
            game[key] = move_figures([(m, n == 0) for n, m in enumerate(own)])
    if index in result.workers:
        game["worker"] = result.workers[index]
    if record.log:
        game["transcript"] = record.log  # the faulting engine's last lines
    return game


def write_game(result: MatchResult, index: int, first_black: bool, record: GameRecord,
               folder: str | Path, size: int) -> None:
    """Game ``index`` (0-based) of ``result``'s pair as ``game_NNN.psq`` (each move's time,
    ms) and ``game_NNN.sgf`` in ``folder`` (N: ``index + 1``)."""
    from .records import write_psq, write_sgf

    black, white = colours(result, first_black)
    moves = [(x, y, 0) for x, y in record.opening_moves]
    moves += [(m.point[0], m.point[1], round(m.seconds * 1000)) for m in record.moves]
    stem = Path(folder) / f"game_{index + 1:03d}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".psq").write_text(write_psq(moves, size))
    stem.with_suffix(".sgf").write_text(write_sgf([(x, y) for x, y, _ in moves], size, black,
                                                  white, RESULT_CODES[record.winner]))


def _pair_summary(result: MatchResult) -> dict:
    from .stats import elo_estimate, elo_estimate_pairs

    wins, losses, draws = result.score()
    est = elo_estimate(wins, losses, draws) if result.games else None
    pairs = result.pentanomial()
    by_pairs = elo_estimate_pairs(pairs) if sum(pairs) else None
    return {"first": result.first, "second": result.second, "wins": wins, "losses": losses,
            "draws": draws, "elo": est and est.elo, "elo_low": est and est.low,
            "elo_high": est and est.high, "los": est and est.los,
            "pentanomial": list(pairs), "pairs_elo_low": by_pairs and by_pairs.low,
            "pairs_elo_high": by_pairs and by_pairs.high, "sprt": result.sprt,
            "kernel_free_after_first": result.kernel_free_after_first(),
            "forfeits": result.forfeit_details()}


def strict_json(value: object) -> object:
    """``value`` with every infinite or NaN float as None (null): strict JSON has no
    ``Infinity`` (an Elo interval is infinite when every game was won or lost)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def save_tournament(results: Mapping[object, MatchResult], folder: str | Path,
                    size: int, settings: dict | None = None, games_too: bool = True,
                    engines: dict[str, dict] | None = None) -> None:
    """Every game as ``game_NNN.psq`` and ``game_NNN.sgf`` (N: the game's number in the
    schedule), and ``summary.json`` with each pair's result, the standings and the games.

    With one pair the summary also has that pair's figures at its top level.
    ``games_too=False``: ``summary.json`` only (the games were written as they ended).
    ``engines``: each engine's move figures, where ``results`` no longer hold the moves
    (a merge of saved summaries); by default :func:`engine_figures` of ``results``.
    """
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    games = []
    for result in results.values():
        for index, first_black, record in result.games:
            if games_too:
                write_game(result, index, first_black, record, path, size)
            games.append(game_entry(result, index, first_black, record))
    games.sort(key=lambda g: g["game"])
    pairs = [_pair_summary(r) for r in results.values()]
    summary: dict = {}
    if len(pairs) == 1:
        summary.update(pairs[0])
    summary.update({
        "settings": settings or {},
        "pairs": pairs,
        "standings": [{"name": s.name, "games": s.games, "wins": s.wins, "losses": s.losses,
                       "draws": s.draws, "points": s.points} for s in standings(results)],
        "engines": engine_figures(results) if engines is None else engines,
        "games": games,
    })
    # written aside, then renamed over the old one: a match killed mid-write keeps a whole
    # summary
    scratch = path / "summary.json.tmp"
    scratch.write_text(json.dumps(strict_json(summary), indent=2, default=str,
                                  allow_nan=False) + "\n")
    scratch.replace(path / "summary.json")


def save_match(result: MatchResult, folder: str | Path, first_name: str, second_name: str,
               size: int) -> None:
    """One pair: every game as PSQ and SGF, and ``summary.json``."""
    result.first, result.second = first_name, second_name
    save_tournament({(0, 1): result}, folder, size, {"turn_ms": result.turn_ms})
