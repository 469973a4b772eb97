"""Exceptions of the checked (Python) API; the jitted kernels never raise."""

from __future__ import annotations


class GomokuError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidMoveError(ValueError, GomokuError):
    """A move or position text that cannot be parsed (``"h99"``, ``"3;x"``)."""


class IllegalMoveError(ValueError, GomokuError):
    """A well-formed move that cannot be played: off the board or on an occupied point."""
