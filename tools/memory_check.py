"""Resident memory of an engine process under ``INFO max_memory``: a long search, then
its peak (VmHWM) and current (VmRSS) resident set, and the same for the process's
children (a kernel group compiling in a child on a cold cache).

Linux only (reads ``/proc``).  Standard library only: it judges the engine from outside.

Usage::

    python tools/memory_check.py --max-memory-mb 350 --search-ms 30000 -- .venv/bin/gomoku-engine
    python tools/memory_check.py --search-ms 5000 --until-searched -- /fresh/venv/bin/gomoku-engine
"""

from __future__ import annotations

import argparse
import subprocess
import threading
import time
from pathlib import Path
from typing import TextIO

#: bench's "15 midgame A" (black to move), as BOARD stones: field 1 is black's
POSITION = ["9,11,1", "14,9,2", "12,9,1", "12,11,2", "14,11,1", "11,8,2", "14,6,1", "10,6,2",
            "9,6,1", "13,5,2", "9,12,1", "11,10,2", "9,8,1", "9,10,2", "9,7,1", "9,5,2",
            "11,7,1", "10,7,2", "10,8,1", "10,5,2"]


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid`` in KiB (empty once it has exited)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
            if line.startswith(("VmRSS", "VmHWM"))}


def _children(pid: int) -> list[int]:
    """The child processes of ``pid``, whichever of its threads started them."""
    children = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return children


def _read_move(stdout: TextIO) -> tuple[str, list[str]]:
    """The next move line and the lines before it (empty at the end of output)."""
    messages = []
    while True:
        reply = stdout.readline().strip()
        if not reply or (reply.count(",") == 1 and reply[0].isdigit()):
            return reply, messages
        messages.append(reply)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-memory-mb", type=int, default=0,
                        help="INFO max_memory in MiB (0: not sent)")
    parser.add_argument("--search-ms", type=int, default=30000, help="INFO timeout_turn")
    parser.add_argument("--until-searched", action="store_true",
                        help="on a cold cache: keep playing moves (TURN on empty points) until "
                             "a move is searched instead of kernel-free, so that the compiling "
                             "child's whole life is sampled")
    parser.add_argument("command", nargs="+", help="the engine's command line (after --)")
    args = parser.parse_args()
    engine = subprocess.Popen(args.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    child_peak: dict[int, int] = {}
    done = threading.Event()

    def watch_children() -> None:  # a compiling child lives only for a while: sample it
        while not done.is_set():
            for child in _children(engine.pid):
                child_peak[child] = max(child_peak.get(child, 0),
                                        _status(child).get("VmHWM", 0))
            time.sleep(0.2)

    threading.Thread(target=watch_children, daemon=True).start()
    lines = []
    if args.max_memory_mb:
        lines.append(f"INFO max_memory {args.max_memory_mb << 20}")
    lines += [f"INFO timeout_turn {args.search_ms}", "START 15", "BOARD", *POSITION, "DONE"]
    assert engine.stdin is not None and engine.stdout is not None
    began = time.perf_counter()
    engine.stdin.write("\n".join(lines) + "\n")
    engine.stdin.flush()
    reply, messages = _read_move(engine.stdout)
    taken = {tuple(int(v) for v in stone.split(",")[:2]) for stone in POSITION}
    free = [(x, y) for y in range(15) for x in range(15)]
    moves = 1
    while args.until_searched and reply and "kernels still loading" in messages[-1]:
        taken.add(tuple(int(v) for v in reply.split(",")))
        point = next(p for p in free if p not in taken)
        taken.add(point)
        engine.stdin.write(f"TURN {point[0]},{point[1]}\n")
        engine.stdin.flush()
        reply, messages = _read_move(engine.stdout)
        moves += 1
    seconds = time.perf_counter() - began
    status = _status(engine.pid)
    done.set()
    engine.stdin.write("END\n")
    engine.stdin.flush()
    engine.wait(30)
    print(f"max_memory {args.max_memory_mb or 'not sent'} MiB, {moves} moves, the last "
          f"{reply} after {seconds:.1f} s")
    print(f"  engine: peak {status.get('VmHWM', 0) / 1024:.0f} MiB, "
          f"now {status.get('VmRSS', 0) / 1024:.0f} MiB")
    for child, peak in child_peak.items():
        print(f"  child {child}: peak {peak / 1024:.0f} MiB")
    for text in messages[-2:]:
        print("  " + text[:120])


if __name__ == "__main__":
    main()
