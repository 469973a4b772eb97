"""Shared fixtures: paths to the shared data beside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def load_jsonl(name: str) -> list[dict]:
    """Records of a shared puzzle file; none if ../shared/ is not beside the checkout
    (the tests parametrized over them are then reported as skipped)."""
    path = SHARED / "puzzles" / name
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
