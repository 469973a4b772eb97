"""Opening suites: ``openings make`` (balanced openings made with a reference engine),
``openings list`` and ``openings show`` (the built-in sets), and the ``--openings`` value
of ``match`` (a file or a built-in set's name, :data:`OPENINGS`)."""

from __future__ import annotations

import re
import shlex
import sys
import time

import click

from ..arena.clock import STARTUP_MS
from .group import RULE_CHOICE, RULES, main


class OpeningsParam(click.ParamType):
    """``--openings``: an opening file, or a built-in set (``freestyle15`` or
    ``builtin:freestyle15``); the value is the file's path."""

    name = "FILE|SET"

    def convert(self, value, param, ctx):  # noqa: ANN001 (click's signature)
        from ..arena.openings import resolve_openings

        try:
            return str(resolve_openings(str(value)))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


OPENINGS = OpeningsParam()
#: the help of an ``--openings`` option that takes :data:`OPENINGS`
OPENINGS_HELP = ("Opening file, pos (h8i9j7) or offset (0,0, 1,0, 1,3) lines, or a built-in "
                 "set by name (freestyle15, or builtin:freestyle15 where a file has that "
                 "name; `gomoku-engine openings list`).")


def warn_if_other_board(path: str, size: int, rule: str) -> None:
    """A warning on stderr when the built-in set at ``path`` was made for another board
    size or rule than the games it opens."""
    from ..arena.openings import set_of_file

    found = set_of_file(path)
    if found is not None and (found.size, found.rule) != (size, rule):
        click.echo(f"warning: the set {found.name} was balanced for {found.rule} "
                   f"{found.size}x{found.size}, not {rule} {size}x{size}", err=True)


@main.group()
def openings() -> None:
    """Opening suites for matches: the built-in sets, and balanced openings made with a
    reference engine."""


@openings.command("list")
def list_sets() -> None:
    """The built-in sets: name, rule, board, openings, stones, and how each was made."""
    from ..arena.openings import builtin_sets

    for s in builtin_sets().values():
        click.echo(f"{s.name}: {s.rule} {s.size}x{s.size}, {s.count} openings of "
                   f"{s.stones[0]}-{s.stones[1]} stones; made {s.date} at {s.commit[:10]} by "
                   f"{s.command}" + (f" ({s.note})" if s.note else ""))


@openings.command("show")
@click.argument("name")
@click.option("--path", "path_only", is_flag=True,
              help="Print the set's file instead (for c-gomoku-cli's -openings file=...).")
def show(name: str, path_only: bool) -> None:
    """Print built-in set NAME (or builtin:NAME), one opening a pos line (h8i9j7)."""
    from ..arena.openings import BUILTIN_PREFIX, builtin_sets

    found = builtin_sets().get(name.removeprefix(BUILTIN_PREFIX))
    if found is None:
        raise click.BadParameter(f"no built-in set {name!r}; the sets: "
                                 f"{', '.join(sorted(builtin_sets()))}", param_hint="NAME")
    click.echo(str(found.path) if path_only else found.path.read_text(), nl=path_only)


def _stone_range(ctx: click.Context, param: click.Parameter, text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?", text)
    if not match:
        raise click.BadParameter(f"{text!r}: expected N or MIN..MAX", ctx, param)
    low = int(match.group(1))
    return low, int(match.group(2) or low)


def _info_pairs(ctx: click.Context, param: click.Parameter, texts: tuple[str, ...]
                ) -> tuple[tuple[str, str], ...]:
    pairs = []
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{text!r}: expected KEY=VALUE", ctx, param)
        pairs.append((key.strip(), value.strip()))
    return tuple(pairs)


@openings.command("make")
@click.option("--engine", required=True, metavar="COMMAND",
              help="The reference engine's command line (quoted): any Gomocup engine with "
                   "Yixin-Board's YXBOARD and YXBALANCEONE/YXBALANCETWO, e.g. "
                   "'gomoku-engine' or Rapfi's pbrain-rapfi.")
@click.option("--count", type=click.IntRange(1, None), required=True,
              help="Openings to make.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The pos file to write (one line as each opening is made).")
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--stones", default="3..8", show_default=True, callback=_stone_range,
              metavar="MIN..MAX", help="Stones of an opening, drawn evenly in this range; "
                                       "the engine places the last one or two.")
@click.option("--balance", type=click.Choice(["two", "one"]), default="two",
              show_default=True,
              help="two: YXBALANCETWO places the last two stones; one: YXBALANCEONE the last.")
@click.option("--bias", type=int, default=0, show_default=True,
              help="Score aimed at for the side to move (the engine's units; 0: even).")
@click.option("--window", type=click.IntRange(0, None), default=None, metavar="EV",
              help="Keep only openings whose score, as the engine reports it in a MESSAGE "
                   "line's 'ev', is within EV of the bias [default: no check].")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Seeds the random stones: the same seed and a deterministic engine give "
                   "the same file.")
@click.option("--turn-ms", type=click.IntRange(1, None), default=300, show_default=True,
              help="The engine's time per balance command (INFO timeout_turn).")
@click.option("--tolerance-ms", type=click.IntRange(0, None), default=1000, show_default=True,
              help="Lateness accepted before an unanswered command stops the run.")
@click.option("--startup-ms", type=click.IntRange(0, None), default=STARTUP_MS,
              show_default=True, help="Extra time for the engine's first OK (its start-up).")
@click.option("--radius", type=click.IntRange(0, 15), default=3, show_default=True,
              help="Random stones within this many lines of the centre.")
@click.option("--info", "infos", multiple=True, callback=_info_pairs, metavar="KEY=VALUE",
              help="Send 'INFO KEY VALUE' to the engine with every START (repeatable).")
def make(engine: str, count: int, out: str, size: int, rule: str, stones: tuple[int, int],
         balance: str, bias: int, window: int | None, seed: int, turn_ms: int,
         tolerance_ms: int, startup_ms: int, radius: int,
         infos: tuple[tuple[str, str], ...]) -> None:
    """Make COUNT balanced openings with a reference engine, as Yixin-Board does: random
    stones near the centre (seeded), then the engine's YXBALANCETWO 0 adds the two moves
    after which the score is nearest even.  Openings with a five, a four for the side to
    move, a renju foul, or equal to an earlier one under the board's 8 symmetries are
    dropped.  The file is read back with match's reader before the command succeeds.

    \b
    Example, 40 freestyle openings made by this engine at 300 ms a command:
      gomoku-engine openings make --engine "gomoku-engine" --count 40 \\
          --out my_openings.pos --turn-ms 300
      gomoku-engine match --engine a=gomoku-engine --engine b=gomoku-engine \\
          --openings my_openings.pos --games 2 --turn-ms 100
    """
    from tqdm import tqdm

    from ..arena.openings import BalanceError, MakeSettings, reference_engine, write_suite

    try:
        settings = MakeSettings(engine=tuple(shlex.split(engine)), count=count, size=size,
                                rule=RULES[rule], stones=stones, seed=seed, turn_ms=turn_ms,
                                tolerance_ms=tolerance_ms, startup_ms=startup_ms,
                                pair=balance == "two", bias=bias, window=window,
                                radius=radius, info=infos)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--stones") from exc
    began = time.perf_counter()
    with tqdm(total=count, unit="opening", file=sys.stderr,
              disable=not sys.stderr.isatty()) as progress:
        try:
            with reference_engine(settings) as reference:
                made = write_suite(reference, out, lambda opening: progress.update())
        except BalanceError as exc:
            raise click.ClickException(str(exc)) from exc
    rejected = ", ".join(f"{n} {why}" for why, n in made.rejected.most_common()) or "none"
    click.echo(f"{len(made.openings)} openings written to {out} and read back by match's "
               f"reader; {made.asked} balance commands in {time.perf_counter() - began:.0f} s "
               f"(rejected: {rejected})")
