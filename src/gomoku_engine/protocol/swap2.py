"""Swap2 (and swap1) opening decisions, made by the engine's own search.

Swap2, the opening rule of the Gomocup "unlimited" tournament (docs/protocol.md section 2):

1. the first player places three stones (black, white, black);
2. the second player either takes black (``SWAP``), or stays white and plays the fourth
   stone, or places the fourth and fifth stones (white, black) and lets the first player
   choose the colour;
3. in the last case the first player takes black (``SWAP``) or stays white and plays the
   sixth stone.

Swap1 (Rapfi's ``INFO rule 5`` convention) is step 2 without the two-stone option.

Every decision comes from searching the candidate positions (white to move in all of
them): a proposal is balanced when the search score is near zero, and a colour is chosen
by the sign of the score.  ``BALANCED`` is the score band (in the evaluation's units,
:mod:`gomoku_engine.eval.classical`) inside which a position counts as even.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..game.board import Board
from ..core.constants import BLACK, EMPTY, WHITE, Rule
from ..engine import Engine, Limits
from ..core.notation import Point
from ..eval import evaluate
from ..search.kernel_free import kernel_free_move

#: |score| (white to move) below which a position counts as balanced.
BALANCED = 150
#: Candidate third stones searched when proposing an opening (after a static screen), and
#: how far from the centre they may be: within two, the network evaluations judge every
#: proposal a clear edge for black (the figures are in the commit that widened it)
PROPOSALS_SEARCHED = 10
PROPOSAL_RADIUS = 3
#: Candidate fifth stones searched when placing two stones.
FIFTH_STONES_SEARCHED = 6


@dataclass
class OpeningChoice:
    """An answer to ``SWAP2BOARD``: take the other colour, or place stones."""

    swap: bool
    moves: list[Point] = field(default_factory=list)
    score: int = 0  #: search score (white to move) the decision rests on


def kernel_free_choice(width: int, height: int, rule: Rule,
                       stones: list[tuple[int, int, int]]) -> OpeningChoice:
    """An answer without the search, while its kernels are still loading: on the empty
    board the three stones h8 i9 j7 around the centre (black, white, black), else stay
    white and play one stone (:func:`gomoku_engine.search.kernel_free.kernel_free_move`).
    """
    if not stones:
        cx, cy = width // 2, height // 2
        return OpeningChoice(False, [(cx, cy), (cx + 1, cy + 1), (cx + 2, cy - 1)])
    return OpeningChoice(False, [kernel_free_move(width, height, rule, stones, WHITE)])


def _score(engine: Engine, deadline: float, share: float,
           depth: int | None) -> tuple[int, Point]:
    """Search the engine's position for ``share`` of the time left before ``deadline``
    (and no deeper than ``depth`` plies when it is given)."""
    left_ms = max(5.0, (deadline - time.perf_counter()) * 1000.0 * share)
    result = engine.search(Limits(hard_ms=left_ms, soft_ms=left_ms * 0.5, depth=depth))
    return result.score, result.move


def _near_centre(board: Board, radius: int) -> list[Point]:
    cx, cy = board.width // 2, board.height // 2
    return [(x, y) for y in range(cy - radius, cy + radius + 1)
            for x in range(cx - radius, cx + radius + 1)
            if board.geometry.on_board(x, y) and board.at(x, y) == EMPTY]


def _most_balanced(engine: Engine, candidates: list[Point], colour: int, deadline: float,
                   searched: int, depth: int | None) -> tuple[Point, int]:
    """The candidate stone of ``colour`` after which the position (white to move) is the
    most even: a static screen keeps ``searched`` candidates, searches decide among them."""
    board = engine.board
    screened = []
    for point in candidates:
        board.play(*point, colour)
        if not board.winner:
            screened.append((abs(int(evaluate(board.position, board.tables))), point))
        board.undo()
    screened.sort()
    if not screened:  # every candidate makes five: nothing is balanced, take the first
        return candidates[0], 0
    best_point, best_score = screened[0][1], None
    shortlist = [point for _, point in screened[:searched]]
    for i, point in enumerate(shortlist):
        board.play(*point, colour)  # white to move after it (only black stones are placed)
        score, _ = _score(engine, deadline, 1.0 / (len(shortlist) - i), depth)
        board.undo()
        if best_score is None or abs(score) < abs(best_score):
            best_point, best_score = point, score
    return best_point, int(best_score or 0)


def propose_opening(engine: Engine, budget_ms: float,
                    depth: int | None = None) -> OpeningChoice:
    """Case 1: the three opening stones (black, white, black) of a balanced position.

    Black takes the centre, white a neighbour (straight or diagonal), and the third stone
    is the point within :data:`PROPOSAL_RADIUS` of the centre after which the search finds
    the position most even.  The engine's board must be empty; it is left with the three stones.

    :param budget_ms: wall time for all the searches (ms).
    :param depth: deepest iteration of each search (plies); ``None``: as deep as the time
        allows.  A depth reached well within the budget makes the choice repeatable.
    """
    deadline = time.perf_counter() + budget_ms / 1000.0
    board = engine.board
    cx, cy = board.width // 2, board.height // 2
    best: OpeningChoice | None = None
    for i, second in enumerate(((cx + 1, cy), (cx + 1, cy + 1))):
        board.clear()
        board.play(cx, cy, BLACK)
        board.play(*second, WHITE)
        share_deadline = time.perf_counter() + (deadline - time.perf_counter()) / (2 - i)
        candidates = _near_centre(board, PROPOSAL_RADIUS)
        third, score = _most_balanced(engine, candidates, BLACK, share_deadline,
                                      PROPOSALS_SEARCHED, depth)
        if best is None or abs(score) < abs(best.score):
            best = OpeningChoice(False, [(cx, cy), second, third], score)
    assert best is not None
    board.clear()
    for point, colour in zip(best.moves, (BLACK, WHITE, BLACK)):
        board.play(*point, colour)
    return best


def answer_three(engine: Engine, budget_ms: float, two_stones: bool = True,
                 depth: int | None = None) -> OpeningChoice:
    """Case 2 (three stones on the board, white to move): swap, play the fourth stone, or
    (swap2 only, ``two_stones``) place the fourth and fifth stones of an even position.
    ``budget_ms`` and ``depth`` as in :func:`propose_opening`."""
    deadline = time.perf_counter() + budget_ms / 1000.0
    score, move = _score(engine, deadline, 1 / 3 if two_stones else 1.0, depth)
    if score < -BALANCED or (not two_stones and score < 0):
        return OpeningChoice(True, [], score)  # white is worse: take black
    if score > BALANCED or not two_stones:
        return OpeningChoice(False, [move], score)  # white is better: stay white
    board = engine.board
    board.play(*move, WHITE)
    candidates = [board.geometry.xy(int(c)) for c in board.geometry.points
                  if board.position.cells[c] == EMPTY and board.position.near[c]]
    fifth, balanced = _most_balanced(engine, candidates, BLACK, deadline,
                                     FIFTH_STONES_SEARCHED, depth)
    board.undo()
    return OpeningChoice(False, [move, fifth], balanced)


def answer_five(engine: Engine, budget_ms: float, depth: int | None = None) -> OpeningChoice:
    """Case 3 (five stones, white to move): stay white and play the sixth stone if the
    search finds white at least even, else take black.  ``budget_ms`` and ``depth`` as in
    :func:`propose_opening`."""
    deadline = time.perf_counter() + budget_ms / 1000.0
    score, move = _score(engine, deadline, 1.0, depth)
    if score < 0:
        return OpeningChoice(True, [], score)
    return OpeningChoice(False, [move], score)


__all__ = ["BALANCED", "PROPOSALS_SEARCHED", "PROPOSAL_RADIUS", "OpeningChoice", "answer_five",
           "answer_three", "kernel_free_choice", "propose_opening"]
