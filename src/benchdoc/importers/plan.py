"""Deciding what an import records: which runs, under which experiment, which are already in.

A results file can hold runs of several configurations (a guidellm sweep, a hyperfine
comparison of two commands, SGLang runs at two concurrencies appended to one file).
Runs of different configurations are not repetitions of one experiment, so an import
takes one configuration (``select``) unless told the mix is intended (``mixed``).
Runs whose content was imported before (same fingerprint) are skipped, which makes
importing a file that a tool keeps appending to safe to repeat.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from benchdoc.errors import UsageError
from benchdoc.importers.base import ImportedRun
from benchdoc.ledger.models import NewRun, Outcome
from benchdoc.recording import Measurement, build_run

_MAX_LISTED = 8


@dataclass(frozen=True)
class Duplicate:
    """A run of the file already in the ledger, and the id it was recorded under."""

    run: ImportedRun
    recorded_as: int


@dataclass(frozen=True)
class ImportPlan:
    experiment: str
    runs: tuple[ImportedRun, ...]  # to record, in file order
    duplicates: tuple[Duplicate, ...]  # skipped

    def measurements(self, note: str | None = None) -> list[Measurement]:
        """The runs to record, as the recorder takes them."""
        return [run.to_measurement(self.experiment, note) for run in self.runs]

    def new_runs(self, note: str | None = None) -> list[NewRun]:
        """The run records the recorder makes of them."""
        return [build_run(m) for m in self.measurements(note)]


def plan_import(
    runs: Sequence[ImportedRun],
    experiment: str,
    *,
    select: str | None = None,
    metrics: Iterable[str] = (),
    mixed: bool = False,
    recorded: Mapping[str, int] | None = None,
) -> ImportPlan:
    """The runs to record under ``experiment``, or a UsageError saying what to choose.

    ``select`` keeps the runs whose label equals it or matches it as a glob; ``metrics``
    (globs) keeps only those metrics; ``recorded`` maps fingerprints already in the
    ledger to their run ids (pass None to record duplicates anyway).
    """
    chosen = list(runs)
    if select is not None:
        chosen = [r for r in chosen if r.label == select or fnmatch.fnmatchcase(r.label, select)]
        if not chosen:
            raise UsageError(f"--select {select!r} matches no run; the file holds: {_list_labels(runs)}")
    labels = list(dict.fromkeys(r.label for r in chosen))
    if len(labels) > 1 and not mixed:
        raise UsageError(
            f"the file holds runs of {len(labels)} different configurations: {_list_labels(chosen)}; "
            "import one at a time with --select LABEL (a glob works), "
            f"or pass --mixed to record them all as runs of '{experiment}'"
        )
    patterns = list(metrics)
    if patterns:
        filtered = []
        for run in chosen:
            samples = tuple(s for s in run.samples if any(fnmatch.fnmatchcase(s.metric, p) for p in patterns))
            if not samples and run.outcome == Outcome.OK:
                available = sorted({s.metric for s in run.samples})
                raise UsageError(
                    f"--metric {' '.join(patterns)} matches no metric of {run.location}; it has: {', '.join(available)}"
                )
            filtered.append(replace(run, samples=samples))
        chosen = filtered
    fresh: list[ImportedRun] = []
    duplicates: list[Duplicate] = []
    for run in chosen:
        known = None
        if recorded is not None:
            known = recorded.get(run.fingerprint)
            if known is None and run.former_fingerprint is not None:
                known = recorded.get(run.former_fingerprint)
        if known is not None:
            duplicates.append(Duplicate(run, known))
        else:
            fresh.append(run)
    return ImportPlan(experiment, tuple(fresh), tuple(duplicates))


def _list_labels(runs: Iterable[ImportedRun]) -> str:
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.label] = counts.get(run.label, 0) + 1
    shown = [f"'{label}' ({n} run{'s' if n != 1 else ''})" for label, n in list(counts.items())[:_MAX_LISTED]]
    more = len(counts) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
