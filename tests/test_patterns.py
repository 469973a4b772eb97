"""Line-pattern tables against the slow reference classifier."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gomoku_engine.core.constants import (
    BLACK, DEAD, DOUBLE_FOUR, FIVE, FOUR, ONE, OPEN_FOUR, OPEN_THREE, OPEN_TWO, OVERLINE, THREE, TWO,
    Rule,
)
from gomoku_engine.core.patterns import classify_line, key_slot, line_table, line_to_key


def line(text: str) -> list[int]:
    """'xx_x.oo#' style: x own (black), o opponent, # wall, _ or . empty; centre is '*'."""
    codes = {"x": 1, "o": 2, "#": 3, "_": 0, ".": 0, "*": 0}
    assert len(text) == 11 and text[5] == "*"
    return [codes[c] for c in text]


@pytest.mark.parametrize("text, rule, expected", [
    ("_xxxx*_____", Rule.FREESTYLE, FIVE),
    ("xxxxx*_____", Rule.FREESTYLE, FIVE),       # overline wins in freestyle
    ("xxxxx*_____", Rule.STANDARD, OVERLINE),    # ... but not under exactly-five
    ("_xxxx*x____", Rule.STANDARD, OVERLINE),
    ("o_xxx*_____", Rule.FREESTYLE, OPEN_FOUR),  # _xxxx_ around the point
    ("__oxx*x____", Rule.FREESTYLE, FOUR),       # blocked on one side
    ("__xx_*x____", Rule.FREESTYLE, FOUR),       # broken four xx_xx
    ("___xx*_____", Rule.FREESTYLE, OPEN_THREE),
    ("___x_*x____", Rule.FREESTYLE, OPEN_THREE),  # broken three x_xx
    ("__oxx*_____", Rule.FREESTYLE, THREE),
    ("____x*_____", Rule.FREESTYLE, OPEN_TWO),
    ("___ox*_____", Rule.FREESTYLE, TWO),
    ("_____*_____", Rule.FREESTYLE, ONE),
    ("#oooo*o____", Rule.FREESTYLE, DEAD),
    ("____o*___o_", Rule.FREESTYLE, DEAD),       # only four free cells
    ("###_x*x_o__", Rule.FREESTYLE, THREE),
    ("o_xxx*_____", Rule.RENJU, OPEN_FOUR),      # a straight four
    ("__x_x*x_x__", Rule.RENJU, DOUBLE_FOUR),    # x_xxx_x: two fours in one line, a foul
    ("__x_x*x_x__", Rule.FREESTYLE, OPEN_FOUR),  # ... and simply two five points elsewhere
    ("_xx_x*_xx__", Rule.RENJU, DOUBLE_FOUR),    # xx_xx_xx
    ("xxxxx*_____", Rule.RENJU, OVERLINE),
    ("oxxxx*o____", Rule.CARO, DEAD),            # a five blocked at both ends
    ("oxxxx*o____", Rule.FREESTYLE, FIVE),
    ("#xxxx*o____", Rule.CARO, FIVE),            # the edge is no block
    ("xxxxx*o____", Rule.CARO, FIVE),            # an overline wins under caro (rule 8)
    ("xxxxx*_____", Rule.CARO_STANDARD, OVERLINE),
    ("_oxxx*_o___", Rule.CARO, DEAD),            # its only five, oxxxxxo, is blocked
    ("_oxxx*_o___", Rule.FREESTYLE, FOUR),
    ("_oxxx*__o__", Rule.CARO, FOUR),
    # o_xxxx_: two five points, but white's stone past the right one stops both (the left
    # five would be blocked at both ends): a four under caro, an open four elsewhere
    ("o_xxx*_____", Rule.CARO, FOUR),
    ("o_xxx*_____", Rule.CARO_STANDARD, FOUR),
    ("__xxx*_____", Rule.CARO, OPEN_FOUR),       # nothing blocks either end
    ("#_xxx*_____", Rule.CARO, OPEN_FOUR),       # the edge is no block
    ("o_xxx*__o__", Rule.CARO, FOUR),
    # rule 8: the fours this three makes are o.xxxx. shapes or overlines whose far end
    # lies beyond the eleven cells (maybe the opponent's): no open four is sure, a three
    ("####_*xx__x", Rule.CARO, THREE),
    ("####_*xx__x", Rule.FREESTYLE, OPEN_THREE),
])
def test_reference_classifier_on_named_shapes(text, rule, expected):
    assert classify_line(line(text), rule) == expected


@pytest.mark.parametrize("rule", [Rule.CARO, Rule.CARO_STANDARD])
def test_caro_open_fours_one_stone_stops_are_fours_in_table_and_reference(rule):
    """Every key where caro's table has a four and freestyle's (standard's) an open four is
    one whose fives one stone stops: the reference says so too, for both colours."""
    table = line_table(rule)
    plain = line_table(Rule.STANDARD if rule.exact_five(BLACK) else Rule.FREESTYLE)
    keys = np.flatnonzero((table[0] == FOUR) & (plain[0] == OPEN_FOUR))
    assert len(keys) > 100
    rng = random.Random(70)
    for key in rng.sample(list(keys), 300):
        cells = [(int(key) >> (2 * key_slot(i - 5))) & 3 if i != 5 else 0 for i in range(11)]
        assert classify_line(cells, rule, 1) == FOUR, cells
        swapped = [{1: 2, 2: 1}.get(c, c) for c in cells]
        assert classify_line(swapped, rule, 2) == FOUR, cells
        assert table[1, line_to_key(swapped)] == FOUR


@pytest.mark.parametrize("rule", list(Rule))
def test_table_equals_reference_on_random_lines(rule):
    table = line_table(rule)
    rng = random.Random(1234 + int(rule))
    for _ in range(20000):
        cells = [rng.choice((0, 0, 0, 1, 1, 2, 3)) for _ in range(11)]
        cells[5] = 0
        key = line_to_key(cells)
        assert table[0, key] == classify_line(cells, rule, 1), cells
        assert table[1, key] == classify_line(cells, rule, 2), cells


@pytest.mark.parametrize("rule", [r for r in Rule if r != Rule.RENJU])
def test_table_is_colour_symmetric(rule):
    """Outside renju a shape is worth the same to white as the colour-swapped shape to
    black: checked on lines swapped cell by cell, not by the table's own key arithmetic."""
    table = line_table(rule)
    rng = random.Random(99 + int(rule))
    for _ in range(20000):
        cells = [rng.choice((0, 0, 0, 1, 1, 2, 2, 3)) for _ in range(11)]
        cells[5] = 0
        swapped = [{1: 2, 2: 1}.get(c, c) for c in cells]
        assert table[1, line_to_key(cells)] == table[0, line_to_key(swapped)], cells


def test_exactly_five_only_changes_overlines():
    free, std = line_table(Rule.FREESTYLE), line_table(Rule.STANDARD)
    differ = free[0] != std[0]
    assert differ.any()
    # A point that makes an overline is FIVE in freestyle and OVERLINE in standard; the
    # other differences are the shapes that can only grow into overlines.
    assert (std[0][differ & (free[0] == FIVE)] == OVERLINE).all()
    assert not (std[0] == OVERLINE)[free[0] != FIVE].any()


def test_renju_tables_are_standard_for_black_and_freestyle_for_white():
    renju, std, free = line_table(Rule.RENJU), line_table(Rule.STANDARD), line_table(Rule.FREESTYLE)
    assert np.array_equal(renju[1], free[1])
    differ = renju[0] != std[0]
    assert (renju[0] == DOUBLE_FOUR).any()
    # only double fours in one line, and the shapes that could only grow into them, differ
    assert set(np.unique(std[0][differ])) <= {OPEN_FOUR, OPEN_THREE, THREE, OPEN_TWO, TWO, ONE}
