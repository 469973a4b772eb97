"""Gomoku and Renju engine: numba alpha-beta core behind the Gomocup protocol."""
__version__ = "0.1.0"
