"""``python -m gomoku_engine``: the same as the ``gomoku-engine`` command."""

from .pbrain import gomoku_engine_main

gomoku_engine_main()
