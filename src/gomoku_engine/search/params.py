"""The search's tunables, in one place: each with why it has its value and where it came from.

Only numbers that change play or speed live here; array layouts (the counter slots of
:class:`~gomoku_engine.search.alphabeta.SearchState` and
:class:`~gomoku_engine.search.threats.ThreatState`, the transposition-table record, salts)
stay beside the code that indexes them.

Two kinds.  The :data:`TUNABLES` of the alpha-beta search and its iterative deepening are
run-time data: each has a default, a range and an SPSA step, the kernels read them from a
record (:data:`PARAMS_DTYPE`, ``SearchState.tune``), and ``INFO param NAME VALUE``,
``--param NAME=VALUE`` and ``Engine(params=...)`` set them without recompiling
(``gomoku-engine tune`` searches them by games).  The rest are module constants: numba
freezes a module global into the compiled code, so changing one recompiles the kernels
(:mod:`gomoku_engine.core.jit`).  The evaluation's own values are in
:mod:`gomoku_engine.eval.classical`.

Units: plies for depths, nodes for node budgets, milliseconds or shares of the soft time
limit for time, the evaluation's unit (about 1/20 of rapfi's) for margins and scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.constants import MAX_PLY

# --- Alpha-beta and iterative deepening: the run-time tunables -----------------------------
#: the search counts depth in fractional plies, this many units a ply: extensions and
#: reductions of less than a ply (rapfi's float ``Depth``: a four and its block cost it 0.7
#: ply) stay integers; a power of two, so the whole-ply parts are shifts
ONE_PLY = 16
#: entries per transposition-table bucket: a position may sit in any of them (Stockfish's
#: clusters); 4 entries of 24 bytes fill most of a 128-byte pair of cache lines
TT_BUCKET = 4
#: the late-move reduction table's side (depths and move numbers beyond it use its last
#: entry)
LMR_TABLE_SIZE = 64


@dataclass(frozen=True)
class Tunable:
    """One number of the search that can be set at run time (``INFO param NAME VALUE``,
    ``--param NAME=VALUE``, ``Engine(params=...)``) without recompiling the kernels.

    :param name: lower-case name, also the field of :data:`PARAMS_DTYPE`.
    :param default: the value the engine plays with.
    :param low: smallest value accepted.
    :param high: largest value accepted.
    :param step: the perturbation ``gomoku-engine tune`` (SPSA) starts with: a change
        that should move the result of a game by a small but measurable amount.
    :param integer: an integer (rounded when set) or a float.
    :param doc: what it does, its unit and where its value came from.
    """

    name: str
    default: float
    low: float
    high: float
    step: float
    integer: bool
    doc: str


def _int(name: str, default: int, low: int, high: int, step: float, doc: str) -> Tunable:
    return Tunable(name, default, low, high, step, True, doc)


def _float(name: str, default: float, low: float, high: float, step: float,
           doc: str) -> Tunable:
    return Tunable(name, default, low, high, step, False, doc)


# Selectivity (rapfi's ``search/ab/search.cpp`` and Stockfish).  The evaluation's unit is
# about 1/20 of rapfi's (a quiet move changes it by a few hundred to a few thousand), so
# the margins are rapfi's scaled by about 20 and then set by matches (docs/strength.md).
# Depth-like values are in 1/ONE_PLY plies where they say "units", else in whole plies.
TUNABLES: tuple[Tunable, ...] = (
    # transposition table
    _int("tt_age_weight", 8, 0, 64, 2,
         "a new entry replaces the bucket's entry of least depth - tt_age_weight * age "
         "(plies a search since it was stored), so entries of older moves go first "
         "(Stockfish's replacement rule)"),
    _int("tt_reads", 1, 0, 1, 1,
         "0: the search never reads its transposition table (no TT move, no cutoff), for "
         "the tests that compare the search with and without it; 1: it does"),
    _int("fail_low_move", 0, 0, 1, 1,
         "1: a node where every move failed low stores the move of the highest upper bound "
         "as its TT move (this search before 884a811); 0: it keeps the TT move it had "
         "(Stockfish, rapfi: only a move that raised alpha is stored)"),
    _int("tt_keep_depth", 32, 0, 256, 8,
         "an entry of the same position is kept when the new result is a bound searched "
         "more than this many units (1/16 ply) shallower; an exact score always replaces "
         "it (rapfi's hashtable.cpp: 2 plies)"),
    # move order
    _int("killer_bonus", 300, 0, 3000, 100,
         "move-ordering bonus of the ply's killer moves: below a threat's priority, above "
         "most quiet moves' one-ply priority; set by matches"),
    _int("counter_bonus", 200, 0, 3000, 100,
         "move-ordering bonus of the counter move (the move that last refuted the "
         "opponent's last move); set by matches"),
    _int("order_double_three", 2500, 0, 10000, 400,
         "move-ordering bonus of a move that makes a double three: the classes that win "
         "by rule (double three, four-three, open four; alphabeta._quick_win) stay within "
         "the breadth limit whatever the fitted point values say of them (those valued a "
         "double-three point at -142).  Only the winning classes: a bonus for every class "
         "lost 15 Elo in self-play (docs/strength.md, tord50); set by hand, above a killer, "
         "below a TT move"),
    _int("order_four_three", 4000, 0, 10000, 400,
         "move-ordering bonus of a move that makes a four-three (see order_double_three)"),
    _int("order_open_four", 6000, 0, 12000, 400,
         "move-ordering bonus of a move that makes an open four (see order_double_three)"),
    _int("order_block_double_three", 1500, 0, 10000, 400,
         "move-ordering bonus of a move on the opponent's double-three point (see "
         "order_double_three)"),
    _int("order_block_four_three", 2500, 0, 10000, 400,
         "move-ordering bonus of a move on the opponent's four-three point"),
    _int("order_block_open_four", 3000, 0, 12000, 400,
         "move-ordering bonus of a move on the opponent's open-four point"),
    _int("history_shift", 4, 0, 12, 1,
         "a history value enters the move order divided by 2^history_shift (rounded "
         "down; a shift, not a division, for speed)"),
    _int("history_cap", 250, 0, 4000, 100,
         "...then clamped to +-history_cap: history breaks ties between quiet moves, it "
         "does not outrank threats, killers or the counter move"),
    _int("history_max", 16384, 1024, 1 << 20, 2048,
         "history values stay within +-history_max: each update moves a value toward the "
         "bound by a share of the distance left (history gravity, Stockfish), so they "
         "never overflow over a long game and old results fade"),
    _float("history_bonus", 1.0, 0.0, 64.0, 0.5,
           "a move that cuts gains history_bonus * depth^2 (plies), the moves searched "
           "before it lose as much (at most history_max)"),
    _int("history_reset", 0, 0, 1, 1,
         "1: history starts from zero at every search (rapfi); 0: it lives for the game"),
    _int("history_searched_only", 0, 0, 1, 1,
         "1: only the moves searched before the one that cut lose history (rapfi); 0: "
         "also those move-count pruning skipped"),
    _int("history_pv", 0, 0, 1, 1,
         "1: the best move of a PV node with an exact score gains history too (rapfi "
         "updates the best move's stats at every node that has one); 0: only cut-offs"),
    _int("history_tt", 0, 0, 1, 1,
         "1: a TT cutoff's quiet move gains history when it cut, loses it when it failed "
         "low (rapfi); 0: TT cutoffs leave history alone"),
    # breadth
    _int("root_breadth", 32, 1, 225, 4,
         "breadth limit at the root: the best this many candidates by move order are "
         "searched (weak candidates far from the fight are cut); set by matches"),
    _int("breadth", 16, 1, 225, 2,
         "breadth limit at inner nodes (see root_breadth); set by matches"),
    # pruning
    _int("futility_depth", 5, 0, 16, 1,
         "reverse futility pruning at depth 1..futility_depth plies"),
    _int("futility_margin", 900, 0, 5000, 100,
         "reverse futility pruning: the evaluation beats beta by this per ply of depth "
         "(rapfi ~121 Elo)"),
    _int("futility_improving", 16, 0, 64, 4,
         "units of depth taken off the futility margin's depth when the evaluation "
         "improves"),
    _int("razor_depth", 2, 0, 8, 1,
         "razoring at depth 1..razor_depth plies (rapfi ~68 Elo)"),
    _int("razor_margin", 2500, 0, 10000, 200,
         "razoring: the evaluation stays below alpha by this per ply of depth"),
    _int("iir_depth", 4, 1, 16, 1,
         "internal iterative reduction: no TT move at this depth (plies) or more at a PV "
         "or cut node"),
    _int("iir_reduction", 16, 0, 48, 4,
         "internal iterative reduction: units of depth taken off"),
    _int("move_count_depth", 7, 0, 16, 1,
         "move-count pruning (rapfi ~107 Elo) at depth 1..move_count_depth plies"),
    _int("move_count_base", 3, 0, 20, 1,
         "move-count pruning: quiet moves after move_count_base + plies^move_count_exponent "
         "(half of it, plus one, when the evaluation does not improve) are not tried"),
    _float("move_count_exponent", 1.3, 0.5, 3.0, 0.1,
           "move-count pruning: see move_count_base"),
    _int("threatened_pruning", 0, 0, 1, 1,
         "1: reverse futility pruning, razoring and move-count pruning also where the "
         "opponent threatens a forced win (has a four-three or open-four point), as rapfi "
         "prunes there; 0: not there"),
    _int("threatened_move_count", 0, 0, 1, 1,
         "1 (with threatened_pruning 1): at a threatened node move-count pruning also "
         "skips late defences (never our fours), as rapfi's move count prunes every move; "
         "0: defences are never pruned by count"),
    _int("threatened_relief", 1, 0, 1, 1,
         "1: at a threatened node the fours and defences are reduced lmr_threat less, as "
         "forcing moves elsewhere; 0: reduced as the node's quiet moves would be (rapfi "
         "gives no such relief there)"),
    # extensions (rapfi's search/ab/parameter.h gives them in fractional plies; here in
    # units of 1/16 ply)
    _int("threat_leaf_search", 0, 0, 2, 1,
         "a node at the horizon whose opponent threatens a forced win searches its fours "
         "and defences one ply (the evaluation after them) instead of being judged "
         "statically, as chess engines extend a check: 1 where the opponent has a "
         "four-three point, 2 also where it has an open-four point (an open three); 0: "
         "never.  The evaluations stand about 1,600 (the bag network) to 2,800 (the "
         "classical table) low there against Rapfi's deeper score (docs/evaluation.md)"),
    _int("four_reply_extension", 0, 0, 32, 2,
         "units of depth added to the forced block of the opponent's four, above the ply "
         "it already keeps (rapfi's OPPO5_EXT, 1.3 plies there, so 0.3 ply: 5 units, "
         "~77 Elo there); only at depth > 0, where rapfi's leaves do not start"),
    _int("tt_move_extension_pv", 0, 0, 16, 1,
         "units of depth added to the TT move at a PV node (rapfi's TTM_EXT_PV, 0.25 ply: "
         "4 units, ~12 Elo there with the next)"),
    _int("tt_move_extension", 0, 0, 16, 1,
         "units of depth added to the TT move at other nodes (rapfi's TTM_EXT_NONPV, 0.08 "
         "ply: 1 unit)"),
    _int("singular_depth", 0, 0, 32, 1,
         "singular extension (Stockfish, rapfi ~52 Elo there) from this depth (plies) on, "
         "rapfi's 6.65: at a non-root node whose TT entry is a lower bound or exact score "
         "(no mate) searched at most singular_tt_depth shallower, the other moves are "
         "searched at about half the depth on a null window singular_margin x plies below "
         "the entry's score; all below: the TT move is singular, searched "
         "singular_extension deeper; one at or above beta as well: the node fails high "
         "(multi-cut); else, if the entry's score is at or above beta, the TT move is "
         "searched singular_negative shallower; 0 off"),
    _int("singular_tt_depth", 32, 0, 128, 8,
         "see singular_depth: units (1/16 ply; rapfi's 2.03 plies)"),
    _int("singular_margin", 18, 0, 400, 4,
         "see singular_depth: per ply of depth (rapfi's 0.91 a ply, ~18 of our units)"),
    _int("singular_extension", 16, 0, 48, 4, "see singular_depth: units (rapfi: a ply)"),
    _int("singular_negative", 24, 0, 48, 4,
         "see singular_depth: units (rapfi's SE_REDUCTION_FH, 1.5 plies)"),
    # late-move reductions
    _int("lmr_min_depth", 2, 1, 16, 1, "late-move reductions from this depth (plies) on"),
    _int("lmr_root_skip", 1, 1, 8, 1,
         "at the root, moves from this index on (0-based) are reduced: 1 reduces from the "
         "second move on, rapfi's 2 from the third"),
    _int("lmr_fraction", 0, 0, 1, 1,
         "1: a reduction keeps the table's fraction of a ply (rapfi's float depth); 0: it is "
         "cut to whole plies"),
    _float("lmr_base", 0.25, -2.0, 3.0, 0.15,
           "reduction (plies) = lmr_base + log(depth) * log(move number) / lmr_divisor, the "
           "form of Stockfish's and rapfi's tables"),
    _float("lmr_divisor", 0.75, 0.2, 5.0, 0.1, "see lmr_base"),
    _int("lmr_pv", 16, 0, 64, 4, "units of reduction taken off at PV nodes"),
    _int("lmr_cut", 16, 0, 64, 4, "units of reduction added at expected cut nodes"),
    _int("lmr_not_improving", 16, 0, 64, 4,
         "units of reduction added when the evaluation does not improve"),
    _int("lmr_killer", 16, 0, 64, 4,
         "units of reduction taken off for killers and the counter move"),
    _int("lmr_threat", 32, 0, 96, 4,
         "units of reduction taken off for a move that makes an open three or more, or "
         "stops one of the opponent's"),
    _int("lmr_history", 16, 0, 64, 4,
         "units of reduction taken off when the move's history exceeds "
         "lmr_history_threshold * depth^2 (plies)"),
    _float("lmr_history_threshold", 64.0, 0.0, 4096.0, 16.0, "see lmr_history"),
    _int("lmr_extend", 0, 0, 1, 1,
         "1: a reduction below zero (the reliefs above outweigh the table) searches the "
         "move up to a ply deeper, as rapfi lets its reduced search go to newDepth + 1; "
         "0: a reduction is never below zero"),
    _int("lmr_deeper", 0, 0, 20000, 100,
         "a reduced move that beats alpha by more than lmr_deeper + lmr_deeper_slope x "
         "(plies it was reduced) is searched again a ply deeper than its full depth, and "
         "one that does not beat the node's best by 20 units a ply of depth a ply "
         "shallower (rapfi's "
         "lmrExtension, ~13 Elo there: 34 + 11 a ply of its units, ~700 + 230 of ours); "
         "0 off"),
    _int("lmr_deeper_slope", 230, 0, 2000, 20, "see lmr_deeper"),
    _int("alpha_reduction", 0, 0, 48, 4,
         "units of depth taken off the later moves of a PV node once a move raised alpha, "
         "at depth 3..11 plies, unless the score is decisive (rapfi's "
         "ALPHA_IMPROVEMENT_REDUCTION, a ply, ~26 Elo there; 0 here, where it alone was no "
         "gain in self-play: docs/strength.md)"),
    _int("fail_high_reduction", 0, 0, 32, 2,
         "units of depth taken off every move but a four at an expected cut node (not PV) "
         "whose static evaluation beats beta by fail_high_bias + fail_high_margin x plies "
         "(+ fail_high_threatened where the opponent has a four-three or open-four point): "
         "rapfi's fail-high reduction, a ply there, ~50 Elo by its comment "
         "(search/ab/search.cpp, failHighMargin in parameter.h); 0 off"),
    _int("fail_high_margin", 300, 0, 4000, 40,
         "see fail_high_reduction: per whole ply of depth (rapfi's 15 units a ply, x20)"),
    _int("fail_high_bias", -180, -4000, 4000, 60,
         "see fail_high_reduction (rapfi's -9 units, x20)"),
    _int("fail_high_threatened", 1740, 0, 10000, 200,
         "see fail_high_reduction (rapfi's 87 units where the opponent has an open-four "
         "point, x20)"),
    # the horizon
    _int("horizon_vcf_depth", 8, 0, 30, 1,
         "VCF at the horizon (a quiescence of fours, rapfi \"dive into vcf search when the "
         "depth reaches zero\", Limits.horizon_vcf): at most this many fours a leaf"),
    _int("horizon_vcf_nodes", 300, 0, 5000, 50,
         "...and this many solver nodes a leaf; small, since it runs at every leaf"),
    _int("horizon_quiescence", 0, 0, 30, 1,
         "a VCF quiescence at the horizon (rapfi's leaves, its vcfsearch): the static "
         "evaluation stands pat and the side to move may raise it by up to this many of its "
         "own fours, each answered by the forced block at no depth cost; 0: the static "
         "evaluation alone (or the horizon VCF above)"),
    _int("quiescence_near", 0, 0, 4, 1,
         "the VCF quiescence's fours: 0 every four on the board; n>0 only those on the "
         "lines through the side to move's last n stones, within 4 cells (rapfi keeps its "
         "quiescence near the last moves)"),
    _int("quiescence_delta", 0, 0, 20000, 250,
         "delta pruning in the VCF quiescence: when the static evaluation is this far or "
         "more below alpha, only fours that make a four-three are tried; 0 off"),
    _int("razor_quiescence", 0, 0, 1, 1,
         "1 (with horizon_quiescence): razoring drops into the VCF quiescence with a null "
         "window at alpha and prunes only if it fails low (rapfi's razoring), also where we "
         "have a four point; 0: razoring returns the static evaluation"),
    # iterative deepening (search/driver.py)
    _int("forced_iterations", 4, 0, 30, 1,
         "a root with one candidate (a forced block, or the threat filter keeping one "
         "move) is searched this many iterations past the first that saw it, then played; "
         "rapfi's NumIterationAfterSingularRoot (its config.cpp). Not in an unlimited "
         "search (analysis), which goes on until stopped"),
    _int("aspiration_depth", 5, 1, 64, 1,
         "aspiration windows (rapfi's aspirationSearch) from this depth (plies) on"),
    _int("aspiration_delta", 600, 10, 10000, 100,
         "an iteration first searches a window of +-aspiration_delta around the previous "
         "score, doubled on each fail"),
    # Time use: after an iteration, another starts while the elapsed time is under the
    # soft budget times a factor (Stockfish's and rapfi's time managers).
    _float("time_unstable", 0.6, 0.0, 3.0, 0.1,
           "added to the time factor per best-move change in the last iteration"),
    _float("time_stable", 0.85, 0.2, 1.5, 0.05,
           "the time factor when the best move has not changed for stable_iterations"),
    _int("stable_iterations", 4, 1, 30, 1, "see time_stable"),
    _int("time_score_drop", 1000, 1, 20000, 200,
         "a score drop of this much (evaluation units) adds 0.5 to the time factor"),
    _float("time_factor_max", 2.0, 0.5, 5.0, 0.1,
           "the time factor's ceiling: never more than this many soft budgets"),
)

#: the tunables by name
TUNABLE: dict[str, Tunable] = {t.name: t for t in TUNABLES}

#: "Selectivity off": the settings under which the search prunes and reduces nothing
#: within its candidates (no breadth limit, reverse futility, razoring, move-count
#: pruning, late-move or other reductions, singular extension, and no node-limited VCF at
#: the horizon, whose budget makes its answer depend on the order it tries the fours).
#: What is left is alpha-beta over the candidate moves (the points near the stones, the
#: fours and defences where the opponent threatens a forced win) with its transposition
#: table: the form the invariance tests (colour swap, symmetries, plain minimax) check.
SELECTIVITY_OFF: dict[str, float] = {
    "root_breadth": TUNABLE["root_breadth"].high, "breadth": TUNABLE["breadth"].high,
    "futility_depth": 0, "razor_depth": 0, "move_count_depth": 0,
    "lmr_min_depth": TUNABLE["lmr_min_depth"].high, "iir_reduction": 0,
    "singular_depth": 0, "fail_high_reduction": 0, "alpha_reduction": 0,
    "threatened_pruning": 0, "horizon_vcf_nodes": 0,
}

#: the tunables' record, one field a tunable (int64 or float64): the search kernels read
#: ``ss.tune[0].<name>``, so a value set at run time needs no recompiling
PARAMS_DTYPE = np.dtype([(t.name, np.int64 if t.integer else np.float64) for t in TUNABLES])


def check_param(name: str, value: float | str) -> tuple[str, float]:
    """The canonical name and value of one tunable setting.

    :param name: a tunable's name, in any case.
    :param value: a number, or its text; an integer tunable's value is rounded.
    :returns: ``(name, value)``.
    :raises ValueError: for an unknown name, a value that is not a number, or one outside
        the tunable's range.
    """
    tunable = TUNABLE.get(name.strip().lower())
    if tunable is None:
        raise ValueError(f"unknown parameter {name!r} (gomoku-engine tune --list names them)")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {tunable.name}: {value!r} is not a number") from None
    if not tunable.low <= number <= tunable.high:  # NaN fails too
        raise ValueError(f"parameter {tunable.name}: {value} is outside "
                         f"[{_shown(tunable.low)}, {_shown(tunable.high)}]")
    return tunable.name, float(round(number)) if tunable.integer else number


def _shown(number: float) -> str:
    return f"{number:g}"


def default_params() -> dict[str, float]:
    """Every tunable's name and default."""
    return {t.name: t.default for t in TUNABLES}


def check_params(settings: Mapping[str, float | str]) -> dict[str, float]:
    """``settings`` (name to value) with canonical names and values (:func:`check_param`).

    :raises ValueError: as :func:`check_param`.
    """
    return dict(check_param(name, value) for name, value in settings.items())


def make_params(overrides: Mapping[str, float | str] | None = None) -> dict[str, float]:
    """Every tunable's value: the defaults with ``overrides`` (name to value) applied.

    :raises ValueError: as :func:`check_param`.
    """
    return default_params() | check_params(overrides or {})


def params_record(values: Mapping[str, float]) -> npt.NDArray[np.void]:
    """``PARAMS_DTYPE[1]``: the record the kernels read, from every tunable's value."""
    record = np.zeros(1, PARAMS_DTYPE)
    for t in TUNABLES:
        record[t.name] = values[t.name]
    return record


def parse_assignments(texts: Iterable[str]) -> dict[str, float]:
    """``NAME=VALUE`` texts (``--param``) as checked settings.

    :raises ValueError: for a text without ``=`` and as :func:`check_param`.
    """
    settings: dict[str, str] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep:
            raise ValueError(f"{text!r}: expected NAME=VALUE")
        settings[name] = value
    return check_params(settings)


# --- Threat solver (:mod:`gomoku_engine.search.threats`) --------------------------------------
#: log2 of the entries of the tables of positions proven to have no VCF / no VCT, and of
#: the df-pn proof-number table: 2^18 entries hold a long solve's positions in a few MiB
VCF_TT_BITS = 18
VCT_TT_BITS = 18
PN_TT_BITS = 18
#: log2 of the entries of the df-pn children cache: df-pn re-enters a node many times as
#: its thresholds grow, and working out its threats (several VCF searches) each time was
#: most of its cost
CHILD_TT_BITS = 16
MAX_CACHED_CHILDREN = 64  #: longer children lists are worked out again on every visit
#: most fours (before the five) of the VCF that a quiet VCT move must threaten; quintet's
#: "threat limit" (its tests need 3, e.g. test_vct_fukumi_move)
THREAT_DEPTH = 3
#: most fours of the defender's VCF looked for at every VCT node (quintet uses 2)
DEFENDER_VCF_DEPTH = 2
#: the df-pn passes of :func:`~gomoku_engine.search.threats.solve_vct`: (most threats, or
#: None for the depth asked; most fours of the VCF that makes a quiet move a threat).  A
#: short pass finds the short wins (and their short lines) cheaply.  Then the narrow threat
#: definition of quintet's own long benchmarks (renju-note/quintet, src/mate/solve.rs:
#: threat limit 2) up to 16 threats, which proves bench_vct_black in 3.4-4.2 s and
#: bench_vct_white in 0.9 s, against 5.7 s and 2.2 s at the full definition.  Last the full
#: definition at the full depth (fukumi moves need 3 fours, test_vct_fukumi_move).
VCT_PASSES: tuple[tuple[int | None, int], ...] = ((4, THREAT_DEPTH), (16, 2),
                                                   (None, THREAT_DEPTH))

# --- Root threat-space search (:mod:`gomoku_engine.search.root_threats`) ---------------------
#: most fours of a VCF, at the root and in ``Engine.solve``: as many as the solver's line
#: (``threats.MAX_LINE = 2 * MAX_PLY`` plies) holds; renju puzzles have VCFs of over 70
#: fours, and the time and node budgets bound the work
ROOT_VCF_DEPTH = (2 * MAX_PLY - 2) // 2
#: node budget of each side's VCF at the root (a few ms on a typical middle game)
ROOT_VCF_NODES = 200_000
#: node budget of each question "does the opponent still have a VCF after this move?"
REFUTE_VCF_NODES = 5_000
#: most threats of the root VCT (``Limits.vct``) and its node budget
ROOT_VCT_DEPTH = 12
ROOT_VCT_NODES = 300_000
#: most threats of ``Engine.solve("vct")`` (quintet's long benchmarks need 16)
SOLVE_VCT_DEPTH = 40
#: node budget of each "does the opponent have a VCT after this filtered root move?"
REFUTE_VCT_NODES = 20_000
#: the opponent's VCT is checked only when the VCF filter kept at most this many root moves
MAX_VCT_CHECKED = 8
#: share of the soft time the root threat search may use, cumulative: our VCF until 5%,
#: theirs 10%, the filter 30%, their VCT through the filtered moves 45%, our VCT 60%
ROOT_VCF_SHARE = 0.05
THEIR_VCF_SHARE = 0.1
ROOT_FILTER_SHARE = 0.3
THEIR_VCT_SHARE = 0.45
ROOT_VCT_SHARE = 0.6

# --- Iterative deepening (:mod:`gomoku_engine.search.driver`) ---------------------------------
#: black's first stone under an opening rule: every allowed point (one per symmetry class)
#: is played and white's best reply searched to this depth, within an equal share of the
#: time; shallow, since a dozen or more points share one move's time
FIRST_MOVE_DEPTH = 4

# --- Engine resources (:class:`gomoku_engine.engine.Engine`) ---------------------------------
#: transposition-table size (MiB) when none is given (``INFO max_memory`` sets it in games)
DEFAULT_HASH_MB = 64.0
#: most search threads (``Engine.set_threads``): Rapfi's MAX_THREAD_NUM is 256; more
#: threads than cores only share them
MAX_THREADS = 64

# --- Genetic algorithm (:mod:`gomoku_engine.search.ga`, Wang and Huang) ----------------------
#: moves per individual: the next N_GENES moves of both sides
N_GENES = 7
#: first population, its cap, and the fittest kept each generation (the paper's sizes)
POP_INIT = 2000
POP_CAP = 3500
ELITE = 200
MUTATION_PERCENT = 1  #: mutations per generation, in % of the population cap
STALL_GENERATIONS = 10  #: stop when the best individual has not changed for this many
MAX_GENERATIONS = 1000
#: genes are drawn from the stones' bounding box grown by this many points on every side
BOX_MARGIN = 1
