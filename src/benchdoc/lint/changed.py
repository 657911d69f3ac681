"""Where to update: every place in the documents that names an experiment whose result changed.

After new runs are recorded and the tables synced, the prose still has to be read by a
person. This lists each sentence and table row that names an experiment with a new run
since a date or run (or the experiment it supersedes, or one compared against it),
whether or not the lint found its numbers stale: the review list before calling the log done.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from benchdoc.errors import UsageError
from benchdoc.ledger.models import Outcome
from benchdoc.lint.facts import LintFacts
from benchdoc.lint.mentions import MentionFinder
from benchdoc.lint.text import DocumentText, Unit


@dataclass(frozen=True)
class Since:
    """A point in the ledger's history: after a run id, or from a moment on."""

    after_run: int | None = None
    moment: datetime | None = None

    def describe(self) -> str:
        if self.after_run is not None:
            return f"since run #{self.after_run}"
        assert self.moment is not None
        return f"since {self.moment:%Y-%m-%d %H:%M} UTC"

    def includes(self, run_id: int, started_at: str) -> bool:
        if self.after_run is not None:
            return run_id > self.after_run
        assert self.moment is not None
        return datetime.fromisoformat(started_at) >= self.moment


def parse_since(text: str) -> Since:
    """'12', '#12' or 'run:12' (after that run), or a date '2026-11-02' / '2026-11-02T14:30' (UTC)."""
    value = text.strip()
    bare = value.removeprefix("#").removeprefix("run:").removeprefix("run").strip()
    if bare.isdigit():
        return Since(after_run=int(bare))
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--changed-since {text!r}: expected a run id (12, #12) or a date (2026-11-02, 2026-11-02T14:30)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return Since(moment=moment)


@dataclass(frozen=True)
class ChangedExperiment:
    name: str
    label: str
    why: str  # "2 new runs since 2026-11-03, the latest #5 on 2026-11-05"


@dataclass(frozen=True)
class Place:
    """A sentence or table row that names experiments whose results changed."""

    file: str
    line: int
    column: int
    section: str
    text: str
    experiments: tuple[str, ...]  # the changed experiments it names
    historical: bool  # in a section declared historical (old numbers expected there)
    ignored: bool  # under a benchdoc:ignore directive

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["experiments"] = list(self.experiments)
        return data


def changed_experiments(facts: LintFacts, since: Since) -> dict[str, ChangedExperiment]:
    """Experiments with runs in the period, the ones they supersede, and those compared against them."""
    changed: dict[str, ChangedExperiment] = {}
    for name, experiment in facts.experiments.items():
        new = [run for run in experiment.runs if since.includes(run.run_id, run.started_at)]
        if not new:
            continue
        latest = new[0]
        failed = sum(1 for run in new if run.outcome != Outcome.OK)
        detail = f", {failed} failed" if failed else ""
        changed[name] = ChangedExperiment(
            name, experiment.label,
            f"{len(new)} new run{'s' if len(new) != 1 else ''} {since.describe()}{detail}; the latest #{latest.run_id} "
            f"on {latest.started_at[:10]}",
        )
    direct = dict(changed)
    for name in direct:
        for member in facts.lineage(name):
            if member.name not in changed:
                current = facts.current(member.name)
                changed[member.name] = ChangedExperiment(
                    member.name, member.label, f"superseded by {current.label}, which has new runs"
                )
    for name, experiment in facts.experiments.items():
        target = experiment.compare_to
        if name not in changed and target in direct:
            changed[name] = ChangedExperiment(
                name, experiment.label, f"compared with {facts.experiments[target].label}, which has new runs"
            )
    return changed


def changed_places(
    facts: LintFacts, documents: list[DocumentText], changed: dict[str, ChangedExperiment]
) -> list[Place]:
    """Every sentence and table row of the documents naming a changed experiment, in document order."""
    finder = MentionFinder(facts.experiments.values())
    places: list[Place] = []
    for document in documents:
        rows: dict[int, list[Unit]] = {}
        for unit in document.units:
            if unit.row is not None:
                rows.setdefault(unit.row, []).append(unit)
                continue
            names = _changed_names(finder, unit.text, changed)
            if names:
                places.append(_place(document, unit, unit.text, names))
        for cells in rows.values():
            cells.sort(key=lambda c: c.column_index or 0)
            names = tuple(dict.fromkeys(n for c in cells for n in _changed_names(finder, c.text, changed)))
            if names:
                text = " | ".join(" ".join(c.text.split()) for c in cells)
                places.append(_place(document, cells[0], text, names))
    places.sort(key=lambda p: (p.file, p.line, p.column))
    return places


def _changed_names(finder: MentionFinder, text: str, changed: dict[str, ChangedExperiment]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.experiment for m in finder.find(text) if m.experiment in changed))


def _place(document: DocumentText, unit: Unit, text: str, names: tuple[str, ...]) -> Place:
    line, column = unit.position(0)
    return Place(
        file=document.path,
        line=line,
        column=column,
        section=unit.section_name,
        text=" ".join(text.split()),
        experiments=names,
        historical=unit.historical,
        ignored=line in document.ignored_lines,
    )
