"""The page of ``gomoku-engine web`` in a real headless Chromium (selenium).

Skipped, with the reason, where selenium, Chromium or chromedriver is missing (``.ci/run``
installs Debian's ``chromium`` and ``chromium-driver`` when it can).  A screenshot of every
finished game is saved under pytest's temporary directory (``WEB_SCREENSHOTS=dir`` saves
them there instead).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from web_server import running_server, weak_move

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
    assert browser.find_element(By.ID, "message").text.startswith("Hint: ")
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
