"""``gomoku-engine audit`` (:mod:`gomoku_engine.arena.audit`): the game audit behind issue 3's "no game lost to a stoppable
VCF" figure, on short games whose verdict is known by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku_engine.game.board import Board
from gomoku_engine.core.constants import Rule
from gomoku_engine.arena.records import write_psq
from gomoku_engine.cli import main

# Black builds h8 i8 j8 on row 8 while white plays on the a file: after white's third
# move (a3, move 6) black's open three wins by VCF (k8 or g8 makes an open four).  A block
# at g8 or k8 instead leaves black one four, which white blocks: no VCF.  Black then plays
# k8 and g8 for five.
ALLOWED_GAME = [(7, 7), (0, 0), (8, 7), (0, 1), (9, 7), (0, 2), (10, 7), (0, 3), (6, 7)]
# The same game with its first seven moves an opening: white's first judged move is move
# 8, when black's open four (move 7) already wins whatever white plays.
FORCED_FROM = 7


# Black's four h8-k8 (g8 white's) leaves one five point, l8; white plays a5 instead of
# blocking and black makes five.  White's a4 would make a four of its own (a1-a4), but
# black answers it with the five: only l8 stops the win.
FOUR_GAME = [(7, 7), (6, 7), (8, 7), (0, 0), (9, 7), (0, 1), (13, 13), (0, 2), (10, 7),
             (0, 4), (11, 7)]


def run_audit(tmp_path: Path, kind: str, opening: int, game=ALLOWED_GAME) -> str:
    moves = [(x, y, 0 if i < opening else 5) for i, (x, y) in enumerate(game)]
    (tmp_path / "game_001.psq").write_text(write_psq(moves, 15))
    summary = {"games": [{"game": 1, "black": "b", "white": "w", "result": "B+",
                          "reason": "five", "stones": len(moves)}]}  # (the fields read)
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    done = CliRunner().invoke(main, ["audit", str(tmp_path), "--kind", kind, "--time-ms", "2000"])
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("kind", ["vcf", "vct"])
def test_audit_finds_the_move_that_let_the_win_in(tmp_path, kind):
    out = run_audit(tmp_path, kind, opening=0)
    assert f"game   1 (lost by w): ALLOWED: move 6 a3 let a {kind.upper()} in" in out
    assert "summary: w ALLOWED 1" in out


def test_audit_does_not_judge_the_opening_stones(tmp_path):
    # (the opening's moves have 0 ms in the record, as match writes them)
    out = run_audit(tmp_path, "vcf", opening=FORCED_FROM)
    assert "game   1 (lost by w): forced: at move 8 every reply already lost to a VCF" in out


def test_a_four_does_not_stop_a_five(tmp_path):
    out = run_audit(tmp_path, "vcf", opening=0, game=FOUR_GAME)
    assert "ALLOWED: move 10 a5 let a VCF in; l8 would have stopped it" in out


@pytest.mark.parametrize("game", [ALLOWED_GAME, FOUR_GAME])
def test_the_games_are_legal_black_wins(game):
    board = Board(15, rule=Rule.FREESTYLE)
    for x, y in game:
        assert board.winner == 0 and board.is_legal(x, y)
        board.play(x, y)
    assert board.winner == 1
