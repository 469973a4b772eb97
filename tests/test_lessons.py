"""The game-search lessons (``gomoku-engine teach``): Grundy's game, tic-tac-toe, (m,n,k).

Known results come from ``../shared/known_results.md`` (OEIS A002188 for Grundy's game,
the m,n,k-game results), read here and compared, never copied; without that file those
tests are skipped with the reason.  The (m,n,k) solver is also checked against a plain
Python negamax on boards small enough for it.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from click.testing import CliRunner

from gomoku_engine.cli import main
from gomoku_engine.lessons import grundy, mnk, tictactoe

from helpers import SHARED

KNOWN = SHARED / "known_results.md"
#: the (m,n,k) games of the file cheap enough for the suite
CHEAP_GAMES = [(3, 3, 3), (4, 3, 3), (4, 4, 3), (4, 4, 4)]


def known_text() -> str:
    if not KNOWN.exists():
        pytest.skip(f"{KNOWN} not found: the shared data must be beside the checkout")
    return KNOWN.read_text()


def known_grundy_values() -> list[int]:
    """The Sprague-Grundy values listed under the file's Grundy's game heading."""
    section = known_text().split("## Grundy's game", 1)
    assert len(section) == 2, "no Grundy's game section in known_results.md"
    line = next(row for row in section[1].splitlines() if re.fullmatch(r"[\d,\s]+", row)
                and row.count(",") > 10)
    return [int(v) for v in line.split(",")]


def known_mnk_result(game: tuple[int, int, int]) -> str:
    """The file's result for an (m,n,k) game: "draw" or "first-player win"."""
    m, n, k = game
    for row in known_text().splitlines():
        match = re.match(rf"\|\s*\({m},{n},{k}\)[^|]*\|\s*([^|]+?)\s*\|", row)
        if match:
            return match.group(1)
    pytest.fail(f"({m},{n},{k}) is not in {KNOWN}")


# --- Grundy's game ----------------------------------------------------------------------
def test_grundy_values_are_oeis_a002188():
    known = known_grundy_values()
    assert len(known) == 105  # n = 0..104
    assert grundy.grundy_values(104) == known


def test_and_or_search_finds_the_winner_of_every_pile_up_to_100():
    known = known_grundy_values()
    rows, expanded = grundy.grundy_table(100)
    assert [r.n for r in rows] == list(range(1, 101))
    # the search never looks at Grundy values: its verdicts are compared with the file's
    assert [r.n for r in rows if not r.first_wins] == [n for n in range(1, 101)
                                                        if known[n] == 0]
    # the piles it proves equivalent share one value (equivalence classes = values)
    by_class: dict[int, set[int]] = {}
    for r in rows:
        by_class.setdefault(r.equivalent, set()).add(known[r.n])
    assert all(len(values) == 1 for values in by_class.values()), by_class
    assert by_class[0] == {0}
    assert all(r.proof >= 1 for r in rows) and expanded > 100


def test_and_or_search_without_reductions_agrees_on_small_positions():
    solver = grundy.AndOrSolver()
    for n in range(1, 16):
        solver.classify(n)
    for piles in [(7,), (8,), (3, 4), (5, 5), (3, 5, 6), (4, 4, 4), (9, 1, 2), (6, 7)]:
        assert solver.wins(piles) == grundy._full_wins(tuple(sorted(piles))), piles


def test_the_and_or_graph_of_seven_coins():
    lines = grundy.and_or_graph(7)
    assert lines[0].startswith("MIN AND 7") and "won for MAX" in lines[0]
    assert lines[0].endswith("-> 1-6, 2-5, 3-4")
    # the leaves: positions of ones and twos only, where the mover loses
    leaves = [line for line in lines if "no move" in line]
    assert leaves and all(set(line.split()[2]) <= set("12-") for line in leaves)
    assert len({line.split()[2] for line in lines}) == len(lines)  # a graph: each once


# --- tic-tac-toe -------------------------------------------------------------------------
def test_open_lines_evaluation_of_the_first_move():
    # X in the centre: 8 lines open for X, 4 for O; a corner: 8 - 5; an edge: 8 - 6
    centre, corner, edge = 1 << 4, 1 << 0, 1 << 1
    assert tictactoe.evaluate(0, 0) == 0
    assert [tictactoe.evaluate(p, 0) for p in (centre, corner, edge)] == [4, 3, 2]
    assert tictactoe.evaluate(0b000000111, 0b000011000) == tictactoe.INF


def test_minimax_and_alpha_beta_agree_and_alpha_beta_visits_fewer_nodes():
    for depth in range(1, 10):
        plain = tictactoe.minimax(0, 0, depth)
        pruned = tictactoe.alphabeta(0, 0, depth)
        assert plain.value == pruned.value and plain.move == pruned.move, depth
        if depth == 1:
            assert pruned.nodes == plain.nodes  # one ply: every leaf must be evaluated
        else:
            assert pruned.nodes < plain.nodes, depth
    # the whole game tree of tic-tac-toe has 549,946 nodes (root included)
    assert tictactoe.minimax(0, 0, 9).nodes == 549_946


def test_full_depth_proves_the_draw_and_depth_two_takes_the_centre():
    assert tictactoe.alphabeta(0, 0, 9).value == 0
    assert tictactoe.alphabeta(0, 0, 2).move == 4
    for text in tictactoe.LESSON_POSITIONS:
        x, o, max_to_move = tictactoe.position(text)
        plain = tictactoe.minimax(x, o, 2, max_to_move)
        assert tictactoe.alphabeta(x, o, 2, max_to_move).value == plain.value
        assert plain.move is not None and not (x | o) >> plain.move & 1


# --- (m,n,k) games ----------------------------------------------------------------------
@pytest.mark.parametrize("game", CHEAP_GAMES, ids=lambda g: "%d,%d,%d" % g)
def test_mnk_values_are_the_known_results(game):
    expected = known_mnk_result(game)
    result = mnk.solve(*game, tt_bits=18)
    assert result.outcome == expected, (game, result)
    assert result.nodes > 0 and 0 <= result.move[0] < game[0] and 0 <= result.move[1] < game[1]


def brute_force_value(m: int, n: int, k: int) -> int:
    """Value for the first player by memoised negamax over every position (no pruning,
    no tables): +1, 0 or -1."""
    lines = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for y in range(n):
            for x in range(m):
                cells = [(x + j * dx, y + j * dy) for j in range(k)]
                if all(0 <= cx < m and 0 <= cy < n for cx, cy in cells):
                    lines.append([cy * m + cx for cx, cy in cells])

    @lru_cache(maxsize=None)
    def value(board: tuple[int, ...], side: int) -> int:
        best = -2
        for i, v in enumerate(board):
            if v:
                continue
            after = board[:i] + (side,) + board[i + 1:]
            if any(all(after[c] == side for c in line) for line in lines if i in line):
                return 1
            best = max(best, -value(after, 3 - side))
        return 0 if best == -2 else best

    return value((0,) * (m * n), 1)


@pytest.mark.parametrize("game", [(2, 2, 2), (3, 2, 2), (3, 3, 2), (3, 2, 3), (3, 3, 3),
                                  (4, 2, 3), (4, 2, 4), (5, 2, 3), (3, 1, 2), (2, 3, 3)],
                         ids=lambda g: "%d,%d,%d" % g)
def test_mnk_solver_agrees_with_brute_force(game):
    assert mnk.solve(*game, tt_bits=12).value == brute_force_value(*game)


# --- the command line -------------------------------------------------------------------
def test_teach_commands():
    runner = CliRunner()
    out = runner.invoke(main, ["teach", "grundy", "30", "--tree"])
    assert out.exit_code == 0, out.output
    rows, _ = grundy.grundy_table(30)
    losses = ", ".join(str(r.n) for r in rows if not r.first_wins)
    assert f"first player loses at n = {losses}\n" in out.output
    assert "agree: yes" in out.output and "MIN AND 7" in out.output
    out = runner.invoke(main, ["teach", "tictactoe", "--depth", "2"])
    assert out.exit_code == 0, out.output
    assert "tic-tac-toe is a draw" in out.output
    out = runner.invoke(main, ["teach", "mnk", "4", "4", "3"])
    assert out.exit_code == 0 and "(4,4,3): first-player win" in out.output, out.output
    out = runner.invoke(main, ["teach", "mnk", "3", "3", "4"])
    assert out.exit_code == 2 and "k <= max(m, n)" in out.output
