"""``gomoku-engine soak``: the plan, the summary's arithmetic, and tiny runs through real
engine processes with a shard and a resume (the issue's 1,000-game soak is run by hand,
docs/testing.md)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gomoku_engine.arena.shards import in_shard, parse_shard, read_records
from gomoku_engine.arena.soak import percentile, plan_soak, soak_summary, summary_lines
from gomoku_engine.cli import main

from helpers import random_brain


def test_plan_cycles_every_setting_and_is_the_same_in_every_shard():
    plan = plan_soak(64, seed=3)
    settings = {(g.rule, g.size, g.threads) for g in plan[:16]}
    assert len(settings) == 16  # 4 rules x 2 sizes x 2 thread counts
    assert [(g.rule, g.size, g.threads) for g in plan[16:32]] == \
        [(g.rule, g.size, g.threads) for g in plan[:16]]
    assert plan == plan_soak(64, seed=3) and plan != plan_soak(64, seed=4)
    for game in plan:
        assert len(game.opening) <= 3 and len(set(game.opening)) == len(game.opening)
        assert all(abs(x - game.size // 2) <= 2 and abs(y - game.size // 2) <= 2
                   for x, y in game.opening)
    shards = [parse_shard(f"{i}/3") for i in (1, 2, 3)]
    owners = [[s for s in shards if in_shard(g.index, s)] for g in plan]
    assert all(len(o) == 1 for o in owners)  # every game in exactly one shard


def test_summary_counts_first_moves_apart_and_takes_percentiles_per_setting():
    def entry(game, rule, size, moves, forfeit=None, crash=False, illegal=False):
        return {"game": game, "rule": rule, "size": size, "threads": 1, "turn_ms": 200,
                "forfeit": forfeit, "crash": crash, "illegal": illegal,
                "moves": [[1 + i % 2, ms, i < 2] for i, ms in enumerate(moves)]}

    entries = [entry(0, "renju", 15, [900, 50] + [100.0] * 198 + [250.0]),
               entry(1, "freestyle", 20, [10, 20, 30, 40], forfeit="white crashed",
                     crash=True),
               entry(2, "freestyle", 20, [10, 20, 300, 40], forfeit="black illegal reply",
                     illegal=True)]
    s = soak_summary(entries)
    assert (s["games"], s["forfeits"], s["crashes"], s["illegal"]) == (3, 2, 1, 1)
    assert s["first_moves"] == 6 and s["first_over_turn"] == 1
    assert s["first_slowest_ms"] == 900
    assert s["moves"] == 199 + 4 and s["over_turn"] == 2  # 250 and 300 ms
    assert list(s["settings"]) == ["freestyle 20x20", "renju 15x15"]  # SOAK_RULES order
    renju = s["settings"]["renju 15x15"]
    assert (renju["moves"], renju["p99_ms"], renju["slowest_ms"]) == (199, 100.0, 250.0)
    assert percentile([5, 1, 4, 2, 3], 50) == 3 and percentile([], 99) == 0.0
    assert s["kernel_free"] == 0 and s["first_kernel_free"] == 0  # three-item moves


def test_summary_counts_kernel_free_moves_and_warns():
    moves = [[1, 900, True, True], [2, 150, True, False], [1, 180, False, True],
             [2, 150, False, False], [1, 150, False, False]]
    entry = {"game": 0, "rule": "freestyle", "size": 15, "threads": 1, "turn_ms": 200,
             "forfeit": None, "crash": False, "illegal": False, "moves": moves}
    s = soak_summary([entry])
    assert (s["kernel_free"], s["first_kernel_free"]) == (1, 1)
    lines = summary_lines([entry])
    assert lines[3] == "kernel-free moves (not searched): 1 after each side's first, 1 first moves"
    assert lines[4].startswith("WARNING: kernel-free moves were played")


def test_soak_of_two_games_sharded_and_resumed(tmp_path):
    out = tmp_path / "soak"
    args = ["soak", "--out", str(out), "--games", "2", "--turn-ms", "60", "--rules",
            "freestyle", "--sizes", "9,15", "--threads", "1", "--max-moves", "6"]
    runner = CliRunner()
    first = runner.invoke(main, args + ["--shard", "1/2"])
    assert first.exit_code == 0, first.output
    assert "games: 1 of 2; forfeits: 0, crashes: 0, illegal moves: 0" in first.output
    second = runner.invoke(main, args + ["--shard", "2/2"])
    assert second.exit_code == 0, second.output
    entries = sorted(read_records(out, "soak"), key=lambda e: e["game"])
    assert [(e["game"], e["size"], e["rule"], e["threads"]) for e in entries] == \
        [(0, 9, "freestyle", 1), (1, 15, "freestyle", 1)]
    for e in entries:
        assert e["forfeit"] is None and not e["crash"] and not e["illegal"]
        assert 1 <= len(e["moves"]) <= 6 and e["turn_ms"] == 60
        assert [m[2] for m in e["moves"][:2]] == [True, True][:len(e["moves"])]
        assert all(m[1] > 0 for m in e["moves"])
    before = [p.read_text() for p in sorted(out.glob("*.jsonl"))]
    again = runner.invoke(main, args + ["--shard", "1/2"])  # resumed: nothing left to play
    assert again.exit_code == 0, again.output
    assert [p.read_text() for p in sorted(out.glob("*.jsonl"))] == before
    report = runner.invoke(main, args + ["--report"])
    assert "games: 2 of 2" in report.output and "freestyle 9x9" in report.output
    assert "freestyle 15x15" in report.output
    swapped = [("15,9" if a == "9,15" else a) for a in args]  # game 0 on 15x15 now
    other = runner.invoke(main, swapped + ["--report"])
    assert other.exit_code != 0 and "other settings" in other.output


def test_soak_counts_a_crashing_engine(tmp_path):
    command = " ".join(f'"{part}"' for part in random_brain("--on-move", "crash"))
    result = CliRunner().invoke(main, ["soak", "--out", str(tmp_path), "--games", "1",
                                       "--rules", "caro", "--sizes", "15", "--threads", "1",
                                       "--turn-ms", "100", "--engine", command])
    assert result.exit_code == 0, result.output
    assert "forfeits: 1, crashes: 1, illegal moves: 0" in result.output
    (entry,) = [json.loads(line) for line in
                (tmp_path / "soak-1-of-1.jsonl").read_text().splitlines()]
    assert entry["crash"] and entry["forfeit"].endswith("crashed") and entry["moves"] == []
