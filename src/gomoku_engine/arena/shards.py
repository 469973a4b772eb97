"""Long runs split into shards and resumed: which items a shard runs, and the JSON-lines
files of the items already finished.

The soak (:mod:`gomoku_engine.arena.soak`) and the protocol fuzz
(:mod:`gomoku_engine.arena.fuzz`) plan a fixed, numbered list of items (games, chunks of
lines) from their settings alone; shard ``I/N`` runs the items whose number is ``I - 1``
modulo ``N``, so N machines (or N runs one after the other) cover the list once.  Each
finished item is appended as one JSON line to its shard's file in the output folder, and a
run started again skips the items any file there already holds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` as ``(I, N)``: shard I (1-based) of N.

    :raises ValueError: unless ``1 <= I <= N``.
    """
    first, sep, second = text.partition("/")
    try:
        index, count = int(first), int(second)
    except ValueError:
        raise ValueError(f"{text!r} is not I/N (e.g. 1/4)") from None
    if not sep or not 1 <= index <= count:
        raise ValueError(f"{text!r}: shard I/N needs 1 <= I <= N")
    return index, count


def in_shard(number: int, shard: tuple[int, int]) -> bool:
    """True if item ``number`` (0-based) belongs to ``shard`` ``(I, N)``: every N-th item,
    from item I - 1."""
    index, count = shard
    return number % count == index - 1


def shard_file(folder: str | Path, kind: str, shard: tuple[int, int]) -> Path:
    """The JSON-lines file of one shard: ``<folder>/<kind>-<I>-of-<N>.jsonl``."""
    return Path(folder) / f"{kind}-{shard[0]}-of-{shard[1]}.jsonl"


def read_records(folder: str | Path, kind: str) -> list[dict]:
    """Every record of every shard file of ``kind`` in ``folder`` (none if it has none).

    A last line cut short (a run killed while writing it) is skipped: that item runs
    again.
    """
    records = []
    for path in sorted(Path(folder).glob(f"{kind}-*-of-*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


class RecordFile:
    """Appends one JSON line per finished item to a shard file, from any thread.

    :param path: the file (its folder is created).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def append(self, record: dict) -> None:
        """Write ``record`` as one line and flush it (a run killed later keeps it)."""
        text = json.dumps(record, separators=(",", ":")) + "\n"
        with self._lock, self.path.open("a") as stream:
            stream.write(text)


def pending(numbers: Iterable[int], done: Iterable[int], shard: tuple[int, int]
            ) -> Iterator[int]:
    """The item numbers of ``shard`` not yet in ``done``, in order."""
    finished = set(done)
    return (n for n in numbers if in_shard(n, shard) and n not in finished)


__all__ = ["RecordFile", "in_shard", "parse_shard", "pending", "read_records", "shard_file"]
