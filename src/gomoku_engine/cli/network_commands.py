"""The network evaluation's training: ``gomoku-engine train``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..training.forced import FORCED_CHOICES
from .group import main


def _sources(specs: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """``GAMES`` or ``GAMES=LABELS`` arguments as ``(games, labels or None)``."""
    out = []
    for spec in specs:
        games, _, labels = spec.partition("=")
        for path in (games, labels):
            if path and not Path(path).is_file():
                raise click.BadParameter(f"no such file: {path}", param_hint="SOURCES")
        out.append((games, labels or None))
    return out


def _dataset(sources: list[tuple[str, str | None]], folder: Path):
    """The training positions of ``sources``, built once and kept in ``folder``."""
    from tqdm import tqdm

    from ..training.labelling import load_labels
    from ..training.network_data import (build_dataset, concatenate, game_scores,
                                         label_scores, load_dataset, save_dataset)
    from ..training.selfplay import load

    cached, stamp = folder / "dataset.npz", folder / "dataset.json"
    names = [[g, lab] for g, lab in sources]
    if cached.exists() and stamp.exists() and json.loads(stamp.read_text()) == names:
        return load_dataset(cached)
    parts, offset = [], 0
    for games_path, labels_path in sources:
        try:
            games = load([games_path])
            scores = (label_scores(load_labels(labels_path)) if labels_path
                      else game_scores(games))
        except (KeyError, ValueError, OSError) as exc:
            raise click.ClickException(f"{games_path}: not a games file with scores ({exc})")
        n = len(games["length"])
        with tqdm(total=n, unit="game", desc=Path(games_path).name, disable=None) as bar:
            parts.append(build_dataset(games, scores, offset, progress=lambda _: bar.update()))
        offset += n
    data = concatenate(parts)
    save_dataset(cached, data)
    stamp.write_text(json.dumps(names))
    return data


@main.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("--folder", type=click.Path(file_okay=False), required=True,
              help="Where the run keeps its dataset, checkpoint and loss plot; a run "
                   "started again with the same folder and options resumes.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The network file to write (the engine's own: "
                   "src/gomoku_engine/eval/data/net_<rule>.npz).")
@click.option("--epochs", type=click.IntRange(1, None), default=12, show_default=True)
@click.option("--width", type=click.IntRange(1, 256), default=32, show_default=True,
              help="Values per accumulator (D).")
@click.option("--spatial", type=click.IntRange(0, 256), default=None,
              help="Channels (the first of the D) that go through the 3x3 convolution (Ds); "
                   "0: none, every channel summed as it is.  [default: half of --width]")
@click.option("--centre-tap", is_flag=True,
              help="Keep the convolution to its centre tap (each point alone): the ablation "
                   "that measures what the spatial step adds.")
@click.option("--hidden", type=click.IntRange(1, 256), default=32, show_default=True,
              help="Units of the hidden layer (H).")
@click.option("--batch", type=click.IntRange(1, None), default=512, show_default=True)
@click.option("--lr", "learning_rate", type=click.FloatRange(0, None, min_open=True),
              default=2e-3, show_default=True, help="Adam's peak learning rate.")
@click.option("--mix", type=click.FloatRange(0, 1), default=0.7, show_default=True,
              help="The teacher's share of the target, the rest being the game result.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--threatened-weight", type=click.FloatRange(0, None, min_open=True),
              default=1.0, show_default=True,
              help="Weight of positions where the side to move faces a four-three or "
                   "open-four point, against 1 for the others.")
@click.option("--forced", type=click.Choice(FORCED_CHOICES), default="keep",
              show_default=True,
              help="The positions the teacher scores as a forced win or loss: keep them "
                   "(target 1 or 0), drop them, or drop those where the side to move is "
                   "threatened.")
def train(sources: tuple[str, ...], folder: str, out: str, epochs: int, width: int,
          spatial: int | None, centre_tap: bool, hidden: int, batch: int,
          learning_rate: float, mix: float, seed: int, threatened_weight: float,
          forced: str) -> None:
    """Train the network evaluation on scored games and export it for the engine.

    SOURCES are `selfplay --engine` files (their moves' scores are the teacher's) or
    GAMES=LABELS pairs (a `selfplay` file and a `label` file of it).  Needs the `train`
    extra (JAX)."""
    from tqdm import tqdm

    from ..eval.network import save_network
    from ..training.network_fit import (TrainConfig, Trainer, TrainingError, check_libraries,
                                        plot_history)
    from ..training.selfplay import load

    try:
        check_libraries()  # before the dataset is built
    except TrainingError as exc:
        raise click.ClickException(str(exc)) from exc
    pairs = _sources(sources)
    rule = load([pairs[0][0]])["rule"]
    folder_path = Path(folder)
    folder_path.mkdir(parents=True, exist_ok=True)
    data = _dataset(pairs, folder_path)
    spatial = width // 2 if spatial is None else spatial
    if spatial > width:
        raise click.BadParameter(f"{spatial} spatial channels of {width}", param_hint="--spatial")
    config = TrainConfig(width, spatial, centre_tap, hidden, epochs, batch, learning_rate,
                         1e-4, mix, seed, threatened_weight, forced)
    try:
        trainer = Trainer(data, config, folder_path, rule, [s for s in sources])
    except TrainingError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{len(trainer.train_rows)} training and {len(trainer.held_rows)} held-out "
               f"positions; teacher {trainer.scale:.1f} per logit; epoch {trainer.epoch} "
               f"of {epochs} done")
    with tqdm(total=(epochs - trainer.epoch) * trainer.steps_per_epoch, unit="step",
              disable=None) as bar:
        history = trainer.run(lambda _, loss: (bar.update(), bar.set_postfix(loss=loss)))
    plot_history(history, folder_path / "loss.png")
    save_network(out, trainer.weights())
    for e, (t, h, r) in enumerate(zip(history.train, history.held_out,
                                      history.held_out_results), 1):
        click.echo(f"epoch {e}: training {t:.4f}, held out {h:.4f} (results {r:.4f})")
    click.echo(f"-> {out}; loss curves {folder_path / 'loss.png'}")


__all__ = ["train"]
