"""Sync a project's documents: plan every managed region from the ledger, then write.

This is the library behind `benchdoc sync` and `benchdoc check`: it resolves which
documents to look at, computes the results once, plans each document with the
region renderer, and writes plans (and the chart files they embed) atomically.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import DocumentError, UsageError
from benchdoc.textfile import file_kind, same_content, write_together

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
        return [p for p, data in sorted(self.files.items()) if not same_content(p, data)]

    @property
    def changed(self) -> bool:
        return self.plan.changed or bool(self.stale_files)


def region_hint(path: Path | str) -> str:
    """What to write in a document for benchdoc to keep a results table in it, and the command after."""
    return (f"the lines <!-- benchdoc:table --> and <!-- benchdoc:end --> where the results table goes, "
            f"then run: benchdoc sync --write {shlex.quote(str(path))}")


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
    # Name documents as the user would type them: relative to the working directory,
    # each once however it was spelled ("a.md", "./a.md", a symlink to it).
    unique: dict[str, Path] = {}
    for path in paths:
        unique.setdefault(os.path.realpath(path), _relative(path))
    paths = list(unique.values())
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such document: {', '.join(str(p) for p in missing)} (create it: a Markdown file "
                         f"with {region_hint(missing[0])})")
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path} is {file_kind(path.stat().st_mode)}, not a document")
    if not given:
        _inside_project(config, paths)
    return paths


def _inside_project(config: Config, paths: Sequence[Path]) -> None:
    """Listed documents must resolve inside the project's folder, unless [documents] outside_project."""
    if config.documents.outside_project:
        return
    home = Path(os.path.realpath(config.path.parent))
    for path in paths:
        real = Path(os.path.realpath(path))
        if home not in real.parents:
            raise UsageError(
                f"{config.path.name}: [documents] paths: {path} resolves to {real}, outside the project "
                f"folder {home}; benchdoc writes only inside it (set outside_project = true to allow)"
            )


def _relative(path: Path) -> Path:
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
    chart_claims: dict[str, str] = {}  # shared, so two documents cannot write one chart file
    for path in paths:
        renderer = Renderer(config, results, path, cache=cache, chart_claims=chart_claims)
        plan = plan_document(path, renderer, force=force)
        syncs.append(DocumentSync(plan, dict(renderer.files)))
    if cache is not None:
        cache.save()
    return syncs


@dataclass(frozen=True)
class SyncWritten:
    """What writing one document's sync changed."""

    document: bool  # the document itself was replaced
    charts: int  # chart files written
    removed_temporaries: tuple[Path, ...] = ()  # left by writes that were killed midway

    @property
    def changed(self) -> bool:
        return self.document or bool(self.charts)


def write_sync(sync: DocumentSync) -> SyncWritten:
    """Write a document and its chart files as one unit: all of them, or none.

    Raises DocumentError if the plan has errors, if the document changed on disk since
    it was planned, if a chart file would land outside the document's folder, or if
    any file cannot be written (then none of them changed).
    """
    from benchdoc.docs.charts import chart_target
    plan = sync.plan
    plan.raise_for_errors()
    stale = sync.stale_files
    document = Path(plan.path)
    for path in stale:  # again, just before writing: the folders may have changed since planning
        chart_target(document, os.path.relpath(path, document.parent))
    if plan.changed and not same_content(document, plan.old_bytes):
        raise DocumentError("changed on disk since it was read; nothing was written, run again", file=plan.path)
    files = [(path, sync.files[path]) for path in stale]
    if plan.changed:
        files.append((document, plan.new_bytes))
    try:
        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
        removed = write_together(files)
    except OSError as err:
        where = err.filename or plan.path
        raise DocumentError(
            f"cannot write {where}: {err.strerror}; nothing was written (the document and its charts are unchanged)",
            file=plan.path,
        ) from None
    return SyncWritten(plan.changed, len(stale), tuple(removed))
