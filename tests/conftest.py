"""Shared fixtures: paths to the shared data beside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def load_jsonl(name: str) -> list[dict]:
    path = SHARED / "puzzles" / name
    if not path.exists():
        pytest.skip(f"{path} not found (../shared/ beside the checkout)")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
