"""The public API of ``gomoku_engine``: the names the README's Python example uses,
importable from the package itself, each loaded only when first used."""

from __future__ import annotations

import json
import subprocess
import sys

import gomoku_engine


def test_every_public_name_resolves_to_what_its_name_says():
    for name in gomoku_engine.__all__:
        assert getattr(gomoku_engine, name) is not None, name
    assert callable(gomoku_engine.warmup)
    assert gomoku_engine.Engine.__name__ == "Engine"
    assert issubclass(gomoku_engine.IllegalMoveError, gomoku_engine.GomokuError)
    assert gomoku_engine.Rule.RENJU.name == "RENJU"


def test_an_unknown_name_raises_attribute_error():
    try:
        gomoku_engine.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_importing_the_package_loads_nothing_heavy():
    code = ("import json, sys, gomoku_engine\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numba', 'numpy', 'click', 'tqdm', 'gomoku_engine'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True, timeout=60).stdout)
    assert loaded == ["gomoku_engine"]


def test_the_readme_example_runs():
    from gomoku_engine import Engine, Limits, Rule

    engine = Engine(15, rule=Rule.FREESTYLE, hash_mb=1)
    for x, y in [(7, 7), (8, 8), (8, 7)]:
        engine.board.play(x, y)
    result = engine.search(Limits(depth=2))
    assert engine.board.is_legal(*result.move)
