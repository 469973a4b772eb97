"""A second search: the genetic-algorithm solver of Wang and Huang.

Source: Junru Wang and Lan Huang (Yangtze University), "Evolving Gomoku Solver by
Genetic Algorithm", IEEE WARTIA 2014, pp. 1064-1067, doi:10.1109/WARTIA.2014.6976460.
Instead of a game tree, a genetic algorithm evolves sequences of the next moves and the
first move of the fittest sequence is played.  Only the paper's abstract was available
here; the design below follows the engine's issue, which summarises the paper, and every
detail the summary leaves open is marked *reconstruction*.

Encoding
    An individual is ``int32[n_genes]`` (``N_GENES = 7``): flat cells of the next moves,
    alternately ours (genes 0, 2, 4, 6) and the opponent's, each an empty point inside
    the bounding box of the stones extended by ``BOX_MARGIN = 1`` on every side
    (*reconstruction*: the box grows by one more line while it holds fewer than
    ``2 * n_genes`` empty points, so that seven distinct points can be found).

Population
    ``POP_INIT = 2000`` random individuals (distinct points each), capped at
    ``POP_CAP = 3500``; each generation keeps the ``ELITE = 200`` fittest, which breed the
    rest of the next population (*reconstruction*: up to the cap) by roulette-wheel
    selection (weight ``fitness - lowest valid elite fitness + 1``) and single-point
    crossover at a random gene (``1 <= cut < n_genes``, both children kept).  Then
    ``cap // 100`` children (1%, a child may be drawn twice) get one random gene replaced
    by a random candidate point.  An individual with a repeated point, or a point taken
    on the board, is invalid: fitness ``INVALID`` (the lowest), roulette weight 0.

Fitness (the paper's "tendency")
    Twelve point classes ``p0 .. p11`` with values ``v(p0) = 0`` and
    ``v(pn) = 2 v(p(n-1)) + 1``, except that ``p9, p10, p11`` (one move from a sure win)
    share ``v(p9) = 511``: 0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 511, 511.  The paper's
    example, a point worth 63 in attack and 511 in defence (574 in all), fixes
    ``v(p0) = 0``.  *Reconstruction* of the classes on the engine's line patterns
    (:mod:`gomoku_engine.core.constants`), the best that applies among the four lines of the
    point for the colour that would play there:

    ====  ================================  =====
    p0    nothing (every line DEAD/overline)  0
    p1    ONE                                 1
    p2    TWO (closed two)                    3
    p3    OPEN_TWO                            7
    p4    two OPEN_TWOs                      15
    p5    THREE (closed three)               31
    p6    OPEN_THREE                         63
    p7    FOUR (closed four)                127
    p8    two OPEN_THREEs (double three)    255
    p9    FOUR + OPEN_THREE (four-three)    511
    p10   two FOURs (double four)           511
    p11   OPEN_FOUR                         511
    ====  ================================  =====

    A point where the colour makes five is class ``FIVE_CLASS`` (12), worth
    ``V_FIVE = 2 * 511 + 1 = 1023``.  Step ``i`` of a sequence is worth the attack value
    (class of the mover at the point) plus the defence value (class of the other colour
    at the same point), both read on the board as it is before the step; steps count
    ``+`` for our moves and ``-`` for the opponent's.  Once a step makes five or one of
    the sure-win classes p9-p11, every later step is worth ``STEP_MAX = 2 * V_FIVE``
    (more than any step can score) with the sign of the side that got there, and is not
    played: an earlier win scores higher.  The sum is the *tendency*.  If the fittest
    individual's tendency is negative, the solver plays the opponent's first move of it
    (gene 1) instead of ours (gene 0).

Stopping
    When the best individual has not changed for ``STALL_GENERATIONS`` generations, after
    ``MAX_GENERATIONS``, at an evaluation budget, when the stop flag is set, at the soft
    time limit (no new generation starts) or at the hard one (a generation is abandoned
    half-way; the clock is read every ``CLOCK_EVERY`` fitness evaluations).  All random
    numbers come from numba's generator seeded at the start of every search, so a seed
    and a position give the same move whenever time does not cut the search short.

Safety nets (not in the paper)
    Make five if we can; block the opponent's five point; the move is always a candidate
    point, hence empty and on the board.

All kernels are jitted (:data:`gomoku_engine.core.jit.njit`), not recursive, and reuse the
position's incremental line patterns (:func:`gomoku_engine.game.position.make_move`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.constants import EMPTY, FIVE, FOUR, ONE, OPEN_FOUR, OPEN_THREE, OPEN_TWO, PAD, THREE, TWO
from ..core.jit import atomic_load, monotonic_ns, njit
from ..game.position import (
    P_HEIGHT, P_STRIDE, P_WIDTH, TO_MOVE, Position, Tables, make_move, pattern_at, unmake_move,
)
from .params import (  # the tunables: why each has its value is said there
    BOX_MARGIN, ELITE, MAX_GENERATIONS, MUTATION_PERCENT, N_GENES, POP_CAP, POP_INIT,
    STALL_GENERATIONS,
)

CLOCK_EVERY = 64

N_CLASSES = 12
FIVE_CLASS = 12


def class_values() -> npt.NDArray[np.int64]:
    """``int64[13]``: value of classes p0..p11 and of a five (index 12), see the docstring."""
    values = [0]
    for _ in range(1, 10):
        values.append(2 * values[-1] + 1)
    values += [values[9], values[9]]  # p10, p11 share p9's value
    values.append(2 * values[9] + 1)  # a five
    return np.array(values, np.int64)


CLASS_VALUE = class_values()
V_FIVE = int(CLASS_VALUE[FIVE_CLASS])
STEP_MAX = 2 * V_FIVE
INVALID = -(1 << 40)

# config[] indices of :func:`ga_search`
C_POP_INIT = 0
C_ELITE = 1
C_CAP = 2
C_STALL = 3
C_MAX_GEN = 4
C_MAX_EVALS = 5
C_SEED = 6
C_SOFT_NS = 7  # monotonic_ns() after which no generation starts; 0: none
C_HARD_NS = 8  # monotonic_ns() at which the search stops at once; 0: none
N_CONFIG = 9

# stats[] indices filled by :func:`ga_search`
S_FITNESS = 0  # tendency of the fittest individual
S_GENERATIONS = 1  # generations bred after the first population
S_EVALUATIONS = 2  # fitness evaluations
S_KIND = 3  # how the move was chosen: one of the K_ codes below
S_GENES = 4  # genes of the fittest individual (0 if a safety net chose)
N_STATS = 5

K_GA = 0  # gene 0 of the fittest individual
K_GA_DEFEND = 1  # gene 1: the tendency was negative
K_FIVE = 2  # safety net: our five
K_BLOCK = 3  # safety net: the opponent's five point
K_GREEDY = 4  # no valid individual was evaluated in time: best one-ply point
KIND_NAMES = ("ga", "ga-defend", "five", "block", "greedy")


class GAConfig(NamedTuple):
    """Population sizes and stopping rules (the paper's by default; tests use smaller)."""

    pop_init: int = POP_INIT
    elite: int = ELITE
    cap: int = POP_CAP
    stall: int = STALL_GENERATIONS
    max_generations: int = MAX_GENERATIONS


@njit
def point_class(pos: Position, side: int, cell: int) -> int:
    """Class (0..11, or ``FIVE_CLASS``) of an empty ``cell`` for ``side`` (0 black, 1 white).

    Read from the four line patterns ``pattern_at(pos, side, cell, d)``; see the table in the
    module docstring.
    """
    fives = 0
    open_fours = 0
    fours = 0
    open_threes = 0
    threes = 0
    open_twos = 0
    twos = 0
    ones = 0
    for d in range(4):
        p = pattern_at(pos, side, cell, d)
        if p == FIVE:
            fives += 1
        elif p == OPEN_FOUR:
            open_fours += 1
        elif p == FOUR:
            fours += 1
        elif p == OPEN_THREE:
            open_threes += 1
        elif p == THREE:
            threes += 1
        elif p == OPEN_TWO:
            open_twos += 1
        elif p == TWO:
            twos += 1
        elif p == ONE:
            ones += 1
    if fives:
        return FIVE_CLASS
    if open_fours:
        return 11
    if fours >= 2:
        return 10
    if fours and open_threes:
        return 9
    if open_threes >= 2:
        return 8
    if fours:
        return 7
    if open_threes:
        return 6
    if threes:
        return 5
    if open_twos >= 2:
        return 4
    if open_twos:
        return 3
    if twos:
        return 2
    if ones:
        return 1
    return 0


@njit
def step_value(pos: Position, side: int, cell: int) -> int:
    """Attack value of ``cell`` for ``side`` plus its defence value (the other side's)."""
    return (CLASS_VALUE[point_class(pos, side, cell)]
            + CLASS_VALUE[point_class(pos, 1 - side, cell)])


@njit
def is_valid(pos: Position, genes: npt.NDArray[np.int32]) -> bool:
    """True if every gene is an empty point of the board and no point repeats."""
    n = genes.shape[0]
    for i in range(n):
        if pos.cells[genes[i]] != EMPTY:
            return False
        for j in range(i):
            if genes[j] == genes[i]:
                return False
    return True


@njit
def fitness(pos: Position, tab: Tables, genes: npt.NDArray[np.int32]) -> int:
    """Tendency of a move sequence for the side to move (``INVALID`` if it is invalid).

    :param genes: ``int32[n]`` flat cells; even indices are the side to move's moves.
    The position is unchanged on return (the moves are played and taken back).
    """
    if not is_valid(pos, genes):
        return INVALID
    side = pos.state[TO_MOVE] - 1
    total = 0
    decided = 0  # +1 / -1 once we / the opponent made five or a sure-win shape
    played = 0
    for i in range(genes.shape[0]):
        sign = 1 if i % 2 == 0 else -1
        if decided != 0:
            total += decided * STEP_MAX
            continue
        cell = genes[i]
        mover = side if sign == 1 else 1 - side
        attack = point_class(pos, mover, cell)
        total += sign * (CLASS_VALUE[attack] + CLASS_VALUE[point_class(pos, 1 - mover, cell)])
        if attack >= 9:  # p9..p11 or five
            decided = sign
        else:
            make_move(pos, tab, cell)
            played += 1
    for _ in range(played):
        unmake_move(pos, tab)
    return total


@njit
def candidates(pos: Position, tab: Tables, margin: int, min_count: int) -> npt.NDArray[np.int32]:
    """``int32[k]``: empty points inside the stones' bounding box grown by ``margin``.

    The box grows further while it holds fewer than ``min_count`` empty points and does
    not yet cover the board.  With no stone on the board every empty point is returned.
    """
    width = tab.params[P_WIDTH]
    height = tab.params[P_HEIGHT]
    stride = tab.params[P_STRIDE]
    x0, y0, x1, y1 = width, height, -1, -1
    for cell in tab.points:
        if pos.cells[cell] != EMPTY:
            x = cell % stride - PAD
            y = cell // stride - PAD
            x0 = min(x0, x)
            y0 = min(y0, y)
            x1 = max(x1, x)
            y1 = max(y1, y)
    if x1 < 0:
        x0, y0, x1, y1, margin = 0, 0, width - 1, height - 1, 0
    out = np.empty(tab.points.shape[0], np.int32)
    while True:
        n = 0
        for cell in tab.points:
            x = cell % stride - PAD
            y = cell // stride - PAD
            if (x0 - margin <= x <= x1 + margin and y0 - margin <= y <= y1 + margin
                    and pos.cells[cell] == EMPTY):
                out[n] = cell
                n += 1
        covers = (x0 - margin <= 0 and y0 - margin <= 0 and x1 + margin >= width - 1
                  and y1 + margin >= height - 1)
        if n >= min_count or covers:
            return out[:n].copy()
        margin += 1


@njit
def random_individual(cand: npt.NDArray[np.int32], out: npt.NDArray[np.int32]) -> None:
    """Fill ``out`` with distinct random candidates (``len(cand) >= len(out)`` assumed)."""
    n = out.shape[0]
    for i in range(n):
        while True:
            c = cand[np.random.randint(0, cand.shape[0])]
            fresh = True
            for j in range(i):
                if out[j] == c:
                    fresh = False
                    break
            if fresh:
                out[i] = c
                break


@njit
def crossover(a: npt.NDArray[np.int32], b: npt.NDArray[np.int32], cut: int,
              child_a: npt.NDArray[np.int32], child_b: npt.NDArray[np.int32]) -> None:
    """Single-point crossover: ``child_a = a[:cut] + b[cut:]``, ``child_b = b[:cut] + a[cut:]``."""
    for i in range(a.shape[0]):
        if i < cut:
            child_a[i] = a[i]
            child_b[i] = b[i]
        else:
            child_a[i] = b[i]
            child_b[i] = a[i]


@njit
def mutate(genes: npt.NDArray[np.int32], cand: npt.NDArray[np.int32]) -> None:
    """Replace one random gene by a random candidate point."""
    genes[np.random.randint(0, genes.shape[0])] = cand[np.random.randint(0, cand.shape[0])]


@njit
def _roulette(cumulative: npt.NDArray[np.float64], n: int) -> int:
    """Index drawn with probability proportional to the weights summed in ``cumulative``."""
    total = cumulative[n - 1]
    if total <= 0.0:
        return np.random.randint(0, n)
    r = np.random.random() * total
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > r:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit
def breed(pop: npt.NDArray[np.int32], fit: npt.NDArray[np.int64], n: int, elite: int,
          cap: int, cand: npt.NDArray[np.int32], out: npt.NDArray[np.int32],
          out_fit: npt.NDArray[np.int64]) -> int:
    """One generation's selection, crossover and mutation; returns the new size (``cap``).

    :param pop: ``int32[>= n, n_genes]`` current population, ``fit`` its ``int64`` fitness.
    :param out: ``int32[>= cap, n_genes]`` receives the ``elite`` fittest (fittest first,
        ties in population order; ``out_fit`` holds their fitness) and then their children.
    """
    order = np.argsort(-fit[:n], kind="mergesort")
    k = min(elite, n)
    lowest = 0
    found = False
    for i in range(k):
        f = fit[order[i]]
        if f != INVALID and (not found or f < lowest):
            lowest = f
            found = True
    cumulative = np.empty(k, np.float64)
    acc = 0.0
    for i in range(k):
        src = order[i]
        out[i, :] = pop[src, :]
        out_fit[i] = fit[src]
        if fit[src] != INVALID:
            acc += float(fit[src] - lowest + 1)
        cumulative[i] = acc
    n_genes = pop.shape[1]
    m = k
    while m < cap:
        a = _roulette(cumulative, k)
        b = _roulette(cumulative, k)
        cut = np.random.randint(1, n_genes) if n_genes > 1 else 0
        if m + 1 < cap:
            crossover(out[a], out[b], cut, out[m], out[m + 1])
            m += 2
        else:
            tmp = np.empty(n_genes, np.int32)
            crossover(out[a], out[b], cut, out[m], tmp)
            m += 1
    if cap > k:
        for _ in range(cap * MUTATION_PERCENT // 100):
            mutate(out[np.random.randint(k, cap)], cand)
    return m


@njit
def _stop_now(stop: npt.NDArray[np.int64], hard_ns: int) -> bool:
    return atomic_load(stop) != 0 or (hard_ns != 0 and monotonic_ns() >= hard_ns)


@njit
def _greedy(pos: Position, cand: npt.NDArray[np.int32], side: int) -> int:
    """The candidate with the highest step value (first in board order on ties)."""
    best, best_value = cand[0], -1
    for c in cand:
        v = step_value(pos, side, c)
        if v > best_value:
            best, best_value = c, v
    return best


@njit
def _find_class(pos: Position, cand: npt.NDArray[np.int32], side: int, cls: int) -> int:
    for c in cand:
        if point_class(pos, side, c) == cls:
            return c
    return -1


@njit
def ga_search(pos: Position, tab: Tables, config: npt.NDArray[np.int64],
              stop: npt.NDArray[np.int64], best_genes: npt.NDArray[np.int32],
              stats: npt.NDArray[np.int64]) -> int:
    """Choose a move for the side to move by the genetic algorithm; returns its flat cell.

    :param config: ``int64[N_CONFIG]``, indices ``C_*``.
    :param stop: ``int64[1]``: another thread sets ``stop[0]`` to stop the search.
    :param best_genes: ``int32[n_genes]`` (``1 <= n_genes <= empty points``) receives the
        fittest individual (untouched if a safety net chose the move).
    :param stats: ``int64[N_STATS]`` receives the figures, indices ``S_*``.
    The position must have an empty point; it is unchanged on return.
    """
    np.random.seed(config[C_SEED])
    side = pos.state[TO_MOVE] - 1
    n_genes = best_genes.shape[0]
    stats[:] = 0
    cand = candidates(pos, tab, BOX_MARGIN, 2 * n_genes)
    five = _find_class(pos, cand, side, FIVE_CLASS)
    if five >= 0:
        stats[S_KIND] = K_FIVE
        return five
    block = _find_class(pos, cand, 1 - side, FIVE_CLASS)
    if block >= 0:
        stats[S_KIND] = K_BLOCK
        return block
    greedy = _greedy(pos, cand, side)
    if cand.shape[0] < n_genes:  # cannot happen when n_genes <= empty points
        stats[S_KIND] = K_GREEDY
        return greedy
    cap = max(config[C_CAP], config[C_POP_INIT])
    pop = np.empty((cap, n_genes), np.int32)
    nxt = np.empty((cap, n_genes), np.int32)
    fit = np.empty(cap, np.int64)
    nxt_fit = np.empty(cap, np.int64)
    hard_ns = config[C_HARD_NS]
    soft_ns = config[C_SOFT_NS]
    max_evals = config[C_MAX_EVALS]
    evals = 0
    best_fit = INVALID
    have_best = False
    n = config[C_POP_INIT]
    aborted = False
    for i in range(n):
        random_individual(cand, pop[i])
    for i in range(n):  # the first population
        if i % CLOCK_EVERY == 0 and i > 0 and (_stop_now(stop, hard_ns) or evals >= max_evals):
            aborted = True
            break
        fit[i] = fitness(pos, tab, pop[i])
        evals += 1
        if fit[i] > best_fit:
            best_fit = fit[i]
            best_genes[:] = pop[i, :]
            have_best = True
    generations = 0
    stall = 0
    last_gen_ns = 0
    while not aborted:
        began = monotonic_ns()
        if (generations >= config[C_MAX_GEN] or stall >= config[C_STALL]
                or evals >= max_evals or atomic_load(stop) != 0
                or (soft_ns != 0 and began >= soft_ns)
                or (hard_ns != 0 and began + last_gen_ns >= hard_ns)):
            break
        n = breed(pop, fit, n, config[C_ELITE], cap, cand, nxt, nxt_fit)
        pop, nxt = nxt, pop
        fit, nxt_fit = nxt_fit, fit
        k = min(config[C_ELITE], cap)
        changed = False
        for i in range(k, n):
            if (i - k) % CLOCK_EVERY == 0 and (_stop_now(stop, hard_ns) or evals >= max_evals):
                aborted = True
                break
            fit[i] = fitness(pos, tab, pop[i])
            evals += 1
            if fit[i] > best_fit:
                best_fit = fit[i]
                best_genes[:] = pop[i, :]
                have_best = True
                changed = True
        if aborted:
            break
        generations += 1
        stall = 0 if changed else stall + 1
        last_gen_ns = monotonic_ns() - began
    stats[S_FITNESS] = best_fit
    stats[S_GENERATIONS] = generations
    stats[S_EVALUATIONS] = evals
    if not have_best or best_fit == INVALID:
        stats[S_KIND] = K_GREEDY
        return greedy
    if best_fit < 0 and n_genes > 1:
        stats[S_KIND] = K_GA_DEFEND
        return best_genes[1]
    stats[S_KIND] = K_GA
    return best_genes[0]


__all__ = [
    "CLASS_VALUE", "GAConfig", "INVALID", "N_GENES", "STEP_MAX", "V_FIVE", "breed",
    "candidates", "crossover", "fitness", "ga_search", "is_valid", "mutate", "point_class",
    "step_value",
]
