"""``teach``: lessons in game search on small games."""

from __future__ import annotations

import time

import click

from ..core.notation import format_pair
from .group import main


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
    from ..lessons.grundy import and_or_graph, grundy_table

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
    from ..lessons.tictactoe import INF, LESSON_POSITIONS, alphabeta, minimax, position, show

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
    from ..lessons.mnk import solve

    try:
        result = solve(m, n, k, tt_bits)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    click.echo(f"({m},{n},{k}): {result.outcome}; best first move "
               f"{format_pair(result.move)}; {result.nodes} nodes, {result.tt_hits} "
               f"transposition-table hits, {result.seconds:.2f} s")
