"""Offline comparison of the static evaluations against a deeper teacher.

For the positions of a `label` file (a teacher engine's scores of the quiet positions of a
`selfplay` games file), the classical and the network evaluation of each position are
compared with the teacher's score:

* Pearson correlation with the teacher's score (positions the teacher does not score as a
  forced result), overall and where the side to move is threatened (the opponent has a
  four-three or open-four point);
* the mean of ``evaluation - k * teacher`` per group, ``k`` mapping the teacher's units to
  ours by their logistic scales (ours: the classical table's, the teacher's: fitted to the
  game results over the same positions), and the gap between the groups (the bias where
  the side to move is threatened, relative to the others);
* the log-loss of ``sigmoid(evaluation / scale)`` against the game results.

Usage: python tools/net_offline.py GAMES.npz LABELS.npz [--network FILE]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from gomoku_engine.core.constants import Rule
from gomoku_engine.eval import evaluate, network_tables
from gomoku_engine.eval.network import load_network, network_file
from gomoku_engine.eval.win_rate import sigmoid_scale
from gomoku_engine.game.board import Board
from gomoku_engine.training.labelling import load_labels
from gomoku_engine.training.network_data import is_threatened
from gomoku_engine.training.selfplay import load
from gomoku_engine.training.tuning import best_scale, log_loss, side_result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games")
    parser.add_argument("labels")
    parser.add_argument("--network", default=None, help="weights file [the package's]")
    args = parser.parse_args()
    games = load([args.games])
    labels = load_labels(args.labels)
    rule = Rule(games["rule"])
    weights = load_network(args.network or network_file(rule), rule)
    boards = {"classical": Board(games["size"], rule=rule),
              "network": Board(games["size"], rule=rule,
                               evaluation=network_tables(weights, rule))}
    rows = []
    for g, ply, score, mate in zip(labels.game, labels.ply, labels.score, labels.mate):
        moves = games["moves"][g, :ply]
        values = {}
        for name, board in boards.items():
            board.clear()
            for cell in moves:
                board.play(int(cell) % board.width, int(cell) // board.width)
            values[name] = evaluate(board.position, board.tables)
        b = boards["classical"]
        rows.append((values["classical"], values["network"], float(score), int(mate),
                     is_threatened(b), side_result(int(games["result"][g]), b.to_move)))
    data = np.array(rows, dtype=float)
    classical, network, teacher, mate, threatened, result = data.T
    ours_scale = sigmoid_scale(rule)
    plain = mate == 0
    teacher_scale = best_scale(teacher[plain], result[plain])
    k = ours_scale / teacher_scale
    report = {"positions": len(data), "not forced": int(plain.sum()),
              "threatened (not forced)": int((plain & (threatened == 1)).sum()),
              "teacher per logit": round(teacher_scale, 1), "ours per logit": round(ours_scale, 1)}
    for name, values in (("classical", classical), ("network", network)):
        entry = {}
        for group, mask in (("all", plain), ("threatened", plain & (threatened == 1)),
                            ("others", plain & (threatened == 0))):
            entry[f"correlation {group}"] = round(float(np.corrcoef(values[mask],
                                                                    teacher[mask])[0, 1]), 3)
            entry[f"bias {group}"] = round(float(np.mean(values[mask] - k * teacher[mask])))
        entry["bias gap (threatened - others)"] = entry["bias threatened"] - entry["bias others"]
        entry["log-loss vs results"] = round(log_loss(values / ours_scale, result), 4)
        report[name] = entry
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
