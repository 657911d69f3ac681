"""What `benchdoc check` does, as a library call: are the documents true to the ledger?

Plans a sync of every document (nothing is written) and lints the prose of those that
parse, as the plans parsed them. The regions and the lint share one computation of the
results, and with a warm derived cache neither needs it, so no statistic is computed.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.cache import DerivedCache
from benchdoc.docs.project import DocumentSync, plan_documents
from benchdoc.errors import EXIT_DOCUMENT, EXIT_FAILED, EXIT_OK
from benchdoc.lint import DocumentLint, LintFacts, lint_parsed, load_facts
from benchdoc.results import LazyResults

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.pooling import Pooling


@dataclass(frozen=True)
class CheckResult:
    """The sync plan of each document and, unless skipped, the lint of each that parsed."""

    syncs: tuple[DocumentSync, ...]
    lint: tuple[DocumentLint, ...] | None  # None when the prose was not checked

    @property
    def stale(self) -> list[DocumentSync]:
        """Documents (or the chart files they embed) that a sync would change."""
        return [sync for sync in self.syncs if sync.changed]

    @property
    def problems(self) -> int:
        """Broken documents' errors and regions edited by hand."""
        return sum(len(sync.plan.errors) for sync in self.syncs)

    @property
    def statements(self) -> int:
        """Stale statements the lint found in the prose."""
        return sum(len(document.findings) for document in self.lint or ())

    @property
    def ok(self) -> bool:
        return not (self.problems or self.stale or self.statements)

    @property
    def hand_edited(self) -> int:
        """Regions edited by hand since benchdoc wrote them (among the problems)."""
        return sum(len(sync.plan.hand_edited) for sync in self.syncs)

    @property
    def exit_code(self) -> int:
        """3 when a document is broken or a region was edited by hand (as `sync` exits for
        them), else 1 when something is stale, else 0."""
        if self.problems:
            return EXIT_DOCUMENT
        return EXIT_OK if self.ok else EXIT_FAILED

    def summary(self, documents: Sequence[str] = ()) -> str:
        """One line: all is well, or what is wrong and how to fix it (``documents``: those named
        on the command line, repeated in the commands it advises so they run as printed)."""
        named = "".join(f" {shlex.quote(d)}" for d in documents)
        if self.ok:
            return f"{len(self.syncs)} document(s) up to date"
        broken = self.problems - self.hand_edited
        parts = [f"{len(self.stale)} stale document(s)"]
        parts += [f"{self.hand_edited} region(s) edited by hand"] if self.hand_edited else []
        parts += [f"{broken} problem(s) in documents"] if broken else []
        if self.lint is not None:
            parts.append(f"{self.statements} stale statement(s) in prose")
        # Each fix as it works when run in this order: a broken document stops every sync.
        fixes = ["fix each problem at the file:line given above"] if broken else []
        if self.hand_edited:  # a plain sync --write refuses these
            fixes.append("move hand-written text out of the regions edited by hand, or overwrite them with "
                         f"`benchdoc sync --write --force{named}`")
        elif self.stale:
            fixes.append(f"regenerate the regions with `benchdoc sync --write{named}`")
        if self.statements:
            fixes.append("reword the prose or bind its numbers with <!-- benchdoc:value --> (see each fix:)")
        return f"{', '.join(parts)}; {'; '.join(fixes)}"


def project_facts(
    config: Config, ledger: Ledger, cache: DerivedCache, results: LazyResults | None = None
) -> LintFacts:
    """The lint's facts: from the derived cache when warm, else from ``results`` (then cached)."""
    facts = load_facts(config, results or LazyResults.from_ledger(config, ledger), cache)
    cache.save()
    return facts


def check_project(
    config: Config, ledger: Ledger, paths: Sequence[Path], *, lint: bool = True, pooling: Pooling | None = None,
    results: LazyResults | None = None,
) -> CheckResult:
    """Plan a sync of each document in ``paths`` and lint the prose of those that parse;
    ``pooling`` overrides the project's [stats] pool (a region's own runs= still wins);
    ``results``: the ledger's results when the caller already holds them (a long-lived server)."""
    results = results or LazyResults.from_ledger(config, ledger, pooling)  # shared by the regions and the lint
    cache = DerivedCache.for_project(config, ledger, pooling)
    syncs = plan_documents(config, results, paths, cache=cache)
    if not lint:
        return CheckResult(tuple(syncs), None)
    facts = project_facts(config, ledger, cache, results)
    # Broken documents are reported by their plans; the lint reads the others as the plans parsed them.
    parsed = [(Path(sync.plan.path), sync.plan.parsed) for sync in syncs if not sync.plan.parsed.errors]
    return CheckResult(tuple(syncs), tuple(lint_parsed(facts, parsed)))
