"""The search's tunables, in one place: each with why it has its value and where it came from.

Only numbers that change play or speed live here; array layouts (the counter slots of
:class:`~gomoku_engine.search.alphabeta.SearchState` and
:class:`~gomoku_engine.search.threats.ThreatState`, the transposition-table record, salts)
stay beside the code that indexes them.  The kernels import these names, and numba freezes
a module global into the compiled code, so a kernel reads each as a constant: changing one
recompiles the kernels (:mod:`gomoku_engine.core.jit` hashes every source file) and changes
the bench signature.  The evaluation's own values are in :mod:`gomoku_engine.eval.classical`.

Units: plies for depths, nodes for node budgets, milliseconds or shares of the soft time
limit for time, the evaluation's unit (about 1/20 of rapfi's) for margins and scores.
"""

from __future__ import annotations

from ..core.constants import MAX_PLY

# --- Alpha-beta (:mod:`gomoku_engine.search.alphabeta`) -------------------------------------
#: the search counts depth in fractional plies, this many units a ply: extensions and
#: reductions of less than a ply (rapfi's float ``Depth``: a four and its block cost it 0.7
#: ply) stay integers; a power of two, so the whole-ply parts are shifts
ONE_PLY = 16
#: entries per transposition-table bucket: a position may sit in any of them (Stockfish's
#: clusters); 4 entries of 24 bytes fill most of a 128-byte pair of cache lines
TT_BUCKET = 4
#: a new entry replaces the bucket's entry of least ``depth - TT_AGE_WEIGHT * age``, so
#: entries of older moves go first (Stockfish's replacement rule)
TT_AGE_WEIGHT = 8
#: move-ordering bonus of the ply's killer moves and of the counter move (the move that
#: last refuted the opponent's last move): below a threat's priority, above most quiet
#: moves' one-ply priority; set by matches
KILLER_BONUS = 300
COUNTER_BONUS = 200
#: move-ordering bonus by the threat class a candidate makes for the side to move (index:
#: ``T_NONE`` .. ``T_FIVE``), and by the class it takes from the opponent: the classes that
#: win by rule (double three, four-three, open four; ``alphabeta._quick_win``) and their
#: defences stay within the breadth limit whatever the fitted point values say of them
#: (those valued a double-three point at -142).  Only the winning classes: a bonus for
#: every class (open threes and fours too) lost 15 Elo in self-play (docs/strength.md,
#: ``tord50``); these sizes were set by hand, above a killer, below a TT move
THREAT_ORDER_BONUS = (0, 0, 0, 2500, 0, 4000, 6000, 0)
BLOCK_ORDER_BONUS = (0, 0, 0, 1500, 0, 2500, 3000, 0)
#: a history score enters the move order clamped to +-HISTORY_CAP: history breaks ties
#: between quiet moves, it does not outrank threats, killers or the counter move
HISTORY_CAP = 250
#: history values stay within +-HISTORY_MAX: each update moves a value toward the bound
#: by a share of the distance left ("history gravity", Stockfish), so they never overflow
#: over a long game and old results fade
HISTORY_MAX = 16384
#: breadth limit: the best this many candidates by move order are searched at the root and
#: at inner nodes (weak candidates far from the fight are cut); set by matches
DEFAULT_ROOT_BREADTH = 32
DEFAULT_BREADTH = 16
# Selectivity (rapfi's ``search/ab/search.cpp`` and Stockfish).  The evaluation's unit is
# about 1/20 of rapfi's (a quiet move changes it by a few hundred to a few thousand), so the
# margins are rapfi's scaled by about 20 and then set by matches (docs/strength.md).
#: late-move reductions from this depth on
LMR_MIN_DEPTH = 2
LMR_BASE = 0.25
LMR_DIVISOR = 0.75  #: reduction = LMR_BASE + log(depth) * log(move number) / LMR_DIVISOR
#: the reduction table's side (depths and move numbers beyond it use its last entry)
LMR_TABLE_SIZE = 64
FUTILITY_DEPTH = 5  #: reverse futility pruning at depth 1..FUTILITY_DEPTH
FUTILITY_MARGIN = 900  #: per ply of depth (one less when the evaluation improves)
RAZOR_MARGIN = 2500  #: razoring at depth 1..2: per ply of depth
IIR_DEPTH = 4  #: no TT move at this depth or more: search one ply less
MOVE_COUNT_DEPTH = 7  #: move-count pruning at depth 1..MOVE_COUNT_DEPTH
# VCF at the horizon (a quiescence of fours, rapfi "dive into vcf search when the depth
# reaches zero", ``Limits.horizon_vcf``): at most this many fours and solver nodes per leaf;
# small, since it runs at every leaf
HORIZON_VCF_DEPTH = 8
HORIZON_VCF_NODES = 300

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
#: aspiration windows (rapfi's ``aspirationSearch``): from this depth on, an iteration first
#: searches a window of +-ASPIRATION_DELTA around the previous score, doubled on each fail
ASPIRATION_DEPTH = 5
ASPIRATION_DELTA = 600
# Time use: after an iteration, another starts while the elapsed time is under the soft
# budget times a factor (Stockfish's and rapfi's time managers): more when the best move
# changed or the score fell, less when the move stayed the same for several iterations.
TIME_UNSTABLE = 0.6  #: added to the factor per best-move change in the last iteration
TIME_STABLE = 0.85  #: the factor when the best move has not changed for STABLE_ITERATIONS
STABLE_ITERATIONS = 4
TIME_SCORE_DROP = 1000  #: a score drop of this much (eval units) adds 0.5 to the factor
TIME_FACTOR_MAX = 2.0  #: the factor's ceiling: never more than twice the soft budget
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
