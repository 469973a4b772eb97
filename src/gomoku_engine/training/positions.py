"""Which positions the evaluation is trained on: shared by labelling and fitting."""

from __future__ import annotations

from ..core.constants import T_FIVE, T_FOUR_THREE, T_OPEN_FOUR
from ..game.board import Board


def is_training_position(board: Board) -> bool:
    """Is ``board``'s position quiet enough to train on (no five point for either side,
    no open-four or four-three point for the side to move)?"""
    us = board.to_move - 1
    tc = board.position.threat_count
    return not (tc[us, T_FIVE] or tc[1 - us, T_FIVE] or tc[us, T_OPEN_FOUR]
                or tc[us, T_FOUR_THREE])
