"""Paired A/B of ``gomoku-engine bench``: this checkout against another revision.

    python tools/ab_bench.py main                  # the working tree against main
    python tools/ab_bench.py 54f820d --depth 14 --pairs 5
    python tools/ab_bench.py main --a HEAD~1       # two revisions, neither the working tree

The revision B (and A, when ``--a`` names one) is checked out with ``git worktree`` into a
folder of its own under ``~/.cache/gomoku-engine/ab/`` (kept between calls), with its own
numba cache (``NUMBA_CACHE_DIR`` inside that folder), so neither side loads the other's
compiled kernels.  Each side runs once unmeasured to compile (or load) its kernels, then
the bench processes alternate, A B A B ..., and each pair's ratio A/B of nodes per second
of CPU time (the process's; the wall clock's ratio is printed beside it) is taken as the
pair ran: a drift in the machine's speed (another job, a frequency change) moves
both runs of a pair alike.  (A working tree edited while the runs go on is measured as it
is at each run: an edit to a kernel's source makes the next run compile.)  Printed: every
pair, the median ratio (quote it), its range, and both sides' bench signatures (equal
signatures: the same tree searched, so the ratio is speed alone).

Both sides run with this interpreter (its numba and numpy), from their own ``src``.
Every commit that touches ``core/``, ``eval/``, ``game/`` or ``search/`` quotes this
ratio against main (docs/development.md, "Speed").
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import click

# the package's evaluation names (a revision that lacks one fails its bench with a message)
from gomoku_engine.cli.group import EVALUATION_CHOICE

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gomoku-engine" / "ab"


def _git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def checkout(rev: str) -> Path:
    """A worktree of ``rev`` (any name git knows) under :data:`CACHE`, made once per commit;
    returns its root."""
    sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    root = CACHE / sha[:12]
    if not (root / "src" / "gomoku_engine").is_dir():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "prune"], cwd=REPO, check=False)
        _git("worktree", "add", "--force", "--detach", str(root), sha)
    return root


#: one bench in a fresh process: the bench's own positions and depth, timed by the
#: process's CPU clock (waiting for a core on a loaded machine counts on neither side) and
#: by the wall clock; prints ``cpu_nps wall_nps signature``.  ``run_bench`` has taken
#: ``depth`` and, since e9a2ce0, ``evaluation``; older revisions get no evaluation.
_BENCH = """
import sys, time
from gomoku_engine.bench import run_bench
depth, evaluation = int(sys.argv[1]), sys.argv[2]
kwargs = {"evaluation": evaluation} if evaluation else {}
run_bench(1, **kwargs)  # load every kernel and table first
cpu, wall = time.process_time(), time.perf_counter()
report = run_bench(depth, **kwargs)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(int(report.nodes / cpu), int(report.nodes / wall), report.signature)
"""


def bench_command(root: Path, depth: int, evaluation: str | None) -> tuple[list[str], dict]:
    """The command and environment of one bench run of the checkout at ``root``."""
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    if root != REPO:
        env["NUMBA_CACHE_DIR"] = str(root / ".numba-cache")
    return [sys.executable, "-c", _BENCH, str(depth), evaluation or ""], env


def run_once(root: Path, depth: int, evaluation: str | None) -> tuple[int, int, str]:
    """One bench process: (nodes per CPU second, nodes per wall second, signature).

    :raises click.ClickException: if the bench fails or prints no figures.
    """
    command, env = bench_command(root, depth, evaluation)
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=root)
    figures = re.fullmatch(r"(\d+) (\d+) (\w+)", done.stdout.strip().splitlines()[-1]
                           if done.stdout.strip() else "")
    if done.returncode != 0 or figures is None:
        raise click.ClickException(f"bench at {root} failed ({done.returncode}):\n"
                                   f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return int(figures.group(1)), int(figures.group(2)), figures.group(3)


@click.command()
@click.argument("rev")
@click.option("--a", "rev_a", default=None,
              help="Revision of side A [default: this working tree, uncommitted changes "
                   "included].")
@click.option("--depth", type=click.IntRange(1, 30), default=14, show_default=True)
@click.option("--pairs", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option("--evaluation", type=EVALUATION_CHOICE,
              default=None, help="Evaluation of both sides [default: each side's default: "
                                 "the network since 0a57a59, the classical table before, so "
                                 "name it to compare across].")
@click.option("--evaluation-a", type=EVALUATION_CHOICE,
              default=None, help="Evaluation of side A alone (the network's speed against "
                                 "the classical: REV the same as --a).")
def main(rev: str, rev_a: str | None, depth: int, pairs: int, evaluation: str | None,
         evaluation_a: str | None) -> None:
    """Bench this checkout (A) against REV (B), runs alternated, and print the median
    paired ratio of nodes/s (A/B) and both signatures."""
    eval_a = evaluation_a or evaluation
    root_a = checkout(rev_a) if rev_a else REPO
    root_b = checkout(rev)
    label_a = rev_a or "working tree"
    click.echo(f"A = {label_a} ({root_a})\nB = {rev} ({root_b})\n"
               f"bench --depth {depth}, evaluation A {eval_a or 'default'}, "
               f"B {evaluation or 'default'}")
    # one unmeasured run of each side at the same depth: it compiles (or loads) every
    # kernel the measured runs call, so no measured run pays for compiling
    for root, name in ((root_a, eval_a), (root_b, evaluation)):
        run_once(root, depth, name)
    ratios, wall_ratios, signatures = [], [], {"A": set(), "B": set()}
    for i in range(pairs):
        cpu_a, wall_a, sig_a = run_once(root_a, depth, eval_a)
        cpu_b, wall_b, sig_b = run_once(root_b, depth, evaluation)
        signatures["A"].add(sig_a)
        signatures["B"].add(sig_b)
        ratios.append(cpu_a / cpu_b)
        wall_ratios.append(wall_a / wall_b)
        click.echo(f"pair {i + 1}: A {cpu_a:9d}  B {cpu_b:9d} nodes per CPU second, "
                   f"A/B {ratios[-1]:.3f} (wall clock: A {wall_a} B {wall_b}, "
                   f"{wall_ratios[-1]:.3f})")
    click.echo(f"signature A {', '.join(sorted(signatures['A']))}  "
               f"B {', '.join(sorted(signatures['B']))}"
               + ("  (same tree)" if signatures["A"] == signatures["B"] else "  (trees differ)"))
    click.echo(f"median A/B {statistics.median(ratios):.3f} over {pairs} pairs "
               f"(range {min(ratios):.3f} - {max(ratios):.3f}; wall clock "
               f"{statistics.median(wall_ratios):.3f})")


if __name__ == "__main__":
    main()
