"""The README's two commands: ``make run`` installs what the engine needs to run (not the
test extras, several hundred MB), ``make test`` the test extras as well.  Read from
``make -n`` (the commands make would run, none run) for a virtual environment that does not
exist."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def planned(target: str, tmp_path: Path) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-n", "-C", str(ROOT), target,
                             f"VENV={tmp_path / 'venv'}"],
                            capture_output=True, text=True, timeout=60, check=True)
    return result.stdout.splitlines()


def test_make_run_installs_the_runtime_only(tmp_path):
    lines = planned("run", tmp_path)
    installs = [line for line in lines if " install " in line]
    assert installs and all(line.rstrip().endswith("-e .") for line in installs), installs
    assert any("gomoku-engine demo" in line for line in lines)


def test_make_test_installs_the_test_extra(tmp_path):
    lines = planned("test", tmp_path)
    assert any(line.rstrip().endswith('-e ".[test]"') for line in lines), lines
    assert any("pytest" in line for line in lines)
