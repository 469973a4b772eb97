"""A game position: the jitted make/unmake kernels over the flat int8 board, and the
checked :class:`~gomoku_engine.game.board.Board` API on top of them.
"""
