"""Naming experiments and metrics the way people type them: one matcher for every command.

An experiment is named by its name, by one of its aliases (any case), or by a glob
pattern over names (``eagle3-*``). A metric is named by its name or by the label tables
show (``tok/s``, ``TTFT p50``). `run`, `show`, `plot`, documents and the rest all resolve
names here, so a name accepted by one is accepted by all, with the same error when not.

Pure functions over names; nothing here reads the ledger or computes a statistic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase

from benchdoc.config import ExperimentConfig, MetricConfig, did_you_mean
from benchdoc.errors import UsageError

GLOB_CHARACTERS = "*?["


class SelectionError(UsageError):
    """A name, alias, pattern or metric that names nothing (or not one thing)."""


def is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in GLOB_CHARACTERS)


def known_experiments(experiments: Iterable[ExperimentConfig]) -> dict[str, tuple[str, ...]]:
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


def find_metric(
    name: str | None,
    declared: Mapping[str, MetricConfig],
    measured: Iterable[str] = (),
    primary: str | None = None,
) -> MetricConfig:
    """The metric called ``name`` or labelled so, declared or only measured.

    No name: the primary metric, else the only metric there is. A label matches exactly
    first, then in any case; an undeclared metric seen in the ledger gets neutral words.
    """
    recorded = set(measured)
    if name is None:
        if primary and primary in declared:
            return declared[primary]
        every = sorted(set(declared) | recorded)
        if len(every) == 1:
            return declared.get(every[0]) or MetricConfig(name=every[0], label=every[0])
        raise SelectionError(f"name the metric (one of: {', '.join(every) or 'none recorded'})")
    if name in declared:
        return declared[name]
    for compare in (str, str.lower):
        labelled = [spec for spec in declared.values() if compare(spec.label) == compare(name)]
        if len(labelled) == 1:
            return labelled[0]
        if len(labelled) > 1:
            names = ", ".join(spec.name for spec in labelled)
            raise SelectionError(f"metric label '{name}' is ambiguous: {names} share it; use a name")
    if name in recorded:
        return MetricConfig(name=name, label=name)
    choices = sorted(set(declared) | recorded | {spec.label for spec in declared.values()})
    raise SelectionError(f"unknown metric '{name}'{did_you_mean(name, choices)}")
