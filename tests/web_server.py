"""Shared by the web tests: a real server on 127.0.0.1 (an ephemeral port) in a thread, a
JSON client on urllib, and the scripted weak player the engine must beat."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gomoku_engine.play.web import GameStore, make_server, url_of

Point = tuple[int, int]


@contextmanager
def running_server(port: int = 0, **store_options: Any) -> Iterator[tuple[str, Any]]:
    """``(base URL, server)`` of a server serving in a thread; shut down on exit.

    :param port: the port to listen on (0: any free one).
    :param store_options: :class:`GameStore` settings (``db``, ``move_ms``, ``expire_s``
        ...); without ``db`` the games are kept in memory.
    """
    server = make_server("127.0.0.1", port, GameStore(**store_options))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url_of(server), server
    finally:
        server.shutdown()
        server.server_close()
        server.store.close()
        thread.join(10)


def call(base: str, method: str, path: str, body: Any = None,
         raw: bytes | None = None) -> tuple[int, Any]:
    """``(status, decoded JSON)`` of one API request (``raw`` bytes sent as they are)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path.lstrip("/"), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def weak_points(size: int) -> list[Point]:
    """Points a scripted player takes in order: even columns of rows 0, 2, size-3, size-1.
    No five (not even four in a row) can be made of them: no two are neighbours in a row,
    column or diagonal."""
    rows = sorted({0, 2, size - 3, size - 1})
    return [(x, y) for y in rows for x in range(0, size, 2)]


def weak_move(state: dict[str, Any]) -> Point:
    """The scripted weak player's next move in a game (the API's view of it)."""
    taken = {(m["x"], m["y"]) for m in state["moves"]}
    fouls = {(f["x"], f["y"]) for f in state["fouls"]}
    for point in weak_points(state["size"]):
        if point not in taken and point not in fouls:
            return point
    raise AssertionError("the weak player ran out of points: the engine did not win")
