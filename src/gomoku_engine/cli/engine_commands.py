"""The engine's own commands: ``serve``, ``warmup``, ``bench``, ``analyze``, ``solve``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..core.notation import format_pair, format_point, format_score, parse_moves
from .group import (
    ALGORITHM_CHOICE, ALGORITHM_HELP, EVALUATION_CHOICE, EVALUATION_OPTION, LEVEL_HELP,
    PARAM_OPTION, RULE_CHOICE, RULES, main, serve,
)

if TYPE_CHECKING:
    from ..engine import Engine


@main.command(name="serve")
@click.option("--level", type=click.IntRange(1, 10), default=None, metavar="1..10",
              help=LEVEL_HELP + " [default: 10]")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help=ALGORITHM_HELP + " INFO algorithm overrides it.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm (INFO seed overrides it).")
@click.option("--max-depth", type=click.IntRange(1, 100), default=None,
              help="Depth limit of alpha-beta, as INFO max_depth (which overrides it).")
@click.option("--threads", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Search threads (lazy SMP), as INFO thread_num (which overrides it); "
                   "for managers that do not send it, such as Piskvork.")
@PARAM_OPTION
@EVALUATION_OPTION
@click.pass_context
def serve_command(ctx: click.Context, level: int | None, algorithm: str, seed: int,
                  max_depth: int | None, threads: int, params: dict[str, float],
                  evaluation: str | None) -> None:
    """Serve the Gomocup protocol on stdin/stdout (what managers run), with these
    initial settings."""
    serve(ctx, level or ctx.obj.get("level") or 10, algorithm, seed, max_depth, threads,
          {**ctx.obj.get("params", {}), **params}, evaluation=evaluation)


#: what each kernel group of ``warmup`` holds (kernels.KERNEL_GROUPS; not imported here:
#: the kernels module loads numba, which every command would then pay for at start-up)
KERNEL_GROUP_HELP = {"core": "board, alpha-beta, VCF", "vct": "VCT solver",
                     "ga": "genetic algorithm"}


@main.command()
@click.option("--all", "everything", is_flag=True,
              help="Also the optional kernels (the VCT solver, the genetic algorithm) and "
                   "the pattern tables of every rule.")
@click.option("--group", "chosen", multiple=True, type=click.Choice(list(KERNEL_GROUP_HELP)),
              help="Only this kernel group (repeatable); the engine's protocol loop "
                   "compiles a cold group this way, in a child process.")
def warmup(everything: bool, chosen: tuple[str, ...]) -> None:
    """Compile the numba kernels a game at the default settings calls into the on-disk
    cache (or load them from it), one line per group with its time."""
    from ..kernels import CORE, KERNEL_GROUPS
    from ..kernels import warmup as load

    groups = chosen or (KERNEL_GROUPS if everything else (CORE,))
    total = 0.0
    for group in groups:
        click.echo(f"kernels: {group} ({KERNEL_GROUP_HELP[group]}) ...", nl=False)
        seconds = load((group,))
        total += seconds
        click.echo(f" {seconds:.2f} s")
    if everything:
        click.echo("pattern tables of every rule ...", nl=False)
        seconds = load((), all_rules=True)
        total += seconds
        click.echo(f" {seconds:.2f} s")
    click.echo(f"kernels ready in {total:.2f} s")


@main.command()
@click.option("--depth", default=None, type=click.IntRange(1, 30),
              help="Search depth in plies [default: 8].")
@click.option("--nodes", default=None, type=click.IntRange(1, None),
              help="Instead of a depth: search each position within this node budget and "
                   "print the deepest completed iteration (independent of the machine's "
                   "speed and load).")
@click.option("--warmup", "warm_first", is_flag=True,
              help="First compile (or load) the kernels a game needs, as `warmup` does, and "
                   "print its time (one process for both: a cluster worker's check).")
@click.option("--evaluation", type=EVALUATION_CHOICE,
              default=None, help="Static evaluation [default: the engine's default].")
@click.option("--check", is_flag=True,
              help="The speed check: the bench's nodes per CPU second at depth 14 over "
                   "a calibration kernel's rate in this process, against the floor "
                   "recorded in the package; exit status 1 below it "
                   "(docs/development.md, \"Speed\").")
@PARAM_OPTION
def bench(depth: int | None, nodes: int | None, warm_first: bool, evaluation: str | None,
          check: bool, params: dict[str, float]) -> None:
    """Search fixed positions to a fixed depth; print nodes, nodes/s and a signature."""
    if check:
        _speed_check()
        return
    if warm_first:
        from ..kernels import warmup as load

        click.echo(f"Warm-up (s)     : {load():.2f}")
    if nodes is not None:
        if depth is not None:
            raise click.UsageError("give --depth or --nodes, not both")
        _bench_nodes(nodes, params)
        return
    from ..bench import DEFAULT_DEPTH, run_bench

    from ..eval import DEFAULT_EVALUATION

    report = run_bench(depth or DEFAULT_DEPTH, params=params,
                       evaluation=evaluation or DEFAULT_EVALUATION)
    for line in report.lines:
        click.echo(f"{line.position.name:22s} nodes {line.nodes:10d}  score {line.score:8d}  "
                   f"best {format_pair(line.move):6s} ({format_point(line.move)})  "
                   f"{line.seconds * 1000:8.1f} ms")
    click.echo(f"Depth           : {report.depth}")
    click.echo(f"Nodes searched  : {report.nodes}")
    click.echo(f"Time (ms)       : {report.seconds * 1000:.0f}")
    click.echo(f"Nodes/second    : {report.nps}")
    click.echo(f"Bench signature : {report.signature}")


def _speed_check() -> None:
    from ..bench import SPEED_FLOORS, speed_check

    failed = False
    for evaluation in SPEED_FLOORS:
        result = speed_check(evaluation)
        click.echo(f"Evaluation      : {evaluation}")
        click.echo(f"Bench nodes/s   : {result.nps} per CPU second "
                   f"(depth {result.depth}, best of 2)")
        click.echo(f"Calibration     : {result.calibration:.0f} rounds per CPU second "
                   "(best of 3)")
        click.echo(f"Ratio           : {result.ratio:.5f} (floor {result.floor:.5f})")
        click.echo(f"Bench signature : {result.signature}")
        if result.passed:
            click.echo("Speed check     : passed")
        else:
            click.echo("Speed check     : FAILED: the search is slower than its floor for "
                       "this machine; compare with tools/ab_bench.py and python -m "
                       "gomoku_engine.inlining")
            failed = True
    if failed:
        raise SystemExit(1)


def _bench_nodes(nodes: int, params: dict[str, float]) -> None:
    """Per ``bench`` position: the last depth completed within ``nodes`` nodes, the nodes
    when it completed, and the last iterations' node counts (``depth:nodes``)."""
    from ..bench import POSITIONS
    from ..engine import Engine, Limits, SearchInfo

    for pos in POSITIONS:
        engine = Engine(pos.size, rule=pos.rule, hash_mb=64, params=params)
        engine.new_game()
        for x, y in parse_moves(pos.moves):
            engine.board.play(x, y)
        infos: list[SearchInfo] = []
        engine.search(Limits(nodes=nodes, depth=60), on_iteration=infos.append)
        last = infos[-1]
        tail = " ".join(f"{i.depth}:{i.nodes}" for i in infos[-5:])
        click.echo(f"{pos.name:22s} depth {last.depth:2d} at {last.nodes:7d} nodes   {tail}")


@main.command()
@click.argument("position")
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--time", "time_ms", type=click.IntRange(1, None), default=1000, show_default=True,
              help="Thinking time in ms.")
@click.option("--depth", type=click.IntRange(1, 100), default=None, help="Maximum depth.")
@click.option("--threats/--no-threats", default=True, show_default=True,
              help="Threat-space search (our VCF, the opponent's VCF) at the root.")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help=ALGORITHM_HELP)
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm.")
@click.option("--multipv", type=click.IntRange(1, None), default=1, show_default=True,
              help="Principal variations: the N best moves, each with its own score and "
                   "line (alpha-beta only).")
@PARAM_OPTION
def analyze(position: str, rule: str, size: int, time_ms: int, depth: int | None,
            threats: bool, algorithm: str, seed: int, multipv: int,
            params: dict[str, float]) -> None:
    """Analyse POSITION (moves like h8i9j10, or x,y pairs; black first).

    Prints one line per completed iteration (with --multipv, per line of it, numbered;
    for the genetic algorithm: one line for the fittest sequence), then the best move.
    Scores are for the side to move, with their win probability (the sigmoid the
    evaluation was fitted with).
    """
    from ..engine import Limits, SearchInfo
    from ..eval import win_rate

    engine = _engine_at(position, size, rule)
    engine.set_algorithm(algorithm)
    engine.set_params(params)
    engine.seed = seed
    game_rule = engine.board.rule

    def show(info: SearchInfo) -> None:
        pv = " ".join(format_point(p) for p in info.pv)
        line = f"[{info.pv_index + 1}] " if multipv > 1 else ""
        click.echo(f"{line}depth {info.depth:2d}/{info.seldepth:<2d} "
                   f"score {format_score(info.score):>10s} "
                   f"winrate {win_rate(info.score, game_rule):6.1%} nodes {info.nodes:9d} "
                   f"nps {info.nps:8d} time {info.time_ms:7.0f} ms  pv {pv}")

    limits = Limits(hard_ms=time_ms, soft_ms=time_ms / 2, depth=depth, threats=threats)
    results = engine.analyze(limits, multipv, show)
    result = results[0]
    if multipv > 1:
        for k, line in enumerate(results, 1):
            click.echo(f"multipv {k} {format_pair(line.move)} ({format_point(line.move)}) "
                       f"score {format_score(line.score)} "
                       f"winrate {win_rate(line.score, game_rule):.1%} depth {line.depth} "
                       f"pv {' '.join(format_point(p) for p in line.pv)}")
    click.echo(f"bestmove {format_pair(result.move)} ({format_point(result.move)}) "
               f"score {format_score(result.score)} "
               f"winrate {win_rate(result.score, game_rule):.1%} depth {result.depth}")
    if algorithm == "ga" and engine.last_ga:
        ga = engine.last_ga
        click.echo(f"genetic algorithm: {ga['generations']} generations, "
                   f"{ga['evaluations']} evaluations, move chosen by {ga['kind']}")


@main.command()
@click.argument("position")
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--vcf", "kind", flag_value="vcf", help="Fours only.")
@click.option("--vct", "kind", flag_value="vct", default=True,
              help="Threes and fours [default].")
@click.option("--time", "time_ms", type=click.IntRange(1, None), default=5000, show_default=True,
              help="Time budget in ms.")
# the defaults are search.params.ROOT_VCF_DEPTH and SOLVE_VCT_DEPTH (not imported here:
# the search modules load numba, which every command would then pay for at start-up)
@click.option("--depth", type=click.IntRange(1, 127), default=None,
              help="Most fours (VCF) or threats (VCT) before the five "
                   "[default: 127 for VCF, 40 for VCT].")
def solve(position: str, rule: str, size: int, kind: str, time_ms: int,
          depth: int | None) -> None:
    """Does the side to move in POSITION win by VCF or VCT?  Prints the winning line.

    POSITION is a move list (h8i9j10 or x,y pairs), black first.  The exit status is 0
    whether or not a win is found, 2 for bad input.
    """
    engine = _engine_at(position, size, rule)
    result = engine.solve(kind, time_ms, depth)
    side = "black" if engine.board.to_move == 1 else "white"
    if result.win:
        line = " ".join(format_point(p) for p in result.line)
        click.echo(f"{side} wins by {kind.upper()} in {len(result.line)} plies: {line}")
    elif result.aborted:
        click.echo(f"no {kind.upper()} found for {side} within the budget (unknown)")
    else:
        click.echo(f"{side} has no {kind.upper()}")
    click.echo(f"nodes {result.nodes} time {result.time_ms:.0f} ms")


def _engine_at(position: str, size: int, rule: str) -> Engine:
    """An engine on the position given on the command line (click error on bad input)."""
    from ..engine import Engine
    from ..core.errors import GomokuError

    engine = Engine(size, rule=RULES[rule], hash_mb=16)
    try:
        for x, y in parse_moves(position):
            engine.board.play(x, y)
    except GomokuError as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from exc
    if engine.board.is_full:
        raise click.BadParameter("the board is full", param_hint="POSITION")
    return engine
