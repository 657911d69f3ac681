"""The write tools: record, retract, sync (plan, then write by plan id) and apply one lint fix by id.

Each refuses unless the server was started with --allow-write. A write by id makes the plan (or
the fix) again from the documents and ledger as they are now and writes only if its id is the
one the agent reviewed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from benchdoc.mcp.reading import reading

if TYPE_CHECKING:
    from benchdoc.mcp.scope import Scope

# How a run recorded through the MCP server says where it came from (the ledger's `source`,
# one of benchdoc.recording.SOURCES); the recorder writes it like any other road's.
SOURCE = "mcp"


def record(
    scope: Scope, experiment: str, metrics: Mapping[str, Sequence[float]] | None = None, *,
    failed: str | None = None, note: str | None = None, each_start: bool = False,
) -> dict[str, Any]:
    """One run of ``experiment`` measured elsewhere (values, or a failure and its reason): one
    server start, or with ``each_start`` one start per value."""
    from benchdoc.measured import record_measured

    scope.require_write("record")
    recorded = record_measured(scope.config(), experiment, dict(metrics or {}), failed=failed, note=note, source=SOURCE,
                               each_start=each_start)
    return {"run_id": recorded.run_id, "experiment": recorded.experiment, "source": SOURCE, "message": recorded.describe()}


def retract(scope: Scope, run_id: int, reason: str) -> dict[str, Any]:
    """Take a run back (it stays in the ledger and in its history, with the reason)."""
    from benchdoc.errors import LedgerError, UsageError
    from benchdoc.ledger.store import Ledger

    scope.require_write("retract")
    config = scope.config()
    with Ledger.open(config.ledger_url, create=False, read_only=False) as ledger:
        try:
            retraction = ledger.retract(run_id, reason)
            experiment = ledger.run(run_id).experiment
        except LedgerError as err:
            raise UsageError(err.message) from None
    return {"run_id": run_id, "experiment": experiment, "reason": retraction.reason,
            "message": f"retracted run {run_id} of {experiment}: {retraction.reason}"}


def sync_plan(scope: Scope, documents: Sequence[str] = ()) -> dict[str, Any]:
    """What `sync` would write: the unified diff of each document, and the plan's id. Writes nothing."""
    from benchdoc.mcp.plans import make_sync_plan

    with reading(scope) as (config, ledger):
        plan = make_sync_plan(config, ledger, scope.documents(config, documents), scope.memo.lazy(config, ledger))
    return {
        "plan_id": plan.id,
        "changed": [str(s.plan.path) for s in plan.changed],
        "diff": "".join(s.plan.diff for s in plan.syncs),
        "charts": [str(p) for s in plan.syncs for p in s.stale_files],
        "errors": [str(e) for e in plan.errors],
    }


def sync_write(scope: Scope, plan_id: str, documents: Sequence[str] = ()) -> dict[str, Any]:
    """Write the plan ``plan_id`` names, if the documents and the ledger still give exactly that plan."""
    from benchdoc.docs.project import write_sync
    from benchdoc.errors import DocumentError
    from benchdoc.lint.state import record_sync_quietly
    from benchdoc.mcp.plans import make_sync_plan, stale_id

    scope.require_write("sync_write")
    with reading(scope) as (config, ledger):
        plan = make_sync_plan(config, ledger, scope.documents(config, documents), scope.memo.lazy(config, ledger))
    if plan.id != plan_id:
        raise stale_id("sync plan", plan_id, plan.id)
    if plan.errors:
        raise plan.errors[0] if len(plan.errors) == 1 else DocumentError(
            f"{len(plan.errors)} problems in the documents; nothing was written: " + "; ".join(map(str, plan.errors)))
    wrote = []
    for sync in plan.changed:
        written = write_sync(sync)
        wrote.append(str(sync.plan.path) + (f" and {written.charts} chart file(s)" if written.charts else ""))
    if wrote:
        record_sync_quietly(config)  # where the ledger stood, for `benchdoc lint --changed`
    message = "wrote " + ", ".join(wrote) if wrote else f"{len(plan.syncs)} document(s) up to date"
    return {"plan_id": plan.id, "written": [str(s.plan.path) for s in plan.changed], "message": message}


def apply_fix(scope: Scope, fix_id: str, documents: Sequence[str] = ()) -> dict[str, Any]:
    """Write one lint fix (its value region in place of the stale words, the document synced),
    if the documents and the ledger still give the fix ``fix_id`` names."""
    from benchdoc.cache import DerivedCache
    from benchdoc.check import project_facts
    from benchdoc.errors import DocumentError
    from benchdoc.lint import lint_paths
    from benchdoc.mcp.plans import make_fixes, stale_id
    from benchdoc.textfile import write_atomic

    scope.require_write("apply_fix")
    with reading(scope, create=False) as (config, ledger):
        paths = scope.documents(config, documents)
        lazy = scope.memo.lazy(config, ledger)
        linted = lint_paths(project_facts(config, ledger, DerivedCache.for_project(config, ledger), lazy), paths)
        fixes = make_fixes(config, ledger, linted, lazy)
    fix = next((f for f in fixes if f.id == fix_id), None)
    if fix is None:
        raise stale_id("fix", fix_id, None)
    if fix.path.read_bytes() != fix.source.data:
        raise DocumentError("changed on disk since it was read; nothing was written, run again", file=str(fix.path))
    try:
        write_atomic(fix.path, fix.new_bytes)
    except OSError as err:
        raise DocumentError(f"cannot write {fix.path}: {err.strerror}; nothing was written", file=str(fix.path)) from None
    finding = fix.edit.finding
    return {"fix_id": fix.id, "file": str(fix.path), "diff": fix.diff,
            "message": f"fixed {finding.location}: \"{finding.text}\" -> {fix.edit.replacement}"}
