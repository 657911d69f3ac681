"""The read tools: what `show --json`, `compare --json`, `history --json`, `lint` and `check` give,
as JSON-ready data (never the terminal's text). Every call opens the ledger read-only afresh."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from benchdoc.errors import UsageError

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.lint import DocumentLint
    from benchdoc.lint.findings import Finding
    from benchdoc.mcp.plans import Fix
    from benchdoc.mcp.scope import Scope


@contextmanager
def reading(scope: Scope, *, create: bool = True) -> Iterator[tuple[Config, Ledger]]:
    """The project's config and its ledger opened read-only (as the reading commands open it)."""
    from benchdoc.ledger.store import Ledger

    config = scope.config()
    with Ledger.open(config.ledger_url, create=create, read_only=True) as ledger:
        yield config, ledger


def experiments(scope: Scope, names: Sequence[str] = (), metrics: Sequence[str] = ()) -> dict[str, Any]:
    """Each experiment's current result: status, values with their intervals, comparison and verdict, reason."""
    from benchdoc.results import build_results
    from benchdoc.serialize import result_to_dict, show_to_dict

    with reading(scope) as (config, ledger):
        if metrics:
            results = build_results(config, ledger, metrics=list(metrics))
            return show_to_dict(results, results.select(names) if names else list(results))
        state, results = scope.memo.current(config, ledger)
    chosen = results.select(names) if names else list(results)
    return show_to_dict(results, chosen, lambda r: scope.memo.derived(state, ("show", r.name), lambda: result_to_dict(r, config)))


def compare(scope: Scope, candidate: str, baseline: str | None = None, metrics: Sequence[str] = ()) -> dict[str, Any]:
    """``candidate`` against ``baseline`` (default: its compare_to), each metric both have."""
    from benchdoc.results import environment_differences
    from benchdoc.serialize import pairs_to_dict

    with reading(scope) as (config, ledger):
        results = scope.memo.results(config, ledger)
    a = results[candidate]
    if not baseline and not a.compare_to:
        raise UsageError(f"{a.name} has no compare_to; name the baseline: benchdoc compare {a.name} BASELINE")
    b = results[baseline or a.compare_to or ""]
    chosen = list(dict.fromkeys(results.metric(m).name for m in metrics)) if metrics else results.shared_metrics(a.name, b.name)
    pairs = [results.compare(a.name, b.name, metric) for metric in chosen]
    return pairs_to_dict(results, a, b, pairs, environment_differences(a.pooled, b.pooled))


def history(scope: Scope, experiment: str) -> dict[str, Any]:
    """Every run of an experiment (name, alias or glob), newest first, each marked pooled or not."""
    from benchdoc.results import pooled_run_ids
    from benchdoc.results.catalog import select_recorded
    from benchdoc.serialize import history_to_list

    with reading(scope) as (config, ledger):
        names = select_recorded(config, ledger, [experiment])
        runs = ledger.runs(names)
    return {"experiments": names, "runs": history_to_list(config, runs, pooled_run_ids(config, runs, None))}


def finding_json(finding: Finding, fix: Fix | None) -> dict[str, Any]:
    """A finding as `lint --json` gives it, with the id and diff of its fix when it can be applied."""
    return finding.to_json() | {
        "fix_id": fix.id if fix else None,
        "fix_diff": fix.diff if fix else None,
    }


def findings_json(scope: Scope, config: Config, ledger: Ledger, linted: Sequence[DocumentLint]) -> list[dict[str, Any]]:
    from benchdoc.mcp.plans import make_fixes

    fixes = {id(fix.edit.finding): fix for fix in make_fixes(config, ledger, linted, scope.memo.lazy(config, ledger))}
    return [finding_json(f, fixes.get(id(f))) for document in linted for f in document.findings]


def lint(scope: Scope, documents: Sequence[str] = ()) -> dict[str, Any]:
    """The prose lint's findings, each with its fix (and its fix id when apply_fix can write it)."""
    from benchdoc.cache import DerivedCache
    from benchdoc.check import project_facts
    from benchdoc.lint import lint_paths

    with reading(scope, create=False) as (config, ledger):
        paths = scope.documents(config, documents)
        lazy = scope.memo.lazy(config, ledger)
        linted = lint_paths(project_facts(config, ledger, DerivedCache.for_project(config, ledger), lazy), paths)
        findings = findings_json(scope, config, ledger, linted)
    errors = [str(e) for document in linted for e in document.errors]
    return {"findings": findings, "errors": errors, "documents": [str(p) for p in paths]}


def check(scope: Scope, documents: Sequence[str] = ()) -> dict[str, Any]:
    """What `benchdoc check` decides: stale documents, broken ones, stale prose; ok when none."""
    from benchdoc.check import check_project

    with reading(scope, create=False) as (config, ledger):
        paths = scope.documents(config, documents)
        result = check_project(config, ledger, paths, results=scope.memo.lazy(config, ledger))
        findings = findings_json(scope, config, ledger, result.lint or ())
    stale = [str(s.plan.path) for s in result.stale]
    regions = [r.summary() for s in result.syncs for r in s.plan.stale]
    return {
        "ok": result.ok,
        "summary": f"benchdoc check: {result.summary()}",
        "stale_documents": stale,
        "stale_regions": regions,
        "problems": [str(e) for s in result.syncs for e in s.plan.errors],
        "findings": findings,
    }


def document_list(scope: Scope) -> list[str]:
    """The project's documents ([documents] paths) inside its folder, relative to it."""
    listed = []
    for path in scope.listed(scope.config()):
        try:
            listed.append(str(scope.inside(path)))
        except UsageError:
            continue  # outside the project: not offered (the tools say why when asked for it)
    return listed


def read_document_text(scope: Scope, path: str) -> str:
    """A Markdown document inside the project, as text."""
    from benchdoc.docs.textio import read_document

    relative = scope.inside(path)
    if relative.suffix.lower() not in (".md", ".markdown"):
        raise UsageError(f"{path}: not a Markdown document (.md)")
    return read_document(relative).original  # the server works from the project folder
