"""Sync a project's documents: plan every managed region from the ledger, then write.

This is the library behind `benchdoc sync` and `benchdoc check`: it resolves which
documents to look at, computes the results once, plans each document with the
region renderer, and writes plans (and the chart files they embed) atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError

if TYPE_CHECKING:
    from benchdoc.cache import DerivedCache
    from benchdoc.config import Config
    from benchdoc.docs.sync import DocumentPlan
    from benchdoc.results import LazyResults


@dataclass
class DocumentSync:
    """One document's plan and the chart files its regions embed."""

    plan: DocumentPlan
    files: dict[Path, bytes] = field(default_factory=dict)

    @property
    def stale_files(self) -> list[Path]:
        """Chart files that are missing or differ from what the regions embed."""
        return [p for p, data in sorted(self.files.items()) if not p.exists() or p.read_bytes() != data]

    @property
    def changed(self) -> bool:
        return self.plan.changed or bool(self.stale_files)


def document_paths(config: Config, given: Sequence[str] | None, *, action: str = "sync") -> list[Path]:
    """The documents to sync: those given, else those listed in benchdoc.toml."""
    if given:
        paths = [Path(p) for p in given]
    else:
        paths = list(config.documents.paths)
        if not paths:
            raise UsageError(
                f"no documents to {action}: list them in {config.path.name} ([documents] paths = [\"log.md\"]) "
                "or name them on the command line"
            )
    # Name documents as the user would type them: relative to the working directory.
    paths = [_relative(p) for p in paths]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no such document: {', '.join(str(p) for p in missing)}")
    return paths


def _relative(path: Path) -> Path:
    import os

    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return Path(relative) if not relative.startswith(".." + os.sep + "..") else path


def plan_documents(
    config: Config,
    results: LazyResults,
    paths: Sequence[Path],
    *,
    force: bool = False,
    cache: DerivedCache | None = None,
) -> list[DocumentSync]:
    """Plan every document; nothing is written. ``results`` are computed once, if a region needs them."""
    from benchdoc.docs.render import Renderer
    from benchdoc.docs.sync import plan_document

    syncs = []
    for path in paths:
        renderer = Renderer(config, results, path, cache=cache)
        plan = plan_document(path, renderer, force=force)
        syncs.append(DocumentSync(plan, dict(renderer.files)))
    if cache is not None:
        cache.save()
    return syncs


def write_sync(sync: DocumentSync) -> bool:
    """Write a document's chart files, then the document itself; True if anything changed."""
    from benchdoc.docs.sync import write_plan
    from benchdoc.textfile import write_atomic

    sync.plan.raise_for_errors()
    stale = sync.stale_files
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, sync.files[path])
    return write_plan(sync.plan) or bool(stale)
