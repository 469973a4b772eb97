"""Matches on a Dask cluster (``match --cluster``): the same games as on threads, the SPRT
stop, refused engines, the command line.  One ``LocalCluster`` of two worker processes,
started by the tests; the engines are the tests' deterministic pure-Python engines (the
seeded random one and the greedy one), so the games do not depend on timing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")

from gomoku_engine.arena.cluster import (  # noqa: E402
    ClusterError, ClusterRunner, pair_jobs, parse_spec, preflight,
)
from gomoku_engine.arena.match import (  # noqa: E402
    Clock, EngineSpec, _plan, run_round_robin, save_tournament, standings,
)
from gomoku_engine.arena.stats import Sprt  # noqa: E402
from gomoku_engine.arena.worker_check import (  # noqa: E402
    engine_identity, engine_problems, package_identity, slow_workers,
)
from gomoku_engine.cli import main  # noqa: E402

from helpers import ENGINE, ENGINES, GREEDY, random_brain  # noqa: E402

CLOCK = Clock(turn_ms=2000, tolerance_ms=2000, startup_ms=10000)
ENGINE_PAIR = [EngineSpec("random", tuple(random_brain("--seed", "4"))),
               EngineSpec("greedy", tuple(GREEDY))]
OPENINGS = [[(7, 7)], [(7, 7), (8, 8)], [(6, 7), (8, 7)]]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


def _moves(results) -> dict[int, tuple]:
    return {index: (black, record.winner, record.reason,
                    [m.point for m in record.moves])
            for result in results.values() for index, black, record in result.games}


def test_cluster_specs():
    assert parse_spec("local:3") == (3, None)
    assert parse_spec("local")[0] >= 1
    assert parse_spec("tcp://10.0.0.2:8786") == (0, "tcp://10.0.0.2:8786")
    for bad in ("local:0", "local:x", "somewhere"):
        with pytest.raises(ValueError):
            parse_spec(bad)


def test_a_job_is_one_openings_pair_of_games():
    plan = _plan(3, OPENINGS, games=4, seed=None)
    jobs = pair_jobs(plan, 6)
    assert len(jobs) == 6 and all(len(job) == 2 for job in jobs)
    for first, second in jobs:
        assert first[1] == second[1] and first[3] == second[3] and first[2] != second[2]
    assert sorted(g[0] for job in jobs for g in job) == list(range(12))


def test_the_cluster_plays_the_games_of_the_thread_pool(client, tmp_path):
    engines = ENGINE_PAIR + [EngineSpec("random2", tuple(random_brain("--seed", "8")))]
    threads = run_round_robin(engines, OPENINGS, games=4, clock=CLOCK, concurrency=2,
                              max_moves=40)
    cluster = run_round_robin(engines, OPENINGS, games=4, clock=CLOCK, max_moves=40,
                              runner=ClusterRunner(client))
    assert len(_moves(cluster)) == 12
    assert _moves(cluster) == _moves(threads)
    workers = set(client.scheduler_info()["workers"])
    for result in cluster.values():
        assert sorted(result.workers) == [index for index, _, _ in result.games]
        assert set(result.workers.values()) <= workers
    save_tournament(cluster, tmp_path / "cluster", 15, games_too=False)
    games = json.loads((tmp_path / "cluster" / "summary.json").read_text())["games"]
    assert [g["game"] for g in games] == list(range(1, 13))
    assert all(g["worker"] in workers for g in games)
    # read back: one run keeps its numbers and workers; two runs merge into one summary
    from gomoku_engine.arena.report import load_results

    again = load_results([tmp_path / "cluster"])
    assert {k: sorted(r.workers.items()) for k, r in again.items()} == \
        {(r.first, r.second): sorted(r.workers.items()) for r in cluster.values()}
    save_tournament(threads, tmp_path / "threads", 15, games_too=False)
    runs = [str(tmp_path / "cluster"), str(tmp_path / "threads")]
    both = CliRunner().invoke(main, ["report", *runs, "--out", str(tmp_path / "merged")])
    assert both.exit_code == 0, both.output
    merged = json.loads((tmp_path / "merged" / "summary.json").read_text())
    assert [g["game"] for g in merged["games"]] == list(range(1, 25))
    assert sum("worker" in g for g in merged["games"]) == 12
    assert [(s["name"], s["games"]) for s in merged["standings"]] == \
        [(s.name, 2 * s.games) for s in standings(cluster)]
    reread = CliRunner().invoke(main, ["report", str(tmp_path / "merged")])
    assert reread.output == both.output[:both.output.index("Merged summary")]


def test_this_engine_node_capped_plays_the_same_moves_on_the_cluster(client):
    """This engine at a node budget (``INFO max_node``) is deterministic: the thread pool
    and the cluster play the same moves (only the move times differ)."""
    capped = (("max_node", "300"),)
    engines = [EngineSpec("a", tuple(ENGINE), capped), EngineSpec("b", tuple(ENGINE), capped)]
    clock = Clock(turn_ms=5000, tolerance_ms=5000, startup_ms=60000)
    threads = run_round_robin(engines, OPENINGS[1:2], games=2, clock=clock, concurrency=2,
                              max_moves=8)
    cluster = run_round_robin(engines, OPENINGS[1:2], games=2, clock=clock, max_moves=8,
                              runner=ClusterRunner(client))
    assert len(_moves(cluster)) == 2 and _moves(cluster) == _moves(threads)
    assert all(len(moves) == 8 for *_, moves in _moves(cluster).values())

def test_an_sprt_decision_leaves_the_queued_games_unplayed(client):
    test = Sprt(elo0=0, elo1=200, alpha=0.05, beta=0.05, min_games=4)
    results = run_round_robin(ENGINE_PAIR[::-1], OPENINGS, games=40, clock=CLOCK,
                              sprt=test, runner=ClusterRunner(client))
    result = results[(0, 1)]
    indices = [index for index, _, _ in result.games]
    assert result.sprt == "H1"  # the greedy engine beats the random one
    # decided after 8 complete pairs (the SPRT's pseudo-pairs hold back a shorter run);
    # at most the two jobs in flight are added
    assert 16 <= len(indices) <= 20 and len(set(indices)) == len(indices)
    assert sum(result.pentanomial()) * 2 == len(indices)  # jobs are whole pairs


def test_a_worker_with_another_engine_is_refused(client, tmp_path):
    folders = {}
    for number, worker in enumerate(sorted(client.scheduler_info()["workers"])):
        folder = tmp_path / f"w{number}"
        folder.mkdir()
        (folder / "brain.py").write_text((ENGINES / "random_brain.py").read_text()
                                         + "\n" * number)  # the second copy differs
        folders[worker] = folder
        client.run(os.chdir, str(folder), workers=[worker])
    try:
        engines = [EngineSpec("copy", (sys.executable, "brain.py")),
                   EngineSpec("missing", ("no-such-pbrain-engine",))]
        with pytest.raises(ClusterError) as refused:
            preflight(client, engines, bench_depth=None)
    finally:
        client.run(os.chdir, str(Path.cwd()))
    message = str(refused.value)
    assert "'missing' cannot run" in message and "'copy' is not the same engine" in message
    odd = [w for w in folders if f"worker {w}: engine 'copy'" in message]
    assert len(odd) == 1  # one of two copies is named (the tie goes to either)
    reports = preflight(client, ENGINE_PAIR, bench_depth=None)
    assert sorted(reports) == sorted(folders)
    assert len({r["engines"]["greedy"] for r in reports.values()}) == 1


def test_engine_identities_and_slow_workers():
    assert engine_identity(ENGINE) == "package " + package_identity()
    assert engine_identity(GREEDY).startswith("file ")
    assert engine_identity(GREEDY) != engine_identity(random_brain())
    with pytest.raises(FileNotFoundError):
        engine_identity(["/nonexistent/pbrain"])
    reports = {w: {"engines": {"a": "file 1"}, "nodes_per_second": nps}
               for w, nps in (("fast", 1000), ("also", 900), ("slow", 300))}
    assert slow_workers(reports) == ["slow"] and engine_problems(reports) == []


def test_cli_match_on_a_local_cluster(tmp_path):
    out = tmp_path / "out"
    args = ["match", "--engine", f"greedy={' '.join(GREEDY)}",
            "--engine", f"random={' '.join(random_brain('--seed', '4'))}",
            "--games", "4", "--turn-ms", "2000", "--max-moves", "30",
            "--cluster", "local:2", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Results by pair" in result.output and "greedy vs random" in result.output
    summary = json.loads((out / "summary.json").read_text())
    cluster = summary["settings"]["cluster"]
    assert cluster["spec"] == "local:2" and len(cluster["workers"]) == 2
    assert sorted(w["name"] for w in cluster["workers"].values()) == ["0", "1"]
    assert all(w["nodes_per_second"] > 0 and w["warmup_seconds"] >= 0
               for w in cluster["workers"].values())
    assert [g["game"] for g in summary["games"]] == [1, 2, 3, 4]
    assert all(g["worker"] in cluster["workers"] for g in summary["games"])
    bad = CliRunner().invoke(main, args[:-4] + ["--cluster", "nowhere"])
    assert bad.exit_code != 0 and "not 'local'" in bad.output


def test_selfplay_on_the_cluster_writes_the_same_arrays(client, tmp_path):
    """``selfplay --cluster ADDRESS`` (batches of seeded games on the workers) and the
    games played here: the same .npz arrays."""
    import numpy as np

    from gomoku_engine.core.constants import Rule
    from gomoku_engine.training.selfplay import generate, save

    here = tmp_path / "here.npz"
    save(here, generate(Rule.FREESTYLE, 10, seed=3, nodes=200, size=9), 9,
         Rule.FREESTYLE, 200, 3)
    there = tmp_path / "there.npz"
    result = CliRunner().invoke(main, ["selfplay", "--games", "10", "--nodes", "200",
                                       "--size", "9", "--seed", "3", "--out", str(there),
                                       "--cluster", client.scheduler.address])
    assert result.exit_code == 0, result.output
    ours, theirs = np.load(here), np.load(there)
    assert sorted(ours.files) == sorted(theirs.files)
    for name in ours.files:
        assert np.array_equal(ours[name], theirs[name]), name


def test_another_engines_games_and_labels_on_the_cluster(client, tmp_path, monkeypatch):
    """``selfplay --engine ... --cluster`` and ``label ... --cluster``: batches of games,
    each by a fresh engine process on a worker, give the same files as here (this engine
    over the protocol, depth 2, as the other engine)."""
    import numpy as np

    from gomoku_engine.training import labelling, selfplay

    monkeypatch.setattr(selfplay, "BATCH_GAMES", 2)  # read on this side, when cutting
    monkeypatch.setattr(labelling, "BATCH_GAMES", 2)
    command = " ".join(ENGINE)
    files = {}
    for where in ("here", "there"):
        cluster = ["--cluster", client.scheduler.address] if where == "there" else []
        games, labels = tmp_path / f"games-{where}.npz", tmp_path / f"labels-{where}.npz"
        played = CliRunner().invoke(main, ["selfplay", "--engine", command, "--depth", "2",
                                           "--games", "5", "--size", "9", "--seed", "8",
                                           "--out", str(games), *cluster])
        assert played.exit_code == 0, played.output
        scored = CliRunner().invoke(main, ["label", str(games), "--engine", command,
                                           "--depth", "2", "--out", str(labels), *cluster])
        assert scored.exit_code == 0, scored.output
        files[where] = (np.load(games), np.load(labels))
    for ours, theirs in zip(files["here"], files["there"]):
        assert sorted(ours.files) == sorted(theirs.files)
        for name in ours.files:
            assert np.array_equal(ours[name], theirs[name]), name
    missing = CliRunner().invoke(main, ["label", str(tmp_path / "games-here.npz"),
                                        "--engine", "no-such-engine", "--out",
                                        str(tmp_path / "x.npz"), "--cluster",
                                        client.scheduler.address])
    assert missing.exit_code != 0 and "'engine' cannot run" in missing.output

def test_a_worker_killed_mid_game_has_its_pair_replayed(client, tmp_path):
    """A worker process killed (SIGKILL) in the middle of a game: Dask resubmits its job
    to the other worker, every game is counted once, and the dead worker's engines are
    killed with it (they would sleep on after the end of their input)."""
    import signal
    import threading
    import time

    import psutil

    marker = str(tmp_path / "slow.log")  # in every engine's command line
    engines = [EngineSpec("slow", tuple(random_brain("--delay-ms", "60", "--log", marker,
                                                    "--ignore-eof"))),
               EngineSpec("greedy", tuple(GREEDY))]
    done: dict = {}
    match = threading.Thread(target=lambda: done.update(run_round_robin(
        engines, OPENINGS, games=6, clock=CLOCK, max_moves=30, runner=ClusterRunner(client))))
    match.start()
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) or not Path(marker).exists():
        assert time.monotonic() < deadline, "no game started"
        time.sleep(0.05)
    time.sleep(0.5)  # a few moves into the game
    victim = next(w for w, tasks in client.processing().items() if tasks)
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    match.join(120)
    assert not match.is_alive()
    result = done[(0, 1)]
    assert sorted(index for index, _, _ in result.games) == list(range(6))
    assert all(r.reason in ("five", "move limit") for _, _, r in result.games)
    assert victim not in result.workers.values()  # its pair was played again elsewhere
    deadline = time.monotonic() + 10
    while any(marker in " ".join(p.info["cmdline"] or ())
              for p in psutil.process_iter(["cmdline"])):
        assert time.monotonic() < deadline, "an engine of the dead worker is still running"
        time.sleep(0.2)
    client.wait_for_workers(2, timeout=60)
