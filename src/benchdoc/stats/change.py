"""Before/after: how an experiment's result moved when a newer one superseded it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchdoc.errors import UsageError
from benchdoc.stats._checks import as_values, check_direction


@dataclass(frozen=True)
class Change:
    """The old centre, the new centre and the signed change between them (new/old - 1)."""

    old: float
    new: float
    n_old: int
    n_new: int
    direction: str
    delta_pct: float
    improved: bool  # moved the good way for the direction; no move is not an improvement

    def text(self, digits: int = 1) -> str:
        """'54.1 -> 96.1 (+77.6%)'."""
        return f"{self.old:.{digits}f} -> {self.new:.{digits}f} ({self.delta_pct:+.{digits}f}%)"


def change(
    old_values: Sequence[float] | float, new_values: Sequence[float] | float, direction: str = "higher"
) -> Change:
    """The change from the old result (medians of its samples) to the new one."""
    import numpy as np

    check_direction(direction)
    old = as_values(_as_sequence(old_values), "old result")
    new = as_values(_as_sequence(new_values), "new result")
    old_centre = float(np.median(old))
    new_centre = float(np.median(new))
    if old_centre <= 0:
        raise UsageError(f"a relative change needs a positive old value, got {old_centre:g}")
    delta = (new_centre / old_centre - 1.0) * 100.0
    return Change(
        old=old_centre,
        new=new_centre,
        n_old=len(old),
        n_new=len(new),
        direction=direction,
        delta_pct=delta,
        improved=delta > 0 if direction == "higher" else delta < 0,
    )


def _as_sequence(values: Sequence[float] | float) -> Sequence[float]:
    if isinstance(values, (int, float)):
        return [values]
    return values
