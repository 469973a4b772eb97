"""The web board's API actions (``docs/play.md``), on a
:class:`~gomoku_engine.play.game_store.GameStore`; the HTTP side is
:mod:`gomoku_engine.play.web`.

Each action checks its body (every field known, in range, or 400 naming the field's
range), changes the game under its lock (409 at once when another request holds it) and
saves it; an error leaves the game as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.constants import MAX_SIZE, MIN_SIZE
from ..core.errors import GomokuError, InvalidMoveError
from ..core.notation import Point, parse_moves
from ..core.opening_rules import OPENING_RULES
from ..core.records import read_psq, read_sgf, write_psq, write_sgf
from ..search.levels import MAX_LEVEL, MIN_LEVEL
from .engine_pool import PoolBusy
from .game_store import ApiError, GameStore
from .human import COLOURS, COLOUR_NAMES, HINT_LEVEL, LEVEL_LABELS, RULE_NAMES, HumanGame, Refused

#: Board sizes offered by the page (the API takes any side from 5 to 32).
PAGE_SIZES = (15, 19, 20)
#: Longest position text ``POST /api/games`` takes (characters).
MAX_POSITION = 12_000
DEFAULTS = {"size": 15, "rule": "freestyle", "level": 3, "human": "white", "opening": "none"}


@dataclass(frozen=True)
class Download:
    """A file answer: its text, media type and file name."""

    text: str
    kind: str
    name: str


def game_json(game_id: str, game: HumanGame, store: GameStore, **extra: Any) -> dict[str, Any]:
    """The API's view of a game (see ``docs/play.md``), plus ``extra`` keys."""
    view = game.view()  # consistent even while the engine searches on the board
    record = store.record(game_id)
    last = view.stones[-1] if view.stones else None
    evaluations = []
    for ply in sorted(record.evaluations):
        e = record.evaluations[ply]
        black = e["win_rate"] if e["side"] == "black" else 1 - e["win_rate"]
        evaluations.append({"ply": ply, "black_win_rate": round(black, 3), **e})
    state: dict[str, Any] = {
        "id": game_id,
        "size": game.width,
        "rule": game.rule.name.lower(),
        "level": game.level,
        "opening": game.opening_rule,
        "human": COLOUR_NAMES[game.human],
        "engine": COLOUR_NAMES[game.computer],
        "moves": [{"x": x, "y": y, "colour": COLOUR_NAMES[c]} for x, y, c in view.stones],
        "times_ms": [m[3] for m in record.moves[:len(view.stones)]],
        "last_move": None if last is None else {"x": last[0], "y": last[1]},
        "to_move": None if view.to_move is None else COLOUR_NAMES[view.to_move],
        "result": view.result,
        "winning_line": [{"x": x, "y": y} for x, y in view.winning_line],
        "fouls": [{"x": x, "y": y} for x, y in view.fouls],
        "analysis": view.analysis.as_dict() if view.analysis else None,
        "evaluations": evaluations,
        "thinking": view.thinking,
        "created": record.created, "updated": record.updated, "ended": record.ended,
        "expires": None if record.result else record.updated + store.expire_s,
    }
    state.update(extra)
    return state


def check_fields(body: dict[str, Any], known: tuple[str, ...]) -> None:
    """:raises ApiError: 400 naming the first field of ``body`` not in ``known``."""
    for name in body:
        if name not in known:
            allowed = ", ".join(known) if known else "none"
            raise ApiError(400, f"unknown field {name!r} (this request takes: {allowed})")


def int_field(body: dict[str, Any], name: str, low: int, high: int,
              default: int | None = None) -> int:
    """Field ``name``, an integer in ``low..high`` (``default`` when absent).

    :raises ApiError: 400 when it is missing (without a default), not an integer or out
        of range; the message gives the range.
    """
    if name not in body:
        if default is None:
            raise ApiError(400, f"missing field {name!r} (an integer in {low}..{high})")
        return default
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, f"{name!r} must be an integer in {low}..{high}, not "
                            f"{_short(value)}")
    return value


def choice_field(body: dict[str, Any], name: str, choices: tuple[str, ...] | list[str]) -> str:
    value = body.get(name, DEFAULTS[name])
    if value not in choices:
        raise ApiError(400, f"{name!r} must be one of {', '.join(choices)}, not {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_position(text: str) -> tuple[int | None, list[Point]]:
    """``(size or None, points)`` of a position given as SGF (``(;GM[4]...``), PSQ
    (``Piskvorky 15x15, ...``) or a move string (``h8 i9`` / ``7,7 8,8``); SGF and PSQ
    give the board's size.

    :raises ApiError: 400 when the text is none of these.
    """
    text = text.strip()
    try:
        if text.startswith("("):
            return read_sgf(text)
        if text.startswith("Piskvorky"):
            width, height, moves = read_psq(text)
            if width != height:
                raise ApiError(400, f"the board must be square, not {width}x{height}")
            return width, [(x, y) for x, y, _ in moves]
        return None, parse_moves(re.sub(r"\s+", " " if "," in text else "", text))
    except (ValueError, GomokuError) as exc:
        raise ApiError(400, f"'position' is not SGF, PSQ or a move list: {exc}") from None


class Api:
    """The API's actions on a :class:`GameStore`; each returns the JSON answer.

    :raises ApiError: for every error answer (the game is unchanged then).
    """

    def __init__(self, store: GameStore) -> None:
        self.store = store

    def options(self) -> dict[str, Any]:
        return {"levels": [{"level": n, "label": LEVEL_LABELS[n]}
                           for n in range(MIN_LEVEL, MAX_LEVEL + 1)],
                "rules": list(RULE_NAMES), "sizes": list(PAGE_SIZES),
                "min_size": MIN_SIZE, "max_size": MAX_SIZE, "colours": list(COLOURS),
                "openings": list(OPENING_RULES), "defaults": dict(DEFAULTS)}

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        check_fields(body, ("size", "rule", "level", "human", "opening", "position"))
        position = body.get("position", "")
        if not isinstance(position, str) or len(position) > MAX_POSITION:
            raise ApiError(400, f"'position' must be a text of at most {MAX_POSITION} "
                                "characters (SGF, PSQ or a move list)")
        record_size, points = read_position(position) if position.strip() else (None, [])
        size = int_field(body, "size", MIN_SIZE, MAX_SIZE, record_size or DEFAULTS["size"])
        if record_size is not None and size != record_size:
            raise ApiError(400, f"'size' {size} differs from the position's {record_size}")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ApiError(400, f"the position's board must be {MIN_SIZE}..{MAX_SIZE} wide, "
                                f"not {size}")
        game = self.store.new_game(
            size, choice_field(body, "rule", list(RULE_NAMES)),
            int_field(body, "level", MIN_LEVEL, MAX_LEVEL, DEFAULTS["level"]),
            choice_field(body, "human", list(COLOURS)),
            choice_field(body, "opening", list(OPENING_RULES)))
        try:
            game.set_stones([(x, y, 1 + i % 2) for i, (x, y) in enumerate(points)])
        except GomokuError as exc:
            raise ApiError(400, f"'position': {exc}") from None
        with game.lock:
            game_id = self.store.add(game)
            try:
                move, evaluation = self._reply(game)
            except ApiError:
                self.store.drop(game_id)  # no game at all rather than one the engine skipped
                raise
            self.store.save(game_id, evaluation)
            return game_json(game_id, game, self.store, engine_move=_point(move))

    def show(self, game_id: str) -> dict[str, Any]:
        with self.store.use(game_id) as game:
            return game_json(game_id, game, self.store, engine_move=None)

    def move(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.store.use(game_id) as game, _held(game):
            check_fields(body, ("x", "y"))
            x = int_field(body, "x", 0, game.width - 1)
            y = int_field(body, "y", 0, game.height - 1)
            try:
                game.play(x, y)
            except InvalidMoveError as exc:
                raise ApiError(400, str(exc)) from None
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            except PoolBusy as exc:
                raise ApiError(503, str(exc)) from None
            try:
                move, evaluation = self._reply(game)
            except ApiError:
                game.retract()  # the game unchanged: the person's move taken back too
                raise
            self.store.save(game_id, evaluation)
            return game_json(game_id, game, self.store, engine_move=_point(move))

    def undo(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.store.use(game_id) as game, _held(game):
            check_fields(body, ())
            try:
                taken = game.undo()
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            except PoolBusy as exc:
                raise ApiError(503, str(exc)) from None
            self.store.save(game_id)
            return game_json(game_id, game, self.store, engine_move=None,
                             taken_back=[{"x": x, "y": y} for x, y in taken])

    def takeback(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Back to the position after ``ply`` stones; the engine moves there if it is to
        move (so the person plays on from there)."""
        with self.store.use(game_id) as game, _held(game):
            check_fields(body, ("ply",))
            stones = game.stones()
            ply = int_field(body, "ply", 0, len(stones))
            if ply == len(stones):
                raise ApiError(409, f"the game is already at move {ply}")
            try:
                game.set_stones(stones[:ply])
                move, evaluation = self._reply(game)
            except (ApiError, PoolBusy) as exc:
                game.set_stones(stones)
                raise exc if isinstance(exc, ApiError) else ApiError(503, str(exc)) from None
            self.store.save(game_id, evaluation)
            return game_json(game_id, game, self.store, engine_move=_point(move),
                             taken_back=[{"x": x, "y": y} for x, y, _ in stones[ply:][::-1]])

    def hint(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.store.use(game_id) as game, _held(game):
            check_fields(body, ())
            try:
                game.check_turn()
            except Refused as exc:
                raise ApiError(409, str(exc)) from None
            move, analysis = self.store.think(game.hint)
            found = analysis.as_dict()
            self.store.save(game_id, (game.ply, found))
            return game_json(game_id, game, self.store, engine_move=None, hint=_point(move),
                             hint_analysis=found)

    def evaluate(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """The engine's evaluation of the position after ``ply`` stones (default: now),
        from the side to move there, searched as a hint is; kept for the graph."""
        with self.store.use(game_id) as game, _held(game):
            check_fields(body, ("ply",))
            stones = game.stones()
            ply = int_field(body, "ply", 0, len(stones), len(stones))
            side = 3 - stones[ply - 1][2] if ply else 1
            probe = self.store.new_game(game.width, game.rule.name.lower(),
                                        max(game.level, HINT_LEVEL), COLOUR_NAMES[side],
                                        game.opening_rule)
            probe.set_stones(stones[:ply])
            try:
                move, analysis = self.store.think(probe.hint)
            except Refused as exc:
                raise ApiError(409, f"position after move {ply}: {exc}") from None
            found = analysis.as_dict()
            self.store.save(game_id, (ply, found))
            return game_json(game_id, game, self.store, engine_move=None,
                             evaluated={"ply": ply, "move": _point(move), **found})

    def download(self, game_id: str, kind: str) -> Download:
        """The game as SGF (``kind == "sgf"``) or PSQ (``"psq"``)."""
        with self.store.use(game_id) as game:
            record = self.store.record(game_id)
            stones = game.stones()
            name = f"gomoku-{game_id}.{kind}"
            if kind == "psq":
                times = [m[3] for m in record.moves[:len(stones)]]
                times += [0] * (len(stones) - len(times))
                moves = [(x, y, ms) for (x, y, _), ms in zip(stones, times)]
                return Download(write_psq(moves, game.width), "text/plain; charset=utf-8",
                                name)
            players = {game.human: "person", game.computer: f"gomoku-engine level {game.level}"}
            result = {"black": "B+", "white": "W+", "draw": "0"}.get(game.result or "", "")
            text = write_sgf([(x, y) for x, y, _ in stones], game.width, players[1],
                             players[2], result)
            return Download(text, "application/x-go-sgf; charset=utf-8", name)

    def delete(self, game_id: str) -> dict[str, Any]:
        self.store.drop(game_id)
        return {"id": game_id, "deleted": True}

    def _reply(self, game: HumanGame) -> tuple[Point | None, tuple[int, dict] | None]:
        """The engine's move if it is to move, and its evaluation ``(ply, analysis)``."""
        ply = game.ply
        move = self.store.think(game.reply)
        if move is None or game.analysis is None:
            return move, None
        return move, (ply, game.analysis.as_dict())


class _held:  # noqa: N801 (used as a function in ``with``)
    """``with``: the game's lock, or 409 at once if another request holds it."""

    def __init__(self, game: HumanGame) -> None:
        self.game = game

    def __enter__(self) -> HumanGame:
        if not self.game.lock.acquire(blocking=False):
            raise ApiError(409, "it is not your turn: the engine is thinking")
        return self.game

    def __exit__(self, *exc: object) -> None:
        self.game.lock.release()


def _point(move: Point | None) -> dict[str, int] | None:
    return None if move is None else {"x": move[0], "y": move[1]}


__all__ = ["Api", "ApiError", "DEFAULTS", "Download", "PAGE_SIZES", "game_json",
           "read_position"]
