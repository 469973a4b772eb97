"""Every ``MESSAGE`` line the engine prints, and a parser of its search lines.

``MESSAGE`` lines are free text for the manager's log (docs/protocol.md section
3); a manager shows them, a tool may read them.  This module writes them all, so the
format has one owner, and reads back the search lines (:func:`parse_search_line`, used by
``gomoku-engine label``).  A search line gives the last completed iteration (the line
before the move; with ``INFO show_detail``, one per iteration too), in the form Rapfi
writes (its ``UCILIKE`` message mode, ``Rapfi/search/searchoutput.cpp``) and tools such
as pygomo-lib read::

    MESSAGE depth 9-14 ev -163 n 52113 n/ms 74 tm 703 pv h8 i9 j10
    MESSAGE depth 5-7 ev +M3 n 1048 n/ms 312 tm 3 pv h8 i9 h9

``ev`` is the score for the side to move in centi-stones, or ``+M<n>`` / ``-M<n>``: a
forced win / loss in ``n`` plies (:func:`score_text`, Rapfi's ``operator<<(Value)``);
``n`` nodes, ``n/ms`` nodes per millisecond, ``tm`` milliseconds since the command
arrived, ``pv`` the principal variation in letter-number points (at most ten in the final
line).  The lines of earlier versions (no ``n/ms`` in the final line, mates as ``win in
N`` / ``loss in N``, ``multipv <k>`` before ``depth``) are read too.  ``YXNBEST``'s lines
before the move add ``multipv <k>`` after the depth, as Rapfi's do (:func:`multipv_line`).
Yixin-Board's live marks are ``MESSAGE REALTIME`` lines (:func:`realtime_lines`); its
detail lines are ``INFO`` lines, written by :mod:`gomoku_engine.protocol.analysis`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core.constants import MATE, mate_in
from ..core.errors import InvalidMoveError
from ..core.notation import (Point, format_pair, format_point, format_score, parse_moves,
                             parse_score)
from ..search.limits import SearchInfo, SearchResult

#: Points of the principal variation in the line after the move (the rest is noise).
PV_SHOWN = 10

_SEARCH_LINE = re.compile(
    r"MESSAGE (?:multipv (?P<old_multipv>\d+) )?depth (?P<depth>\d+)-(?P<seldepth>\d+) "
    r"(?:multipv (?P<multipv>\d+) )?ev (?P<score>-?\d+|[+-]M\d+|(?:win|loss) in \d+)"
    r" n (?P<nodes>\d+)(?: n/ms \d+)? tm (?P<time>\d+) pv ?(?P<pv>.*)")
_MATE_TEXT = re.compile(r"([+-])M(\d+)")


def score_text(score: int) -> str:
    """A search score as the search lines write it: centi-stones, or ``+M<n>`` /
    ``-M<n>`` for a forced win / loss in ``n`` plies (Rapfi's form, which managers and
    pygomo-lib read; :func:`gomoku_engine.core.notation.format_score` writes the words)."""
    plies = mate_in(score)
    if plies is None:
        return str(score)
    return f"+M{plies}" if plies > 0 else f"-M{-plies}"


def _read_score(text: str) -> int:
    """The score of :func:`score_text`, or of the words of earlier lines (``win in 5``)."""
    mate = _MATE_TEXT.fullmatch(text)
    if mate is None:
        return parse_score(text)
    plies = int(mate.group(2))
    return MATE - plies if mate.group(1) == "+" else -(MATE - plies)


def _speed(nodes: int, time_ms: float) -> int:
    """Nodes per millisecond (the ``n/ms`` field); 0 under a millisecond."""
    return int(nodes / time_ms) if time_ms >= 1 else 0



def _pv_text(pv: Iterable[Point]) -> str:
    return " ".join(format_point(p) for p in pv)


def result_line(result: SearchResult) -> str:
    """The line printed before the move: the last completed iteration's figures, with the
    whole search's nodes and time."""
    return (f"MESSAGE depth {result.depth}-{result.seldepth} ev {score_text(result.score)} "
            f"n {result.nodes} n/ms {_speed(result.nodes, result.time_ms)} "
            f"tm {result.time_ms:.0f} pv {_pv_text(result.pv[:PV_SHOWN])}")


def iteration_line(info: SearchInfo) -> str:
    """The line of one completed iteration (``INFO show_detail`` bit 1, realtime: what a
    human reads in the manager's log while the engine thinks)."""
    return (f"MESSAGE depth {info.depth}-{info.seldepth} ev {score_text(info.score)} "
            f"n {info.nodes} n/ms {info.nps // 1000} tm {info.time_ms:.0f} "
            f"pv {_pv_text(info.pv)}")


#: The words of :func:`kernel_free_line` a manager's log is searched for
#: (:func:`is_kernel_free_line`; the referee counts such moves per engine).
KERNEL_FREE_MARK = "kernel-free move"


def kernel_free_line(time_ms: float) -> str:
    """The line before a move chosen without the search (its kernels were still loading
    or compiling when the move's time ran out), ``time_ms`` after the request."""
    return f"MESSAGE kernels still loading: {KERNEL_FREE_MARK} in {time_ms:.0f} ms"


def is_kernel_free_line(line: str) -> bool:
    """Whether an engine's output ``line`` is :func:`kernel_free_line`'s (any time)."""
    return line.startswith("MESSAGE ") and KERNEL_FREE_MARK in line


def multipv_line(index: int, line: SearchResult) -> str:
    """A line of ``YXNBEST``'s answer, before the move: the ``index``-th best move
    (1-based) with its own figures, as :func:`result_line` with ``multipv <index>`` after
    the depth (Rapfi's form; :func:`parse_search_line` reads it, ``multipv`` included)."""
    text = result_line(line)
    depth_end = text.index(" ev ")
    return f"{text[:depth_end]} multipv {index}{text[depth_end:]}"


def realtime_lines(info: SearchInfo) -> list[str]:
    """Yixin-Board's live board marks for one searched line (``INFO show_detail`` bit 1,
    Rapfi's ``SearchPrinter``): ``MESSAGE REALTIME LOSE x,y`` when the line's move loses
    by force (Rapfi writes ``LOST``; the GUI reads the first letter), and after the first
    line of an iteration ``MESSAGE REALTIME REFRESH`` (clear the marks) and
    ``MESSAGE REALTIME BEST x,y`` (the best move so far).

    Rapfi's ``POS x,y`` / ``DONE x,y`` (the root move being searched) are not written: the
    search reports whole iterations, and Rapfi too writes them only without aspiration
    windows, which it uses by default."""
    if not info.pv:
        return []
    lines = []
    plies = mate_in(info.score)
    if plies is not None and plies < 0:
        lines.append(f"MESSAGE REALTIME LOSE {format_pair(info.pv[0])}")
    if info.pv_index == 0:
        lines += ["MESSAGE REALTIME REFRESH", f"MESSAGE REALTIME BEST {format_pair(info.pv[0])}"]
    return lines


def balance_line(moves: list[Point], score: int, bias: int) -> str:
    """The line before the answer to ``YXBALANCEONE``/``YXBALANCETWO``: the moves and the
    score after them for the side to move in the position given, and the bias asked."""
    return (f"MESSAGE balance {_pv_text(moves)} ev {format_score(score)} bias {bias} "
            "(for the side to move before them)")


def swap2_line(score: int) -> str:
    """The line before a Swap2 answer: the opening's score for white to move."""
    return f"MESSAGE swap2 ev {format_score(score)} (white to move)"


def ignored_info_line(key: str, value: str, reason: str) -> str:
    """An ``INFO`` setting left unchanged, and why (``reason``: what was expected)."""
    return f"MESSAGE ignored INFO {key} {value!r}: {reason}"


def unknown_name_line(key: str, name: str, choices: tuple[str, ...]) -> str:
    """An ``INFO`` key given a name it does not know (``INFO evaluation nosuch``): an
    ``ERROR``, as for a bad ``INFO param``; the setting stays as it was."""
    return (f"ERROR INFO {key} {name!r} is unknown: expected " + " or ".join(choices)
            + f"; {key} unchanged")


def network_fallback_line(evaluation: str, rule_name: str, width: int, height: int) -> str:
    """``INFO evaluation network`` (or ``spatial``) where the package has no such network
    for the rule and board (:func:`gomoku_engine.eval.network_available`): the engine plays
    with the classical evaluation, and says so."""
    return (f"MESSAGE evaluation {evaluation}: no network for {rule_name.lower()} on "
            f"{width}x{height}; playing with the classical evaluation")


def max_hash_size(max_hash_mb: int) -> int:
    """``YXSHOWINFO``'s ``MAX_HASH_SIZE`` for a largest table of ``max_hash_mb`` MiB:
    Yixin-Board's hash slider goes up to 2**this KiB (2**(this - 10) MiB) and sends the
    choice as ``INFO hash_size`` in KiB, so 18 for 256 MiB (a smaller table is rounded
    down to a power of two)."""
    return (max_hash_mb * 1024).bit_length() - 1


def engine_info_lines(version: str, max_threads: int, max_hash_mb: int) -> list[str]:
    """``YXSHOWINFO``'s answer (Yixin-Board's keys): name and version, the most search
    threads, and the largest transposition table (MiB, sent as :func:`max_hash_size`)."""
    return [f"MESSAGE gomoku-engine {version}", f"MESSAGE INFO MAX_THREAD_NUM {max_threads}",
            f"MESSAGE INFO MAX_HASH_SIZE {max_hash_size(max_hash_mb)}"]


@dataclass
class SearchLine:
    """A search line read back (:func:`parse_search_line`)."""

    depth: int  #: nominal depth of the iteration (plies)
    seldepth: int  #: deepest ply reached
    score: int  #: for the side to move; a mate score for ``+MN`` / ``-MN`` (or the words)
    nodes: int
    time_ms: int  #: since the command arrived
    pv: list[Point] = field(default_factory=list)  #: principal variation
    multipv: int = 1  #: the line's rank in a multi-PV answer (``YXNBEST``), 1 otherwise

    @property
    def mate(self) -> int:
        """1 the side to move wins by force, -1 it loses, 0 neither."""
        plies = mate_in(self.score)
        return 0 if plies is None else (1 if self.score > 0 else -1)


def parse_search_line(line: str) -> SearchLine | None:
    """The figures of a search line of :func:`result_line` or :func:`iteration_line`, or
    None for any other line (another ``MESSAGE``, a move, another engine's output).

    The principal variation is read up to its first point that is not a letter and a
    number (a column past ``z`` on the widest boards goes out as the character after it
    in ASCII)."""
    match = _SEARCH_LINE.fullmatch(line.strip())
    if not match:
        return None
    pv: list[Point] = []
    for token in match["pv"].split():
        try:
            pv += parse_moves(token)
        except InvalidMoveError:
            break  # a column past ``z``: the pv is known up to here
    rank = match["multipv"] or match["old_multipv"] or 1
    return SearchLine(int(match["depth"]), int(match["seldepth"]), _read_score(match["score"]),
                      int(match["nodes"]), int(match["time"]), pv, int(rank))


__all__ = ["KERNEL_FREE_MARK", "PV_SHOWN", "SearchLine", "balance_line", "engine_info_lines",
           "ignored_info_line", "is_kernel_free_line", "iteration_line", "kernel_free_line",
           "max_hash_size", "multipv_line", "network_fallback_line", "parse_search_line",
           "realtime_lines", "result_line", "score_text", "swap2_line", "unknown_name_line"]
