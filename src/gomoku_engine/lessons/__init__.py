"""Lessons in game search on small games, run by ``gomoku-engine teach``.

* :mod:`.grundy`: Grundy's game as an and-or graph, with Sprague-Grundy values;
* :mod:`.tictactoe`: minimax and alpha-beta side by side with the open-lines evaluation;
* :mod:`.mnk`: the value of an (m,n,k) game by a jitted alpha-beta solver.

The first two follow course slides on game algorithms (Zhu Quanmin, "Game algorithms and
game strategy"); the third is the engine's own search style on boards small enough to solve.
"""
