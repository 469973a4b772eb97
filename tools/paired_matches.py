"""Two matches on the same openings, compared opening by opening.

    python tools/paired_matches.py vs_rapfi_network vs_rapfi_classical
    python tools/paired_matches.py net_1_80 classical_1_80 net_81_160 classical_81_160

Each folder is a ``gomoku-engine match --out`` folder of one pair of engines, played from
the same openings in the same order (games 2k-1 and 2k: opening k with colours swapped), the
engine compared being the first of each pair (``--engine ours=...`` first in both).  Per
opening, the first engine's points in A less its points in B (each -2 to +2); printed: both
scores, the mean difference as a score (points per game) and its 95% interval (normal, from
the differences' spread).  The openings' own difficulty is shared by both matches and drops
out of the difference, so the interval is narrower than the two matches' own.  More than
one pair of folders (A1 B1 A2 B2 ...: each pair on its own openings) pools the openings of
all pairs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from gomoku_engine.core.records import RESULT_WINNERS


def first_engine_points(folder: Path) -> dict[int, float]:
    """Game number -> the first engine's points (1, 1/2, 0) in ``folder``'s summary."""
    summary = json.loads((folder / "summary.json").read_text())
    points = {}
    for game in summary["games"]:
        winner = RESULT_WINNERS[game["result"]]
        name = (game["black"], game["white"])[winner - 1] if winner else None
        points[game["game"]] = 0.5 if winner == 0 else float(name == summary["first"])
    return points


def opening_points(a: Path, b: Path) -> list[tuple[float, float]]:
    """Per opening played in full in both ``a`` and ``b``: the first engine's points in
    each (0 to 2)."""
    pa, pb = first_engine_points(a), first_engine_points(b)
    both = pa.keys() & pb.keys()
    return [(pa[g] + pa[g + 1], pb[g] + pb[g + 1])
            for g in range(1, max(pa) + 1, 2) if {g, g + 1} <= both]


@click.command()
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
def main(folders: tuple[Path, ...]) -> None:
    """Compare matches A and B opening by opening (see the module docstring)."""
    if len(folders) % 2:
        raise click.UsageError("folders come in pairs: A B [A B ...]")
    points = [p for a, b in zip(folders[::2], folders[1::2]) for p in opening_points(a, b)]
    if len(points) < 2:
        raise click.ClickException("fewer than two openings played in full in both")
    diffs = [x - y for x, y in points]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    score_a = sum(x for x, _ in points) / (2 * n)
    score_b = sum(y for _, y in points) / (2 * n)
    click.echo(f"{n} openings: A {score_a:.1%}, B {score_b:.1%}; A - B {mean / 2:+.1%} a game "
               f"(95%: {(mean - half) / 2:+.1%} to {(mean + half) / 2:+.1%})")


if __name__ == "__main__":
    main()
