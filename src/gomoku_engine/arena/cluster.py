"""Matches on a Dask cluster (``match --cluster``): pairs of games run on workers, tallied here.

A cluster is named by a SPEC (:func:`parse_spec`): ``local`` or ``local:N`` starts a Dask
``LocalCluster`` of N single-threaded worker processes on this machine; a scheduler
address (``tcp://host:8786``, ``tls://...``) joins a cluster started with Dask's own
tools (``dask scheduler``, ``dask worker ADDRESS --nthreads 1``).  This module only
schedules: Dask moves the jobs, retries a job whose worker died on another worker, and
reports the results (``docs/cluster.md``).

* :func:`preflight` runs :func:`gomoku_engine.arena.worker_check.check_worker` once on
  every worker: the same engines everywhere (else :class:`ClusterError` naming the
  worker), the kernels compiled, each worker's nodes per second.
* :class:`ClusterRunner` is a :data:`gomoku_engine.arena.match.Runner`: each job is one
  opening's colour-swapped pair of games played one after the other on one worker (its
  speed then weighs on both colours alike); at most a window of jobs is submitted at a
  time; results are tallied, judged by the SPRT and reported on this machine as jobs
  end; a pair decided by its SPRT submits no more jobs (the jobs in flight are finished
  and counted).  Every game index is counted once, and the worker that played it is
  kept in :attr:`MatchResult.workers`.
* :func:`connect` also makes every worker's engines die with it
  (:func:`_tie_engines_to_workers`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..protocol.client import engines_die_with_their_thread
from .match import EngineSpec, MatchResult, OnGame, ScheduledGame, _tally
from .referee import GameRecord
from .stats import Sprt
from .worker_check import BENCH_DEPTH, check_worker, engine_problems, slow_workers

if TYPE_CHECKING:
    from distributed import Client

#: a job's games and the worker that played them
PairOutcome = tuple[str, list[tuple[ScheduledGame, GameRecord]]]


class ClusterError(RuntimeError):
    """A cluster that cannot play the match: no workers, or workers with other engines."""


def parse_spec(spec: str) -> tuple[int, str | None]:
    """``(local worker processes, None)`` for ``local`` / ``local:N`` (``local``: one per
    core), ``(0, address)`` for a scheduler address such as ``tcp://host:8786``.

    :raises ValueError: for any other text, or N < 1.
    """
    if spec == "local":
        return os.cpu_count() or 1, None
    if spec.startswith("local:"):
        count = spec.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{spec!r}: local:N needs a number of workers N >= 1")
        return int(count), None
    if "://" in spec:
        return 0, spec
    raise ValueError(f"{spec!r} is not 'local', 'local:N' or a scheduler address "
                     "(tcp://host:8786)")


@contextmanager
def connect(spec: str) -> Iterator[Client]:
    """A Dask client of the cluster ``spec`` (:func:`parse_spec`); a local cluster is
    started here and closed on exit.

    :raises ValueError: for a bad spec; :class:`OSError` (Dask's) if the scheduler does
        not answer.
    """
    from distributed import Client, LocalCluster

    workers, address = parse_spec(spec)
    if address is not None:
        with Client(address) as client:
            _tie_engines_to_workers(client)
            yield client
        return
    # one thread per worker process: engines are processes of their own, and a game's
    # time is per move, so two games on one worker's threads would slow each other
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        _tie_engines_to_workers(client)
        yield client


def _tie_engines_to_workers(client: Client) -> None:
    """Every worker of the cluster, present or joining later (a restarted one included),
    starts its engines so that they die with it
    (:func:`gomoku_engine.protocol.client.engines_die_with_their_thread`): a job (a match's
    pair, a batch of ``selfplay --engine`` or ``label``) uses its engines in the thread
    that started them, and a killed worker leaves no engine thinking on."""
    from distributed import WorkerPlugin

    class EnginesDieWithWorker(WorkerPlugin):
        def setup(self, worker: object) -> None:
            engines_die_with_their_thread()

    client.register_plugin(EnginesDieWithWorker(), name="gomoku-engines-die-with-worker")


def preflight(client: Client, engines: Sequence[EngineSpec],
              bench_depth: int | None) -> dict[str, dict]:
    """Check every worker before the first game (module docstring); each worker's report
    (:func:`gomoku_engine.arena.worker_check.check_worker`, and its ``name``) by its
    address.

    :param bench_depth: depth of the speed bench after the warm-up; None: neither.
    :raises ClusterError: if the cluster has no worker, or an engine does not resolve or
        differs on a worker (the message names every such worker).
    """
    workers = client.scheduler_info()["workers"]
    if not workers:
        raise ClusterError("the cluster has no workers")
    commands = {e.name: list(e.command) for e in engines}
    futures = {w: client.submit(check_worker, commands, bench_depth, workers=[w],
                                allow_other_workers=False, pure=False)
               for w in sorted(workers)}
    # the name given to `dask worker --name` (a LocalCluster's are numbers) beside the address
    reports = {w: {"name": str(workers[w].get("name", w)), **f.result()}
               for w, f in futures.items()}
    problems = engine_problems(reports)
    if problems:
        raise ClusterError("refused: " + "; ".join(problems))
    return reports


def cluster_summary(spec: str, reports: dict[str, dict]) -> dict:
    """The ``cluster`` entry of ``summary.json``: the spec, each worker's engines, warm-up
    seconds and nodes per second, and the workers named slow."""
    return {"spec": spec, "workers": reports, "slow_workers": slow_workers(reports)}


def play_pair(play: Callable[[ScheduledGame], GameRecord],
              games: Sequence[ScheduledGame]) -> PairOutcome:
    """A job, on a worker: ``games`` one after the other; their records and this worker's
    address."""
    from distributed import get_worker

    return get_worker().address, [(game, play(game)) for game in games]


def pair_jobs(plan: Sequence[ScheduledGame], stride: int) -> list[list[ScheduledGame]]:
    """The plan's games grouped by pair of engines and opening (``index // stride``, see
    :func:`gomoku_engine.arena.match._plan`), in the order of their first game."""
    jobs: dict[tuple, list[ScheduledGame]] = {}
    for game in plan:
        jobs.setdefault((game[1], game[0] // stride), []).append(game)
    return list(jobs.values())


class ClusterRunner:
    """Plays a match's plan on a Dask cluster (module docstring); a
    :data:`gomoku_engine.arena.match.Runner`.

    :param window: jobs submitted at a time (None: the cluster's worker threads, so that
        a submitted job is a job being played).
    """

    def __init__(self, client: Client, window: int | None = None) -> None:
        self.client = client
        self.window = window

    def _room(self, in_flight: int) -> bool:
        window = self.window or sum(self.client.nthreads().values())
        return in_flight < max(1, window)

    def __call__(self, plan: Sequence[ScheduledGame],
                 results: dict[tuple[int, int], MatchResult],
                 play: Callable[[ScheduledGame], GameRecord], sprt: Sprt | None,
                 on_game: OnGame | None) -> None:
        from distributed import as_completed

        queue = iter(pair_jobs(plan, 2 * len(results)))
        running = as_completed()
        in_flight = 0
        counted: set[int] = set()

        def submit_more() -> None:
            nonlocal in_flight
            while self._room(in_flight):
                job = next((j for j in queue if results[j[0][1]].sprt is None), None)
                if job is None:
                    return  # every remaining job's pair is decided or none is left
                running.add(self.client.submit(play_pair, play, job, pure=False))
                in_flight += 1

        submit_more()
        for future in running:
            in_flight -= 1
            worker, played = future.result()
            for game, record in played:
                if game[0] not in counted:  # a retried job never counts a game twice
                    counted.add(game[0])
                    _count(results[game[1]], game, record, worker, sprt, on_game)
            submit_more()


def _count(result: MatchResult, game: ScheduledGame, record: GameRecord, worker: str,
           sprt: Sprt | None, on_game: OnGame | None) -> None:
    """Tally one game played by ``worker`` and report it."""
    index, _, first_black, _ = game
    result.workers[index] = worker
    _tally(result, game, record, sprt)
    if on_game is not None:
        on_game(index, result, first_black, record)


@contextmanager
def cluster_runner(spec: str, engines: Sequence[EngineSpec],
                   bench_depth: int | None = BENCH_DEPTH
                   ) -> Iterator[tuple[ClusterRunner, dict]]:
    """Connect to ``spec``, check its workers (:func:`preflight`) and yield a
    :class:`ClusterRunner` with the ``cluster`` entry of the summary
    (:func:`cluster_summary`); the connection (and a local cluster) closes on exit.

    :raises ValueError: for a bad spec; :class:`ClusterError` from :func:`preflight`.
    """
    with connect(spec) as client:
        reports = preflight(client, engines, bench_depth)
        yield ClusterRunner(client), cluster_summary(spec, reports)
