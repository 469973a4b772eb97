"""What the engine writes while it searches, for ``INFO show_detail`` (Yixin-Board's
analysis display, as Rapfi implements it in ``search/searchoutput.cpp``).

``show_detail`` is a sum of bits (:data:`~gomoku_engine.protocol.settings.SHOW_REALTIME`,
:data:`~gomoku_engine.protocol.settings.SHOW_DETAIL`); at 0 nothing is written during a
search.  After every searched line (every iteration; with ``YXNBEST`` every line of it):

* bit 2, detail: Rapfi's block of ``INFO`` lines, which Yixin-Board parses to label each
  analysed move with its win rate or forced result::

      INFO PV 0
      INFO NUMPV 1
      INFO DEPTH 9
      INFO SELDEPTH 14
      INFO TOTALNODES 52113
      INFO TOTALTIME 703
      INFO SPEED 74129
      INFO EVAL -163
      INFO WINRATE 0.490357
      INFO BESTLINE 7,7 8,8 9,9
      INFO PV DONE

  ``EVAL`` is the score for the side to move, or ``+Mn`` / ``-Mn`` for a forced win or
  loss in ``n`` plies; ``WINRATE`` its win probability (:func:`gomoku_engine.eval.win_rate`)
  as a C++ stream writes a float (6 significant digits); ``BESTLINE`` the principal
  variation in protocol points; ``TOTALTIME`` ms, ``SPEED`` nodes per second.  Rapfi's
  ``INFO NODES`` (the nodes under one root move) is not written: the search does not
  count them per root move.
* bit 1, realtime: the iteration's ``MESSAGE depth ...`` line (for the first line of an
  iteration; :func:`gomoku_engine.protocol.messages.iteration_line`) and Yixin-Board's
  ``MESSAGE REALTIME`` marks (:func:`gomoku_engine.protocol.messages.realtime_lines`).

The ``MESSAGE depth`` line stays with bit 1: it is written while searching, for a person
reading the manager's log as it comes, which is what "realtime" asks for; bit 2 is the
same figures for the GUI to parse.  Piskvork users and the engine's own tests set
``show_detail 1`` to follow a search, and Yixin-Board sends 3, so both see what they saw.
"""

from __future__ import annotations

from ..core.constants import Rule
from ..core.notation import format_pair
from ..eval import win_rate
from ..search.limits import SearchInfo, SearchResult
from .messages import iteration_line, realtime_lines, score_text
from .reader import Output
from .settings import SHOW_DETAIL, SHOW_REALTIME


def detail_lines(info: SearchInfo, rule: Rule) -> list[str]:
    """The ``INFO`` block of one searched line (see the module's docstring), ``rule``
    choosing the win-rate scale."""
    return [f"INFO PV {info.pv_index}", f"INFO NUMPV {info.num_pv}",
            f"INFO DEPTH {info.depth}", f"INFO SELDEPTH {info.seldepth}",
            f"INFO TOTALNODES {info.nodes}", f"INFO TOTALTIME {info.time_ms:.0f}",
            f"INFO SPEED {info.nps}", f"INFO EVAL {score_text(info.score)}",
            f"INFO WINRATE {win_rate(info.score, rule):g}",
            "INFO BESTLINE " + " ".join(format_pair(p) for p in info.pv), "INFO PV DONE"]


class SearchReport:
    """The ``on_iteration`` callback of a move's search: writes what ``show_detail``
    asks for after every searched line.

    :param out: where the lines go.
    :param show_detail: ``INFO show_detail`` (a sum of the ``SHOW_*`` bits).
    :param rule: the game's rule (the win-rate scale).
    """

    def __init__(self, out: Output, show_detail: int, rule: Rule) -> None:
        self.out, self.show_detail, self.rule = out, show_detail, rule
        self.reported = 0  #: lines reported so far

    def without_search(self, result: SearchResult) -> None:
        """After the search: if it reported no line (a forced win found by the root threat
        search, black's first stone, the centre on an empty board), the detail block of
        its move, as Rapfi's ``printBestmoveWithoutSearch``; else nothing."""
        if self.reported == 0 and self.show_detail & SHOW_DETAIL:
            info = SearchInfo(result.depth, result.seldepth, result.score, result.nodes,
                              result.time_ms, result.pv)
            for text in detail_lines(info, self.rule):
                self.out.line(text)

    def __call__(self, info: SearchInfo) -> None:
        self.reported += 1
        lines: list[str] = []
        if self.show_detail & SHOW_DETAIL:
            lines += detail_lines(info, self.rule)
        if self.show_detail & SHOW_REALTIME:
            if info.pv_index == 0:
                lines.append(iteration_line(info))
            lines += realtime_lines(info)
        for text in lines:
            self.out.line(text)


def search_report(out: Output, show_detail: int, rule: Rule) -> SearchReport | None:
    """The reporter for ``show_detail``, or None when it asks for nothing (then the search
    reports nothing, as before these settings existed)."""
    if not show_detail & (SHOW_REALTIME | SHOW_DETAIL):
        return None
    return SearchReport(out, show_detail, rule)


__all__ = ["SearchReport", "detail_lines", "search_report"]
