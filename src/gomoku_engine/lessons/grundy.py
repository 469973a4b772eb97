"""Grundy's game as an and-or graph, with its Sprague-Grundy values.

A position is a multiset of piles of coins; a move splits one pile into two non-empty
piles of *different* sizes; the player who cannot move loses (normal play).  Piles of 1
and 2 coins can never be split.

Two independent computations:

* :class:`AndOrSolver` searches the and-or graph (Nilsson, "Principles of Artificial
  Intelligence", 1980, ch. 3; the course slides' example): at the mover's nodes one won
  child suffices (OR), at the opponent's every child must be won (AND), memoised over
  positions.  A plain search of a 100-coin pile does not finish (the positions are the
  partitions of 100), so positions are reduced by facts the search itself proves, never
  by Sprague-Grundy numbers: piles of 1 and 2 coins are dropped; two equal piles cancel
  (the second player copies every move made in one of them in the other); and piles are
  solved in increasing size, each pile ``n`` either shown lost alone (then it is dropped
  from every position, like an empty pile) or shown *equivalent* to a smaller pile ``r``
  by proving ``n + r`` a second-player win (then ``n`` is replaced by ``r`` everywhere:
  for impartial games ``G + H`` is a second-player win exactly when ``G`` and ``H`` can
  replace each other in every sum, Winning Ways ch. 2), or else it starts a new class.
  :meth:`AndOrSolver.proof_size` counts the distinct positions of the proof of one pile's
  outcome (given those equivalences): the chosen winning child of every won position
  and every child of every lost one.
* :func:`grundy_values` computes the Sprague-Grundy value of one pile by the mex rule:
  ``G(n) = mex {G(a) xor G(n-a) : 1 <= a < n/2}`` (Berlekamp, Conway and Guy, "Winning
  Ways", ch. 4; OEIS A002188).  The first player wins a single pile exactly when
  ``G(n) != 0``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

Piles = tuple[int, ...]


def grundy_values(limit: int) -> list[int]:
    """Sprague-Grundy values of a single pile of ``0 .. limit`` coins (``limit + 1``
    values; OEIS A002188)."""
    values = [0] * (limit + 1)
    for n in range(3, limit + 1):
        options = {values[a] ^ values[n - a] for a in range(1, (n + 1) // 2)}
        g = 0
        while g in options:
            g += 1
        values[n] = g
    return values


def splits(piles: Piles) -> Iterator[Piles]:
    """Every position one move away, as sorted tuples (each distinct one once)."""
    seen = set()
    for i, p in enumerate(piles):
        if p in piles[:i]:
            continue  # the same split of an equal pile
        rest = piles[:i] + piles[i + 1:]
        for a in range(1, (p + 1) // 2):
            child = tuple(sorted(rest + (a, p - a)))
            if child not in seen:
                seen.add(child)
                yield child


class AndOrSolver:
    """Memoised and-or search over reduced positions (see the module docstring).

    Call :meth:`classify` for piles 1, 2, 3, ... in turn; :meth:`wins` then answers for
    any position made of classified piles.
    """

    def __init__(self) -> None:
        #: pile -> the smallest pile equivalent to it, or 0 for a lost pile (dropped)
        self.equivalent: dict[int, int] = {}
        self.classes: list[int] = []  #: the smallest pile of each class but the lost one
        self.won: dict[Piles, bool] = {(): False}  #: the mover wins (reduced positions)
        self.winning_child: dict[Piles, Piles] = {}  #: a lost child of every won position
        self.expanded = 0  #: positions whose children were generated

    def reduce(self, piles: Piles) -> Piles:
        """The position with the same winner: proven equivalences applied, lost piles
        dropped, equal pairs cancelled (a pile not yet classified is kept as it is)."""
        counts = Counter(self.equivalent.get(p, p) for p in piles)
        return tuple(sorted(p for p, c in counts.items() if p and c % 2))

    def classify(self, n: int) -> int:
        """Solve the pile of ``n`` coins (every smaller pile must be classified): 0 if the
        player to move loses it, else the smallest pile equivalent to it (``n`` itself
        if there is none)."""
        if n < 3:
            self.equivalent[n] = 0
            return 0
        found = n
        if not self._wins(self.reduce((n,))):
            found = 0
        else:
            for r in self.classes:
                if not self._wins(self.reduce((n, r))):
                    found = r
                    break
            else:
                self.classes.append(n)
        self.equivalent[n] = found
        return found

    def wins(self, piles: Piles) -> bool:
        """Does the player to move win ``piles`` (classified piles only)?"""
        return self._wins(self.reduce(piles))

    def _children(self, state: Piles) -> list[Piles]:
        # smallest reduced child first: cancelling pairs make quick wins
        return sorted({self.reduce(c) for c in splits(state)}, key=lambda c: (sum(c), c))

    def _wins(self, state: Piles) -> bool:
        known = self.won.get(state)
        if known is not None:
            return known
        self.expanded += 1
        result = False
        for child in self._children(state):
            if not self._wins(child):  # OR node: one lost child for the opponent suffices
                self.winning_child[state] = child
                result = True
                break
        self.won[state] = result
        return result

    def proof_size(self, piles: Piles, keep: int = 0) -> int:
        """Distinct positions in the proof of :meth:`wins` (reduced positions).

        :param keep: a pile left as it is at the root (not replaced by its equivalent),
            to count the proof that classified it.
        """
        counts = Counter(p if p == keep else self.equivalent.get(p, p) for p in piles)
        root = tuple(sorted(p for p, c in counts.items() if p and c % 2))
        self._wins(root)
        seen = {root}
        stack = [root]
        while stack:
            state = stack.pop()
            if self.won[state]:
                nexts = [self.winning_child[state]]
            else:  # AND node: every child is a win for the opponent
                nexts = self._children(state)
                for child in nexts:
                    self._wins(child)
            for child in nexts:
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return len(seen)


@dataclass
class GrundyRow:
    n: int  #: coins in the single pile
    first_wins: bool  #: by the and-or search
    equivalent: int  #: smallest equivalent pile (0: lost alone), by the and-or search
    grundy: int  #: Sprague-Grundy value (mex rule)
    #: distinct positions in the and-or proof that decided the pile's class: that ``n``
    #: alone is lost, or that ``n + r`` is (``n`` equivalent to ``r``), or for a new class
    #: that ``n`` alone is won
    proof: int
    searched: int  #: positions the and-or search expanded for this pile


def grundy_table(limit: int) -> tuple[list[GrundyRow], int]:
    """One row per pile of ``1 .. limit`` coins, and the positions the search expanded."""
    solver = AndOrSolver()
    values = grundy_values(limit)
    rows = []
    for n in range(1, limit + 1):
        before = solver.expanded
        equivalent = solver.classify(n)
        searched = solver.expanded - before
        decided = (n, equivalent) if equivalent not in (0, n) else (n,)
        rows.append(GrundyRow(n, solver.wins((n,)), equivalent, values[n],
                              solver.proof_size(decided, keep=n), searched))
    return rows, solver.expanded


@lru_cache(maxsize=None)
def _full_wins(piles: Piles) -> bool:
    """Unreduced and-or search (for the small example graph)."""
    return any(not _full_wins(child) for child in splits(piles))


def and_or_graph(n: int = 7) -> list[str]:
    """The and-or graph of a pile of ``n`` coins, unreduced, one line per edge level.

    MIN moves first, as in the textbook example (Nilsson 1980); a node is marked ``won``
    or ``lost`` for MAX.  MIN's nodes are AND nodes (MAX needs every child won), MAX's
    are OR nodes (one won child suffices).  Each position is listed once (a graph, not a
    tree), level by level, with its children.
    """
    lines = []
    level: list[Piles] = [(n,)]
    listed: set[Piles] = set()
    mover = "MIN"
    while level:
        following: list[Piles] = []
        for piles in level:
            if piles in listed:
                continue
            listed.add(piles)
            mover_wins = _full_wins(piles)
            max_wins = mover_wins if mover == "MAX" else not mover_wins
            kind = "OR " if mover == "MAX" else "AND"
            children = list(splits(piles))
            text = "-".join(map(str, piles))
            if children:
                targets = ", ".join("-".join(map(str, c)) for c in children)
                lines.append(f"{mover} {kind} {text:14s} {'won' if max_wins else 'lost'} "
                             f"for MAX  -> {targets}")
            else:
                lines.append(f"{mover} {kind} {text:14s} {'won' if max_wins else 'lost'} "
                             f"for MAX  (no move: {mover} loses)")
            following += [c for c in children if c not in following]
        level = following
        mover = "MAX" if mover == "MIN" else "MIN"
    return lines
