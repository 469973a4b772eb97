"""Match statistics: Elo difference with a 95% interval, likelihood of superiority, SPRT.

Formulas as in the chess testing tools (cutechess-cli's ``elo.cpp``, fishtest): the score
``s = (W + D/2) / N`` maps to ``Elo = -400 log10(1/s - 1)``; the interval comes from the
per-game score variance (normal approximation); LOS = ``(1 + erf((W - L) / sqrt(2 (W + L)))) / 2``;
the SPRT is the generalised SPRT of Michel Van den Bergh with the normal approximation of
the log-likelihood ratio, ``LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var)``, and Wald's bounds.

Games played in pairs (one opening, colours swapped) are not independent: an opening that
favours one colour gives each engine one win far more often than chance would.  Their
results are counted per pair as a *pentanomial* (pairs scoring 0, 1/2, 1, 3/2 and 2 points
for the first engine), and the variance is that of the pair's score (the pentanomial
model of fishtest's ``stats/LLRcalc.py`` by Michel Van den Bergh, also in fastchess): the
same formulas with N pairs and the pair's mean score.  Where a colour's advantage makes
the two games' results go opposite ways this variance is smaller than the games' and the
test decides sooner; where an opening tends to go to the same engine with both colours
it is larger, and a test counting games alone would decide too soon.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score in (0, 1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score for an Elo difference (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    elo: float  #: point estimate
    low: float  #: lower end of the 95% interval
    high: float  #: upper end of the 95% interval
    los: float  #: likelihood of superiority, 0..1


def _score_and_variance(wins: float, losses: float, draws: float) -> tuple[float, float]:
    n = wins + losses + draws
    if n == 0:
        raise ValueError("no games")
    score = (wins + 0.5 * draws) / n
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2
                + losses * score ** 2) / n
    return score, variance


#: points of the first engine over a pair of games, index of a pentanomial count
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def _pair_score_and_variance(pairs: Sequence[float]) -> tuple[float, float]:
    """Mean score per game and variance of a pair's score (its points / 2) from the five
    pentanomial counts."""
    n = sum(pairs)
    if n == 0:
        raise ValueError("no pairs of games")
    score = sum(c * p / 2 for c, p in zip(pairs, PAIR_POINTS)) / n
    variance = sum(c * (p / 2 - score) ** 2 for c, p in zip(pairs, PAIR_POINTS)) / n
    return score, variance


def pentanomial(pair_points: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts of pairs by the first engine's points over the pair (0, 0.5, 1, 1.5, 2).

    :raises ValueError: for points that are not one of those five.
    """
    counts = [0] * 5
    for points in pair_points:
        k = round(points * 2)
        if k < 0 or k > 4 or abs(points * 2 - k) > 1e-9:
            raise ValueError(f"{points!r} is not the points of a pair of games")
        counts[k] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def elo_estimate_pairs(pairs: Sequence[int]) -> EloEstimate:
    """Elo of the first player with a 95% interval from the variance of pair scores.

    :param pairs: the five pentanomial counts (:func:`pentanomial`).
    :raises ValueError: with no pairs.
    """
    score, variance = _pair_score_and_variance(pairs)
    # LOS from the pairs won and lost on balance
    return _estimate(score, variance, sum(pairs), pairs[3] + pairs[4], pairs[0] + pairs[1])


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """Elo difference of the first player with its 95% interval and LOS.

    :raises ValueError: with no games.
    """
    score, variance = _score_and_variance(wins, losses, draws)
    return _estimate(score, variance, wins + losses + draws, wins, losses)


def _estimate(score: float, variance: float, n: float, wins: float,
              losses: float) -> EloEstimate:
    """Elo, its 95% interval from ``n`` samples of this variance, and the LOS."""
    margin = Z95 * math.sqrt(variance / n)
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * decisive)))
    return EloEstimate(elo_from_score(score), elo_from_score(score - margin),
                       elo_from_score(score + margin), los)


#: pseudo-results of each kind added before the SPRT's score and variance (see :class:`Sprt`)
PRIOR = 1.0


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.

    The normal approximation of the LLR divides by the sample variance, which a short run
    of alike results makes tiny: 7-0-1 gave an LLR of 5.2 for elo1 = 30 (a decision after
    eight games), and pairs 0-1-10-0-0, ten of eleven split 1-1, gave -4.06 (docs/strength.md,
    2026-11-25 and 2026-11-28).  So the score and variance are taken from the counts plus
    one pseudo-result of each kind (each of W, L, D; each of the five pair scores): the
    posterior mean under a uniform Dirichlet prior (Laplace's rule of succession), which a
    few hundred results outweigh and a few cannot collapse.  And no decision comes before
    ``min_games`` games.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 20

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) log-likelihood-ratio bounds (Wald)."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, wins: int, losses: int, draws: int) -> float:
        """Log-likelihood ratio of the results so far (0 with none), from the counts plus
        :data:`PRIOR` of each kind."""
        n = wins + losses + draws
        if n == 0:
            return 0.0
        score, variance = _score_and_variance(wins + PRIOR, losses + PRIOR, draws + PRIOR)
        return self._llr(n, score, variance)

    def _llr(self, n: int, score: float, variance: float) -> float:
        """The normal approximation of the LLR from ``n`` samples of mean ``score``."""
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)

    def llr_pairs(self, pairs: Sequence[int]) -> float:
        """Log-likelihood ratio of results counted in pairs (the pentanomial model), from
        the counts plus :data:`PRIOR` pairs of each kind.

        :param pairs: the five pentanomial counts (:func:`pentanomial`).
        """
        n = sum(pairs)
        if n == 0:
            return 0.0
        score, variance = _pair_score_and_variance([c + PRIOR for c in pairs])
        return self._llr(n, score, variance)

    def decision_pairs(self, pairs: Sequence[int]) -> str | None:
        """:meth:`decision` for results counted in pairs; ``min_games`` counts the games
        of the complete pairs."""
        if 2 * sum(pairs) < self.min_games:
            return None
        return self._verdict(self.llr_pairs(pairs))

    def decision(self, wins: int, losses: int, draws: int) -> str | None:
        """``"H1"`` (accept elo1), ``"H0"`` (accept elo0) or None (continue)."""
        if wins + losses + draws < self.min_games:
            return None
        return self._verdict(self.llr(wins, losses, draws))

    def _verdict(self, llr: float) -> str | None:
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
