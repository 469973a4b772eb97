"""The games of a match as a games file: our own games against another engine, to be scored
by that engine (``gomoku-engine label``) and trained on (``gomoku-engine train``).

Self-play and a stronger engine's games against itself do not hold the positions where our
search goes wrong against that engine; a match against it does.  ``gomoku-engine match
--out FOLDER`` writes each game as ``game_NNN.psq`` (every stone in order, the opening's
first) and ``summary.json`` (per game its result, the reason it ended and how many moves
each side played, the rule and board size under ``settings``).  :func:`read_match` turns a
folder into :class:`~gomoku_engine.training.selfplay.SelfPlayGame` records, which
:func:`gomoku_engine.training.selfplay.save` writes as the ``.npz`` that ``label`` reads.

Only games decided on the board are kept (a five, or a full board): a game lost by a
forfeit says nothing of its positions.  The records have no search scores (0): ``label``
gives them.  The opening is the stones before the engines' first move (the summary's
stones less both sides' moves).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core.constants import COMMAND_RULES, Rule
from ..core.records import RESULT_WINNERS, read_psq
from .selfplay import SelfPlayGame

#: the reasons a game ended on the board (``arena.referee``): kept; any other (a forfeit,
#: a move limit) is left out
_DECIDED = ("five", "board full")


@dataclass
class MatchGames:
    """The games read from match folders, and how many were left out."""

    games: list[SelfPlayGame]
    size: int
    rule: Rule
    left_out: int  #: games not decided on the board (forfeits, move limits)
    engines: list[str]  #: ``name=command line`` of each engine of each folder's match


def read_match(folders: list[Path | str]) -> MatchGames:
    """The games of ``match --out`` folders, all of one board size and rule.

    :raises ValueError: if a folder has no ``summary.json``, a game's record is missing
        or disagrees with the summary (stones, board size), or the folders mix board sizes
        or rules.
    """
    games: list[SelfPlayGame] = []
    engines: list[str] = []
    setup: tuple[int, Rule] | None = None
    left_out = 0
    for folder in map(Path, folders):
        summary_path = folder / "summary.json"
        if not summary_path.is_file():
            raise ValueError(f"{folder}: no summary.json (not a `match --out` folder)")
        summary = json.loads(summary_path.read_text())
        settings = summary["settings"]
        here = (int(settings["size"]), COMMAND_RULES[settings["rule"]])
        if setup is not None and here != setup:
            raise ValueError(f"{folder}: {here[1].name} {here[0]}x{here[0]} games beside "
                             f"{setup[1].name} {setup[0]}x{setup[0]} ones")
        setup = here
        for engine in settings["engines"]:
            line = f"{engine['name']}={' '.join(engine['command'])}"
            if line not in engines:
                engines.append(line)
        for entry in summary["games"]:
            if entry["reason"] not in _DECIDED:
                left_out += 1
                continue
            games.append(_game(folder, entry, here[0]))
    if setup is None:
        raise ValueError("no match folders")
    return MatchGames(games, setup[0], setup[1], left_out, engines)


def _game(folder: Path, entry: dict, size: int) -> SelfPlayGame:
    """One game of ``summary.json``'s ``games`` list, from its ``game_NNN.psq``."""
    path = folder / f"game_{entry['game']:03d}.psq"
    if not path.is_file():
        raise ValueError(f"{path}: missing")
    width, height, moves = read_psq(path.read_text())
    if (width, height) != (size, size) or len(moves) != entry["stones"]:
        raise ValueError(f"{path}: {len(moves)} stones on {width}x{height}, the summary "
                         f"says {entry['stones']} on {size}x{size}")
    played = sum(entry.get(key, {}).get("moves", 0) for key in ("black_moves", "white_moves"))
    return SelfPlayGame(moves=[x + y * size for x, y, _ in moves], scores=[0] * len(moves),
                        opening=entry["stones"] - played, result=RESULT_WINNERS[entry["result"]])


__all__ = ["MatchGames", "read_match"]
