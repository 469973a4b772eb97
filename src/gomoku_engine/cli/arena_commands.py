"""Engine-vs-engine matches: ``match``, ``report`` (standings of saved matches), ``audit``
(threat solutions of saved games), and the long checks run by hand: ``soak`` (self-play
games, every move timed) and ``fuzz`` (hostile protocol lines)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import click

from ..arena.clock import STARTUP_MS
from .cluster_runner import cluster_runner_or_none
from .group import RULE_CHOICE, RULES, main
from .openings_commands import OPENINGS, OPENINGS_HELP, warn_if_other_board

if TYPE_CHECKING:
    from tqdm import tqdm

    from ..arena.match import EngineSpec, MatchResult
    from ..arena.referee import GameRecord
    from ..arena.stats import Sprt


@main.command()
@click.option("--engine", "engines", multiple=True, required=True, metavar="NAME=COMMAND",
              help="An engine: a name and its command line (quoted). Two or more; with "
                   "more than two every pair plays (round robin).")
@click.option("--info", "infos", multiple=True, metavar="[NAME:]KEY=VALUE",
              help="Send 'INFO KEY VALUE' to engine NAME (to every engine without NAME:) "
                   "at the start of each game, e.g. --info ours:max_depth=3 or "
                   "--info strength=50. Repeatable.")
@click.option("--games", type=click.IntRange(1, None), default=20, show_default=True,
              help="Games per pair of engines.")
@click.option("--openings", type=OPENINGS, default=None,
              help=OPENINGS_HELP + " Each opening is played twice with colours swapped.")
@click.option("--seed", type=int, default=None,
              help="Play the openings in a random order from this seed [default: file order].")
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--turn-ms", type=click.IntRange(0, None), default=1000, show_default=True,
              help="Time per move (INFO timeout_turn); 0: none, with --time-match.")
@click.option("--time-match", "match_ms", type=click.IntRange(0, None), default=0,
              show_default=True,
              help="Time per engine for a whole game (INFO timeout_match, ms); 0: none. "
                   "The referee keeps each clock and sends INFO time_left before every move.")
@click.option("--increment", "increment_ms", type=click.IntRange(0, None), default=0,
              show_default=True, help="Added to an engine's game clock after each move (ms).")
@click.option("--tolerance-ms", type=click.IntRange(0, None), default=1000, show_default=True,
              help="Lateness accepted before a move is lost on time.")
@click.option("--startup-ms", type=click.IntRange(0, None), default=STARTUP_MS, show_default=True,
              help="Extra time for each engine's first reply of a game (start-up; not "
                   "charged to its game clock): its first move, and its OK to START "
                   "beyond the 3 s that always has.")
@click.option("--max-moves", type=click.IntRange(1, None), default=None,
              help="Adjudicate a draw after this many moves (opening stones not counted).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Games played at the same time.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Folder for every game as PSQ and SGF, and summary.json.")
@click.option("--cluster", default=None, metavar="SPEC",
              help="Play on a Dask cluster (pip install gomoku-engine[cluster]): 'local', "
                   "'local:N' (N worker processes here) or a scheduler address "
                   "tcp://host:8786. Each opening's two games run on one worker; "
                   "--concurrency is then the cluster's worker threads.")
@click.option("--sprt", default=None,
              metavar="'elo0=0 elo1=10 alpha=0.05 beta=0.05 min_games=20'",
              help="Stop a pair's games once this SPRT (for its first engine) is decided "
                   "(never before min_games games). The test counts results by pairs of "
                   "games, one opening with colours swapped (pentanomial model).")
@click.option("--opening-rule", type=click.Choice(["none", "lin"]), default="none",
              show_default=True,
              help="lin: Lin's rule, black's first stone on the two outermost rows or "
                   "columns (sent as INFO opening lin; a stone off them is a forfeit, and "
                   "the openings must obey it). Without --openings games start empty.")
@click.option("--reuse-engines", is_flag=True,
              help="Keep one process per engine and game thread across games (START again "
                   "each game, a fresh process after a crash, hang, loss on time or other "
                   "fault), as c-gomoku-cli does [default: a fresh process per game].")
@click.option("--log", "log_dir", type=click.Path(file_okay=False), default=None,
              help="Folder for each engine's I/O of each game "
                   "(game_NNN_black_NAME.log, ...), every line timestamped.")
def match(engines: tuple[str, ...], infos: tuple[str, ...], games: int, openings: str | None,
          seed: int | None, size: int, rule: str, turn_ms: int, match_ms: int,
          increment_ms: int, tolerance_ms: int, startup_ms: int, max_moves: int | None,
          concurrency: int, out: str | None, cluster: str | None, sprt: str | None,
          opening_rule: str, reuse_engines: bool, log_dir: str | None) -> None:
    """Play games between Gomocup engines: two, or a round robin of more.

    Every game starts both engines afresh (unless --reuse-engines), so an engine that
    crashes or hangs loses that game (with the reason recorded) and plays the next one.
    Illegal or unparseable replies and late moves lose too.  Prints each pair's score, Elo
    difference with its 95% interval and LOS, the standings, forfeits, move times, and
    per engine its kernel-free moves (this engine's moves played without its search
    while its kernels load), moves over the turn and first moves' times, with a warning
    when any move was kernel-free.  An SPRT with a kernel-free move after an engine's
    first move of a game is not decided.

    \b
    Example, two strength levels of this engine, 200 ms per move, from the built-in
    balanced openings (`gomoku-engine openings list`):
      gomoku-engine match --engine "full=gomoku-engine" \\
          --engine "l5=gomoku-engine --level 5" --games 40 --turn-ms 200 \\
          --openings freestyle15
    """
    from ..arena.match import Clock, check_openings, load_openings, run_round_robin

    if len(engines) < 2:
        raise click.BadParameter("give at least two --engine NAME=COMMAND",
                                 param_hint="--engine")
    if turn_ms == 0 and match_ms == 0:
        raise click.BadParameter("give a time per move or per game", param_hint="--turn-ms")
    if reuse_engines and cluster:
        raise click.BadParameter("engines are reused on this machine only",
                                 param_hint="--reuse-engines")
    specs = _engine_specs(engines, infos)
    opening_list = load_openings(openings, size) if openings else []
    if openings:
        warn_if_other_board(openings, size, rule)
    try:
        check_openings(opening_list, opening_rule, size)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--openings") from exc
    clock = Clock(turn_ms=turn_ms, match_ms=match_ms, increment_ms=increment_ms,
                  tolerance_ms=tolerance_ms, startup_ms=startup_ms)
    settings = {
        "engines": [{"name": s.name, "command": list(s.command), "info": dict(s.info)}
                    for s in specs],
        "rule": rule, "size": size, "turn_ms": turn_ms, "match_ms": match_ms,
        "increment_ms": increment_ms, "tolerance_ms": tolerance_ms,
        "max_moves": max_moves, "openings": openings, "seed": seed,
        "opening_rule": opening_rule, "reuse_engines": reuse_engines}
    test = _parse_sprt(sprt) if sprt else None

    from tqdm import tqdm

    n_pairs = len(specs) * (len(specs) - 1) // 2
    with cluster_runner_or_none(cluster, specs, settings) as runner, \
            tqdm(total=games * n_pairs, unit="game", file=sys.stderr,
                 disable=not sys.stderr.isatty()) as progress:
        results = run_round_robin(specs, opening_list, games, size=size, rule=RULES[rule],
                                  clock=clock, concurrency=concurrency, seed=seed,
                                  max_moves=max_moves,
                                  on_game=_game_reporter(progress, out, size, settings),
                                  sprt=test, opening_rule=opening_rule, runner=runner,
                                  reuse_engines=reuse_engines, log_dir=log_dir)
    _echo_tables(results, test, standings_too=len(specs) > 2)
    if out:
        from ..arena.match import save_tournament

        save_tournament(results, out, size, settings, games_too=False)  # written as they ended
        click.echo(f"Games saved in {out}")
    from ..arena.report import engine_lines, forfeit_lines, move_time_lines

    _echo_lines(forfeit_lines(results) + move_time_lines(results, [s.name for s in specs],
                                                         turn_ms) + engine_lines(results))


def _game_reporter(progress: tqdm, out: str | None, size: int, settings: dict
                   ) -> Callable[[int, MatchResult, bool, GameRecord], None]:
    """The ``on_game`` of a match: one line per game on stdout (through the progress bar)
    and, with ``--out``, the game and the summary so far saved as it ends."""
    from ..arena.match import colours, save_tournament, write_game

    live: dict[tuple[str, str], MatchResult] = {}  # the pairs that have finished a game

    def report(index: int, pair: MatchResult, first_black: bool, record: GameRecord) -> None:
        if out:  # each game as it ends, so a match stopped early keeps what it played
            write_game(pair, index, first_black, record, out, size)
            live[pair.first, pair.second] = pair
            save_tournament(live, out, size, settings, games_too=False)
        black, white = colours(pair, first_black)
        outcome = {0: "draw", 1: f"{black} wins", 2: f"{white} wins"}[record.winner]
        stones = len(record.opening_moves) + len(record.moves)
        progress.write(f"game {index + 1:3d}: {black} (black) vs {white} (white): {outcome} "
                       f"({record.reason}, {stones} stones)", file=sys.stdout)
        progress.update()

    return report


def _echo_lines(lines: list[str]) -> None:
    for line in lines:
        click.echo(line)


def _echo_tables(results: Mapping[object, MatchResult], test: Sprt | None,
                 standings_too: bool) -> None:
    """The tables by pair, by pairs of games, the SPRT verdicts and the standings."""
    from ..arena.report import pair_lines, pentanomial_lines, sprt_lines, standing_lines

    lines = pair_lines(results) + pentanomial_lines(results)
    if test is not None:
        lines += sprt_lines(results, test)
    if standings_too:
        lines += standing_lines(results)
    _echo_lines(lines)


@main.command()
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False))
@click.option("--sprt", default=None,
              metavar="'elo0=0 elo1=10 alpha=0.05 beta=0.05 min_games=20'",
              help="Also the log-likelihood ratio of this SPRT per pair (as match --sprt).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write the merged results as OUT/summary.json (games renumbered, "
                   "the runs' openings one after the other), which report reads again.")
def report(folders: tuple[str, ...], sprt: str | None, out: str | None) -> None:
    """Print the results of saved matches: the FOLDERS written by `match --out`
    (their summary.json), summed by pair of engines over all of them (runs of one
    match, on one machine or on clusters, merge this way).

    Prints the tables `match` prints at its end (by pair, by pairs of games, the
    standings and the forfeits; not the move times, which summary.json does not keep),
    and each engine's kernel-free moves where the summaries have them.
    """
    from ..arena.report import (forfeit_lines, load_results, saved_engine_lines,
                                saved_engine_totals)

    try:
        results = load_results(folders)
    except (OSError, ValueError, KeyError) as exc:
        raise click.ClickException(f"cannot read the match: {exc}") from exc
    if not any(r.games for r in results.values()):
        raise click.ClickException("no games in " + ", ".join(folders))
    _echo_tables(results, _parse_sprt(sprt) if sprt else None, standings_too=len(results) > 1)
    _echo_lines(forfeit_lines(results) + saved_engine_lines(folders))
    if out:
        from ..arena.match import save_tournament

        save_tournament(results, out, 15, {"merged": list(folders)}, games_too=False,
                        engines=saved_engine_totals(folders) or None)
        click.echo(f"Merged summary saved in {out}")


@main.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True,
              help="The games' rule.")
@click.option("--time-ms", type=click.FloatRange(0, None, min_open=True), default=2000.0,
              show_default=True, help="Time of each question to the threat solver.")
@click.option("--kind", type=click.Choice(["vcf", "vct"]), default="vcf", show_default=True,
              help="The threats judged: fours only (VCF), or threes and fours (VCT).")
def audit(folder: str, rule: str, time_ms: float, kind: str) -> None:
    """Audit the games of a match FOLDER (`match --out`) for VCFs (or VCTs) the loser
    allowed.

    For every game won by a five, finds the loser's first move after which the winner
    has a VCF (VCT): ALLOWED if another move there provably stops it, forced if none
    does.  The opening's stones are not judged.  One line per game, then a summary.
    """
    from ..arena.audit import audit_folder

    counts: dict[str, int] = {}
    for number, loser, verdict in audit_folder(folder, RULES[rule], time_ms, kind):
        key = f"{loser} {verdict.split(':')[0].split()[0]}"
        counts[key] = counts.get(key, 0) + 1
        click.echo(f"game {number:3d} (lost by {loser}): {verdict}")
    click.echo("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def _engine_specs(engines: tuple[str, ...], infos: tuple[str, ...]) -> list[EngineSpec]:
    """``NAME=COMMAND`` and ``[NAME:]KEY=VALUE`` options as :class:`EngineSpec` objects."""
    from ..arena.match import EngineSpec, split_command  # noqa: F811 (the runtime import)

    named: dict[str, list[str]] = {}
    for spec in engines:
        name, sep, command = spec.partition("=")
        name = name.strip()
        if not sep or not name or not command.strip():
            raise click.BadParameter(f"{spec!r} is not NAME=COMMAND", param_hint="--engine")
        if name in named:
            raise click.BadParameter(f"two engines named {name!r}", param_hint="--engine")
        named[name] = split_command(command)
    options: dict[str, list[tuple[str, str]]] = {name: [] for name in named}
    for item in infos:
        target, colon, setting = item.partition(":")
        if not colon or "=" in target:  # no NAME: (a value may contain a colon)
            target, setting = "", item
        key, sep, value = setting.partition("=")
        if not sep or not key.strip() or " " in key.strip():
            raise click.BadParameter(f"{item!r} is not [NAME:]KEY=VALUE", param_hint="--info")
        if target and target not in named:
            raise click.BadParameter(f"{item!r}: no engine named {target!r}",
                                     param_hint="--info")
        for name in ([target] if target else named):
            options[name].append((key.strip(), value.strip()))
    return [EngineSpec(name, tuple(command), tuple(options[name]))
            for name, command in named.items()]


def _parse_sprt(text: str) -> Sprt:
    """``"elo0=0 elo1=10 alpha=0.05 beta=0.05 min_games=20"`` (any subset, any order) as an
    :class:`Sprt`."""
    from ..arena.stats import Sprt

    values: dict[str, float | int] = {}
    for part in text.replace(",", " ").split():
        key, sep, value = part.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta", "min_games"):
            raise click.BadParameter(f"{part!r}: expected elo0=, elo1=, alpha=, beta= or "
                                     "min_games=", param_hint="--sprt")
        try:
            values[key] = int(value) if key == "min_games" else float(value)
        except ValueError:
            raise click.BadParameter(f"{part!r}: not a number", param_hint="--sprt") from None
    return Sprt(**values)


def _numbers(text: str, name: str) -> list[int]:
    """``"15,20"`` as ``[15, 20]``; a click error naming ``name`` otherwise."""
    try:
        return [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a list of numbers", param_hint=name) from None


def _shard(text: str) -> tuple[int, int]:
    from ..arena.shards import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from exc


def _progress(total: int, unit: str):  # noqa: ANN202 (a tqdm bar)
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=sys.stderr, disable=not sys.stderr.isatty())


# The defaults below are the soak and fuzz (arena/soak.py, arena/fuzz.py), written
# out so that `--help` does not load the engine.
@main.command()
@click.option("--out", "folder", type=click.Path(file_okay=False), required=True,
              help="Folder of the results: one JSON line per finished game "
                   "(soak-I-of-N.jsonl); a run started again skips the games it holds.")
@click.option("--games", type=click.IntRange(1, None), default=1000, show_default=True,
              help="Games of the whole soak (all shards).")
@click.option("--turn-ms", type=click.IntRange(1, None), default=200, show_default=True,
              help="Time per move (INFO timeout_turn).")
@click.option("--rules", default="freestyle,standard,renju,caro", show_default=True,
              help="Rules the games cycle through.")
@click.option("--sizes", default="15,20", show_default=True, help="Board sizes.")
@click.option("--threads", default="1,2", show_default=True,
              help="Search threads of both engines (INFO thread_num).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the games' openings (0 to 3 stones near the centre).")
@click.option("--shard", default="1/1", show_default=True, metavar="I/N",
              help="Play only every N-th game of the plan, from game I-1.")
@click.option("--concurrency", type=click.IntRange(1, 64), default=2, show_default=True,
              help="One-thread games played side by side (2 on 2 cores); two-thread games "
                   "are always played one at a time.")
@click.option("--engine", "command", default=None, metavar="COMMAND",
              help="The engine's command line [default: this engine, python -m "
                   "gomoku_engine].")
@click.option("--tolerance-ms", type=click.IntRange(0, None), default=1000, show_default=True,
              help="Lateness accepted before a move is lost on time.")
@click.option("--startup-ms", type=click.IntRange(0, None), default=STARTUP_MS,
              show_default=True, help="Extra time for each side's first move (start-up).")
@click.option("--max-moves", type=click.IntRange(1, None), default=None,
              help="Adjudicate a draw after this many moves.")
@click.option("--report", is_flag=True, help="Only print the summary of the folder.")
def soak(folder: str, games: int, turn_ms: int, rules: str, sizes: str, threads: str,
         seed: int, shard: str, concurrency: int, command: str | None, tolerance_ms: int,
         startup_ms: int, max_moves: int | None, report: bool) -> None:
    """Self-play soak: this engine against itself through real engine processes, every
    move timed by the match runner's referee. Not part of the test suite: the default
    1,000 games at 200 ms a move take hours; shard them (--shard) and resume (the same
    --out).

    The plan is fixed by the options (game i: the i-th combination of rule x size x
    threads, cycled, and an opening from --seed). Prints the forfeits, crashes, illegal
    moves, moves over the turn (each side's first move, which carries the process's
    start, counted apart) and the 99th-percentile and slowest move per rule and size.

    \b
    Example, the issue's soak in two halves:
      gomoku-engine soak --out soak --shard 1/2
      gomoku-engine soak --out soak --shard 2/2
      gomoku-engine soak --out soak --report
    """
    from ..arena.match import split_command
    from ..arena.shards import RecordFile, pending, read_records, shard_file
    from ..arena.soak import (SOAK_KIND, THIS_ENGINE, SoakSettings, check_plan, plan_soak,
                              run_soak, summary_lines)

    part = _shard(shard)
    try:
        plan = plan_soak(games, seed, rules.replace(" ", "").split(","),
                         _numbers(sizes, "--sizes"), _numbers(threads, "--threads"))
        entries = read_records(folder, SOAK_KIND)
        check_plan(plan, entries)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if not report:
        settings = SoakSettings(tuple(split_command(command)) if command else THIS_ENGINE,
                                turn_ms, tolerance_ms, startup_ms, max_moves, concurrency)
        done = {e["game"] for e in entries}
        todo = sum(1 for _ in pending((g.index for g in plan), done, part))
        with _progress(todo, "game") as progress:
            run_soak(plan, part, done, RecordFile(shard_file(folder, SOAK_KIND, part)),
                     settings, on_game=lambda entry: progress.update())
        entries = read_records(folder, SOAK_KIND)
    if not entries:
        raise click.ClickException(f"no games in {folder}")
    _echo_lines(summary_lines(entries, planned=games))


@main.command()
@click.option("--out", "folder", type=click.Path(file_okay=False), required=True,
              help="Folder of the results: one JSON line per finished chunk "
                   "(fuzz-I-of-N.jsonl; a run started again skips the chunks it holds) "
                   "and the input of every failed engine process, for replay.")
@click.option("--lines", "total", type=click.IntRange(1, None), default=10_000,
              show_default=True,
              help="Lines of the whole fuzz (all shards); a chunk ends with the step that "
                   "reaches its share, so a few more are sent.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--chunk-lines", type=click.IntRange(10, None), default=500, show_default=True,
              help="Lines per chunk: one seed, one engine process.")
@click.option("--shard", default="1/1", show_default=True, metavar="I/N",
              help="Run only every N-th chunk, from chunk I-1.")
@click.option("--turn-ms", type=click.IntRange(1, None), default=100, show_default=True,
              help="Time per move of the games the fuzz plays.")
@click.option("--hang-s", type=click.FloatRange(0.5, None), default=10.0, show_default=True,
              help="Longest wait for a step's answers beyond the turn time (a hang).")
@click.option("--engine", "command", default=None, metavar="COMMAND",
              help="The engine's command line [default: this engine].")
@click.option("--report", is_flag=True, help="Only print the summary of the folder.")
def fuzz(folder: str, total: int, seed: int, chunk_lines: int, shard: str, turn_ms: int,
         hang_s: float, command: str | None, report: bool) -> None:
    """Protocol fuzz: hostile lines (unknown commands, malformed and unterminated blocks,
    huge numbers, binary bytes, CR/LF mixes, very long lines, junk INFO, commands while a
    search runs) from a seeded generator, into real engine processes.

    Checks after every step that the engine did not crash or hang, that every move it
    played is legal on the fuzz's own copy of the game and that it kept its game
    (well-formed commands get their answers, hostile ones none). ERROR and UNKNOWN
    answers to bad input are expected. Not part of the test suite; shard (--shard) and
    resume (the same --out) it like the soak.
    """
    from ..arena.fuzz import FUZZ_KIND, FuzzSettings, run_fuzz, summary_lines
    from ..arena.match import split_command
    from ..arena.shards import RecordFile, pending, read_records, shard_file
    from ..arena.soak import THIS_ENGINE

    part = _shard(shard)
    records = read_records(folder, FUZZ_KIND)
    if any(r["seed"] != seed for r in records) and not report:
        raise click.ClickException(f"{folder} holds chunks of another --seed: use another "
                                   "folder")
    if not report:
        settings = FuzzSettings(tuple(split_command(command)) if command else THIS_ENGINE,
                                turn_ms, hang_s)
        chunks = -(-total // chunk_lines)
        done = {r["chunk"] for r in records}
        todo = sum(1 for _ in pending(range(chunks), done, part))
        with _progress(todo, "chunk") as progress:
            run_fuzz(total, seed, part, done, RecordFile(shard_file(folder, FUZZ_KIND, part)),
                     settings, chunk_lines, on_chunk=lambda record: progress.update())
        records = read_records(folder, FUZZ_KIND)
    if not records:
        raise click.ClickException(f"no chunks in {folder}")
    _echo_lines(summary_lines(records))
