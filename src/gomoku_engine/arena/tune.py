"""Tuning the search's parameters by games (``gomoku-engine tune``): SPSA iterations of
game pairs against a fixed opponent, saved after each one so that a run resumes exactly.

**An iteration** (:func:`run_tune`): :class:`~gomoku_engine.arena.spsa.Spsa` gives
theta+ and theta-; ``pairs`` openings are drawn from the openings (a seeded numpy
generator), and on each of them theta+ and theta- each play a colour-swapped pair of
games against the opponent: 4 games an opening.  The tuned engine is told its values by
``INFO param NAME VALUE`` lines after ``START`` (and both engines ``INFO max_node`` with
a node cap).  The loss of theta is minus its share of the points (a win 1, a draw 1/2)
over its games.  theta+ and theta- meet the same opponent from the same opening with the
same colours, so the luck of an opening weighs on both alike and falls out of the
difference ``y+ - y-`` SPSA uses; playing them against the given opponent (rather than
theta+ against theta-) tunes for strength against that opponent, which is what a fixed
opponent such as Rapfi is given for, and self-play is the same engine at its defaults as
the opponent.

**Where the games run**: the match runner's plan and runners
(:mod:`gomoku_engine.arena.match`): an iteration's games are a plan of two engine pairs
(theta+ against the opponent, theta- against it) played by ``concurrency`` threads or by a
cluster's :class:`~gomoku_engine.arena.cluster.ClusterRunner` (each opening's pair on one
worker), with the referee of :func:`gomoku_engine.arena.match._referee`.

**State** (``state.pkl`` in the output folder, written aside and renamed over the old
one after each iteration): the settings, the optimizer (its iterate, gains and random
state), the openings' generator and every iteration's values and scores.  A run given a
folder that holds a state goes on from it; an interrupted iteration is played again from
its start, with the same openings and values.
"""

from __future__ import annotations

import copy
import functools
import pickle
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from ..core.constants import Rule
from ..core.notation import Point
from ..protocol.client import EngineProcess, EngineRefused, start_lines
from .clock import START_REPLY_MS, STARTUP_MS, Clock
from .match import (EngineSpec, MatchResult, Runner, ScheduledGame, _referee, _run,
                    engine_figures)
from .referee import GameRecord
from .spsa import Spsa

#: the state file in the output folder
STATE_FILE = "state.pkl"
#: the turn limit with a node cap and no --turn-ms (ms): a safety net only, so that the
#: node cap decides every move (and the games do not depend on the machine's load)
NODE_CAP_TURN_MS = 60_000
#: reasons of a game that say the engines cannot play (not a loss to count): the run stops
ENGINE_FAULTS = ("could not start", "answered START with", "ERROR")


class TuneError(RuntimeError):
    """A run that cannot go on: an engine that does not start or refuses a value, or an
    output folder holding another run's state.  The saved state is left as it was."""


@dataclass(frozen=True)
class TuneSettings:
    """What a run plays; a resumed run must be given the same (but ``games``)."""

    engine: tuple[str, ...]  #: the tuned engine's command line
    opponent: tuple[str, ...]  #: the fixed opponent's command line
    names: tuple[str, ...]  #: the tunables searched
    start: tuple[tuple[str, float], ...]  #: start values (else the defaults)
    games: int  #: games of the whole run: 4 x pairs a iteration
    pairs: int = 1  #: openings an iteration (each: 4 games)
    nodes: int | None = None  #: INFO max_node for both engines
    turn_ms: int = 0  #: INFO timeout_turn (0: NODE_CAP_TURN_MS with a node cap)
    size: int = 15
    rule: int = int(Rule.FREESTYLE)
    seed: int = 1
    gain: float = 8.0  #: SPSA's a (steps per unit of loss difference)
    perturbation: float = 1.0  #: SPSA's c (steps)
    openings: str | None = None  #: the opening file, as given
    #: INFO max_node for the opponent instead of ``nodes`` (node odds: an opponent much
    #: stronger a node, such as Rapfi, at fewer nodes, so that the score is near even,
    #: where theta+ and theta- most often differ); None: ``nodes``
    opponent_nodes: int | None = None

    @property
    def iterations(self) -> int:
        return max(1, self.games // (4 * self.pairs))

    def comparable(self) -> dict:
        """The settings a resumed run must share with the saved one."""
        values = asdict(self)
        values.pop("games")
        return values


@dataclass
class Iteration:
    """One iteration's record: the values played, the openings and the scores."""

    plus: dict[str, float]
    minus: dict[str, float]
    openings: list[int]  #: indices into the opening list
    score_plus: float  #: theta+'s share of the points, 0..1
    score_minus: float
    current: dict[str, float]  #: the iterate's values after this iteration
    results: list[str] = field(default_factory=list)  #: each game's "B+ five" etc.
    #: per engine (theta+, theta-, opponent) its moves' figures in this iteration
    #: (:func:`gomoku_engine.arena.match.engine_figures`: kernel-free moves, moves over
    #: the turn, first moves' times); empty in a state saved before they were kept
    moves: dict = field(default_factory=dict)


@dataclass
class TuneState:
    """Everything a run needs to go on exactly where it stopped."""

    settings: TuneSettings
    spsa: Spsa
    rng: np.random.Generator  #: draws the openings
    history: list[Iteration] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return len(self.history) >= self.settings.iterations


def new_state(settings: TuneSettings) -> TuneState:
    """A run at its start.

    :raises ValueError: for an unknown tunable or a start value outside its range.
    """
    spsa = Spsa(settings.names, dict(settings.start), settings.iterations, settings.seed,
                settings.gain, settings.perturbation)
    return TuneState(settings, spsa, np.random.default_rng(settings.seed))


def load_state(folder: str | Path) -> TuneState | None:
    """The state saved in ``folder``, or None if there is none."""
    path = Path(folder) / STATE_FILE
    if not path.exists():
        return None
    with path.open("rb") as handle:
        state = pickle.load(handle)
    for setting in fields(TuneSettings):  # a state saved before a setting existed: its default
        if not hasattr(state.settings, setting.name):
            object.__setattr__(state.settings, setting.name, setting.default)
    return state


def save_state(state: TuneState, folder: str | Path) -> None:
    """Write the state to ``folder`` (aside, then renamed over the old one: a run killed
    while writing keeps the previous whole state)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    scratch = path / (STATE_FILE + ".tmp")
    with scratch.open("wb") as handle:
        pickle.dump(state, handle)
    scratch.replace(path / STATE_FILE)


def resume_or_start(settings: TuneSettings, folder: str | Path) -> TuneState:
    """The state saved in ``folder`` if it is a run of ``settings`` (its ``games`` may
    differ: a longer run goes on, the gains keep the first run's length), else a new one.

    :raises TuneError: if ``folder`` holds a run of other settings (naming them).
    :raises ValueError: as :func:`new_state`.
    """
    state = load_state(folder)
    if state is None:
        return new_state(settings)
    saved, given = state.settings.comparable(), settings.comparable()
    differ = sorted(k for k in given if saved.get(k) != given[k])
    if differ:
        raise TuneError(f"{folder} holds a run with other settings ("
                        + "; ".join(f"{k}: {saved.get(k)!r} there, {given[k]!r} given"
                                    for k in differ)
                        + "); give the same settings to resume it, or another --out")
    state.settings = settings
    return state


def info_lines(values: dict[str, float]) -> tuple[tuple[str, str], ...]:
    """``INFO param NAME VALUE`` settings (as ``(key, value)`` for ``start_lines``)."""
    return tuple(("param", f"{name} {format_value(value)}") for name, value in values.items())


def format_value(value: float) -> str:
    """A value as the protocol and params.py write it: an integer without a point."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _engines(settings: TuneSettings, plus: dict[str, float], minus: dict[str, float]
             ) -> list[EngineSpec]:
    """theta+, theta- (the tuned engine with their values) and the opponent."""
    cap = (("max_node", str(settings.nodes)),) if settings.nodes else ()
    opponent_cap = ((("max_node", str(settings.opponent_nodes)),) if settings.opponent_nodes
                    else cap)
    return [EngineSpec("theta+", settings.engine, cap + info_lines(plus)),
            EngineSpec("theta-", settings.engine, cap + info_lines(minus)),
            EngineSpec("opponent", settings.opponent, opponent_cap)]


def clock_of(settings: TuneSettings) -> Clock:
    """The games' time control: the turn limit, or the node cap's safety net."""
    return Clock(turn_ms=settings.turn_ms or NODE_CAP_TURN_MS,
                 startup_ms=STARTUP_MS)


def _plan(openings: Sequence[Sequence[Point]], chosen: Sequence[int]
          ) -> list[ScheduledGame]:
    """The iteration's games in the match runner's layout (``match._plan``): opening
    ``k`` holds games ``4k .. 4k+3``, theta+ (engine 0) against the opponent (engine 2)
    with black then white, then theta- (engine 1) the same."""
    plan = []
    for k, index in enumerate(chosen):
        for p, pair in enumerate(((0, 2), (1, 2))):
            for swap in (0, 1):
                plan.append((4 * k + 2 * p + swap, pair, swap == 0, openings[index]))
    return plan


def _points(result: MatchResult) -> float:
    """The first engine's share of the points, 0..1."""
    wins, losses, draws = result.score()
    return (wins + draws / 2) / max(1, wins + losses + draws)


def _check_faults(results: dict[tuple[int, int], MatchResult]) -> None:
    """:raises TuneError: if a game ended because an engine could not play."""
    for result in results.values():
        for index, first_black, record in result.games:
            if any(fault in record.reason for fault in ENGINE_FAULTS):
                black, white = ((result.first, result.second) if first_black
                                else (result.second, result.first))
                raise TuneError(f"a game of {black} (black) against {white} (white) "
                                f"ended with {record.reason!r}; nothing of this iteration "
                                "was saved")


def play_iteration(state: TuneState, openings: Sequence[Sequence[Point]],
                   concurrency: int = 1, runner: Runner | None = None,
                   on_game: Callable[[], None] | None = None) -> Iteration:
    """Play one iteration and tell the optimizer its losses; its record.

    :raises TuneError: if an engine could not play; ``state`` is then as it was.
    """
    settings = state.settings
    # worked on copies, kept only once the iteration is told: a failed or interrupted
    # iteration leaves the state as it was, to be played again from its start
    spsa, rng = copy.deepcopy(state.spsa), copy.deepcopy(state.rng)
    plus, minus = spsa.ask_pair()
    chosen = [int(i) for i in rng.integers(len(openings), size=settings.pairs)]
    engines = _engines(settings, plus, minus)
    results = {pair: MatchResult(first=engines[pair[0]].name, second="opponent",
                                 pair_stride=4) for pair in ((0, 2), (1, 2))}
    # a partial of a module function, not a closure: a cluster pickles it to its workers
    play = functools.partial(_referee, engines, size=settings.size, rule=Rule(settings.rule),
                             clock=clock_of(settings), max_moves=None, opening_rule="none")
    report = None if on_game is None else (lambda *_: on_game())
    plan = _plan(openings, chosen)
    if runner is None:
        _run(plan, results, play, concurrency, None, report)
    else:
        runner(plan, results, play, None, report)
    _check_faults(results)
    score_plus, score_minus = _points(results[0, 2]), _points(results[1, 2])
    spsa.tell_pair(-score_plus, -score_minus)
    state.spsa, state.rng = spsa, rng
    return Iteration(plus, minus, chosen, score_plus, score_minus, spsa.current_values(),
                     [_result_text(r) for pair in ((0, 2), (1, 2))
                      for _, _, r in sorted(results[pair].games, key=lambda g: g[0])],
                     engine_figures(results))


def move_totals(state: TuneState) -> dict[str, dict[str, int]]:
    """Per engine of the run (theta+, theta-, opponent): moves, kernel-free moves (all,
    and after an engine's first of a game) and moves over the turn, summed over the
    iterations that kept them (:attr:`Iteration.moves`)."""
    keys = ("moves", "kernel_free", "kernel_free_after_first", "over_turn")
    totals: dict[str, dict[str, int]] = {}
    for iteration in state.history:
        for name, figures in getattr(iteration, "moves", {}).items():
            row = totals.setdefault(name, dict.fromkeys(keys, 0))
            for key in keys:
                row[key] += figures[key]
    return totals


def _result_text(record: GameRecord) -> str:
    return {0: "draw", 1: "B+", 2: "W+"}[record.winner] + f" {record.reason}"


def run_tune(state: TuneState, openings: Sequence[Sequence[Point]], folder: str | Path,
             concurrency: int = 1, runner: Runner | None = None,
             on_game: Callable[[], None] | None = None,
             on_iteration: Callable[[TuneState], None] | None = None) -> TuneState:
    """Play the run's remaining iterations, saving the state to ``folder`` after each.

    :param openings: the opening stones of each opening, black first (at least one; an
        empty opening is the empty board).
    :param concurrency: threads playing an iteration's games (without ``runner``).
    :param runner: a cluster's runner instead (:class:`~gomoku_engine.arena.cluster.ClusterRunner`).
    :param on_game: called after each game (a progress bar).
    :param on_iteration: called after each saved iteration.
    :raises TuneError: as :func:`play_iteration`; the state saved before it is kept.
    """
    openings = list(openings) or [[]]
    while not state.done:
        iteration = play_iteration(state, openings, concurrency, runner, on_game)
        state.history.append(iteration)
        save_state(state, folder)
        if on_iteration is not None:
            on_iteration(state)
    return state


def check_engines(settings: TuneSettings, values: dict[str, float],
                  timeout_ms: int = START_REPLY_MS + STARTUP_MS) -> None:
    """Start each engine once before the run: the opponent must answer ``START`` with
    ``OK``, and the tuned engine must take ``values`` by ``INFO param`` without an
    ``ERROR`` (an engine without ``INFO param``, or with other ranges).

    Each ``INFO param`` line is followed by ``ABOUT``: an engine may hold an ``INFO``
    line's ``ERROR`` until the next other command (this one does, and keeps only the
    last ``INFO param``'s), so each value is asked about on its own.

    :raises TuneError: naming the engine and its answer.
    """
    for name, command, info in (("engine", settings.engine, info_lines(values)),
                                ("opponent", settings.opponent, ())):
        lines = start_lines(settings.size, settings.rule, settings.turn_ms or NODE_CAP_TURN_MS,
                            0)
        lines += [line for key, value in info for line in (f"INFO {key} {value}", "ABOUT")]
        lines.append("ABOUT")
        try:
            engine = EngineProcess(command)
        except OSError as exc:
            raise TuneError(f"the {name} ({' '.join(command)}) does not start: {exc}") from exc
        try:
            engine.send(*lines)
            answers = _answers_until_about(engine, lines.count("ABOUT"), timeout_ms / 1000)
        except (OSError, EngineRefused) as exc:
            raise TuneError(f"the {name} ({' '.join(command)}) does not start: {exc}") from exc
        finally:
            engine.close()
        errors = [a for a in answers if a.upper().startswith("ERROR")]
        if "OK" not in answers or errors:
            raise TuneError(f"the {name} ({' '.join(command)}) refused the settings: "
                            + "; ".join(errors or [f"answered {answers!r}"]))


def _answers_until_about(engine: EngineProcess, abouts: int, timeout: float) -> list[str]:
    """The engine's answers (``MESSAGE`` lines left out) up to its ``abouts``-th ``ABOUT``
    line (``name=...``), those left out.

    :raises EngineRefused: if it stops answering first.
    """
    import time

    from ..protocol.client import EngineTimeout

    deadline = time.perf_counter() + timeout
    answers: list[str] = []
    while abouts:
        try:
            line = engine.read_reply(deadline - time.perf_counter())
        except (EngineTimeout, EOFError) as exc:
            raise EngineRefused(f"{exc} (answers so far: {answers!r})") from None
        if "name=" in line:
            abouts -= 1
        else:
            answers.append(line)
    return answers
