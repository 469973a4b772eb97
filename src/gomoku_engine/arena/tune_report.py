"""What a tuning run shows (``gomoku-engine tune``): the tunables' table (``--list``), the
plot of its paths and score (matplotlib), and its values as a ``search/params.py`` block
and as ``INFO param`` lines, written into the output folder."""

from __future__ import annotations

from pathlib import Path

from ..search.params import TUNABLE, TUNABLES
from .tune import TuneState, format_value

#: the files written beside the state
PLOT_FILE = "tune.png"
PARAMS_FILE = "params_block.py"
INFO_FILE = "info_param.txt"


def tunable_lines() -> list[str]:
    """One line per tunable: name, default, range, step, integer or float."""
    width = max(len(t.name) for t in TUNABLES)
    lines = [f"{'name':{width}}  {'default':>9}  {'range':>21}  {'step':>7}  kind"]
    for t in TUNABLES:
        span = f"[{format_value(t.low)}, {format_value(t.high)}]"
        lines.append(f"{t.name:{width}}  {format_value(t.default):>9}  {span:>21}  "
                     f"{format_value(t.step):>7}  {'int' if t.integer else 'float'}")
    return lines


def final_values(state: TuneState) -> dict[str, float]:
    """The run's values: the SPSA iterate after its last iteration (the start values
    before the first)."""
    return state.spsa.current_values()


def params_block(state: TuneState) -> str:
    """The values as the head lines of their ``search/params.py`` entries (``_int(name,
    default, low, high, step,``), each with the default it replaces; the docs stay."""
    values = final_values(state)
    games = 4 * state.settings.pairs * len(state.history)
    lines = [f"# gomoku-engine tune: {len(state.history)} iterations, {games} games "
             "(search/params.py: replace each entry's first line)"]
    for name, value in values.items():
        t = TUNABLE[name]
        maker = "_int" if t.integer else "_float"
        lines.append(f'    {maker}("{name}", {format_value(value)}, {format_value(t.low)}, '
                     f"{format_value(t.high)}, {format_value(t.step)},  "
                     f"# was {format_value(t.default)}")
    return "\n".join(lines) + "\n"


def info_text(state: TuneState) -> str:
    """The values as ``INFO param NAME VALUE`` lines, one a tunable."""
    return "".join(f"INFO param {name} {format_value(value)}\n"
                   for name, value in final_values(state).items())


def running_scores(state: TuneState) -> list[float]:
    """The tuned engine's score against the opponent (theta+ and theta- together) over
    the last ``max(10, n / 10)`` iterations, after each iteration."""
    scores = [(i.score_plus + i.score_minus) / 2 for i in state.history]
    window = max(10, len(scores) // 10)
    return [sum(scores[max(0, k + 1 - window):k + 1]) / (k + 1 - max(0, k + 1 - window))
            for k in range(len(scores))]


def plot(state: TuneState, path: str | Path) -> None:
    """A PNG of every tunable's path (the iterate's value after each iteration, with its
    default dotted) and of the running score (:func:`running_scores`)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    names = state.spsa.names
    columns = min(3, len(names) + 1)
    rows = -(-(len(names) + 1) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.6 * rows),
                                squeeze=False)
    steps = range(1, len(state.history) + 1)
    for ax, name in zip(axes.flat, names):
        ax.plot(steps, [i.current[name] for i in state.history], color="tab:blue")
        ax.axhline(TUNABLE[name].default, color="grey", linestyle=":", linewidth=1)
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
    ax = axes.flat[len(names)]
    ax.plot(steps, running_scores(state), color="tab:red")
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_title("score against the opponent (running)", fontsize=9)
    ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names) + 1:]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("iteration", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def write_results(state: TuneState, folder: str | Path) -> list[Path]:
    """The plot, the params.py block and the INFO lines in ``folder``; their paths."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    plot(state, path / PLOT_FILE)
    (path / PARAMS_FILE).write_text(params_block(state))
    (path / INFO_FILE).write_text(info_text(state))
    return [path / PLOT_FILE, path / PARAMS_FILE, path / INFO_FILE]
