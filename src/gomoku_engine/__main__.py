"""``python -m gomoku_engine``: the same as the ``gomoku-engine`` command."""

from .cli import main

main()
