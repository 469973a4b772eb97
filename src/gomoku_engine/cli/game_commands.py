"""Games to watch or play: ``demo`` (two engine processes), ``web`` and ``play`` (against
a human)."""

from __future__ import annotations

import sys
import time

import click

from ..core.notation import format_pair, format_point, parse_moves
from .group import ALGORITHM_CHOICE, ALGORITHM_HELP, RULE_CHOICE, RULES, main


@main.command()
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--turn-ms", type=click.IntRange(10, None), default=300, show_default=True,
              help="INFO timeout_turn sent to both engines.")
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--opening", "opening_moves", default="", help="Opening stones, e.g. h8i9j7.")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help="Black's search. " + ALGORITHM_HELP)
@click.option("--white-algorithm", type=ALGORITHM_CHOICE, default=None,
              help="White's search [default: as --algorithm].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm.")
def demo(size: int, turn_ms: int, rule: str, opening_moves: str, algorithm: str,
         white_algorithm: str | None, seed: int) -> None:
    """Play a game between two engine processes through the protocol, drawing the board."""
    from ..game.board import Board
    from ..arena.referee import MoveRecord, play_game

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
                       turn_ms=turn_ms, opening_moves=parse_moves(opening_moves), on_move=draw)
    final = Board(size, rule=RULES[rule])
    for x, y in record.opening_moves + [m.point for m in record.moves]:
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
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="The games' SQLite file [default: games.sqlite3 in the per-user data "
                   "folder, e.g. ~/.local/share/gomoku-engine/].")
@click.option("--expire-hours", type=click.FloatRange(0, None, min_open=True), default=24.0,
              show_default=True,
              help="An unfinished game untouched this long is deleted (finished ones stay).")
@click.option("--memory-mb", type=click.IntRange(64, None), default=512, show_default=True,
              help="Memory the server keeps within (MiB): it sizes the pool of engines the "
                   "games borrow while thinking (docs/play.md).")
def web(host: str, port: int, open_browser: bool, move_ms: int, db_path: str | None,
        expire_hours: float, memory_mb: int) -> None:
    """Play against the engine in the browser: serve the page and its JSON API.

    Every game is kept in a SQLite file (--db), so a restart loses none.  Stops on Ctrl-C
    or SIGTERM.  Answers only its own page (the Host and Origin headers, JSON bodies).
    The API is described in docs/play.md.
    """
    import contextlib
    import signal
    import threading
    import webbrowser

    from ..kernels import warmup as do_warmup
    import sqlite3

    from ..play.games_db import GameDB, default_db_path
    from ..play.web import GameStore, is_loopback, make_server, url_of

    click.echo("loading the engine ...")
    do_warmup()
    path = db_path or default_db_path()
    try:
        db = GameDB(path)
    except (OSError, sqlite3.Error) as exc:
        raise click.ClickException(f"cannot open the games' database {path}: {exc}") from exc
    try:
        server = make_server(host, port, GameStore(db, expire_s=expire_hours * 3600,
                                                     move_ms=move_ms, memory_mb=memory_mb))
    except OSError as exc:
        db.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from exc
    click.echo(f"games: {path} ({db.count()} stored)")
    url = url_of(server)
    pool = server.store.pool
    click.echo(f"engines: at most {pool.size}, each with a {pool.hash_mb} MiB hash table "
               f"(--memory-mb {memory_mb})")
    if not is_loopback(server):
        click.echo(f"warning: {host} is not a loopback address: anyone who can reach this "
                   "machine can play here and use its CPU", err=True)
    # SIGTERM (a service manager, kill) stops like Ctrl-C; shutdown() waits for
    # serve_forever, so it runs in another thread than the handler's (the main one).
    signal.signal(signal.SIGTERM,
                  lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    click.echo(f"serving the game on {url} (Ctrl-C stops)")
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
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
    from ..play.human import COLOURS, HumanGame
    from ..play.terminal import run

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
