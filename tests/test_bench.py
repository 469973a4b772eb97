"""The bench signature is deterministic and pinned (Stockfish's signature discipline)."""

from __future__ import annotations

from gomoku_engine.bench import run_bench

# Update together with a commit message "Bench: <signature>" when search behaviour changes.
PINNED_DEPTH = 4
PINNED_SIGNATURE = "8ee0319d"


def test_bench_signature_is_pinned():
    first = run_bench(PINNED_DEPTH)
    assert first.signature == run_bench(PINNED_DEPTH).signature
    assert first.signature == PINNED_SIGNATURE, (
        f"search behaviour changed: new signature {first.signature}")
