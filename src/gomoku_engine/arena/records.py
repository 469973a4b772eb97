"""Game records (PSQ, SGF): kept in :mod:`gomoku_engine.core.records`, below every user
of the engine, so the match runner and the web board share one reader and writer."""

from ..core.records import SGF_LETTERS, Move, read_psq, read_sgf, write_psq, write_sgf

__all__ = ["Move", "SGF_LETTERS", "read_psq", "read_sgf", "write_psq", "write_sgf"]
