"""Screenshots of ``gomoku-engine web`` for the docs (docs/images/play-*.png).

Runs a server in this process on a free port and drives the page in headless Chromium
(selenium; Debian's ``chromium`` and ``chromium-driver``): an opening, a game in progress
with the analysis view (graph, best line), the same game at an earlier move, a game the
engine won.  The person's moves are the engine's own
hints (the page's Hint button) for the first moves, then the scripted weak points of the
tests, so the engine wins.

    .venv/bin/python tools/web_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from gomoku_engine.play.web import GameStore, make_server, url_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web_server import weak_move  # noqa: E402 (the tests' scripted weak player)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", help="folder of the PNG files")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    server = make_server("127.0.0.1", 0, GameStore(move_ms=1000))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1040,900", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    wait = WebDriverWait(driver, 120)

    def idle() -> dict:
        wait.until(lambda d: d.execute_script(
            "return !window.gomoku.busy() && window.gomoku.state()"))
        return driver.execute_script("return window.gomoku.state()")

    def click(x: int, y: int) -> dict:
        canvas = driver.find_element(By.ID, "board")
        at = driver.execute_script("return window.gomoku.pixel(arguments[0], arguments[1])",
                                   x, y)
        box = canvas.size
        ActionChains(driver).move_to_element_with_offset(
            canvas, at["left"] - box["width"] / 2, at["top"] - box["height"] / 2
        ).click().perform()
        return idle()

    def follow_hint() -> dict:
        driver.find_element(By.ID, "hint").click()
        game = idle()
        text = driver.find_element(By.ID, "note").text  # "Hint: h9 (...)"
        point = text.split()[1]
        return click(ord(point[0]) - ord("a"), int(point[1:]) - 1) if game else game

    def new_game(level: int) -> dict:
        driver.get(url_of(server))
        driver.execute_script("sessionStorage.clear(); localStorage.clear()")
        driver.get(url_of(server))
        wait.until(lambda d: len(Select(d.find_element(By.ID, "level")).options) == 10)
        Select(driver.find_element(By.ID, "level")).select_by_value(str(level))
        driver.find_element(By.ID, "new-game").click()
        return idle()

    try:
        new_game(3)
        follow_hint()
        driver.save_screenshot(str(out / "play-opening.png"))

        new_game(5)
        driver.find_element(By.ID, "show-analysis").click()
        for _ in range(5):
            follow_hint()
        driver.find_element(By.ID, "evaluate").click()
        idle()
        driver.find_element(By.ID, "show-pv").click()
        driver.save_screenshot(str(out / "play-analysis.png"))
        driver.find_element(By.CSS_SELECTOR, "#moves span[data-ply='6']").click()
        driver.save_screenshot(str(out / "play-review.png"))
        driver.find_element(By.ID, "show-pv").click()
        driver.find_element(By.ID, "show-analysis").click()

        game = new_game(3)
        for _ in range(3):
            game = follow_hint()
        while game["result"] is None:
            game = click(*weak_move(game))
        driver.save_screenshot(str(out / "play-won.png"))
        print(f"saved 4 screenshots in {out}; the last game: {game['result']} won after "
              f"{len(game['moves'])} stones")
    finally:
        driver.quit()
        server.shutdown()
        server.store.close()


if __name__ == "__main__":
    main()
