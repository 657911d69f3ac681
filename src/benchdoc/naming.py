"""Experiment names: as people type them and as the ledger stores them. The bottom floor.

An experiment is named by its name, by one of its aliases (any case), or by a glob over
names (``eagle3-*``). Each level of a load sweep (``--rate 1,2,4,8``, ``--concurrency
1,8,32``) is recorded as its own experiment, named after the swept one with the level
appended: ``EXP@rate=4``. Every view of the ledger then works on a level as on any
experiment, and a latency-throughput chart finds the levels of ``EXP`` by their names.

`config`, `selection`, `workloads`, the runner and every command name experiments here,
so a name accepted by one is accepted by all, with the same error when not. Pure string
handling: this module imports nothing of benchdoc but its errors.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Protocol

from benchdoc.errors import UsageError

GLOB_CHARACTERS = "*?["
LOAD_KINDS: tuple[str, ...] = ("rate", "concurrency")
SEPARATOR = "@"
_LEVEL_NAME = re.compile(r"^(?P<base>.+)@(?P<kind>rate|concurrency)=(?P<value>[0-9]+(?:\.[0-9]+)?)$")


class SelectionError(UsageError):
    """A name, alias, pattern or metric that names nothing (or not one thing)."""


class Named(Protocol):
    """Anything with a name and aliases (an experiment's configuration)."""

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> Sequence[str]: ...


def did_you_mean(name: str, choices: Any) -> str:
    """' (did you mean 'x'?)' when a close match exists, else ''."""
    close = difflib.get_close_matches(name, [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in GLOB_CHARACTERS)


def known_experiments(experiments: Iterable[Named]) -> dict[str, tuple[str, ...]]:
    """Each experiment's name and its aliases, in the order given."""
    return {exp.name: tuple(exp.aliases) for exp in experiments}


def experiment_name(name: str, known: Mapping[str, Sequence[str]]) -> str:
    """The experiment called ``name``, or having it as an alias (aliases match in any case)."""
    if name in known:
        return name
    lowered = name.lower()
    for candidate, aliases in known.items():
        if lowered in (alias.lower() for alias in aliases):
            return candidate
    raise SelectionError(f"unknown experiment '{name}'{did_you_mean(name, known)}")


def matches(pattern: str, known: Mapping[str, Sequence[str]]) -> list[str]:
    """What one pattern names: a glob's matches in the order of ``known``, else one experiment."""
    if not is_glob(pattern):
        return [experiment_name(pattern, known)]
    found = [name for name in known if fnmatchcase(name, pattern)]
    if not found:
        raise SelectionError(f"no experiment matches '{pattern}'")
    return found


def select(patterns: Iterable[str], known: Mapping[str, Sequence[str]]) -> list[str]:
    """Experiments named by names, aliases or globs, in the order given, each once.

    A name or pattern that names nothing is an error, never silently dropped.
    """
    chosen: dict[str, None] = {}
    for pattern in patterns:
        chosen.update(dict.fromkeys(matches(pattern, known)))
    return list(chosen)


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
    from benchdoc.limits import number

    levels: list[LoadLevel] = []
    for part in text.split(","):
        part = part.strip()
        try:
            value = number(part)
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
    match = _LEVEL_NAME.match(name)
    if match is None:
        return None
    try:
        return match["base"], LoadLevel(match["kind"], float(match["value"]))
    except ValueError:
        return None


def is_level_experiment(name: str) -> bool:
    """Whether ``name`` records one level of a sweep (``EXP@rate=4``)."""
    return split_level_experiment(name) is not None


def level_label(name: str) -> str:
    """The level a level's name records (``eagle3@rate=4`` -> ``rate=4``); a plain name is its own."""
    parts = split_level_experiment(name)
    return name if parts is None else parts[1].label
