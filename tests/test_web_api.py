"""The JSON API of ``gomoku-engine web`` against a real server on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest
from helpers import assert_winning_line
from web_server import call, running_server, weak_move

from gomoku_engine.core.constants import Rule
from gomoku_engine.eval import win_rate
from gomoku_engine.game.board import Board
from gomoku_engine.play.human import COLOURS, RULE_NAMES


@pytest.fixture(scope="module")
def server():
    with running_server(move_ms=500) as (base, srv):
        yield base, srv


def new_game(base: str, **settings) -> dict:
    status, game = call(base, "POST", "api/games", settings)
    assert status == 200, game
    return game


def play_out(base: str, game: dict) -> dict:
    """The scripted weak player against the engine until the end; checks every answer."""
    for _ in range(60):
        if game["result"] is not None:
            return game
        x, y = weak_move(game)
        status, after = call(base, "POST", f"api/games/{game['id']}/moves", {"x": x, "y": y})
        assert status == 200, after
        moves = [(m["x"], m["y"]) for m in after["moves"]]
        assert moves[: len(game["moves"]) + 1] == [(m["x"], m["y"]) for m in game["moves"]] \
            + [(x, y)]
        if after["result"] is None:
            engine = after["engine_move"]
            assert moves[-1] == (engine["x"], engine["y"]) and len(moves) == len(game["moves"]) + 2
            assert after["to_move"] == after["human"]
            assert after["analysis"]["side"] == after["engine"]
            check_win_rate(after["analysis"], after["rule"])
        game = after
    raise AssertionError("the game did not end")


def check_win_rate(analysis: dict, rule: str) -> None:
    """The analysis's win rate is the shipped sigmoid of its score under the game's rule."""
    expected = win_rate(analysis["score_value"], Rule[rule.upper()])
    assert 0.0 <= analysis["win_rate"] <= 1.0
    assert analysis["win_rate"] == round(expected, 3)


def check_won_by_engine(game: dict) -> None:
    """The result, replayed on a fresh board; the winning line checked independently."""
    board = Board(game["size"], rule=RULE_NAMES[game["rule"]])
    for m in game["moves"]:
        assert board.to_move == COLOURS[m["colour"]]
        board.play(m["x"], m["y"])
    assert game["result"] == game["engine"] and board.winner == COLOURS[game["engine"]]
    line = [(p["x"], p["y"]) for p in game["winning_line"]]
    assert_winning_line(board, line, board.winner)
    last = game["moves"][-1]
    assert game["to_move"] is None and game["engine_move"] == {"x": last["x"], "y": last["y"]}


@pytest.mark.parametrize("level", [1, 3, 5, 10])
def test_whole_game_won_by_the_engine(server, level: int) -> None:
    base, _ = server
    game = new_game(base, size=15, rule="freestyle", level=level, human="white")
    assert game["engine_move"] == {"x": 7, "y": 7} and game["to_move"] == "white"
    assert game["moves"] == [{"x": 7, "y": 7, "colour": "black"}]
    final = play_out(base, game)
    check_won_by_engine(final)
    status, shown = call(base, "GET", f"api/games/{game['id']}")
    assert status == 200 and shown["moves"] == final["moves"]
    assert shown["result"] == final["result"] and shown["winning_line"] == final["winning_line"]


@pytest.mark.parametrize("rule", ["standard", "renju", "caro"])
def test_engine_wins_as_white_under_each_rule(server, rule: str) -> None:
    base, _ = server
    game = new_game(base, size=15, rule=rule, level=3, human="black")
    assert game["engine_move"] is None and game["moves"] == [] and game["to_move"] == "black"
    check_won_by_engine(play_out(base, game))


def test_size_20(server) -> None:
    base, _ = server
    game = new_game(base, size=20, level=3, human="white")
    assert game["size"] == 20 and game["engine_move"] == {"x": 10, "y": 10}
    check_won_by_engine(play_out(base, game))


def unchanged(base: str, game_id: str, before: dict) -> None:
    status, now = call(base, "GET", f"api/games/{game_id}")
    assert status == 200
    assert now["moves"] == before["moves"] and now["to_move"] == before["to_move"]
    assert now["result"] == before["result"]


def test_bad_requests_get_400_and_change_nothing(server) -> None:
    base, _ = server
    game = new_game(base, level=3)
    moves = f"api/games/{game['id']}/moves"
    bodies = [
        ({"x": 15, "y": 3}, "'x' must be an integer in 0..14, not 15"),
        ({"x": -1, "y": 0}, "in 0..14"), ({"x": 1e30, "y": 0}, "'x' must be an integer in 0..14"),
        ({"x": 3}, "missing field 'y' (an integer in 0..14)"), ({"x": "3", "y": 3}, "integer"),
        ({"x": True, "y": 3}, "integer"), ({"x": 3.0, "y": 3}, "integer"),
        ({"x": 3, "y": 3, "colour": "white"}, "unknown field 'colour'"),
        ([3, 3], "object"),
    ]
    for body, why in bodies:
        status, answer = call(base, "POST", moves, body)
        assert (status, why in answer["error"]) == (400, True), (body, answer)
        unchanged(base, game["id"], game)
    for raw in (b"{", b"x=3&y=4", b"\xff\xfe"):
        status, answer = call(base, "POST", moves, raw=raw)
        assert status == 400 and "not JSON" in answer["error"], (raw, answer)
        unchanged(base, game["id"], game)
    count = len(server[1].store)
    for settings, why in [({"size": 4}, "'size'"), ({"size": 33}, "'size'"),
                          ({"level": 0}, "'level'"), ({"level": 11}, "'level'"),
                          ({"rule": "go"}, "'rule'"), ({"human": "red"}, "'human'"),
                          ({"size": "15"}, "'size'"), ({"opening": "swap"}, "'opening'"),
                          ({"sise": 19}, "unknown field 'sise'"),
                          ({"size": 19, "colour": "black"}, "unknown field 'colour'")]:
        status, answer = call(base, "POST", "api/games", settings)
        assert status == 400 and why in answer["error"], (settings, answer)
    assert len(server[1].store) == count  # no game was made


def test_unknown_game_and_path_get_404(server) -> None:
    base, _ = server
    for method, path, body in [("GET", "api/games/nope", None),
                               ("POST", "api/games/nope/moves", {"x": 7, "y": 7}),
                               ("POST", "api/games/nope/undo", {}),
                               ("POST", "api/games/nope/hint", {}),
                               ("DELETE", "api/games/nope", None),
                               ("GET", "api/nothing", None),
                               ("POST", "api/games/nope/resign", {})]:
        status, answer = call(base, method, path, body)
        assert status == 404 and "error" in answer, (method, path, answer)
    status, answer = call(base, "GET", "api/games")
    assert status == 405 and "POST" in answer["error"]


def test_conflicts_get_409_and_change_nothing(server) -> None:
    base, _ = server
    game = new_game(base, level=3, human="white")
    gid = game["id"]
    for path, body, why in [("moves", {"x": 7, "y": 7}, "occupied"),
                            ("undo", {}, "nothing to take back")]:
        status, answer = call(base, "POST", f"api/games/{gid}/{path}", body)
        assert status == 409 and why in answer["error"], answer
        unchanged(base, gid, game)
    final = play_out(base, game)
    x, y = weak_move(final)
    for path, body in [("moves", {"x": x, "y": y}), ("hint", {})]:
        status, answer = call(base, "POST", f"api/games/{gid}/{path}", body)
        assert status == 409 and "game is over" in answer["error"], answer
        unchanged(base, gid, final)
    # undo after a lost game takes back the engine's five and the last move
    status, back = call(base, "POST", f"api/games/{gid}/undo", {})
    assert status == 200 and back["result"] is None and back["to_move"] == "white"
    assert back["moves"] == final["moves"][:-2] and back["winning_line"] == []


def test_lin_opening_rule(server) -> None:
    """Lin's rule: the person's first black stone off the two outermost rows and columns
    gets 409 and changes nothing; the engine's first black stone obeys the rule."""
    base, _ = server
    game = new_game(base, level=3, human="black", opening="lin")
    assert game["opening"] == "lin" and game["moves"] == []
    status, answer = call(base, "POST", f"api/games/{game['id']}/moves", {"x": 7, "y": 7})
    assert status == 409 and "Lin's rule" in answer["error"], answer
    unchanged(base, game["id"], game)
    status, after = call(base, "POST", f"api/games/{game['id']}/moves", {"x": 1, "y": 7})
    assert status == 200 and after["moves"][0] == {"x": 1, "y": 7, "colour": "black"}
    engine_first = new_game(base, level=3, human="white", opening="lin")
    x, y = engine_first["engine_move"]["x"], engine_first["engine_move"]["y"]
    assert min(x, 14 - x) < 2 or min(y, 14 - y) < 2, (x, y)
    assert new_game(base, level=3)["opening"] == "none"


def test_renju_foul_gets_409(server) -> None:
    base, srv = server
    game = new_game(base, rule="renju", level=3, human="black")
    gid = game["id"]
    # a composed position: black's two twos cross at (9,7)
    srv.store.get(gid).set_stones([(x, y, colour) for pair in (
        ((7, 7), (0, 0)), ((8, 7), (0, 2)), ((9, 8), (0, 4)), ((9, 9), (0, 6)))
        for (x, y), colour in zip(pair, (1, 2))], to_move=1)
    status, game = call(base, "GET", f"api/games/{gid}")
    assert {"x": 9, "y": 7} in game["fouls"] and game["to_move"] == "black"
    status, answer = call(base, "POST", f"api/games/{gid}/moves", {"x": 9, "y": 7})
    assert status == 409 and "foul" in answer["error"] and "double three" in answer["error"]
    unchanged(base, gid, game)


def test_a_move_while_the_engine_thinks_gets_409() -> None:
    with running_server(move_ms=30_000) as (base, srv):  # the engine thinks until stopped
        check_busy_game(base, srv)


def check_busy_game(base: str, srv) -> None:
    game = new_game(base, level=10, human="white")
    gid = game["id"]
    engine_game = srv.store.get(gid)
    answers: list = []
    mover = threading.Thread(target=lambda: answers.append(
        call(base, "POST", f"api/games/{gid}/moves", {"x": 8, "y": 8})))
    mover.start()
    # wait (no timing assumption) until the move is on the board and the engine searches
    deadline = time.monotonic() + 60
    while not engine_game.thinking:
        assert time.monotonic() < deadline and mover.is_alive(), "never saw the engine think"
        time.sleep(0.002)
    expected = [{"x": 7, "y": 7, "colour": "black"}, {"x": 8, "y": 8, "colour": "white"}]
    for _ in range(20):  # the search plays on the board; the answers show the real game
        status, shown = call(base, "GET", f"api/games/{gid}")
        assert status == 200 and shown["thinking"] is True
        assert shown["moves"] == expected and shown["to_move"] == "black"
    for path, body in [("moves", {"x": 0, "y": 0}), ("undo", {}), ("hint", {})]:
        status, answer = call(base, "POST", f"api/games/{gid}/{path}", body)
        assert status == 409 and "thinking" in answer["error"], answer
    engine_game.stop()  # the engine moves now instead of using its whole second
    mover.join(60)
    status, after = answers[0]
    assert status == 200 and len(after["moves"]) == 3
    assert (0, 0) not in {(m["x"], m["y"]) for m in after["moves"]}


def test_games_never_mix(server) -> None:
    base, _ = server
    one, two = new_game(base, level=3), new_game(base, level=3)
    assert one["id"] != two["id"]
    call(base, "POST", f"api/games/{one['id']}/moves", {"x": 8, "y": 8})
    status, shown = call(base, "GET", f"api/games/{two['id']}")
    assert status == 200 and len(shown["moves"]) == 1


def test_hint_and_delete(server) -> None:
    base, _ = server
    game = new_game(base, level=3)
    status, answer = call(base, "POST", f"api/games/{game['id']}/hint", {})
    assert status == 200 and answer["moves"] == game["moves"]
    assert (answer["hint"]["x"], answer["hint"]["y"]) != (7, 7)
    assert answer["hint_analysis"]["side"] == "white"
    assert call(base, "DELETE", f"api/games/{game['id']}")[0] == 200
    assert call(base, "GET", f"api/games/{game['id']}")[0] == 404


def test_games_are_not_dropped_by_other_games_and_only_idle_unfinished_ones_expire() -> None:
    # a small memory cache: the games it forgets are read back from the database
    with running_server(cache_games=2) as (base, srv):
        first = new_game(base, level=3)
        others = [new_game(base, level=1, human="black") for _ in range(40)]
        assert len(srv.store) == 41 and srv.store.in_memory <= 3
        status, shown = call(base, "GET", f"api/games/{first['id']}")
        assert status == 200 and shown["moves"] == first["moves"]
        status, after = call(base, "POST", f"api/games/{first['id']}/moves", {"x": 8, "y": 8})
        assert status == 200 and len(after["moves"]) == 3
        assert all(call(base, "GET", f"api/games/{g['id']}")[0] == 200 for g in others)
    with running_server(expire_s=0.3) as (base, srv):
        idle = new_game(base, level=3)
        ended = play_out(base, new_game(base, level=1))
        time.sleep(0.5)
        status, answer = call(base, "GET", f"api/games/{idle['id']}")
        assert status == 404 and "untouched for" in answer["error"]
        status, shown = call(base, "GET", f"api/games/{ended['id']}")
        assert status == 200 and shown["result"] == "black" and shown["expires"] is None
        assert len(srv.store) == 1


def test_page_and_options(server) -> None:
    base, _ = server
    with urllib.request.urlopen(base, timeout=30) as page:
        html = page.read().decode()
    assert '<canvas id="board"' in html and "/static/app.js" in html
    assert "http" not in html.replace("http-equiv", "")  # nothing from elsewhere: offline
    with urllib.request.urlopen(base + "static/app.js", timeout=30) as script:
        assert script.headers["Content-Type"].startswith("text/javascript")
    for path in ("static/../web.py", "static/nothing.js", "web.py"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + path, timeout=30)
        assert err.value.code == 404
    status, options = call(base, "GET", "api/options")
    assert status == 200 and [lv["level"] for lv in options["levels"]] == list(range(1, 11))
    assert options["rules"] == ["freestyle", "standard", "renju", "caro"]
    assert {15, 20} <= set(options["sizes"])


def raw_request(base: str, method: str, path: str, host: str, body: object = None):
    """``(status, decoded JSON)`` of a request with the given ``Host`` header."""
    address = base.split("//", 1)[1].rstrip("/")
    connection = http.client.HTTPConnection(address, timeout=60)
    try:
        data = None if body is None else json.dumps(body)
        connection.request(method, path, body=data,
                           headers={"Host": host, "Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_requests_for_another_host_are_refused() -> None:
    # DNS rebinding: a page of evil.example.com, its name now resolving to 127.0.0.1,
    # sends its own name in Host; the server must not act on it.
    with running_server(move_ms=500) as (base, srv):
        port = srv.server_address[1]
        for host in ("evil.example.com", f"evil.example.com:{port}", "localhost",
                     f"127.0.0.1:{port + 1}", f"localhost.evil.example.com:{port}"):
            status, answer = raw_request(base, "POST", "/api/games", host,
                                         {"level": 1, "human": "black"})
            assert status == 403 and "does not name this server" in answer["error"], answer
            assert raw_request(base, "GET", "/api/options", host)[0] == 403
            assert raw_request(base, "GET", "/", host)[0] == 403
        assert len(srv.store) == 0  # no game was created
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}",
                     f"[::1]:{port}"):
            status, game = raw_request(base, "POST", "/api/games", host,
                                         {"level": 1, "human": "black"})
            assert status == 200 and game["engine_move"] is None, game
        assert len(srv.store) == 4


def start_web(*options: str) -> tuple[subprocess.Popen, str, str]:
    """``(process, URL, what it printed before)`` of ``gomoku-engine web --no-open``
    serving, its games in a new temporary file; the process's SIGINT is the default one
    (see the Ctrl-C test)."""
    db = os.path.join(tempfile.mkdtemp(prefix="gomoku-web-"), "games.sqlite3")
    # A shell without job control starts background commands with SIGINT ignored, and a
    # child inherits that (then Python installs no KeyboardInterrupt): the server gets
    # the default disposition, as in a terminal, whatever ran the tests.
    process = subprocess.Popen([sys.executable, "-m", "gomoku_engine", "web", "--no-open",
                                "--db", db, *options], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    before = ""
    for line in process.stdout:  # "loading the engine ...", then the address
        if line.startswith("serving the game on "):
            return process, line.split()[4], before
        before += line
    process.wait()
    raise AssertionError(f"the server did not start: {before}")


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process are POSIX")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_web_command_serves_and_stops_on_ctrl_c_and_sigterm(stop: signal.Signals) -> None:
    process, url, before = start_web("--port", "0")
    try:
        assert url.startswith("http://127.0.0.1:") and "warning" not in before
        status, options = call(url, "GET", "api/options")
        assert status == 200 and len(options["levels"]) == 10
        process.send_signal(stop)
        out, _ = process.communicate(timeout=30)
        assert process.returncode == 0 and "stopping" in out and "Traceback" not in out
    finally:
        process.kill()
        process.wait()


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process are POSIX")
def test_web_command_warns_when_not_on_loopback() -> None:
    process, url, before = start_web("--host", "0.0.0.0", "--port", "0")
    try:
        assert "warning: 0.0.0.0 is not a loopback address" in before
        port = url.rstrip("/").rsplit(":", 1)[1]
        status, options = call(f"http://127.0.0.1:{port}/", "GET", "api/options")
        assert status == 200 and len(options["levels"]) == 10
    finally:
        process.terminate()
        process.communicate(timeout=30)


def send(base: str, method: str, path: str, body: bytes | None = None,
         headers: dict | None = None) -> tuple[int, dict, dict]:
    """``(status, decoded JSON, headers)`` of one request with exactly these headers."""
    address = base.split("//", 1)[1].rstrip("/")
    connection = http.client.HTTPConnection(address, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else {}, dict(response.headers)
    finally:
        connection.close()


def test_only_json_from_the_servers_own_page_is_accepted(server) -> None:
    """What another site's page can send without a preflight (a form, text/plain, no type)
    and any request naming another origin are refused, counted, and change nothing."""
    base, srv = server
    game = new_game(base, level=3)
    port = srv.server_address[1]
    before, count = srv.refused.counts(), len(srv.store)
    moves = f"/api/games/{game['id']}/moves"
    body = b'{"x": 8, "y": 8}'
    refusals = [
        ("POST", "/api/games", b"{}", {"Content-Type": "text/plain"}, 415, "content-type"),
        ("POST", moves, body, {"Content-Type": "text/plain;charset=UTF-8"}, 415, "content-type"),
        ("POST", moves, b"x=8&y=8", {"Content-Type": "application/x-www-form-urlencoded"},
         415, "content-type"),
        ("POST", moves, body, {}, 415, "content-type"),
        ("POST", moves, body, {"Content-Type": "application/json",
                               "Origin": "http://evil.example.com"}, 403, "origin"),
        ("POST", moves, body, {"Content-Type": "application/json", "Origin": "null"},
         403, "origin"),
        ("POST", moves, body, {"Content-Type": "application/json",
                               "Origin": f"https://127.0.0.1:{port}"}, 403, "origin"),
        ("DELETE", f"/api/games/{game['id']}", None,
         {"Origin": f"http://127.0.0.1:{port + 1}"}, 403, "origin"),
        ("OPTIONS", moves, None, {"Origin": "http://evil.example.com",
                                  "Access-Control-Request-Method": "POST"}, 403, "origin"),
        ("OPTIONS", moves, None, {}, 405, "method"),
        ("PUT", moves, body, {"Content-Type": "application/json"}, 405, "method"),
        ("PATCH", "/api/games", body, {"Content-Type": "application/json"}, 405, "method"),
    ]
    for method, path, data, headers, status, reason in refusals:
        got, answer, sent = send(base, method, path, data, headers)
        assert (got, "error" in answer) == (status, True), (method, headers, got, answer)
        assert not any(h.lower().startswith("access-control-") for h in sent)
        if status == 405:
            assert sent["Allow"] == "GET, POST, DELETE" and sent["Content-Type"] == \
                "application/json"
    after = srv.refused.counts()
    for reason in ("content-type", "origin", "method"):
        expected = sum(1 for r in refusals if r[5] == reason)
        assert after.get(reason, 0) - before.get(reason, 0) == expected, reason
    unchanged(base, game["id"], game)
    assert len(srv.store) == count
    # the page's own requests: an Origin naming the server, JSON
    status, played, _ = send(base, "POST", moves, body, {
        "Content-Type": "application/json; charset=utf-8",
        "Origin": f"http://localhost:{port}"})
    assert status == 200 and len(played["moves"]) == 3, played
    status, answer, headers = send(base, "GET", "/api/games")
    assert status == 405 and headers["Allow"] == "POST" and "POST" in answer["error"]


def test_a_restarted_server_keeps_every_game(tmp_path) -> None:
    db = tmp_path / "games.sqlite3"
    with running_server(db=db, move_ms=300) as (base, srv):
        game = new_game(base, level=3)
        game = call(base, "POST", f"api/games/{game['id']}/moves", {"x": 8, "y": 8})[1]
        ended = play_out(base, new_game(base, level=1))
    with running_server(db=db, move_ms=300) as (base, srv):
        assert len(srv.store) == 2
        status, shown = call(base, "GET", f"api/games/{game['id']}")
        assert status == 200 and shown["moves"] == game["moves"]
        assert shown["evaluations"] == game["evaluations"] and len(shown["times_ms"]) == 3
        status, shown = call(base, "GET", f"api/games/{ended['id']}")
        assert shown["result"] == "black" and shown["winning_line"] == ended["winning_line"]
        status, after = call(base, "POST", f"api/games/{game['id']}/moves", {"x": 0, "y": 0})
        assert status == 200 and after["moves"][:3] == game["moves"] and len(after["moves"]) == 5


def test_positions_load_from_sgf_psq_and_move_lists_and_download_back(server) -> None:
    base, _ = server
    game = play_out(base, new_game(base, level=1))
    with urllib.request.urlopen(base + f"api/games/{game['id']}/sgf", timeout=30) as answer:
        sgf = answer.read().decode()
        assert "attachment" in answer.headers["Content-Disposition"]
    assert sgf.startswith("(;GM[4]FF[4]SZ[15]") and "RE[B+]" in sgf
    status, answer = call(base, "POST", f"api/games/{game['id']}/evaluate", {})
    assert status == 409 and "game is over" in answer["error"], answer
    with urllib.request.urlopen(base + f"api/games/{game['id']}/psq", timeout=30) as answer:
        psq = answer.read().decode()
    assert psq.splitlines()[0].startswith("Piskvorky 15x15")
    assert len(psq.splitlines()) == len(game["moves"]) + 1
    for text in (sgf, psq):
        status, loaded = call(base, "POST", "api/games", {"position": text, "level": 1})
        assert status == 200 and loaded["moves"] == game["moves"], loaded
        assert loaded["result"] == "black" and loaded["winning_line"] == game["winning_line"]
    # a move list: white (the person) to move after three stones
    status, loaded = call(base, "POST", "api/games", {"position": "h8 i9\nh9", "size": 19})
    assert status == 200 and loaded["size"] == 19 and loaded["engine_move"] is None
    assert [(m["x"], m["y"]) for m in loaded["moves"]] == [(7, 7), (8, 8), (7, 8)]
    # black (the engine) to move after two stones: it moves at once
    status, loaded = call(base, "POST", "api/games", {"position": "7,7 8,8", "level": 1})
    assert status == 200 and len(loaded["moves"]) == 3 and loaded["engine_move"] is not None
    for body, why in [({"position": "h8 h8"}, "move 2 (h8) is off the board or occupied"),
                      ({"position": "(;GM[4]SZ[15];B[hh];W[zz])"}, "not SGF, PSQ"),
                      ({"position": "hello"}, "not SGF, PSQ"),
                      ({"position": "(;SZ[40];B[aa])"}, "5..32"),
                      ({"position": "(;SZ[15];B[aa])", "size": 19}, "differs"),
                      ({"position": 7}, "'position' must be a text")]:
        status, answer = call(base, "POST", "api/games", body)
        assert status == 400 and why in answer["error"], (body, answer)


def test_takeback_to_a_move_and_evaluations(server) -> None:
    base, _ = server
    game = new_game(base, level=3)
    gid = game["id"]
    for point in ((8, 8), (0, 0)):
        game = call(base, "POST", f"api/games/{gid}/moves", dict(zip("xy", point)))[1]
    assert len(game["moves"]) == 5 and [e["ply"] for e in game["evaluations"]] == [0, 2, 4]
    for e in game["evaluations"]:
        black = e["win_rate"] if e["side"] == "black" else 1 - e["win_rate"]
        assert e["black_win_rate"] == round(black, 3)
    status, answer = call(base, "POST", f"api/games/{gid}/evaluate", {"ply": 1})
    assert status == 200 and answer["evaluated"]["side"] == "white"
    assert answer["evaluated"]["ply"] == 1 and answer["moves"] == game["moves"]
    assert [e["ply"] for e in answer["evaluations"]] == [0, 1, 2, 4]
    # back to move 1 (white, the person, to move there): nothing for the engine to play
    status, back = call(base, "POST", f"api/games/{gid}/takeback", {"ply": 1})
    assert status == 200 and back["moves"] == game["moves"][:1] and back["engine_move"] is None
    assert [e["ply"] for e in back["evaluations"]] == [0, 1]
    assert [p for p in back["taken_back"]] == [{"x": m["x"], "y": m["y"]}
                                              for m in game["moves"][:0:-1]]
    # back to the empty board: the engine (black) opens again
    status, again = call(base, "POST", f"api/games/{gid}/takeback", {"ply": 0})
    assert status == 200 and len(again["moves"]) == 1 and again["engine_move"] is not None
    for body, status_, why in [({"ply": 2}, 400, "0..1"), ({"ply": 1}, 409, "already"),
                               ({"move": 0}, 400, "unknown field 'move'")]:
        status, answer = call(base, "POST", f"api/games/{gid}/takeback", body)
        assert status == status_ and why in answer["error"], answer
