"""Match statistics: Elo difference with a 95% interval, likelihood of superiority, SPRT.

Formulas as in the chess testing tools (cutechess-cli's ``elo.cpp``, fishtest): the score
``s = (W + D/2) / N`` maps to ``Elo = -400 log10(1/s - 1)``; the interval comes from the
per-game score variance (normal approximation); LOS = ``(1 + erf((W - L) / sqrt(2 (W + L)))) / 2``;
the SPRT is the generalised SPRT of Michel Van den Bergh with the normal approximation of
the log-likelihood ratio, ``LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var)``, and Wald's bounds.
"""

from __future__ import annotations

import math
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


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """Elo difference of the first player with its 95% interval and LOS.

    :raises ValueError: with no games.
    """
    score, variance = _score_and_variance(wins, losses, draws)
    n = wins + losses + draws
    margin = Z95 * math.sqrt(variance / n)
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * decisive)))
    return EloEstimate(elo_from_score(score), elo_from_score(score - margin),
                       elo_from_score(score + margin), los)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.

    No decision before ``min_games`` games: the normal approximation of the LLR uses the
    sample variance, which a short run of alike results makes tiny (7-0-1 gives an LLR of
    5.2 for elo1 = 30, a decision after eight games).
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
        """Log-likelihood ratio of the results so far (0 while it is undefined)."""
        n = wins + losses + draws
        if n == 0:
            return 0.0
        score, variance = _score_and_variance(wins, losses, draws)
        if variance <= 0:  # all results alike: regularise with half a game of each kind
            score, variance = _score_and_variance(wins + 0.5, losses + 0.5, draws + 0.5)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)

    def decision(self, wins: int, losses: int, draws: int) -> str | None:
        """``"H1"`` (accept elo1), ``"H0"`` (accept elo0) or None (continue)."""
        if wins + losses + draws < self.min_games:
            return None
        llr = self.llr(wins, losses, draws)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
