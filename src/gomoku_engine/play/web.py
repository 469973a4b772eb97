"""``gomoku-engine web``: the game in the browser, and the JSON API the page uses.

The server is the standard library's :class:`http.server.ThreadingHTTPServer` (one thread
per request; the library parses HTTP).  It serves the page (``static/``, shipped as package
data: no CDN, no build step) and the API under ``/api/`` (:mod:`gomoku_engine.play.api`,
documented in ``docs/play.md``):

=========================================  =================================================
``GET  /api/options``                      levels (labelled), rules, board sizes, colours
``POST /api/games``                        ``{"size", "rule", "level", "human", "opening",
                                           "position"}`` -> a game
``GET  /api/games/{id}``                   the game
``GET  /api/games/{id}/sgf`` (``/psq``)    the game as an SGF (PSQ) file
``POST /api/games/{id}/moves``             ``{"x", "y"}`` -> the game after the move and
                                           the engine's reply (``"engine_move"``)
``POST /api/games/{id}/undo``              takes back the engine's reply and the move
``POST /api/games/{id}/takeback``          ``{"ply"}``: back to that move, play on
``POST /api/games/{id}/hint``              the engine's move for the person (not played)
``POST /api/games/{id}/evaluate``          ``{"ply"}``: the engine's evaluation there
``DELETE /api/games/{id}``                 deletes the game
=========================================  =================================================

Only the server's own page may use it.  A request is refused (403, counted in the
server's ``refused``) unless its ``Host`` header names the server (its bound address, or
``localhost``, ``127.0.0.1`` or ``[::1]``, with its port: a page of another site cannot
reach it through DNS rebinding, where its own name, re-pointed at 127.0.0.1, is in
``Host``) and its ``Origin`` header, when present, is ``http://`` and such a name
(browsers send ``Origin`` with every cross-site request but a plain navigation).  A
``POST`` must carry ``Content-Type: application/json`` (else 415): another site's page
can send that type only after a CORS preflight (``OPTIONS``), which gets 405 and no
``Access-Control-Allow-*`` header, so the browser never sends the request.  Methods other
than ``GET``, ``POST`` and ``DELETE`` get 405 with a JSON body.

The games live in a :class:`~gomoku_engine.play.game_store.GameStore` (every game in
SQLite; see there).
"""

from __future__ import annotations

import collections
import ipaddress
import json
import os
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from .api import Api, Download
from .game_store import ApiError, GameStore

MAX_BODY = 16 * 1024  #: bytes of a request body

#: Names that always reach a server on this machine (with its port in ``Host``).
LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")

_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
                 ".js": "text/javascript; charset=utf-8", ".png": "image/png",
                 ".svg": "image/svg+xml"}


class Refusals:
    """Requests refused before any action, by reason (``host``, ``origin``,
    ``content-type``, ``method``); thread-safe."""

    def __init__(self) -> None:
        self._counts: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    def add(self, reason: str) -> None:
        with self._lock:
            self._counts[reason] += 1

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def total(self) -> int:
        with self._lock:
            return sum(self._counts.values())


class _MethodError(ApiError):
    """405: a known path with another method; ``allow`` lists the right ones."""

    def __init__(self, allowed: tuple[str, ...], method: str) -> None:
        self.allow = ", ".join(allowed)
        super().__init__(405, f"{method} is not allowed here (use {self.allow})")


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the page's files and to :class:`Api` (set as ``api``)."""

    api: Api
    server_version = "gomoku-engine"
    quiet = True

    # --- routing -------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 (http.server's names)
        path = self.path.split("?", 1)[0]
        if not self._allowed("GET"):
            return
        if path.startswith("/api/"):
            self._api("GET", path)
        else:
            self._static(path)

    def do_POST(self) -> None:  # noqa: N802
        if self._allowed("POST"):
            self._api("POST", self.path.split("?", 1)[0])

    def do_DELETE(self) -> None:  # noqa: N802
        if self._allowed("DELETE"):
            self._api("DELETE", self.path.split("?", 1)[0])

    def _not_allowed(self) -> None:
        """Any other method (a CORS preflight's ``OPTIONS`` among them): 405, JSON, and
        no ``Access-Control-Allow-*`` header."""
        if self._allowed(self.command):
            self._refuse(HTTPStatus.METHOD_NOT_ALLOWED, "method",
                         f"{self.command} is not allowed (use GET, POST or DELETE)")

    do_PUT = do_PATCH = do_OPTIONS = do_HEAD = do_TRACE = do_CONNECT = _not_allowed

    def _allowed(self, method: str) -> bool:
        """Whether the ``Host`` and ``Origin`` headers name this server and a ``POST``
        carries JSON; answers 403 or 415 (and counts the refusal) when not."""
        hosts: HostRule = self.server.hosts  # type: ignore[attr-defined]
        host = self.headers.get("Host") or ""
        if not hosts.allows(host):
            self._refuse(HTTPStatus.FORBIDDEN, "host",
                         f"Host {host!r} does not name this server; use {hosts.example}")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and not hosts.allows_origin(origin):
            self._refuse(HTTPStatus.FORBIDDEN, "origin",
                         f"requests from the page of {origin!r} are refused: only this "
                         f"server's page ({hosts.example}) may use it")
            return False
        kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if method == "POST" and kind != "application/json":
            self._refuse(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "content-type",
                         f"the body must be JSON sent as Content-Type: application/json, "
                         f"not {kind or 'no type'!r}")
            return False
        return True

    def _refuse(self, status: int, reason: str, message: str) -> None:
        self.server.refused.add(reason)  # type: ignore[attr-defined]
        data = json.dumps({"error": message}).encode()
        self._send(status, data, "application/json",
                   {"Allow": "GET, POST, DELETE"} if reason == "method" else None)

    def _api(self, method: str, path: str) -> None:
        headers = None
        try:
            status, body = HTTPStatus.OK, self._route(method, path)
        except ApiError as exc:
            status, body = exc.status, {"error": str(exc)}
            if isinstance(exc, _MethodError):
                headers = {"Allow": exc.allow}
        if isinstance(body, Download):
            self._send(status, body.text.encode(), body.kind,
                       {"Content-Disposition": f'attachment; filename="{body.name}"'})
        else:
            self._send(status, json.dumps(body).encode(), "application/json", headers)

    def _route(self, method: str, path: str) -> dict[str, Any] | Download:
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
            game_id, action = parts[1], parts[2]
            if action in ("sgf", "psq"):
                self._allow(method, "GET")
                return api.download(game_id, action)
            actions = {"moves": api.move, "undo": api.undo, "takeback": api.takeback,
                       "hint": api.hint, "evaluate": api.evaluate}
            if action in actions:
                self._allow(method, "POST")
                return actions[action](game_id, self._body())
        raise ApiError(404, f"no API path {path!r}")

    @staticmethod
    def _allow(method: str, *allowed: str) -> None:
        if method not in allowed:
            raise _MethodError(allowed, method)

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

    def _send(self, status: int, data: bytes, kind: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
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

    def allows_origin(self, origin: str) -> bool:
        """Whether an ``Origin`` header value (``scheme://host[:port]``, or ``null`` from
        a sandboxed or file page) is a page of this server: ``http`` and a name
        :meth:`allows`."""
        parts = urlsplit(origin.strip())
        return (parts.scheme.lower() == "http" and not parts.path and not parts.query
                and "@" not in parts.netloc and self.allows(parts.netloc))


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

    Its ``store`` attribute holds the games, its ``refused`` the :class:`Refusals`; call ``serve_forever()`` (in a thread for
    tests), then ``shutdown()`` and ``store.close()``.

    :raises OSError: if the address cannot be bound.
    """
    store = GameStore() if store is None else store
    handler = type("BoundHandler", (Handler,), {"api": Api(store), "quiet": quiet})
    server = _Server((host, port), handler)
    server.store = store  # type: ignore[attr-defined]
    server.refused = Refusals()  # type: ignore[attr-defined]
    server.hosts = HostRule((host, str(server.server_address[0])),  # type: ignore[attr-defined]
                            server.server_address[1])
    return server


__all__ = ["Api", "ApiError", "GameStore", "Handler", "HostRule", "Refusals", "is_loopback",
           "make_server", "url_of"]


def url_of(server: ThreadingHTTPServer) -> str:
    """``http://host:port/`` of a bound server."""
    host, port = server.server_address[:2]
    if ":" in str(host):
        host = f"[{host}]"
    return f"http://{host}:{port}/"
