"""The page of ``gomoku-engine web`` in a real headless Chromium (selenium).

Skipped, with the reason, where selenium, Chromium or chromedriver is missing (``.ci/run``
installs Debian's ``chromium`` and ``chromium-driver`` when it can).  A screenshot of every
finished game is saved under pytest's temporary directory (``WEB_SCREENSHOTS=dir`` saves
them there instead).
"""

from __future__ import annotations

import os
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from web_server import call, running_server, weak_move

webdriver = pytest.importorskip("selenium.webdriver",
                                reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                 if p), None)
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium/chromedriver on this machine (Debian: apt-get install chromium "
                "chromium-driver; .ci/run does it)", allow_module_level=True)

WAIT_S = 120  # generous: the suite may run beside engine matches on two busy cores


@pytest.fixture(scope="module")
def server():
    with running_server(move_ms=500) as (url, srv):
        yield url, srv


@pytest.fixture(scope="module")
def base(server):
    return server[0]


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1000,760"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except Exception as exc:  # noqa: BLE001 (whatever keeps the browser from starting)
        pytest.skip(f"Chromium did not start: {exc}")
    yield driver
    driver.quit()


def shots_dir(tmp_path_factory) -> Path:
    where = os.environ.get("WEB_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def state(driver) -> dict | None:
    return driver.execute_script("return window.gomoku.state()")


def idle(driver) -> dict:
    """Wait until no request is on its way; the page's game then."""
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.execute_script("return !window.gomoku.busy() && window.gomoku.state()"))
    return state(driver)


def click_point(driver, x: int, y: int) -> None:
    """A real mouse click on point (x, y) of the canvas (selenium offsets from its centre)."""
    canvas = driver.find_element(By.ID, "board")
    at = driver.execute_script("return window.gomoku.pixel(arguments[0], arguments[1])", x, y)
    box = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", canvas)
    ActionChains(driver).move_to_element_with_offset(
        canvas, at["left"] - box[0] / 2, at["top"] - box[1] / 2).click().perform()


def console_errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def start_game(driver, base: str, level: int, colour: str = "white", rule: str = "freestyle",
               size: int = 15) -> dict:
    driver.get(base)
    driver.execute_script("sessionStorage.clear()")
    driver.get(base)
    WebDriverWait(driver, WAIT_S).until(
        lambda d: len(Select(d.find_element(By.ID, "level")).options) == 10)
    Select(driver.find_element(By.ID, "level")).select_by_value(str(level))
    Select(driver.find_element(By.ID, "colour")).select_by_value(colour)
    Select(driver.find_element(By.ID, "rule")).select_by_value(rule)
    Select(driver.find_element(By.ID, "size")).select_by_value(str(size))
    driver.find_element(By.ID, "new-game").click()
    return idle(driver)


@pytest.mark.parametrize("level", [1, 3, 5, 10])
def test_a_whole_game_in_the_browser(browser, base, level, tmp_path_factory) -> None:
    game = start_game(browser, base, level)
    assert game["level"] == level and game["moves"] == [{"x": 7, "y": 7, "colour": "black"}]
    assert browser.find_element(By.ID, "status").text.startswith("Your move (white)")
    for _ in range(40):
        if game["result"] is not None:
            break
        x, y = weak_move(game)
        stones = len(game["moves"])
        click_point(browser, x, y)
        game = idle(browser)
        assert {"x": x, "y": y, "colour": "white"} in game["moves"], "the click missed"
        if game["result"] is None:  # the engine's stone appeared
            assert len(game["moves"]) == stones + 2 and game["moves"][-1]["colour"] == "black"
    assert game["result"] == "black" and len(game["winning_line"]) == 5
    status = browser.find_element(By.ID, "status")
    assert status.text == "The engine wins (black)." and "lost" in status.get_attribute("class")
    browser.save_screenshot(str(shots_dir(tmp_path_factory) / f"won-level{level}.png"))
    assert console_errors(browser) == []


def test_undo_hint_analysis_and_refusals(browser, base) -> None:
    game = start_game(browser, base, level=3)
    click_point(browser, 7, 7)  # occupied: refused on the page, nothing sent
    assert "occupied" in browser.find_element(By.ID, "message").text
    click_point(browser, 8, 8)
    game = idle(browser)
    assert len(game["moves"]) == 3
    browser.find_element(By.ID, "show-analysis").click()
    analysis = browser.find_element(By.ID, "analysis")
    assert analysis.is_displayed() and "depth 3" in analysis.text and "pv " in analysis.text
    browser.find_element(By.ID, "hint").click()
    game = idle(browser)
    # a hint is information, not an error: in the blue note, as the player's chances
    note = browser.find_element(By.ID, "note")
    assert note.text.startswith("Hint: ") and "your chances" in note.text, note.text
    assert browser.find_element(By.ID, "message").text == ""
    assert note.value_of_css_property("color") != \
        browser.find_element(By.ID, "message").value_of_css_property("color")
    browser.find_element(By.ID, "undo").click()
    game = idle(browser)
    assert game["moves"] == [{"x": 7, "y": 7, "colour": "black"}]
    assert browser.find_element(By.ID, "undo").get_attribute("disabled") is not None
    assert console_errors(browser) == []


def test_renju_fouls_are_marked_and_refused(browser, server, tmp_path_factory) -> None:
    base, srv = server
    game = start_game(browser, base, level=3, colour="black", rule="renju")
    assert game["moves"] == [] and game["to_move"] == "black"
    # a composed position: a double three at (9,7)
    srv.store.get(game["id"]).set_stones([(x, y, colour) for pair in (
        ((7, 7), (0, 0)), ((8, 7), (0, 2)), ((9, 8), (0, 4)), ((9, 9), (0, 6)))
        for (x, y), colour in zip(pair, (1, 2))], to_move=1)
    browser.refresh()  # the tab keeps its game
    game = idle(browser)
    assert len(game["moves"]) == 8 and {"x": 9, "y": 7} in game["fouls"]
    assert "red crosses are fouls" in browser.find_element(By.ID, "status").text
    click_point(browser, 9, 7)
    assert "foul" in browser.find_element(By.ID, "message").text
    assert idle(browser)["moves"] == game["moves"]
    browser.save_screenshot(str(shots_dir(tmp_path_factory) / "renju-fouls.png"))
    assert console_errors(browser) == []


def other_games(base: str, count: int) -> list[str]:
    """``count`` games created through the API at once (the person has black: no engine
    move), as other visitors' would be; their ids."""
    def create(_: int) -> str:
        status, game = call(base, "POST", "api/games", {"level": 1, "human": "black"})
        assert status == 200, game
        return game["id"]
    with ThreadPoolExecutor(4) as requests:
        return list(requests.map(create, range(count)))


def test_a_game_survives_1000_other_games_and_a_restart(browser, tmp_path) -> None:
    db = tmp_path / "games.sqlite3"
    with running_server(db=db, move_ms=500) as (base, srv):
        port = srv.server_address[1]
        game = start_game(browser, base, level=3)
        click_point(browser, 8, 8)
        game = idle(browser)
        assert len(game["moves"]) == 3
        assert browser.current_url.endswith("?game=" + game["id"])  # a link resumes it
        others = other_games(base, 1000)
        assert len(set(others)) == 1000 and len(srv.store) == 1001
        assert srv.store.in_memory <= srv.store.cache_games + 1
        click_point(browser, 0, 0)  # the game plays on after 1,000 others
        game = idle(browser)
        assert len(game["moves"]) == 5 and browser.find_element(By.ID, "message").text == ""
    url = browser.current_url
    with running_server(port=port, db=db, move_ms=500) as (base, srv):  # a restart
        assert len(srv.store) == 1001
        browser.execute_script("sessionStorage.clear()")  # the address alone resumes it
        browser.get(url)
        resumed = idle(browser)
        assert resumed["id"] == game["id"] and resumed["moves"] == game["moves"]
        assert browser.find_element(By.ID, "status").text.startswith("Your move (white)")
        click_point(browser, 2, 0)
        assert len(idle(browser)["moves"]) == 7
        # a game deleted while its page is open: said so, never "thinking" forever
        assert call(base, "DELETE", f"api/games/{game['id']}")[0] == 200
        click_point(browser, 4, 0)
        WebDriverWait(browser, WAIT_S).until(
            lambda d: not d.execute_script("return window.gomoku.busy()"))
        assert "no longer on the server" in browser.find_element(By.ID, "message").text
        assert browser.find_element(By.ID, "status").text.startswith("Choose the settings")
        assert state(browser) is None and "?game=" not in browser.current_url
        browser.get(url)  # its address now: a message, not a silent empty board
        WebDriverWait(browser, WAIT_S).until(
            lambda d: "is not on the server" in d.find_element(By.ID, "message").text)
    # the only errors: the two answers 404 about the deleted game (the browser logs them)
    errors = console_errors(browser)
    assert len(errors) == 2 and all("404 (Not Found)" in e["message"] for e in errors), errors


ATTACKER_PAGE = """<!DOCTYPE html><html><body>
<form id="form" method="POST" enctype="text/plain" target="sink" action="{moves}">
<input name='{{"x": 3, "y": 3, "pad": "' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
const tries = [
  ["create, no-cors text/plain", () => fetch("{base}api/games",
      {{method: "POST", mode: "no-cors", body: "{{}}"}})],
  ["move, no-cors text/plain", () => fetch("{moves}",
      {{method: "POST", mode: "no-cors", body: JSON.stringify({{x: 8, y: 8}})}})],
  ["move, no-cors form body", () => fetch("{moves}", {{method: "POST", mode: "no-cors",
      body: new URLSearchParams({{x: "8", y: "8"}})}})],
  ["create, cors JSON (preflight)", () => fetch("{base}api/games", {{method: "POST",
      headers: {{"Content-Type": "application/json"}}, body: "{{}}"}})],
  ["delete, cors (preflight)", () => fetch("{game}", {{method: "DELETE"}})],
  ["beacon", async () => navigator.sendBeacon("{moves}", JSON.stringify({{x: 9, y: 9}}))],
];
window.results = [];
window.done = (async () => {{
  for (const [name, attempt] of tries) {{
    try {{
      const answer = await attempt();
      window.results.push([name, typeof answer === "boolean" ? "sent" : answer.type + " " + answer.status]);
    }} catch (err) {{
      window.results.push([name, "failed: " + err.message]);
    }}
  }}
  document.getElementById("form").submit();
  return window.results;
}})();
</script></body></html>"""


class _Attacker(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args) -> None:
        pass


def test_a_page_of_another_origin_can_neither_create_nor_move(browser, server) -> None:
    base, srv = server
    game = start_game(browser, base, level=3)
    count, refused = len(srv.store), srv.refused.total()
    moves = f"{base}api/games/{game['id']}/moves"
    page = ATTACKER_PAGE.format(base=base, moves=moves, game=f"{base}api/games/{game['id']}")
    handler = type("Attacker", (_Attacker,), {"page": page.encode()})
    attacker = ThreadingHTTPServer(("127.0.0.1", 0), handler)  # another port: another origin
    thread = threading.Thread(target=attacker.serve_forever, daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{attacker.server_address[1]}/")
        results = browser.execute_async_script(
            "window.done.then(arguments[arguments.length - 1])")
        # the form's POST is a navigation of the frame: wait until the server saw it
        WebDriverWait(browser, WAIT_S).until(
            lambda d: srv.refused.total() - refused >= len(results) + 1)
    finally:
        attacker.shutdown()
        attacker.server_close()
    answers = dict(results)
    assert answers["create, cors JSON (preflight)"].startswith("failed")
    assert answers["delete, cors (preflight)"].startswith("failed")
    # every request reached the server (a preflight instead of the request itself) and was
    # refused: counted, and nothing changed
    assert srv.refused.total() - refused == len(results) + 1, (results, srv.refused.counts())
    assert len(srv.store) == count
    status, now = call(base, "GET", f"api/games/{game['id']}")
    assert status == 200 and now["moves"] == game["moves"]
    # the browser logs the refusals (403, the failed preflights); read here, so the next
    # test's check sees only its own errors
    assert all(e["source"] in ("network", "javascript") for e in console_errors(browser))


def test_the_analysis_view(browser, base, tmp_path_factory) -> None:
    browser.get(base)
    browser.execute_script("localStorage.clear()")  # as a first-time visitor
    game = start_game(browser, base, level=3)
    box = browser.find_element(By.ID, "analysis-view")
    assert not box.is_displayed()  # a first-time visitor sees the plain game
    browser.find_element(By.ID, "show-analysis").click()
    assert box.is_displayed()
    for _ in range(3):
        x, y = weak_move(game)
        click_point(browser, x, y)
        game = idle(browser)
    assert len(game["moves"]) == 7
    # the graph: one point per evaluation (the engine's moves), at black's win rate
    assert [e["ply"] for e in game["evaluations"]] == [0, 2, 4, 6]
    dots = browser.find_elements(By.CSS_SELECTOR, "#graph circle.dot")
    assert [int(d.get_attribute("data-ply")) for d in dots] == [0, 2, 4, 6]
    heights = [float(d.get_attribute("cy")) for d in dots]
    rates = [e["black_win_rate"] for e in game["evaluations"]]
    for (h1, r1), (h2, r2) in zip(zip(heights, rates), zip(heights[1:], rates[1:])):
        assert (h1 > h2) == (r1 < r2) or r1 == r2  # higher on the graph: better for black
    # evaluate the position now (white to move), then its best line on the board
    browser.find_element(By.ID, "evaluate").click()
    game = idle(browser)
    assert [e["ply"] for e in game["evaluations"]] == [0, 2, 4, 6, 7]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#graph circle.dot")) == 5
    evaluation = game["evaluations"][-1]
    assert evaluation["side"] == "white"
    assert browser.execute_script("return window.gomoku.shown().pv") == []
    browser.find_element(By.ID, "show-pv").click()
    pv = browser.execute_script("return window.gomoku.shown().pv")
    assert pv and [(p["x"], p["y"]) for p in pv] == \
        [(p["x"], p["y"]) for p in evaluation["pv"]][:len(pv)]
    assert [p["colour"] for p in pv[:2]] == ["white", "black"][:len(pv[:2])]
    assert "best line " + evaluation["pv_text"] in browser.find_element(By.ID, "pv").text
    browser.save_screenshot(str(shots_dir(tmp_path_factory) / "analysis.png"))
    # navigation: a move of the list, back and on; the board shows that position
    browser.find_element(By.CSS_SELECTOR, "#moves span[data-ply='3']").click()
    assert browser.execute_script("return window.gomoku.shown().ply") == 3
    assert browser.find_element(By.ID, "ply").text == "move 3 of 7"
    assert browser.find_element(By.ID, "status").text.startswith("Move 3 of 7 shown")
    browser.find_element(By.ID, "prev").click()
    assert browser.execute_script("return window.gomoku.shown().ply") == 2
    browser.find_element(By.ID, "next").click()
    click_point(browser, 0, 14)  # a past position: the click is refused, nothing sent
    assert "Take back to here" in browser.find_element(By.ID, "message").text
    assert idle(browser)["moves"] == game["moves"]
    # take back to move 3 (white, the person, to move there) and play on
    browser.find_element(By.ID, "takeback").click()
    back = idle(browser)
    assert back["moves"] == game["moves"][:3]
    assert browser.execute_script("return window.gomoku.shown().ply") == 3
    x, y = weak_move(back)
    click_point(browser, x, y)
    played = idle(browser)
    assert played["moves"][:4] == back["moves"] + [{"x": x, "y": y, "colour": "white"}]
    assert len(played["moves"]) == 5
    # the SGF download, loaded back as a new game
    sgf = browser.execute_async_script(
        "fetch(document.getElementById('sgf').href).then((r) => r.text())"
        ".then(arguments[arguments.length - 1])")
    assert sgf.startswith("(;GM[4]FF[4]SZ[15]") and sgf.count(";B[") == 3
    browser.find_element(By.CSS_SELECTOR, "#load-box summary").click()
    browser.find_element(By.ID, "position").send_keys(sgf)
    browser.find_element(By.ID, "load").click()
    loaded = idle(browser)
    assert loaded["id"] != played["id"] and loaded["moves"] == played["moves"]
    assert browser.current_url.endswith("?game=" + loaded["id"])
    assert browser.find_element(By.ID, "note").text == "Loaded 5 moves."
    assert console_errors(browser) == []
