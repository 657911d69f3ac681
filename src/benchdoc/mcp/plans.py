"""Sync plans and lint fixes an agent reviews, each with an id bound to what it was made from.

A plan id is a hash of the ledger's state (benchdoc's version, the config's bytes, the ledger's
change token: :func:`benchdoc.cache.fingerprint`), each document's bytes and the bytes the plan
would write. Writing by id makes the plan again and writes it only if the id comes out the same:
if a run was recorded, a run retracted, benchdoc.toml or a document edited since, the id differs
and nothing is written. A lint fix's id is made the same way from the document and the fixed text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import DocumentError, UsageError

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.docs.project import DocumentSync
    from benchdoc.docs.textio import DocumentText
    from benchdoc.ledger.store import Ledger
    from benchdoc.lint import DocumentLint
    from benchdoc.lint.fixes import FixEdit
    from benchdoc.results import LazyResults

ID_LENGTH = 16


def _digest(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:ID_LENGTH]


def ledger_state(config: Config, ledger: Ledger) -> str:
    from benchdoc.cache import fingerprint

    return fingerprint(config, ledger)


@dataclass(frozen=True)
class SyncPlan:
    """Every document's sync, and the id that names exactly this plan."""

    id: str
    syncs: tuple[DocumentSync, ...]

    @property
    def changed(self) -> list[DocumentSync]:
        return [s for s in self.syncs if s.changed]

    @property
    def errors(self) -> list[DocumentError]:
        return [e for s in self.syncs for e in s.plan.errors]


def make_sync_plan(config: Config, ledger: Ledger, paths: Sequence[Path], results: LazyResults) -> SyncPlan:
    from benchdoc.cache import DerivedCache, file_digest
    from benchdoc.docs.project import plan_documents

    syncs = plan_documents(config, results, paths, cache=DerivedCache.for_project(config, ledger))
    parts: list[bytes | str] = [ledger_state(config, ledger)]
    for sync in syncs:
        parts += [str(sync.plan.path), sync.plan.old_bytes, sync.plan.new_bytes]
        parts += [f"{path}={file_digest(data=data)}" for path, data in sorted(sync.files.items()) if path in sync.stale_files]
        parts += [str(error) for error in sync.plan.errors]
    return SyncPlan(_digest(*parts), tuple(syncs))


@dataclass(frozen=True)
class Fix:
    """One finding's fix as it would be written: the document after the edit and a sync of it."""

    id: str
    edit: FixEdit
    path: Path
    source: DocumentText
    new_text: str  # in the document's own line endings

    @property
    def new_bytes(self) -> bytes:
        return self.source.encode(self.new_text)

    @property
    def diff(self) -> str:
        from benchdoc.docs.diff import unified_diff

        return unified_diff(self.source.original, self.new_text, str(self.path))


def make_fixes(config: Config, ledger: Ledger, linted: Sequence[DocumentLint], lazy: LazyResults) -> list[Fix]:
    """The fix of every finding that can be applied, with the document as `sync` would then write it."""
    from benchdoc.cache import DerivedCache
    from benchdoc.docs.render import Renderer
    from benchdoc.docs.sync import plan_source
    from benchdoc.docs.textio import read_document
    from benchdoc.lint.fixes import fix_edits

    state = ledger_state(config, ledger)
    cache = DerivedCache.for_project(config, ledger)
    fixes = []
    for document in linted:
        if not document.findings:
            continue
        source = read_document(document.path)
        for edit in fix_edits(source.text, document.findings):
            start, end = source.original_offset(edit.start), source.original_offset(edit.end)
            edited = source.with_original(source.original[:start] + edit.replacement + source.original[end:])
            plan = plan_source(edited, Renderer(config, lazy, document.path, cache=cache), force=False)
            if plan.errors:
                continue  # a fix that would leave the document broken is not offered
            new_bytes = source.encode(plan.new_text)
            fix_id = _digest(state, str(document.path), source.data, new_bytes)
            fixes.append(Fix(fix_id, edit, document.path, source, plan.new_text))
    cache.save()
    return fixes


def stale_id(kind: str, given: str, now: str | None) -> UsageError:
    """The refusal when an id no longer names what would be written."""
    what = f"the current {kind} is {now}" if now else f"no {kind} of the documents asked for has that id now"
    return UsageError(
        f"{kind} {given} is out of date: the documents, benchdoc.toml or the ledger changed since it was made "
        f"({what}); nothing was written: review the new one and write that"
    )
