"""Command line: ``gomoku-engine`` (a click group).

With no subcommand ``gomoku-engine`` serves the Gomocup protocol on stdin/stdout, exactly
like ``pbrain-gomoku-engine`` (the name managers look for; :mod:`gomoku_engine.pbrain`
serves it without importing this module).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from .core.constants import RULE_NAMES, Rule

if TYPE_CHECKING:
    from .engine import Engine
    from .arena.match import EngineSpec
    from .arena.stats import Sprt
from .core.notation import format_pair, format_point, format_score, parse_moves

#: ``--rule`` names (the Gomocup's), with caro as Gomocup runs it (rule 8, overlines
#: count) and caro5 for Piskvork's "standard caro" (rule 9, exactly five).
RULES = {**RULE_NAMES, "caro5": Rule.CARO_STANDARD}
#: ``INFO rule`` codes ``--rule`` also accepts (../shared/protocol.md section 4.1; 2 is
#: Yixin-Board's code for renju)
RULE_CODES = {"0": "freestyle", "1": "standard", "2": "renju", "4": "renju", "8": "caro",
              "9": "caro5"}


class RuleChoice(click.Choice):
    """``--rule``: a rule's name or its protocol code (``0`` is ``freestyle``, ...);
    the value is always the name, a key of :data:`RULES`."""

    def __init__(self) -> None:
        super().__init__(sorted(RULES))

    def convert(self, value, param, ctx):  # noqa: ANN001 (click's signature)
        return super().convert(RULE_CODES.get(str(value).strip(), value), param, ctx)

    def get_metavar(self, param, *args, **kwargs):  # noqa: ANN001
        return "[" + "|".join(sorted(RULES)) + "|" + "|".join(RULE_CODES) + "]"


RULE_CHOICE = RuleChoice()

ALGORITHM_CHOICE = click.Choice(["alphabeta", "ga"])
ALGORITHM_HELP = "Search: alpha-beta, or the genetic algorithm of Wang and Huang (2014)."


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gomoku-engine")
@click.option("--level", type=click.IntRange(1, 10), default=None, metavar="1..10",
              help="Strength level when serving the protocol (10 = full strength) "
                   "[default: 10].")
@click.pass_context
def main(ctx: click.Context, level: int | None) -> None:
    """Gomoku engine speaking the Gomocup (pbrain) protocol.

    Without a subcommand, serve the protocol on stdin/stdout (like ``serve``).
    ``gomoku-engine --level 3`` serves it at strength level 3.
    """
    ctx.ensure_object(dict)  # {"started_at": ...} from the entry point, if it set one
    if ctx.invoked_subcommand is None:
        _serve(ctx, level or 10)
    elif level is not None:
        ctx.obj["level"] = level  # read by ``serve``


LEVEL_HELP = ("Strength level 1..10 by search depth and nodes (10 = full strength); "
              "INFO strength 0..100 changes it.")


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
@click.pass_context
def serve_command(ctx: click.Context, level: int | None, algorithm: str, seed: int,
                  max_depth: int | None, threads: int) -> None:
    """Serve the Gomocup protocol on stdin/stdout (what managers run), with these
    initial settings."""
    _serve(ctx, level or ctx.obj.get("level") or 10, algorithm, seed, max_depth, threads)


def _serve(ctx: click.Context, level: int, algorithm: str = "alphabeta", seed: int = 0,
           max_depth: int | None = None, threads: int = 1) -> None:
    """The protocol loop on stdin/stdout; its clock starts when the process started."""
    from .protocol.stdio import serve

    serve(level, algorithm, seed, max_depth, threads, started_at=ctx.obj.get("started_at"))


#: what each kernel group of ``warmup`` holds (engine.KERNEL_GROUPS; not imported here:
#: the engine module loads numba, which every command would then pay for at start-up)
KERNEL_GROUP_HELP = {"core": "board, alpha-beta, VCF", "vct": "VCT solver",
                     "ga": "genetic algorithm"}


@main.command()
@click.option("--all", "everything", is_flag=True,
              help="Also the optional kernels (the VCT solver, the genetic algorithm) and "
                   "the pattern tables of every rule.")
def warmup(everything: bool) -> None:
    """Compile the numba kernels a game at the default settings calls into the on-disk
    cache (or load them from it), one line per group with its time."""
    from .kernels import CORE, KERNEL_GROUPS
    from .kernels import warmup as load

    groups = KERNEL_GROUPS if everything else (CORE,)
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
def bench(depth: int | None) -> None:
    """Search fixed positions to a fixed depth; print nodes, nodes/s and a signature."""
    from .bench import DEFAULT_DEPTH, run_bench

    report = run_bench(depth or DEFAULT_DEPTH)
    for line in report.lines:
        click.echo(f"{line.position.name:22s} nodes {line.nodes:10d}  score {line.score:8d}  "
                   f"best {format_pair(line.move):6s} ({format_point(line.move)})  "
                   f"{line.seconds * 1000:8.1f} ms")
    click.echo(f"Depth           : {report.depth}")
    click.echo(f"Nodes searched  : {report.nodes}")
    click.echo(f"Time (ms)       : {report.seconds * 1000:.0f}")
    click.echo(f"Nodes/second    : {report.nps}")
    click.echo(f"Bench signature : {report.signature}")


@main.command()
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--games", type=click.IntRange(1, None), default=1000, show_default=True)
@click.option("--nodes", type=click.IntRange(100, None), default=8000, show_default=True,
              help="Node budget of each engine move.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes playing games side by side (the games do not depend on it).")
@click.option("--engine", "command", default=None,
              help="Command line of another Gomocup engine (e.g. a rapfi build's pbrain-rapfi) "
                   "to play both sides from the same openings instead of this one.")
@click.option("--depth", type=click.IntRange(1, 60), default=10, show_default=True,
              help="With --engine: the depth limit of its search (INFO max_depth).")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The .npz file to write.")
def selfplay(rule: str, size: int, games: int, nodes: int, seed: int, workers: int,
             command: str | None, depth: int, out: str) -> None:
    """Play seeded self-play games from random openings and save them for `tune`."""
    import shlex

    from tqdm import tqdm

    from .training.selfplay import generate, generate_external, save

    argv = None if command is None else shlex.split(command)
    with tqdm(total=games, unit="game", disable=None) as bar:
        if argv is None:
            records = generate(RULES[rule], games, seed, nodes, size, workers,
                               progress=lambda _: bar.update())
        else:
            if workers > 1:
                raise click.UsageError("--engine plays its games in one process: no --workers")
            records = generate_external(argv, RULES[rule], games, seed, depth, size,
                                        progress=lambda _: bar.update())
    save(out, records, size, RULES[rule], 0 if argv else nodes, seed, argv, depth)
    wins = [sum(r.result == c for r in records) for c in (1, 2, 0)]
    click.echo(f"{games} games, {sum(len(r.moves) for r in records)} moves: black {wins[0]}, "
               f"white {wins[1]}, draws {wins[2]} -> {out}")


@main.command()
@click.argument("games", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", "command", required=True,
              help="Command line of the Gomocup engine that scores the positions "
                   "(e.g. a rapfi build's pbrain-rapfi).")
@click.option("--depth", type=click.IntRange(1, 60), default=12, show_default=True,
              help="Depth limit of its search (INFO max_depth).")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The .npz file of scores to write.")
def label(games: tuple[str, ...], command: str, depth: int, out: str) -> None:
    """Score the quiet positions of `selfplay` GAMES files with another engine, for
    `tune --labels`."""
    import shlex

    from tqdm import tqdm

    from .training.labelling import label_games, save_labels
    from .training.selfplay import load

    records = load(list(games))
    argv = shlex.split(command)
    with tqdm(total=len(records["length"]), unit="game", disable=None) as bar:
        labels = label_games(records, argv, depth,
                             progress=lambda n: (bar.update(), bar.set_postfix(positions=n)))
    save_labels(out, labels, depth, argv)
    click.echo(f"{len(labels.game)} positions of {len(records['length'])} games scored, "
               f"{int((labels.mate != 0).sum())} of them forced wins -> {out}")


@main.command()
@click.argument("games", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--l2", type=click.FloatRange(0, None), default=None,
              help="Pull towards the hand-set values [default: tuning.DEFAULT_L2].")
@click.option("--labels", "labels_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Fit to an engine's scores of the positions (a `label` "
                                 "file of these GAMES) instead of the results alone.")
@click.option("--mix", type=click.FloatRange(0, 1), default=1.0, show_default=True,
              help="With --labels: weight of the engine's score in the target, the rest "
                   "being the game result.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Where to write the fitted table [default: the package's own file "
                   "for the games' rule, which the engine loads].")
def tune(games: tuple[str, ...], l2: float | None, labels_path: str | None, mix: float,
         out: str | None) -> None:
    """Fit the evaluation's point values to the results of `selfplay` GAMES files."""
    from .eval.classical import learned_file
    from .training.labelling import load_labels
    from .training.selfplay import load
    from .training.tuning import DEFAULT_L2, build_dataset, build_labelled_dataset, fit, save_fit

    records = load(list(games))
    if labels_path is None:
        data = build_dataset(records)
    else:
        data, scale = build_labelled_dataset(records, load_labels(labels_path), mix)
        click.echo(f"engine scores: {scale:.1f} per logit of the results")
    click.echo(f"{len(data.target)} quiet positions from {len(records['length'])} games")
    result = fit(data, DEFAULT_L2 if l2 is None else l2)
    path = out or learned_file(records["rule"])
    save_fit(path, result, records["rule"])
    click.echo(f"held-out log-loss: hand-set {result.handset_loss:.4f} (scale "
               f"{result.scale:.0f}), learned {result.learned_loss:.4f}; "
               f"{result.train_positions} training / {result.test_positions} held-out "
               f"positions -> {path}")


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
def analyze(position: str, rule: str, size: int, time_ms: int, depth: int | None,
            threats: bool, algorithm: str, seed: int) -> None:
    """Analyse POSITION (moves like h8i9j10, or x,y pairs; black first).

    Prints one line per completed iteration (for the genetic algorithm: one line for the
    fittest sequence), then the best move.
    """
    from .engine import Limits, SearchInfo

    engine = _engine_at(position, size, rule)
    engine.set_algorithm(algorithm)
    engine.seed = seed

    def show(info: SearchInfo) -> None:
        pv = " ".join(format_point(p) for p in info.pv)
        click.echo(f"depth {info.depth:2d}/{info.seldepth:<2d} score {format_score(info.score):>10s} "
                   f"nodes {info.nodes:9d} nps {info.nps:8d} time {info.time_ms:7.0f} ms  pv {pv}")

    limits = Limits(hard_ms=time_ms, soft_ms=time_ms / 2, depth=depth, threats=threats)
    result = engine.search(limits, show)
    click.echo(f"bestmove {format_pair(result.move)} ({format_point(result.move)}) "
               f"score {format_score(result.score)} depth {result.depth}")
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
# the defaults are engine.ROOT_VCF_DEPTH and engine.SOLVE_VCT_DEPTH (not imported here:
# the engine module loads numba, which every command would then pay for at start-up)
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
    from .engine import Engine
    from .core.errors import GomokuError

    engine = Engine(size, rule=RULES[rule], hash_mb=16)
    try:
        for x, y in parse_moves(position):
            engine.board.play(x, y)
    except GomokuError as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from exc
    if engine.board.is_full:
        raise click.BadParameter("the board is full", param_hint="POSITION")
    return engine


@main.command()
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--turn-ms", type=click.IntRange(10, None), default=300, show_default=True,
              help="INFO timeout_turn sent to both engines.")
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--opening", default="", help="Opening stones, e.g. h8i9j7.")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help="Black's search. " + ALGORITHM_HELP)
@click.option("--white-algorithm", type=ALGORITHM_CHOICE, default=None,
              help="White's search [default: as --algorithm].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm.")
def demo(size: int, turn_ms: int, rule: str, opening: str, algorithm: str,
         white_algorithm: str | None, seed: int) -> None:
    """Play a game between two engine processes through the protocol, drawing the board."""
    from .game.board import Board
    from .arena.referee import MoveRecord, play_game

    def command_for(name: str) -> list[str]:
        return [sys.executable, "-m", "gomoku_engine", "serve", "--algorithm", name,
                "--seed", str(seed)]

    black_command = command_for(algorithm)
    white_command = command_for(white_algorithm or algorithm)
    interactive = sys.stdout.isatty()

    def draw(board: Board, move: MoveRecord) -> None:
        colour = "black (X)" if move.colour == 1 else "white (O)"
        if interactive:
            click.echo("\033[2J\033[H", nl=False)
            click.echo(board)
        click.echo(f"move {board.ply:3d}: {colour} plays {format_point(move.point):4s} "
                   f"({format_pair(move.point)}) in {move.seconds * 1000:5.0f} ms")

    began = time.perf_counter()
    record = play_game(black_command, white_command, size=size, rule=RULES[rule],
                       turn_ms=turn_ms, opening=parse_moves(opening), on_move=draw)
    final = Board(size, rule=RULES[rule])
    for x, y in record.opening + [m.point for m in record.moves]:
        final.play(x, y)
    if not interactive:
        click.echo(final)
    result = {0: "draw", 1: "black (X) wins", 2: "white (O) wins"}[record.winner]
    click.echo(f"{result} ({record.reason}) after {final.ply} stones, "
               f"{time.perf_counter() - began:.1f} s")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback: only this machine can play).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port (0: any free one).")
@click.option("--open/--no-open", "open_browser", default=True,
              help="Open the page in a browser [default: open].")
@click.option("--move-ms", type=click.IntRange(100, None), default=3000, show_default=True,
              help="The engine's time limit per move; levels 1-9 usually stop sooner.")
@click.option("--max-games", type=click.IntRange(1, 1000), default=32, show_default=True,
              help="Most games alive at once (idle ones are dropped after 30 minutes).")
def web(host: str, port: int, open_browser: bool, move_ms: int, max_games: int) -> None:
    """Play against the engine in the browser: serve the page and its JSON API.

    Stops on Ctrl-C.  The API is described in docs/play.md.
    """
    import threading
    import webbrowser

    from .kernels import warmup as do_warmup
    from .play.web import GameStore, make_server, url_of

    click.echo("loading the engine ...")
    do_warmup()
    try:
        server = make_server(host, port, GameStore(max_games=max_games, move_ms=move_ms))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from exc
    url = url_of(server)
    click.echo(f"serving the game on {url} (Ctrl-C stops)")
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopping")
    finally:
        server.server_close()
        server.store.close()


@main.command()
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--level", type=click.IntRange(1, 10), default=3, show_default=True,
              metavar="1..10", help="The engine's strength (3 beginner, 5 some experience, "
                                    "10 full strength).")
@click.option("--colour", "--color", "colour", type=click.Choice(["black", "white"]),
              default="white", show_default=True,
              help="Your colour; black moves first (the engine opens on the centre "
                   "when you take white).")
@click.option("--move-ms", type=click.IntRange(100, None), default=3000, show_default=True,
              help="The engine's time limit per move.")
@click.option("--opening-rule", type=click.Choice(["none", "lin"]), default="none",
              show_default=True,
              help="lin: black's first stone on the two outermost rows or columns "
                   "(Lin's rule).")
def play(size: int, rule: str, level: int, colour: str, move_ms: int,
         opening_rule: str) -> None:
    """Play against the engine in the terminal: type moves as h8 or 7,7; undo, hint, quit."""
    from .play.human import COLOURS, HumanGame
    from .play.terminal import run

    game = HumanGame(size, RULES[rule], level, COLOURS[colour], move_ms=move_ms,
                     seed=int(time.time()), opening_rule=opening_rule)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()

    def read(prompt: str) -> str:
        if interactive:
            return input(prompt)
        click.echo(prompt)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    def clear() -> None:
        if interactive:
            click.echo("\033[2J\033[H", nl=False)

    run(game, read, click.echo, clear)


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
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Opening file, pos (h8i9j7) or offset (0,0, 1,0, 1,3) lines; each "
                   "opening is played twice with colours swapped.")
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
@click.option("--startup-ms", type=click.IntRange(0, None), default=15000, show_default=True,
              help="Extra time for each engine's first reply of a game (start-up; not "
                   "charged to its game clock).")
@click.option("--max-moves", type=click.IntRange(1, None), default=None,
              help="Adjudicate a draw after this many moves (opening stones not counted).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Games played at the same time.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Folder for every game as PSQ and SGF, and summary.json.")
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
def match(engines: tuple[str, ...], infos: tuple[str, ...], games: int, openings: str | None,
          seed: int | None, size: int, rule: str, turn_ms: int, match_ms: int,
          increment_ms: int, tolerance_ms: int, startup_ms: int, max_moves: int | None,
          concurrency: int, out: str | None, sprt: str | None, opening_rule: str) -> None:
    """Play games between Gomocup engines: two, or a round robin of more.

    Every game starts both engines afresh, so an engine that crashes or hangs loses that
    game (with the reason recorded) and plays the next one.  Illegal or unparseable
    replies and late moves lose too.  Prints each pair's score, Elo difference with its
    95% interval and LOS, the standings, forfeits and move times.

    \b
    Example, two strength levels of this engine, 200 ms per move:
      gomoku-engine match --engine "full=gomoku-engine" \\
          --engine "l5=gomoku-engine --level 5" --games 40 --turn-ms 200 \\
          --openings ../shared/openings/freestyle15_balanced_dev.pos
    """
    from .arena.referee import GameRecord
    from .arena.match import (Clock, MatchResult, check_openings, colours, load_openings,
                        run_round_robin, save_tournament, standings, write_game)
    from .arena.stats import elo_estimate, elo_estimate_pairs

    if len(engines) < 2:
        raise click.BadParameter("give at least two --engine NAME=COMMAND",
                                 param_hint="--engine")
    if turn_ms == 0 and match_ms == 0:
        raise click.BadParameter("give a time per move or per game", param_hint="--turn-ms")
    specs = _engine_specs(engines, infos)
    opening_list = load_openings(openings, size) if openings else []
    try:
        check_openings(opening_list, opening_rule, size)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--openings") from exc
    clock = Clock(turn_ms=turn_ms, match_ms=match_ms, increment_ms=increment_ms,
                  tolerance_ms=tolerance_ms, startup_ms=startup_ms)
    n_pairs = len(specs) * (len(specs) - 1) // 2

    from tqdm import tqdm

    progress = tqdm(total=games * n_pairs, unit="game", file=sys.stderr,
                    disable=not sys.stderr.isatty())

    settings = {
        "engines": [{"name": s.name, "command": list(s.command), "info": dict(s.info)}
                    for s in specs],
        "rule": rule, "size": size, "turn_ms": turn_ms, "match_ms": match_ms,
        "increment_ms": increment_ms, "tolerance_ms": tolerance_ms,
        "max_moves": max_moves, "openings": openings, "seed": seed,
        "opening_rule": opening_rule}
    live: dict[tuple[str, str], MatchResult] = {}  # the pairs that have finished a game

    def report(index: int, pair: MatchResult, first_black: bool, record: GameRecord) -> None:
        if out:  # each game as it ends, so a match stopped early keeps what it played
            write_game(pair, index, first_black, record, out, size)
            live[pair.first, pair.second] = pair
            save_tournament(live, out, size, settings, games_too=False)
        black, white = colours(pair, first_black)
        outcome = {0: "draw", 1: f"{black} wins", 2: f"{white} wins"}[record.winner]
        progress.write(f"game {index + 1:3d}: {black} (black) vs {white} (white): {outcome} "
                       f"({record.reason}, {len(record.opening) + len(record.moves)} stones)",
                       file=sys.stdout)
        progress.update()

    test = _parse_sprt(sprt) if sprt else None
    with progress:
        results = run_round_robin(specs, opening_list, games, size=size, rule=RULES[rule],
                                  clock=clock, concurrency=concurrency, seed=seed,
                                  max_moves=max_moves, on_game=report, sprt=test,
                                  opening_rule=opening_rule)
    width = max(len(s.name) for s in specs)
    pair_width = max(len(f"{r.first} vs {r.second}") for r in results.values())
    click.echo("Results by pair (for the first engine of each pair):")
    click.echo(f"  {'pair':{pair_width}s} {'games':>5} {'W':>4} {'L':>4} {'D':>4} "
               f"{'score':>6} {'Elo':>7} {'95% interval':>17} {'LOS':>6}")
    for result in results.values():
        wins, losses, draws = result.score()
        total = wins + losses + draws
        if not total:
            continue
        est = elo_estimate(wins, losses, draws)
        click.echo(f"  {result.first + ' vs ' + result.second:{pair_width}s} {total:5d} "
                   f"{wins:4d} {losses:4d} {draws:4d} {100 * (wins + draws / 2) / total:5.1f}% "
                   f"{est.elo + 0.0:+7.1f} {_interval(est.low, est.high):>17s} "
                   f"{100 * est.los:5.1f}%")
    click.echo("By pairs of games (one opening, colours swapped; points 0, 1/2, 1, 3/2, 2):")
    for result in results.values():
        pairs = result.pentanomial()
        if sum(pairs):
            est = elo_estimate_pairs(pairs)
            click.echo(f"  {result.first + ' vs ' + result.second:{pair_width}s} "
                       f"{sum(pairs):5d} pairs {' '.join(map(str, pairs))}: Elo "
                       f"{est.elo + 0.0:+.1f} {_interval(est.low, est.high)}")
    if test is not None:
        lower, upper = test.bounds
        for result in results.values():
            verdict = {"H1": f"H1 accepted (elo >= {test.elo1:g})",
                       "H0": f"H0 accepted (elo <= {test.elo0:g})"}.get(result.sprt or "",
                                                                       "undecided")
            click.echo(f"SPRT {result.first} vs {result.second} (by pairs): LLR "
                       f"{test.llr_pairs(result.pentanomial()):.2f} "
                       f"[{lower:.2f}, {upper:.2f}]: {verdict}")
    if len(specs) > 2:
        click.echo("Standings:")
        click.echo(f"  {'#':>2} {'engine':{width}s} {'games':>5} {'W':>4} {'L':>4} {'D':>4} "
                   f"{'points':>7} {'score':>6} {'Elo vs field':>12}  95% interval")
        for rank, row in enumerate(standings(results), start=1):
            if not row.games:
                continue
            est = elo_estimate(row.wins, row.losses, row.draws)
            click.echo(f"  {rank:2d} {row.name:{width}s} {row.games:5d} {row.wins:4d} "
                       f"{row.losses:4d} {row.draws:4d} {row.points:7.1f} "
                       f"{100 * row.points / row.games:5.1f}% "
                       f"{est.elo + 0.0:+7.1f} {_interval(est.low, est.high)}")
    if out:
        save_tournament(results, out, size, settings, games_too=False)  # written as they ended
        click.echo(f"Games saved in {out}")
    forfeits = [f for r in results.values() for f in r.forfeit_details()]
    click.echo(f"Forfeits: {len(forfeits)}" + "".join(f"\n  {f}" for f in forfeits))
    limit = turn_ms if turn_ms > 0 else None
    for spec in specs:
        times = [t for r in results.values() for is_first, name in ((True, r.first),
                                                                    (False, r.second))
                 if name == spec.name for t in r.move_times(is_first)]
        if times:
            late = f", over {limit} ms: {sum(1 for t in times if t * 1000 > limit)}" \
                if limit else ""
            click.echo(f"{spec.name}: {len(times)} moves, mean "
                       f"{1000 * sum(times) / len(times):.0f} ms, max "
                       f"{1000 * max(times):.0f} ms{late}")


@main.group()
def teach() -> None:
    """Lessons in game search on small games: Grundy's game, tic-tac-toe, (m,n,k) games."""


@teach.command(name="grundy")
@click.argument("n", type=click.IntRange(1, 400))
@click.option("--tree", is_flag=True,
              help="Also print the and-or graph of the textbook example, a pile of 7 coins.")
def teach_grundy(n: int, tree: bool) -> None:
    """Grundy's game for every pile of 1..N coins: does the first player win (and-or
    search), the pile it is equivalent to, its Sprague-Grundy value, the proof's size."""
    from .lessons.grundy import and_or_graph, grundy_table

    began = time.perf_counter()
    rows, expanded = grundy_table(n)
    click.echo(f"{'n':>4} {'first player':>12} {'equivalent':>10} {'Grundy':>6} {'proof':>6} "
               f"{'searched':>8}")
    for row in rows:
        equivalent = "lost" if row.equivalent == 0 else str(row.equivalent)
        click.echo(f"{row.n:4d} {'wins' if row.first_wins else 'loses':>12} {equivalent:>10} "
                   f"{row.grundy:6d} {row.proof:6d} {row.searched:8d}")
    losses = ", ".join(str(r.n) for r in rows if not r.first_wins)
    click.echo(f"first player loses at n = {losses}")
    agree = all(r.first_wins == (r.grundy != 0) for r in rows)
    click.echo(f"and-or search and Grundy values agree: {'yes' if agree else 'NO'}; "
               f"{expanded} positions expanded in {time.perf_counter() - began:.2f} s")
    if tree:
        click.echo("\nAnd-or graph of a pile of 7 (MIN moves first; AND: MIN to move, "
                   "OR: MAX to move):")
        for line in and_or_graph(7):
            click.echo("  " + line)


@teach.command(name="tictactoe")
@click.option("--depth", type=click.IntRange(1, 9), default=2, show_default=True,
              help="Search depth in plies (the slides search 2).")
def teach_tictactoe(depth: int) -> None:
    """Minimax and alpha-beta on tic-tac-toe with f(p) = open lines for MAX (X) - open
    lines for MIN (O): values, moves and nodes, then the full-depth proof of the draw."""
    from .lessons.tictactoe import INF, LESSON_POSITIONS, alphabeta, minimax, position, show

    def value(v: int) -> str:
        return {INF: "+inf", -INF: "-inf"}.get(v, str(v))

    def point(i: int | None) -> str:
        return "-" if i is None else f"{i % 3},{i // 3}"

    click.echo(f"Depth {depth}: value for MAX, move (x,y) and nodes of each search")
    for text in LESSON_POSITIONS:
        x, o, max_to_move = position(text)
        a, b = minimax(x, o, depth, max_to_move), alphabeta(x, o, depth, max_to_move)
        side = "X (MAX)" if max_to_move else "O (MIN)"
        click.echo(f"  {show(x, o)}  {side} to move: minimax {value(a.value):>4} at "
                   f"{point(a.move)} ({a.nodes} nodes), alpha-beta {value(b.value):>4} at "
                   f"{point(b.move)} ({b.nodes} nodes)")
    click.echo("Empty board, every depth:")
    click.echo(f"  {'depth':>5} {'value':>5} {'minimax nodes':>14} {'alpha-beta nodes':>17}")
    for d in range(1, 10):
        a, b = minimax(0, 0, d), alphabeta(0, 0, d)
        click.echo(f"  {d:5d} {value(a.value):>5} {a.nodes:14d} {b.nodes:17d}")
    full = alphabeta(0, 0, 9)
    verdict = {0: "a draw", INF: "a win for X", -INF: "a win for O"}[full.value]
    click.echo(f"Full depth (9 plies, no evaluation needed): tic-tac-toe is {verdict}.")


@teach.command(name="mnk")
@click.argument("m", type=click.IntRange(1, 64))
@click.argument("n", type=click.IntRange(1, 64))
@click.argument("k", type=click.IntRange(1, 64))
@click.option("--tt-bits", type=click.IntRange(10, 28), default=22, show_default=True,
              help="Transposition table of 2**BITS entries (12 bytes each).")
def teach_mnk(m: int, n: int, k: int, tt_bits: int) -> None:
    """Solve the (M,N,K) game: an M x N board (M columns), K in a row wins.

    Prints first-player win, draw or loss, a best first move (x,y) and the nodes the
    jitted alpha-beta searched.  (5,5,4) takes seconds; much larger boards may not end.
    """
    from .lessons.mnk import solve

    try:
        result = solve(m, n, k, tt_bits)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    click.echo(f"({m},{n},{k}): {result.outcome}; best first move "
               f"{format_pair(result.move)}; {result.nodes} nodes, {result.tt_hits} "
               f"transposition-table hits, {result.seconds:.2f} s")


def _interval(low: float, high: float) -> str:
    """``[-12.3, +45.6]``; ``n/a`` when every game was won (or every one lost): the normal
    approximation has no spread then."""
    if low == high and abs(low) == float("inf"):
        return "n/a"
    return f"[{low + 0.0:+.1f}, {high + 0.0:+.1f}]"


def _engine_specs(engines: tuple[str, ...], infos: tuple[str, ...]) -> list[EngineSpec]:
    """``NAME=COMMAND`` and ``[NAME:]KEY=VALUE`` options as :class:`EngineSpec` objects."""
    from .arena.match import EngineSpec, split_command  # noqa: F811 (the runtime import)

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
    from .arena.stats import Sprt

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
