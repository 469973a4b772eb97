"""``gomoku-engine web``: the game in the browser, and the JSON API the page uses.

The server is the standard library's :class:`http.server.ThreadingHTTPServer` (one thread
per request; the library parses HTTP).  It serves the page (``static/``, shipped as package
data: no CDN, no build step) and the API under ``/api/`` (documented in ``docs/play.md``):

=========================================  =================================================
``GET  /api/options``                      levels (labelled), rules, board sizes, colours
``POST /api/games``                        ``{"size", "rule", "level", "human", "opening"}``
                                           -> a game
``GET  /api/games/{id}``                   the game
``POST /api/games/{id}/moves``             ``{"x", "y"}`` -> the game after the move and
                                           the engine's reply (``"engine_move"``)
``POST /api/games/{id}/undo``              takes back the engine's reply and the move
``POST /api/games/{id}/hint``              the engine's move for the person (not played)
``DELETE /api/games/{id}``                 drops the game
=========================================  =================================================

Only requests whose ``Host`` header names the server (its bound address, or ``localhost``,
``127.0.0.1`` or ``[::1]``, with its port) are answered; any other gets 403, so a page on
another site cannot reach the local server through DNS rebinding (a name of the
attacker's that resolves to 127.0.0.1 carries the attacker's name in ``Host``).

Errors are ``{"error": text}`` with 400 (malformed request, off-board point), 403 (a
``Host`` that does not name the server), 404 (unknown
game or path), 405 (wrong method), 409 (occupied point, not the person's turn, game over,
renju foul, nothing to undo), 503 (every game slot busy, or no engine came free in
time); the game is unchanged then.

Each game is a :class:`~gomoku_engine.play.human.HumanGame`: its stones and settings.  The
engines (board kernels and transposition tables) are the store's
:class:`~gomoku_engine.play.engine_pool.EnginePool`, sized from a memory setting
(``memory_mb``): a game borrows one only while it thinks, so the server's memory does
not grow with the number of games.  The searches run in a small thread pool (as many
threads as cores), off the request threads, which wait for the reply; a request for a
game whose engine is thinking gets 409.  At most ``max_games`` games live at once: games
idle for ``idle_s`` are dropped, and a new game beyond the limit drops the least recently
used one that is not thinking.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from ..core.constants import MAX_SIZE, MIN_SIZE
from ..core.errors import InvalidMoveError
from ..search.levels import MAX_LEVEL, MIN_LEVEL
from ..core.opening_rules import OPENING_RULES
from .engine_pool import DEFAULT_MEMORY_MB, EnginePool, PoolBusy
from .human import (COLOURS, COLOUR_NAMES, DEFAULT_MOVE_MS, LEVEL_LABELS, RULE_NAMES,
                   HumanGame, Refused)

#: Board sizes offered by the page (the API takes any side from 5 to 32).
PAGE_SIZES = (15, 19, 20)
DEFAULT_MAX_GAMES = 32
DEFAULT_IDLE_S = 30 * 60.0
MAX_BODY = 16 * 1024  #: bytes of a request body

#: Names that always reach a server on this machine (with its port in ``Host``).
LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")

_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
                 ".js": "text/javascript; charset=utf-8", ".png": "image/png",
                 ".svg": "image/svg+xml"}


class ApiError(Exception):
    """An error answer: HTTP ``status`` and the text of ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Entry:
    game: HumanGame
    used: float  #: time.monotonic() of the last request


class GameStore:
    """The live games, by id, with the pool that runs their engines' searches.

    :param max_games: most games alive at once.
    :param idle_s: a game untouched this long (seconds) is dropped.
    :param move_ms: the engine's per-move time limit (ms).
    :param workers: threads running searches (default: the number of cores).
    :param memory_mb: the memory setting (MiB) that sizes the engine pool
        (:func:`gomoku_engine.play.engine_pool.pool_for_memory`).
    :param pool: the engines to lend (default: the pool for ``memory_mb``).
    """

    def __init__(self, max_games: int = DEFAULT_MAX_GAMES, idle_s: float = DEFAULT_IDLE_S,
                 move_ms: float = DEFAULT_MOVE_MS, workers: int | None = None,
                 memory_mb: float = DEFAULT_MEMORY_MB, pool: EnginePool | None = None) -> None:
        self.pool = EnginePool.for_memory(memory_mb) if pool is None else pool
        self.max_games = max_games
        self.idle_s = idle_s
        self.move_ms = move_ms
        self._games: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2,
                                        thread_name_prefix="engine")

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def add(self, game: HumanGame) -> str:
        """Keep ``game`` under a new id, dropping idle games (and, when full, the least
        recently used one that is not thinking).

        :raises ApiError: 503 if every slot holds a thinking game.
        """
        now = time.monotonic()
        with self._lock:
            for key, entry in list(self._games.items()):
                if now - entry.used > self.idle_s and not entry.game.lock.locked():
                    del self._games[key]
            if len(self._games) >= self.max_games:
                free = [k for k, e in self._games.items() if not e.game.lock.locked()]
                if not free:
                    raise ApiError(503, f"all {self.max_games} game slots are busy; "
                                        "try again in a moment")
                del self._games[min(free, key=lambda k: self._games[k].used)]
            game_id = secrets.token_urlsafe(9)
            self._games[game_id] = _Entry(game, now)
            return game_id

    def get(self, game_id: str) -> HumanGame:
        """:raises ApiError: 404 for an unknown (or dropped) game."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is None or time.monotonic() - entry.used > self.idle_s \
                    and not entry.game.lock.locked():
                self._games.pop(game_id, None)
                raise ApiError(404, f"no game {game_id!r} (unknown, ended or idle too long)")
            entry.used = time.monotonic()
            return entry.game

    def drop(self, game_id: str) -> None:
        """:raises ApiError: 404 for an unknown game."""
        with self._lock:
            entry = self._games.pop(game_id, None)
        if entry is None:
            raise ApiError(404, f"no game {game_id!r}")
        entry.game.stop()

    def think(self, job: Callable[[], Any]) -> Any:
        """Run ``job`` (an engine search) in the thread pool and wait for its result.

        :raises ApiError: 503 when no engine came free in time (``job`` raised
            :class:`PoolBusy`).
        """
        try:
            return self._pool.submit(job).result()
        except PoolBusy as exc:
            raise ApiError(503, str(exc)) from None

    def close(self) -> None:
        """Stop every running search and the pool."""
        with self._lock:
            games = [e.game for e in self._games.values()]
            self._games.clear()
        for game in games:
            game.stop()
        self._pool.shutdown(wait=True, cancel_futures=True)


def game_json(game_id: str, game: HumanGame, **extra: Any) -> dict[str, Any]:
    """The API's view of a game (see ``docs/play.md``), plus ``extra`` keys."""
    view = game.view()  # consistent even while the engine searches on the board
    last = view.stones[-1] if view.stones else None
    state: dict[str, Any] = {
        "id": game_id,
        "size": game.width,
        "rule": game.rule.name.lower(),
        "level": game.level,
        "opening": game.opening_rule,
        "human": COLOUR_NAMES[game.human],
        "engine": COLOUR_NAMES[game.computer],
        "moves": [{"x": x, "y": y, "colour": COLOUR_NAMES[c]} for x, y, c in view.stones],
        "last_move": None if last is None else {"x": last[0], "y": last[1]},
        "to_move": None if view.to_move is None else COLOUR_NAMES[view.to_move],
        "result": view.result,
        "winning_line": [{"x": x, "y": y} for x, y in view.winning_line],
        "fouls": [{"x": x, "y": y} for x, y in view.fouls],
        "analysis": view.analysis.as_dict() if view.analysis else None,
        "thinking": view.thinking,
    }
    state.update(extra)
    return state


def _field(body: dict[str, Any], name: str, default: Any = None) -> Any:
    if name not in body:
        if default is None:
            raise ApiError(400, f"missing field {name!r}")
        return default
    return body[name]


def _int_field(body: dict[str, Any], name: str, low: int, high: int,
               default: int | None = None) -> int:
    value = _field(body, name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name!r} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise ApiError(400, f"{name!r} must be in {low}..{high}, not {value}")
    return value


class Api:
    """The API's actions on a :class:`GameStore`; each returns ``(status, JSON body)``.

    :raises ApiError: for every error answer (the game is unchanged then).
    """

    def __init__(self, store: GameStore) -> None:
        self.store = store

    def options(self) -> dict[str, Any]:
        return {"levels": [{"level": n, "label": LEVEL_LABELS[n]}
                           for n in range(MIN_LEVEL, MAX_LEVEL + 1)],
                "rules": list(RULE_NAMES), "sizes": list(PAGE_SIZES),
                "min_size": MIN_SIZE, "max_size": MAX_SIZE, "colours": list(COLOURS),
                "openings": list(OPENING_RULES),
                "defaults": {"size": 15, "rule": "freestyle", "level": 3, "human": "white",
                             "opening": "none"}}

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        size = _int_field(body, "size", MIN_SIZE, MAX_SIZE, 15)
        level = _int_field(body, "level", MIN_LEVEL, MAX_LEVEL, 3)
        rule = _field(body, "rule", "freestyle")
        if rule not in RULE_NAMES:
            raise ApiError(400, f"'rule' must be one of {', '.join(RULE_NAMES)}, not {rule!r}")
        human = _field(body, "human", "white")
        if human not in COLOURS:
            raise ApiError(400, f"'human' must be 'black' or 'white', not {human!r}")
        opening = _field(body, "opening", "none")
        if opening not in OPENING_RULES:
            raise ApiError(400, f"'opening' must be one of {', '.join(OPENING_RULES)}, "
                                f"not {opening!r}")
        game = HumanGame(size, RULE_NAMES[rule], level, COLOURS[human],
                         move_ms=self.store.move_ms, seed=secrets.randbits(32),
                         opening_rule=opening, pool=self.store.pool)
        with game.lock:
            game_id = self.store.add(game)
            try:
                move = self.store.think(game.start)
            except ApiError:
                self.store.drop(game_id)  # no game at all rather than one the engine skipped
                raise
            return game_json(game_id, game, engine_move=_point(move))

    def show(self, game_id: str) -> dict[str, Any]:
        game = self.store.get(game_id)
        return game_json(game_id, game, engine_move=None)

    def move(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        game = self.store.get(game_id)
        x = _int_field(body, "x", -(1 << 31), 1 << 31)
        y = _int_field(body, "y", -(1 << 31), 1 << 31)
        with self._hold(game):
            try:
                game.play(x, y)
            except InvalidMoveError as exc:
                raise ApiError(400, str(exc)) from None
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            except PoolBusy as exc:
                raise ApiError(503, str(exc)) from None
            try:
                move = self.store.think(game.reply)
            except ApiError:
                game.retract()  # the game unchanged: the person's move taken back too
                raise
            return game_json(game_id, game, engine_move=_point(move))

    def undo(self, game_id: str) -> dict[str, Any]:
        game = self.store.get(game_id)
        with self._hold(game):
            try:
                taken = game.undo()
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            except PoolBusy as exc:
                raise ApiError(503, str(exc)) from None
            return game_json(game_id, game, engine_move=None,
                             taken_back=[{"x": x, "y": y} for x, y in taken])

    def hint(self, game_id: str) -> dict[str, Any]:
        game = self.store.get(game_id)
        with self._hold(game):
            try:
                game.check_turn()
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            move, analysis = self.store.think(game.hint)
            return game_json(game_id, game, engine_move=None, hint=_point(move),
                             hint_analysis=analysis.as_dict())

    def delete(self, game_id: str) -> dict[str, Any]:
        self.store.drop(game_id)
        return {"id": game_id, "deleted": True}

    @staticmethod
    def _hold(game: HumanGame) -> _Held:
        return _Held(game)


class _Held:
    """``with``: the game's lock, or 409 at once if another request holds it."""

    def __init__(self, game: HumanGame) -> None:
        self.game = game

    def __enter__(self) -> HumanGame:
        if not self.game.lock.acquire(blocking=False):
            raise ApiError(409, "it is not your turn: the engine is thinking")
        return self.game

    def __exit__(self, *exc: object) -> None:
        self.game.lock.release()


def _point(move: tuple[int, int] | None) -> dict[str, int] | None:
    return None if move is None else {"x": move[0], "y": move[1]}


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the page's files and to :class:`Api` (set as ``api``)."""

    api: Api
    server_version = "gomoku-engine"
    quiet = True

    # --- routing -------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 (http.server's names)
        path = self.path.split("?", 1)[0]
        if not self._host_allowed():
            return
        if path.startswith("/api/"):
            self._api("GET", path)
        else:
            self._static(path)

    def do_POST(self) -> None:  # noqa: N802
        if self._host_allowed():
            self._api("POST", self.path.split("?", 1)[0])

    def do_DELETE(self) -> None:  # noqa: N802
        if self._host_allowed():
            self._api("DELETE", self.path.split("?", 1)[0])

    def _host_allowed(self) -> bool:
        """Whether the ``Host`` header names this server; answers 403 when it does not."""
        host = self.headers.get("Host") or ""
        if self.server.hosts.allows(host):  # type: ignore[attr-defined]
            return True
        body = {"error": f"Host {host!r} does not name this server; use "
                         f"{self.server.hosts.example}"}  # type: ignore[attr-defined]
        self._send(HTTPStatus.FORBIDDEN, json.dumps(body).encode(), "application/json")
        return False

    def _api(self, method: str, path: str) -> None:
        try:
            status, body = HTTPStatus.OK, self._route(method, path)
        except ApiError as exc:
            status, body = exc.status, {"error": str(exc)}
        self._send(status, json.dumps(body).encode(), "application/json")

    def _route(self, method: str, path: str) -> dict[str, Any]:
        parts = path.strip("/").split("/")[1:]  # after "api"
        api = self.api
        if parts == ["options"]:
            self._allow(method, "GET")
            return api.options()
        if parts == ["games"]:
            self._allow(method, "POST")
            return api.create(self._body())
        if len(parts) == 2 and parts[0] == "games":
            self._allow(method, "GET", "DELETE")
            return api.show(parts[1]) if method == "GET" else api.delete(parts[1])
        if len(parts) == 3 and parts[0] == "games":
            actions = {"moves": lambda: api.move(parts[1], self._body()),
                       "undo": lambda: api.undo(parts[1]),
                       "hint": lambda: api.hint(parts[1])}
            if parts[2] in actions:
                self._allow(method, "POST")
                return actions[parts[2]]()
        raise ApiError(404, f"no API path {path!r}")

    @staticmethod
    def _allow(method: str, *allowed: str) -> None:
        if method not in allowed:
            raise ApiError(405, f"{method} is not allowed here (use {', '.join(allowed)})")

    def _body(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise ApiError(400, "bad Content-Length") from None
        if length > MAX_BODY:
            raise ApiError(400, f"request body over {MAX_BODY} bytes")
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the body must be a JSON object")
        return body

    def _static(self, path: str) -> None:
        name = "index.html" if path in ("/", "/index.html") else path.removeprefix("/static/")
        files = resources.files("gomoku_engine.play") / "static"
        kind = _STATIC_TYPES.get(os.path.splitext(name)[1])
        entry = files / name
        if kind is None or "/" in name or name.startswith(".") or not entry.is_file():
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return
        self._send(HTTPStatus.OK, entry.read_bytes(), kind)

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if not self.quiet:
            super().log_message(format, *args)


class HostRule:
    """The ``Host`` headers a server answers: ``name:port`` for its bound address, the
    name it was given and :data:`LOCAL_NAMES` (a bare name too on port 80, HTTP's
    default).  Bound to every address (``0.0.0.0`` or ``::``), it also answers any IP
    address and this machine's host name, which no other site's page can name.

    :param names: the host name and address the server was bound with.
    :param port: the port it listens on.
    """

    def __init__(self, names: tuple[str, ...], port: int) -> None:
        self.port = port
        bracketed = [f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names]
        known = {n.lower() for n in (*bracketed, *LOCAL_NAMES)}
        self.wildcard = any(n in ("0.0.0.0", "::", "[::]", "") for n in known)
        if self.wildcard:
            known.add(socket.gethostname().lower())
        self.names = frozenset(known)
        self.example = f"http://localhost:{port}/"

    def allows(self, header: str) -> bool:
        """Whether a ``Host`` header value names this server."""
        name, port = _split_host(header.strip().lower())
        if port != str(self.port):
            return False
        return name in self.names or self.wildcard and _is_ip(name.strip("[]"))


def _split_host(header: str) -> tuple[str, str]:
    """``(name, port)`` of a ``Host`` value (RFC 9110 7.2: ``host[:port]``, an IPv6
    address in brackets); the port is ``"80"`` when absent."""
    if header.startswith("["):
        name, _, rest = header.partition("]")
        name += "]"
    else:
        name, colon, rest = header.partition(":")
        rest = colon + rest
    if not rest:
        return name, "80"
    return name, rest[1:] if rest.startswith(":") else ""


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def is_loopback(server: ThreadingHTTPServer) -> bool:
    """Whether ``server`` listens only on a loopback address (127.0.0.0/8, ``::1``)."""
    host = str(server.server_address[0])
    return _is_ip(host) and ipaddress.ip_address(host).is_loopback


class _Server(ThreadingHTTPServer):
    #: pending connections the kernel keeps (socketserver's default, 5, resets the
    #: connections of 20 games started at once while the server threads are busy)
    request_queue_size = 128
    daemon_threads = True


def make_server(host: str = "127.0.0.1", port: int = 8000,
                store: GameStore | None = None, quiet: bool = True) -> ThreadingHTTPServer:
    """A server bound to ``(host, port)`` (port 0: any free one), not yet serving.

    Its ``store`` attribute holds the games; call ``serve_forever()`` (in a thread for
    tests), then ``shutdown()`` and ``store.close()``.

    :raises OSError: if the address cannot be bound.
    """
    store = GameStore() if store is None else store
    handler = type("BoundHandler", (Handler,), {"api": Api(store), "quiet": quiet})
    server = _Server((host, port), handler)
    server.store = store  # type: ignore[attr-defined]
    server.hosts = HostRule((host, str(server.server_address[0])),  # type: ignore[attr-defined]
                            server.server_address[1])
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    """``http://host:port/`` of a bound server."""
    host, port = server.server_address[:2]
    if ":" in str(host):
        host = f"[{host}]"
    return f"http://{host}:{port}/"
