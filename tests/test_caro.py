"""Caro (rules 8 and 9): a five blocked by the opponent at both ends does not win, so a four
blocked at one end is also stopped by the point just past its other end.

Everything here is judged against a referee written for these tests (:func:`_wins_at`:
the row of stones a stone makes and its two ends, by the rule's text), not against the
engine's pattern tables: the defences of a four (``game.defences.five_defences``), the
search's and the solvers' answers, and the quick win's claims played out over random
games.  ``CARO_CLAIM_GAMES=200`` runs the claim check over 200 games of each rule.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from gomoku_engine.core.constants import (
    BLACK, EMPTY, MATE_BOUND, T_FIVE, T_FOUR, T_OPEN_FOUR, WHITE, Rule,
)
from gomoku_engine.core.notation import parse_moves
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.game.board import Board
from gomoku_engine.game.defences import MAX_DEFENCES, five_defences
from gomoku_engine.search.alphabeta import _quick_win

SIZE = 15
CARO_RULES = [Rule.CARO, Rule.CARO_STANDARD]
#: the report's position: white's d8-g8 threatens five on h8; black's i8 stops it (the
#: five would be blocked at both ends, c8 and i8) and makes an open four of i5-i8
REPORT = "c8d8i5e8i6f8i7g8"


# --- the referee -------------------------------------------------------------------------
def _wins_at(board: Board, cell: int, colour: int) -> bool:
    """Does a stone of ``colour`` on the empty flat ``cell`` win under the board's rule:
    a row of five or more (exactly five where the rule says so) whose two end points are
    not both the opponent's stones (caro; the edge of the board is no block)?"""
    cells = board.position.cells
    exact = board.rule.exact_five(colour)
    other = 3 - colour
    for step in board.tables.directions:
        step = int(step)
        first = last = cell
        while cells[first - step] == colour:
            first -= step
        while cells[last + step] == colour:
            last += step
        run = (last - first) // step + 1
        if run < 5 or (exact and run > 5):
            continue
        if board.rule.caro and cells[first - step] == other and cells[last + step] == other:
            continue
        return True
    return False


def _empty(board: Board) -> list[int]:
    points = board.geometry.points
    return [int(c) for c in points[board.position.cells[points] == EMPTY]]


def _five_points(board: Board, colour: int, among: list[int] | None = None) -> list[int]:
    """The referee's winning points of ``colour`` (all empty points, or ``among``)."""
    cells = board.position.cells
    return [c for c in (among if among is not None else _empty(board))
            if cells[c] == EMPTY and _wins_at(board, c, colour)]


def _play(board: Board, cell: int) -> None:
    board.play(*board.geometry.xy(cell))


def _on_lines(board: Board, cell: int, reach: int) -> list[int]:
    """The empty points within ``reach`` of ``cell`` on its four lines."""
    cells = board.position.cells
    out = []
    for step in board.tables.directions:
        for k in range(-reach, reach + 1):
            other = cell + k * int(step)
            if k and 0 <= other < cells.shape[0] and cells[other] == EMPTY:
                out.append(other)
    return out


def _attacker_wins(board: Board, plies: int) -> bool:
    """Does the side to move win within ``plies`` (1 or 3) plies, whatever the opponent
    does?  Its second move is looked for among its four points (the engine's classes,
    only a hint: each is played out)."""
    me = board.to_move
    if _five_points(board, me):
        return True
    if plies < 3:
        return False
    threats = board.position.threat[me - 1]
    for cell in _empty(board):
        if threats[cell] >= T_FOUR:
            _play(board, cell)
            won = _defender_loses(board)
            board.undo()
            if won:
                return True
    return False


def _defender_loses(board: Board) -> bool:
    """The attacker has just moved: does it make five next move whatever the side to move
    plays?  No five of the defender's own, and each point that could stop one of the
    attacker's fives (its five points and the points near them on their lines: a stone
    anywhere else leaves every five as it is) leaves one."""
    defender = board.to_move
    attacker = 3 - defender
    if _five_points(board, defender):
        return False
    fives = _five_points(board, attacker)
    if not fives:
        return False
    for reply in {c for f in fives for c in _on_lines(board, f, 9)} | set(fives):
        _play(board, reply)
        left = _five_points(board, attacker, [f for f in fives if f != reply])
        board.undo()
        if not left:
            return False
    return True


def _wins_in_five(board: Board, cell: int, reach: int = 7) -> bool:
    """Is ``cell`` a win in 5 plies for the side to move?  Every reply is tried that lies
    within ``reach`` of it (either axis) or makes a four or five for the defender (a
    stone elsewhere touches none of the lines through the attack), and one far away."""
    _play(board, cell)
    try:
        defender = board.to_move
        if _five_points(board, defender):
            return False
        cx, cy = board.geometry.xy(cell)
        threats = board.position.threat[defender - 1]
        near, far = [], []
        for c in _empty(board):
            x, y = board.geometry.xy(c)
            (near if max(abs(x - cx), abs(y - cy)) <= reach or threats[c] >= T_FOUR
             else far).append(c)
        for reply in near + far[:1]:
            _play(board, reply)
            won = _attacker_wins(board, 3)
            board.undo()
            if not won:
                return False
        return True
    finally:
        board.undo()


# --- the report ----------------------------------------------------------------------------
@pytest.mark.parametrize("rule", CARO_RULES)
def test_the_report_plays_the_open_four_that_wins_at_once(rule):
    engine = Engine(SIZE, rule=rule, hash_mb=4)
    for x, y in parse_moves(REPORT):
        engine.board.play(x, y)
    board = engine.board
    i8, h8 = board.geometry.index(8, 7), board.geometry.index(7, 7)
    assert _wins_at(board, h8, WHITE)  # white threatens five on h8 (c8 black, i8 open)
    _play(board, i8)
    assert not _wins_at(board, h8, WHITE)  # after i8 it would be blocked at both ends
    board.undo()
    assert _wins_in_five(board, i8)  # the referee: i8 wins (in three plies)
    result = engine.search(Limits(depth=8))
    assert result.move == (8, 7) and result.score > MATE_BOUND


# --- the defences of a four ------------------------------------------------------------------
def _random_boards(rule: Rule, seed: int, games: int, plies: int):
    """The positions of ``games`` seeded games of random moves within two of the stones
    (a game ends at a five)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        board = Board(SIZE, rule=rule)
        board.play(7, 7)
        for _ in range(plies - 1):
            near = board.position.near
            legal = [c for c in _empty(board) if near[c]]
            _play(board, legal[rng.integers(len(legal))])
            if board.winner:
                break
            yield board


@pytest.mark.parametrize("rule", CARO_RULES)
def test_the_defences_of_a_four_are_the_points_that_stop_every_five(rule):
    """Along random games, wherever the opponent of the side to move has a five point,
    ``five_defences`` lists exactly the points after which the referee finds it no
    winning point (the past-end blocks occur, and two fives stopped by one point too)."""
    seen = past_end = 0
    out = np.zeros((1, MAX_DEFENCES), np.int32)
    for board in _random_boards(rule, 70 + int(rule), 30, 60):
        attacker = 3 - board.to_move
        fives = _five_points(board, attacker)
        if not fives:
            continue
        stoppers = set()
        for cell in {c for f in fives for c in _on_lines(board, f, 9)} | set(fives):
            _play(board, cell)
            if not _five_points(board, attacker, fives):
                stoppers.add(cell)
            board.undo()
        n = five_defences(board.position, board.tables, attacker - 1, out, 0)
        assert set(out[0, :n].tolist()) == stoppers, board
        seen += 1
        past_end += bool(stoppers - set(fives))
    assert seen >= 20 and past_end >= 5, (seen, past_end)


# --- the quick win's claims --------------------------------------------------------------------
def _claims(rule: Rule, games: int, seed: int):
    """``(board, cell)`` for each claim of ``_quick_win`` along random games, where the
    search would ask it (no five point for either side, no open four for the side to
    move)."""
    scratch = np.zeros((1, SIZE * SIZE), np.int32)
    for board in _random_boards(rule, seed, games, 50):
        us = board.to_move - 1
        counts = board.position.threat_count
        if counts[us, T_FIVE] or counts[1 - us, T_FIVE] or counts[us, T_OPEN_FOUR]:
            continue
        cell = _quick_win(board.position, board.tables, us, 1 - us, scratch, 0)
        if cell >= 0:
            yield board, cell


@pytest.mark.parametrize("rule", CARO_RULES)
def test_every_quick_win_claim_of_random_caro_games_holds(rule):
    # (caro5's random games claim about three times as often as caro's)
    games = int(os.environ.get("CARO_CLAIM_GAMES", "6" if rule == Rule.CARO else "3"))
    claims = false = 0
    for board, cell in _claims(rule, games, 700 + int(rule)):
        claims += 1
        if not _wins_in_five(board, cell):
            false += 1
    print(f"{rule.name}: {games} games, {claims} claims, {false} false")
    assert claims >= games // 2 and false == 0, (claims, false)


# --- tactics: wins in three and defences, chosen and judged by the referee ---------------------
def _tactics(rule: Rule, seed: int, wanted: int):
    """Positions of random games where the side to move wins in three plies (``"win"``),
    or where the opponent would were it to move and the side to move has a four-less
    answer to find (``"defence"``), by the referee; at most ``wanted`` of each."""
    found = {"win": 0, "defence": 0}
    for board in _random_boards(rule, seed, 400, 40):
        if min(found.values()) >= wanted:
            return
        me = board.to_move
        if _five_points(board, me) or _five_points(board, 3 - me):
            continue
        if found["win"] < wanted and _attacker_wins(board, 3):
            found["win"] += 1
            yield "win", board.stones(), me
            continue
        if found["defence"] < wanted:
            board.set_to_move(3 - me)
            threatened = _attacker_wins(board, 3)
            board.set_to_move(me)
            if threatened:
                found["defence"] += 1
                yield "defence", board.stones(), me


def _holds(board: Board, cell: int) -> bool:
    """After the side to move plays ``cell``, can the opponent not win in three plies?"""
    _play(board, cell)
    try:
        return not _attacker_wins(board, 3)
    finally:
        board.undo()


@pytest.mark.parametrize("rule", CARO_RULES)
def test_caro_tactics_wins_and_defences_are_solved(rule):
    """The engine plays a winning move where the referee finds a win in three, and a move
    after which the opponent has none where the referee finds the threat and some move
    that holds."""
    solved = {"win": 0, "defence": 0}
    for kind, stones, me in _tactics(rule, 900 + int(rule), 6):
        engine = Engine(SIZE, rule=rule, hash_mb=4)
        engine.board.set_stones(stones, me)
        board = engine.board
        move = board.geometry.index(*engine.search(Limits(depth=6)).move)
        if kind == "win":
            _play(board, move)
            assert _defender_loses(board), (kind, stones, me, board.geometry.xy(move))
            board.undo()
        elif not _holds(board, move):
            # a miss only if some move holds (else the position was lost already)
            assert not any(_holds(board, c) for c in _empty(board)), (
                kind, stones, me, board.geometry.xy(move))
            continue
        solved[kind] += 1
    assert solved["win"] >= 4 and solved["defence"] >= 4, solved
