"""Load levels of a sweep, and the experiment names that record them: ``EXP@rate=4``.

Each level of a sweep (``--rate 1,2,4,8`` or ``--concurrency 1,8,32``) is recorded as its
own experiment, named after the swept one with the level appended. Every view of the
ledger then works on a level as on any experiment (its own runs, pooling, summaries), and
a chart of latency against throughput finds the levels of ``EXP`` by their names. Names
are pure string handling; importing this module imports nothing else of benchdoc.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdoc.config import Config, ExperimentConfig

LOAD_KINDS: tuple[str, ...] = ("rate", "concurrency")
SEPARATOR = "@"
_NAME = re.compile(r"^(?P<base>.+)@(?P<kind>rate|concurrency)=(?P<value>[0-9]+(?:\.[0-9]+)?)$")


@dataclass(frozen=True, order=True)
class LoadLevel:
    """One level of a sweep: an open loop at ``value`` requests/s, or a closed loop of
    ``value`` requests in flight."""

    kind: str
    value: float

    def __post_init__(self) -> None:
        if self.kind not in LOAD_KINDS:
            raise ValueError(f"load kind must be one of {', '.join(LOAD_KINDS)} (got {self.kind!r})")
        if not (math.isfinite(self.value) and self.value > 0):
            raise ValueError(f"a {self.kind} level must be > 0 (got {self.value})")
        if self.kind == "concurrency" and self.value != int(self.value):
            raise ValueError(f"a concurrency level is a whole number (got {self.value:g})")

    @property
    def label(self) -> str:
        """``rate=4``, ``rate=0.5``, ``concurrency=32``."""
        return f"{self.kind}={self.value:g}"

    def entry(self, of: str) -> dict[str, object]:
        """What a run of this level records in its metadata (``load``): the experiment swept,
        the kind and the value."""
        return {"of": of, "kind": self.kind, "value": self.value}

    def describe(self) -> str:
        if self.kind == "rate":
            return f"{self.value:g} req/s"
        return f"{int(self.value)} in flight"


def parse_levels(text: str, kind: str) -> tuple[LoadLevel, ...]:
    """``"1,2,4,8"`` -> four levels of ``kind``; raises ValueError naming the bad part."""
    levels: list[LoadLevel] = []
    for part in text.split(","):
        part = part.strip()
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{kind} level {part!r} is not a number") from None
        level = LoadLevel(kind, value)
        if level in levels:
            raise ValueError(f"{kind} level {part} is given twice")
        levels.append(level)
    if not levels:
        raise ValueError(f"no {kind} level given")
    return tuple(levels)


def level_experiment(base: str, level: LoadLevel) -> str:
    """The experiment name that records ``level`` of a sweep of ``base``."""
    return f"{base}{SEPARATOR}{level.label}"


def split_level_experiment(name: str) -> tuple[str, LoadLevel] | None:
    """``"eagle3@rate=4"`` -> ``("eagle3", LoadLevel("rate", 4.0))``; None for a plain name."""
    match = _NAME.match(name)
    if match is None:
        return None
    try:
        return match["base"], LoadLevel(match["kind"], float(match["value"]))
    except ValueError:
        return None


def level_config(config: Config, name: str) -> ExperimentConfig | None:
    """The experiment ``EXP@rate=4`` of a project whose ``EXP`` is declared (or an alias):
    labelled after it, and compared with the same level of what ``EXP`` compares to."""
    from benchdoc.errors import ConfigError, UsageError

    parts = split_level_experiment(name)
    if parts is None:
        return None
    base_name, level = parts
    try:
        base = config.experiment(base_name)
    except (ConfigError, UsageError):
        return None
    return replace(
        base,
        name=level_experiment(base.name, level),
        label=f"{base.label} @ {level.describe()}",
        aliases=(),
        supersedes=None,
        compare_to=level_experiment(base.compare_to, level) if base.compare_to else None,
    )
