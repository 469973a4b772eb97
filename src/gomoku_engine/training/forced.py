"""Which of the teacher's forced positions a network's training run uses.

A position the teacher scores as a forced win or loss (``Dataset.mate``) has a target of 1
or 0 for the teacher's share.  Many threatened positions (the opponent has a four-three or
open-four point) are forced losses, so a network trained on them scores the threatened
positions that are not lost too low, and leaving them out follows a deeper teacher better
on the positions that are not forced.  But the search evaluates forced positions at its
leaves too, and there the network trained on them plays better: keep them (the default)
unless measuring.  The measurements: docs/evaluation.md, "Forced positions in training".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from .network_data import Dataset

#: ``TrainConfig.forced``: keep every forced position; drop them all; drop those where the
#: side to move is threatened
FORCED_CHOICES = ("keep", "drop", "drop-threatened")


def kept_positions(data: Dataset, forced: str) -> npt.NDArray[np.bool_]:
    """``bool[n]``: the positions of ``data`` a run with ``TrainConfig.forced = forced``
    trains and measures on.

    :raises ValueError: for a ``forced`` not in :data:`FORCED_CHOICES`.
    """
    if forced not in FORCED_CHOICES:
        raise ValueError(f"forced={forced!r}: expected one of " + ", ".join(FORCED_CHOICES))
    forced_rows = data.mate != 0
    if forced == "drop":
        return ~forced_rows
    if forced == "drop-threatened":
        return ~(forced_rows & data.threatened)
    return np.ones(len(data), bool)


__all__ = ["FORCED_CHOICES", "kept_positions"]
