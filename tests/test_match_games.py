"""A match's games as a games file (``match-games``): what ``label`` and ``train`` read."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.core.constants import Rule
from gomoku_engine.core.records import read_psq
from gomoku_engine.game.board import Board
from gomoku_engine.training.match_games import read_match
from gomoku_engine.training.selfplay import load

from helpers import GREEDY, command_line, random_brain

OPENING = [(7, 7), (8, 7), (6, 9)]


@pytest.fixture(scope="module")
def match_folder(tmp_path_factory):
    """A real match's folder, as `match --out` writes it: a random player against a
    greedy one, four games from a three-stone opening."""
    root = tmp_path_factory.mktemp("match")
    openings = root / "openings.txt"
    openings.write_text("h8i8g10\n")  # OPENING
    result = CliRunner().invoke(main, [
        "match", "--engine", f"random={command_line(random_brain('--seed', '3'))}",
        "--engine", f"greedy={command_line(GREEDY)}", "--games", "4", "--turn-ms", "200",
        "--openings", str(openings), "--out", str(root / "out")])
    assert result.exit_code == 0, result.output
    return root / "out"


def test_the_games_of_a_match_folder_are_its_records(match_folder):
    """Every game decided on the board comes back with its stones in order, the opening's
    length, and the result; a replay of the stones ends as the summary says."""
    summary = json.loads((match_folder / "summary.json").read_text())
    read = read_match([match_folder])
    assert (read.size, read.rule) == (15, Rule.FREESTYLE)
    decided = [g for g in summary["games"] if g["reason"] in ("five", "board full")]
    assert decided, "the greedy player wins its games by a five"
    assert len(read.games) == len(decided) and read.left_out == 4 - len(decided)
    assert any(e.startswith("greedy=") for e in read.engines)
    for entry, game in zip(decided, read.games):
        _, _, moves = read_psq((match_folder / f"game_{entry['game']:03d}.psq").read_text())
        assert game.moves == [x + 15 * y for x, y, _ in moves]
        assert game.opening == len(OPENING)
        assert [(m % 15, m // 15) for m in game.moves[:3]] == OPENING
        board = Board(15)
        for m in game.moves:
            board.play(m % 15, m // 15)
        assert board.winner == game.result == {"B+": 1, "W+": 2, "0": 0}[entry["result"]]


def test_a_forfeit_is_left_out_and_the_file_is_what_label_reads(match_folder, tmp_path):
    """A game lost by a forfeit is left out (counted); the command's file loads as a games
    file with the records' arrays."""
    folder = tmp_path / "forfeit"
    folder.mkdir()
    summary = json.loads((match_folder / "summary.json").read_text())
    for entry in summary["games"]:
        name = f"game_{entry['game']:03d}.psq"
        (folder / name).write_text((match_folder / name).read_text())
    kept = [e for e in summary["games"] if e["reason"] in ("five", "board full")]
    kept[0]["reason"] = "black timed out"
    (folder / "summary.json").write_text(json.dumps(summary))
    out = tmp_path / "games.npz"
    result = CliRunner().invoke(main, ["match-games", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{len(kept) - 1} games" in result.output
    games = load([out])
    read = read_match([folder])
    assert len(games["length"]) == len(read.games) == len(kept) - 1
    assert read.left_out == 4 - len(kept) + 1
    for i, game in enumerate(read.games):
        assert games["length"][i] == len(game.moves)
        assert (games["moves"][i, : len(game.moves)] == game.moves).all()
        assert games["opening"][i] == len(OPENING) and games["result"][i] == game.result
    assert (games["scores"] == 0).all() and games["rule"] == Rule.FREESTYLE


def test_a_folder_that_is_not_a_match_gets_a_clear_error(match_folder, tmp_path):
    result = CliRunner().invoke(main, ["match-games", str(tmp_path), "--out",
                                       str(tmp_path / "x.npz")])
    assert result.exit_code != 0 and "no summary.json" in result.output
    broken = tmp_path / "broken"
    broken.mkdir()
    summary = json.loads((match_folder / "summary.json").read_text())
    (broken / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(ValueError, match="missing"):
        read_match([broken])
    decided = next(e for e in summary["games"] if e["reason"] in ("five", "board full"))
    for entry in summary["games"]:
        name = f"game_{entry['game']:03d}.psq"
        lines = (match_folder / name).read_text().splitlines()
        if entry is decided:
            lines = lines[:-1]  # one stone short of what the summary says
        (broken / name).write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="the summary says"):
        read_match([broken])
