"""Command line: ``gomoku-engine`` (a click group, :data:`main`).

With no subcommand ``gomoku-engine`` serves the Gomocup protocol on stdin/stdout, exactly
like ``pbrain-gomoku-engine`` (the name managers look for; :mod:`gomoku_engine.pbrain`
serves it without importing this package).  The group and its shared options are in
:mod:`.group`; each module below adds one family of commands to it when imported.
"""

from __future__ import annotations

# imported for the commands each registers on ``main``
from . import (arena_commands, engine_commands, game_commands, lesson_commands,
               network_commands, openings_commands, training_commands, tune_commands)
from .group import RULES, main

__all__ = ["RULES", "arena_commands", "engine_commands", "game_commands", "lesson_commands",
           "main", "network_commands", "openings_commands", "training_commands", "tune_commands"]
