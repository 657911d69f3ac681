"""Naming metrics the way people type them: one matcher for every command.

A metric is named by its name or by the label tables show (``tok/s``, ``TTFT p50``).
`show`, `plot`, documents and the rest all resolve metric names here, so a name accepted by
one is accepted by all, with the same error when not. Experiments are named in
:mod:`benchdoc.naming`.

Pure functions over names; nothing here reads the ledger or computes a statistic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from benchdoc.config.model import MetricConfig
from benchdoc.naming import SelectionError, did_you_mean


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
