"""The match runner: round robin, time controls, per-engine INFO options, the CLI, levels."""

from __future__ import annotations

import inspect
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku_engine.game.board import Board
from gomoku_engine.core.constants import Rule
from gomoku_engine.cli import main
from gomoku_engine.arena.referee import foul_reason, play_game
from gomoku_engine.search.levels import LEVELS, blunder_move, combine, level_for_strength
from gomoku_engine.arena.match import (Clock, EngineSpec, _plan, run_round_robin, save_tournament,
                                 standings)
from gomoku_engine.arena.clock import STARTUP_MS
from gomoku_engine.protocol.client import MAX_MEMORY_BYTES, start_lines
from gomoku_engine.arena.records import read_psq, read_sgf

from helpers import ENGINE, GREEDY, command_line, random_brain, replay

RANDOM9 = random_brain("--seed", "9")


# --- schedule ------------------------------------------------------------------------------
def test_round_robin_plan_pairs_openings_per_pair():
    openings = [[(0, 0)], [(1, 1)], [(2, 2)]]
    plan = _plan(3, openings, games=4, seed=None)
    assert len(plan) == 12 and [p[0] for p in plan] == list(range(12))
    for pair in ((0, 1), (0, 2), (1, 2)):
        games = [(black, opening) for _, p, black, opening in plan if p == pair]
        # each opening twice, colours swapped, in file order
        assert games == [(True, [(0, 0)]), (False, [(0, 0)]), (True, [(1, 1)]),
                         (False, [(1, 1)])]
    shuffled = _plan(2, [[(k, k)] for k in range(10)], games=20, seed=7)
    order = [opening for _, _, _, opening in shuffled][::2]
    assert sorted(order) == [[(k, k)] for k in range(10)] and order != sorted(order)
    assert order == [opening for _, _, _, opening in _plan(2, [[(k, k)] for k in range(10)],
                                                           games=20, seed=7)][::2]


def test_results_are_counted_by_pairs_of_games_from_one_opening():
    """Games 2k and 2k+1 of a pair share an opening (k), with colours swapped; a round
    robin of three engines interleaves the pairs, so a pair's games of opening k are
    6k to 6k+5.  An opening with one game so far is not counted."""
    from gomoku_engine.arena.referee import GameRecord
    from gomoku_engine.arena.match import MatchResult

    def game(index: int, first_black: bool, winner: int) -> tuple:
        return (index, first_black, GameRecord(opening_moves=[], winner=winner))

    two = MatchResult(games=[game(0, True, 1), game(1, False, 1),   # black wins both: 1
                             game(2, True, 1), game(3, False, 2),   # first wins both: 2
                             game(4, True, 0), game(5, False, 1),   # draw, loss: 1/2
                             game(6, True, 2)])                     # unpaired
    assert two.pentanomial() == (0, 1, 1, 0, 1)
    assert two.score() == (3, 3, 1)
    three = MatchResult(pair_stride=6, games=[game(0, True, 2), game(1, False, 1),
                                              game(6, True, 1), game(7, False, 2)])
    assert three.pentanomial() == (1, 0, 0, 0, 1)
    engines = [EngineSpec(name, tuple(RANDOM9)) for name in ("a", "b", "c")]
    results = run_round_robin(engines, [[(7, 7)]], games=2,
                              clock=Clock(turn_ms=100, startup_ms=5000), max_moves=4)
    assert {r.pair_stride for r in results.values()} == {6}
    assert all(sum(r.pentanomial()) == 1 for r in results.values())


def test_round_robin_of_three_engines(tmp_path):
    engines = [EngineSpec("random1", tuple(random_brain("--seed", "1"))),
               EngineSpec("random2", tuple(random_brain("--seed", "2"))),
               EngineSpec("greedy", tuple(GREEDY))]
    results = run_round_robin(engines, [[(7, 7), (8, 7)]], games=2,
                              clock=Clock(turn_ms=200, tolerance_ms=500, startup_ms=5000),
                              concurrency=2, max_moves=60)
    assert sorted(results) == [(0, 1), (0, 2), (1, 2)]
    for result in results.values():
        assert [black for _, black, _ in result.games] == [True, False]
        for _, _, record in result.games:
            assert record.reason in ("five", "board full", "move limit"), record.reason
            if record.reason == "five":
                assert replay(record).winner == record.winner
    table = standings(results)
    assert [row.games for row in table] == [4, 4, 4]
    assert table[0].name == "greedy" and table[0].points >= 3  # greedy beats random play
    save_tournament(results, tmp_path, 15)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert len(summary["pairs"]) == 3 and len(summary["games"]) == 6
    assert summary["standings"][0]["name"] == "greedy"
    for game in summary["games"]:
        n = game["game"]
        _, _, moves = read_psq((tmp_path / f"game_{n:03d}.psq").read_text())
        size, points = read_sgf((tmp_path / f"game_{n:03d}.sgf").read_text())
        assert size == 15 and points == [(x, y) for x, y, _ in moves]
        assert len(points) == game["stones"]


def test_a_crashing_engine_is_restarted_for_every_game():
    crash = random_brain("--on-move", "crash")
    engines = [EngineSpec("random", tuple(RANDOM9)), EngineSpec("crash", tuple(crash))]
    results = run_round_robin(engines, [[(7, 7)]], games=4,
                              clock=Clock(turn_ms=200, startup_ms=5000))
    result = results[(0, 1)]
    assert result.score() == (4, 0, 0)
    assert all("crashed" in r.reason for _, _, r in result.games)
    assert result.forfeit_details()[0] == "game 1: crash white crashed"


def test_an_engine_that_cannot_start_loses():
    record = play_game(RANDOM9, ["/nonexistent/pbrain-nothing"], turn_ms=200)
    assert record.winner == 1 and record.reason.startswith("white could not start"), \
        record.reason


# --- time control ---------------------------------------------------------------------------
def test_time_left_is_sent_and_the_increment_added(tmp_path):
    log = tmp_path / "white.log"
    record = play_game(RANDOM9, random_brain("--log", str(log)), turn_ms=1000, match_ms=5000,
                       increment_ms=300, opening_moves=[(7, 7)], max_moves=8, tolerance_ms=500,
                       first_move_grace_ms=5000, white_info=[("max_depth", "3")])
    assert record.reason == "move limit", record.reason
    lines = log.read_text().splitlines()
    # the handshake is the protocol client's (one owner for the referee, label, selfplay)
    handshake = start_lines(15, int(Rule.FREESTYLE), 1000, 5000, max_memory=MAX_MEMORY_BYTES,
                            time_left_ms=5000, increment_ms=300, info=[("max_depth", "3")])
    assert lines[:len(handshake)] == handshake
    assert "INFO timeout_match 5000" in lines and "INFO time_increment 300" in lines
    assert "INFO max_depth 3" in lines  # per-engine options reach the engine
    left = [int(line.split()[2]) for line in lines if line.startswith("INFO time_left")]
    assert left[0] == 5000  # at START, then before each of white's 4 moves
    assert len(left) == 5
    clocks = [m.clock_ms for m in record.moves if m.colour == 2]
    assert left[2:] == clocks[:-1]  # the clock after a move is the next time_left
    # each move adds the increment and takes the move's measured time (ms, int-rounded)
    times = [m.seconds * 1000 for m in record.moves if m.colour == 2]
    assert all(abs((b - a) - (300 - t)) <= 1 for a, b, t in zip(clocks, clocks[1:], times[1:]))


def test_running_out_of_game_time_loses():
    slow = random_brain("--delay-ms", "300")
    record = play_game(RANDOM9, slow, turn_ms=1000, match_ms=800, opening_moves=[(7, 7)],
                       tolerance_ms=100, first_move_grace_ms=5000, max_moves=30)
    assert record.winner == 1 and record.reason.startswith("white out of match time"), \
        record.reason
    # The referee's clock is its own accounting of the times it measured: 800 ms less each
    # move's time (not a wall-clock expectation, which load would move).  800 ms pays for at
    # most two moves of 300 ms, and the move that was lost on time needed more than what
    # was left plus the 100 ms tolerance.
    own = [m for m in record.moves if m.colour == 2]
    assert 1 <= len(own) <= 2
    left = 800.0
    for i, move in enumerate(own):
        assert move.seconds >= 0.3  # the engine's delay
        charged = move.seconds * 1000
        left -= min(charged, 800.0) if i == 0 else charged  # (start-up: at most allowed)
        assert move.clock_ms == int(left)
    assert int(record.reason.split("(")[1].split()[0]) == int(left)


def test_increment_and_tolerance_keep_a_slow_engine_alive():
    slow = random_brain("--delay-ms", "300")
    with_increment = play_game(RANDOM9, slow, turn_ms=1000, match_ms=800, increment_ms=300,
                               opening_moves=[(7, 7)], tolerance_ms=100, first_move_grace_ms=5000,
                               max_moves=12)
    assert with_increment.reason in ("move limit", "five"), with_increment.reason
    tolerant = play_game(RANDOM9, slow, turn_ms=1000, match_ms=800, opening_moves=[(7, 7)],
                         tolerance_ms=2000, first_move_grace_ms=5000, max_moves=12)
    assert tolerant.reason in ("move limit", "five"), tolerant.reason
    assert [m.clock_ms for m in tolerant.moves if m.colour == 2][-1] < -500  # overdrawn


def test_turn_time_still_applies_with_a_game_clock():
    slow = random_brain("--delay-ms", "600")
    record = play_game(RANDOM9, slow, turn_ms=200, match_ms=60_000, opening_moves=[(7, 7)],
                       tolerance_ms=100, first_move_grace_ms=5000, max_moves=10)
    assert record.reason.startswith("white no move in time"), record.reason


def test_a_game_needs_a_time_limit():
    with pytest.raises(ValueError):
        play_game(GREEDY, GREEDY, turn_ms=0, match_ms=0)


def test_foul_hook_uses_the_rules_code():
    board = Board(15)
    assert foul_reason(board, 7, 7) is None  # freestyle: no fouls
    renju = Board(15, rule=Rule.RENJU)
    for x, y in [(7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11)]:
        renju.play(x, y)
    assert foul_reason(renju, 6, 8) == "played a foul (double three at 6,8)"
    assert foul_reason(renju, 9, 7) is None
    renju.play(9, 7)  # white to move: white has no fouls
    assert foul_reason(renju, 6, 8) is None


# --- command line ---------------------------------------------------------------------------
def test_cli_round_robin_with_options_and_standings(tmp_path):
    log = tmp_path / "r1.log"
    args = ["match", "--engine", f"r1={command_line(random_brain('--log', str(log)))}",
            "--engine", f"r2={command_line(random_brain('--seed', '5'))}",
            "--engine", f"greedy={command_line(GREEDY)}",
            "--info", "r1:max_node=1234", "--info", "strength=40",
            "--games", "2", "--turn-ms", "0", "--time-match", "3000", "--increment", "50",
            "--max-moves", "30", "--concurrency", "2", "--seed", "3",
            "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Results by pair" in result.output and "Standings:" in result.output
    for pair in ("r1 vs r2", "r1 vs greedy", "r2 vs greedy"):
        assert f"  {pair} " in result.output
    assert "Forfeits: 0" in result.output
    lines = log.read_text().splitlines()
    assert lines.count("INFO max_node 1234") == 4 and lines.count("INFO strength 40") == 4
    assert "INFO timeout_turn 3000" in lines  # no turn limit: the game time is the turn limit
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["settings"]["engines"][0]["info"] == {"max_node": "1234", "strength": "40"}
    assert len(summary["games"]) == 6
    # ``report`` prints the match's tables again from the saved folder ...
    out = str(tmp_path / "out")
    report = CliRunner().invoke(main, ["report", out])
    assert report.exit_code == 0, report.output
    tables = result.output[result.output.index("Results by pair"):
                           result.output.index("Games saved in")]
    assert report.output.startswith(tables) and "Forfeits: 0" in report.output
    # ... and sums the runs it is given (here the same one twice: every pair twice the games)
    twice = CliRunner().invoke(main, ["report", out, out])
    assert twice.exit_code == 0, twice.output
    assert re.search(r"  r1 vs r2 +4 ", twice.output) and re.search(r"  r1 vs r2 +2 pairs",
                                                                    twice.output)


def test_report_refuses_a_folder_without_a_match(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert result.exit_code != 0 and "cannot read the match" in result.output


def test_the_startup_allowance_has_one_default():
    """``--startup-ms``, the match clock, the referee and the README say the same."""
    option = next(p for p in main.commands["match"].params if p.name == "startup_ms")
    assert option.default == STARTUP_MS == Clock().startup_ms
    assert inspect.signature(play_game).parameters["first_move_grace_ms"].default == STARTUP_MS
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"`--startup-ms` (default {STARTUP_MS})" in readme


def test_a_match_stopped_early_keeps_the_games_it_finished(tmp_path):
    """Each game is saved as it ends: a long match killed (SIGTERM, as a shell's ``kill``
    sends) still leaves its finished games and a summary of them."""
    out = tmp_path / "out"
    slow = command_line(random_brain("--seed", "5", "--delay-ms", "20"))
    command = [*ENGINE, "match", "--engine", f"a={command_line(random_brain())}",
               "--engine", f"b={slow}", "--size", "7", "--games", "40", "--turn-ms", "1000",
               "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()  # "game   N: ..." once a game has ended
        assert first.startswith("game"), first
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    summary = json.loads((out / "summary.json").read_text())
    assert 1 <= len(summary["games"]) < 40
    for game in summary["games"]:
        _, _, moves = read_psq((out / f"game_{game['game']:03d}.psq").read_text())
        assert len(moves) == game["stones"]


@pytest.mark.parametrize("code, name", [("0", "freestyle"), ("4", "renju"), ("9", "caro5")])
def test_cli_rule_codes_play_the_same_games_as_names(tmp_path, code, name):
    """``--rule`` takes the protocol's codes as well as the names (c-gomoku-cli's -rule)."""
    played = []
    for rule in (code, name):
        log = tmp_path / f"{rule}.log"
        out = tmp_path / f"out-{rule}"
        args = ["match", "--engine", f"a={command_line(random_brain('--log', str(log)))}",
                "--engine", f"b={command_line(random_brain('--seed', '5'))}",
                "--games", "2", "--turn-ms", "1000", "--rule", rule, "--out", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        rules_sent = {line for line in log.read_text().splitlines()
                      if line.startswith("INFO rule")}
        results = [g["result"] for g in json.loads((out / "summary.json").read_text())["games"]]
        records = [path.read_text() for path in sorted(out.glob("*.sgf"))]  # no move times
        played.append((rules_sent, results, records))
    assert played[0] == played[1]
    assert played[0][0] == {f"INFO rule {int(code) if code != '9' else 9}"}


@pytest.mark.parametrize("args, message", [
    (["--engine", "a=x"], "at least two"),
    (["--engine", "a=x", "--engine", "a=y"], "two engines named"),
    (["--engine", "a=x", "--engine", "b=y", "--info", "c:k=v"], "no engine named"),
    (["--engine", "a=x", "--engine", "b=y", "--info", "a:novalue"], "KEY=VALUE"),
    (["--engine", "a=x", "--engine", "b=y", "--turn-ms", "0"], "time per move or per game"),
])
def test_cli_rejects_bad_engine_options(args, message):
    result = CliRunner().invoke(main, ["match", *args])
    assert result.exit_code == 2 and message in result.output, result.output


# --- strength levels ------------------------------------------------------------------------
def test_level_presets_grow_and_level_10_is_unlimited():
    assert LEVELS[10].depth is None and LEVELS[10].nodes is None
    depths = [LEVELS[n].depth for n in range(1, 10)]
    assert depths == sorted(depths) and all(d is not None for d in depths)
    assert (level_for_strength(0), level_for_strength(50), level_for_strength(100)) == (1, 6, 10)
    assert level_for_strength(-5) == 1 and level_for_strength(250) == 10
    assert combine(None, 5) == 5 and combine(3, 5) == 3 and combine(None, None) is None


def test_blunders_are_random_empty_neighbours():
    import random

    stones = [(0, 0), (1, 0)]
    empty = lambda x, y: (x, y) not in stones  # noqa: E731
    rng = random.Random(1)
    moves = {blunder_move(stones, empty, rng, 15, 15) for _ in range(200)}
    assert moves == {(2, 0), (0, 1), (1, 1), (2, 1)}
    assert blunder_move([(0, 0)], lambda x, y: False, rng, 15, 15) is None


@pytest.mark.parametrize("command, info, depth", [
    (ENGINE + ["--level", "2"], [], 2),
    (ENGINE + ["serve", "--level", "3"], [], 3),
    (ENGINE + ["serve"], ["INFO strength 30"], 4),  # strength 30 -> level 4 (depth 4)
    (ENGINE + ["serve"], ["INFO max_depth 3"], 3),  # Yixin-Board's key
    (ENGINE + ["--level", "3"], ["INFO max_depth 5"], 3),  # the tighter cap wins
    (ENGINE + ["serve"], ["INFO max_node 600"], None),
])
def test_levels_and_info_caps_limit_the_search(command, info, depth):
    from gomoku_engine.protocol.client import EngineProcess

    engine = EngineProcess(command)
    try:
        # A turn long enough for a cold numba cache: the move waits for the kernels'
        # compile, which took 59 s on two loaded cores, and a search whose turn is spent
        # stops after depth 1 whatever its cap (seen as a failure of the level-2 case).
        engine.send("START 15", "INFO timeout_turn 600000", *info)
        assert engine.read_reply(120) == "OK"
        engine.send("BOARD", "7,7,2", "8,8,1", "8,7,2", "DONE")
        messages = []
        while True:
            line = engine.read_line(600)
            if not line.startswith("MESSAGE"):
                break
            messages.append(line)
        summary = messages[-1].split()
        if depth is not None:
            assert summary[1] == "depth" and summary[2].startswith(f"{depth}-"), messages
        else:  # the node budget: checked every 256 nodes (an iteration that ends between
            # two checks counts), an unfinished iteration dropped
            assert int(summary[summary.index("n") + 1]) < 600 + 256, messages
            assert int(summary[2].split("-")[0]) >= 2, messages
    finally:
        engine.close()


# --- what a match reports of its moves; reused engines; logs ---------------------------------
KERNEL_FREE = "MESSAGE kernels still loading: kernel-free move in 3 ms"


def test_kernel_free_moves_are_counted_per_engine_and_block_an_sprt(tmp_path):
    """An engine's kernel-free lines are counted per engine (all, and after its first move
    of a game), printed with a warning, written to summary.json (strict JSON: every game
    won by one side makes the Elo interval infinite) and keep the SPRT from deciding."""
    from gomoku_engine.arena.report import engine_lines, sprt_lines
    from gomoku_engine.arena.stats import Sprt

    blind = random_brain("--seed", "3", "--chatter", KERNEL_FREE, "--chatter-moves", "2")
    engines = [EngineSpec("blind", tuple(blind)), EngineSpec("greedy", tuple(GREEDY))]
    test = Sprt(elo0=0, elo1=10, min_games=2)
    results = run_round_robin(engines, [[(7, 7)]], games=2, sprt=test,
                              clock=Clock(turn_ms=300, startup_ms=5000), max_moves=40)
    result = results[(0, 1)]
    blind_moves = result.engine_moves(True)
    assert sum(m.kernel_free for m, _ in blind_moves) == 4  # two per game
    assert result.kernel_free_after_first() == 2
    assert not any(m.kernel_free for m, _ in result.engine_moves(False))
    assert result.sprt is None
    assert "no decision: 2 kernel-free moves" in sprt_lines(results, test)[0]
    lines = engine_lines(results)
    row = next(line for line in lines if line.strip().startswith("blind"))
    assert row.split()[1:4] == [str(len(blind_moves)), "4", "2"]
    assert lines[-1].startswith("WARNING: kernel-free moves (not searched) by blind (4)")
    save_tournament(results, tmp_path, 15)
    text = (tmp_path / "summary.json").read_text()
    summary = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))
    assert summary["engines"]["blind"]["kernel_free"] == 4
    assert summary["engines"]["blind"]["kernel_free_after_first"] == 2
    assert summary["engines"]["greedy"]["kernel_free"] == 0
    assert summary["kernel_free_after_first"] == 2
    assert summary["games"][0]["black_moves"]["kernel_free"] == 2
    # `report` reads them back from the folder
    reported = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert reported.exit_code == 0, reported.output
    assert "blind: " in reported.output and "kernel-free 4 (2 after its first" in reported.output
    assert "WARNING: kernel-free moves (not searched) by blind (4)" in reported.output


def test_summary_json_is_strict_when_one_side_wins_every_game(tmp_path):
    engines = [EngineSpec("greedy", tuple(GREEDY)), EngineSpec("random", tuple(RANDOM9))]
    results = run_round_robin(engines, [[(7, 7)]], games=2,
                              clock=Clock(turn_ms=300, startup_ms=5000), max_moves=80)
    assert results[(0, 1)].score() == (2, 0, 0)
    save_tournament(results, tmp_path, 15)
    summary = json.loads((tmp_path / "summary.json").read_text(),
                         parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))
    assert summary["elo_high"] is None and summary["wins"] == 2


def _pids(log_dir: Path, name: str) -> list[str]:
    """The process ids an engine named ``name`` reported in its logs, game by game."""
    pids = []
    for log in sorted(log_dir.glob(f"game_*_{name}.log")):
        found = re.findall(r"< MESSAGE pid (\d+)", log.read_text())
        assert len(found) == 1, log
        pids.append(found[0])
    return pids


@pytest.mark.parametrize("reuse", [False, True])
def test_reused_engines_keep_one_process_and_every_game_is_logged(tmp_path, reuse):
    """With reuse each engine runs in one process for all its games (START again each
    game); without, a process per game.  Each game's I/O is logged per engine, timed."""
    engines = [EngineSpec("a", tuple(random_brain("--seed", "1", "--say-pid"))),
               EngineSpec("b", tuple(random_brain("--seed", "2", "--say-pid")))]
    results = run_round_robin(engines, [[(7, 7)], [(6, 6)]], games=4, max_moves=10,
                              clock=Clock(turn_ms=300, startup_ms=5000),
                              reuse_engines=reuse, log_dir=str(tmp_path))
    assert all(r.reason == "move limit" for _, _, r in results[(0, 1)].games)
    for name in ("a", "b"):
        pids = _pids(tmp_path, name)
        assert len(pids) == 4
        assert len(set(pids)) == (1 if reuse else 4)
    first = (tmp_path / "game_001_black_a.log").read_text().splitlines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} +\d+\.\d{3} > START 15", first[0])
    assert any(line.endswith("< OK") for line in first)


def test_a_reused_engine_is_replaced_after_it_crashes(tmp_path):
    crash = random_brain("--on-move", "crash", "--say-pid")
    engines = [EngineSpec("random", tuple(random_brain("--say-pid"))),
               EngineSpec("crash", tuple(crash))]
    results = run_round_robin(engines, [[(7, 7)]], games=4, reuse_engines=True,
                              clock=Clock(turn_ms=300, startup_ms=5000),
                              log_dir=str(tmp_path))
    assert results[(0, 1)].score() == (4, 0, 0)
    assert len(set(_pids(tmp_path, "crash"))) == 4
    assert len(set(_pids(tmp_path, "random"))) == 1
