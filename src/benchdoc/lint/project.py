"""Lint a project's documents: resolve which files, read them, check their prose."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import DocumentError, UsageError
from benchdoc.lint.checker import ProseChecker
from benchdoc.lint.facts import LintFacts
from benchdoc.lint.findings import Finding
from benchdoc.lint.text import DocumentText, document_units

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.docs.document import ParsedDocument

MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass
class DocumentLint:
    """The findings in one document, or why it could not be read."""

    path: Path
    findings: list[Finding] = field(default_factory=list)
    errors: list[DocumentError] = field(default_factory=list)


def display_path(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return os.path.relpath(path) if path.is_absolute() and Path.cwd() in path.parents else str(path)
    except ValueError:  # another drive
        return str(path)


def markdown_files(given: Sequence[str | Path]) -> list[Path]:
    """Files as given, and every Markdown file under each folder given (sorted, hidden folders skipped)."""
    paths: list[Path] = []
    for item in given:
        path = Path(item)
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                relative = found.relative_to(path).parts
                if found.suffix.lower() in MARKDOWN_SUFFIXES and found.is_file() and not any(p.startswith(".") for p in relative):
                    paths.append(found)
        elif path.is_file():
            paths.append(path)
        else:
            raise UsageError(f"no such document or folder: {item}")
    return list(dict.fromkeys(paths))


def lint_documents(config: Config | None, given: Sequence[str | Path]) -> list[Path]:
    """The documents to lint: those given (files or folders), else those listed in benchdoc.toml."""
    if given:
        return markdown_files(given)
    paths = list(config.documents.paths) if config is not None else []
    if not paths:
        name = config.path.name if config is not None else "benchdoc.toml"
        raise UsageError(
            f"no documents to lint: list them in {name} ([documents] paths = [\"log.md\"]) or name them on the command line"
        )
    return markdown_files(paths)


def read_documents(facts: LintFacts, paths: Sequence[Path]) -> list[tuple[Path, DocumentText | None, list[DocumentError]]]:
    """Each document's prose units, or the errors that kept it from being read."""
    from benchdoc.docs.document import parse_document

    read: list[tuple[Path, DocumentText | None, list[DocumentError]]] = []
    for path in paths:
        try:
            parsed = parse_document(path)
        except DocumentError as err:
            read.append((path, None, [err]))
            continue
        except OSError as err:
            read.append((path, None, [DocumentError(f"cannot read: {err.strerror or err}", file=display_path(path))]))
            continue
        read.append(_units(facts, path, parsed))
    return read


def _units(facts: LintFacts, path: Path, parsed: ParsedDocument) -> tuple[Path, DocumentText | None, list[DocumentError]]:
    if parsed.errors:
        return path, None, list(parsed.errors)
    return path, replace(document_units(parsed, facts.historical_sections), path=display_path(path)), []


def lint_paths(facts: LintFacts, paths: Sequence[Path], checker: ProseChecker | None = None) -> list[DocumentLint]:
    """Check the prose of each document; a document that cannot be parsed reports its errors instead."""
    return _lint(facts, read_documents(facts, paths), checker)


def lint_parsed(
    facts: LintFacts, documents: Sequence[tuple[Path, ParsedDocument]], checker: ProseChecker | None = None
) -> list[DocumentLint]:
    """Check documents already parsed (by a sync plan, say), without reading them again."""
    return _lint(facts, [_units(facts, path, parsed) for path, parsed in documents], checker)


def _lint(
    facts: LintFacts, read: Sequence[tuple[Path, DocumentText | None, list[DocumentError]]], checker: ProseChecker | None
) -> list[DocumentLint]:
    checker = checker or ProseChecker(facts)
    results = []
    for path, document, errors in read:
        if document is None:
            results.append(DocumentLint(path, errors=errors))
        else:
            results.append(DocumentLint(path, findings=checker.check(document)))
    return results


def lint_text(facts: LintFacts, text: str, path: str = "<text>") -> list[Finding]:
    """Check the prose of a Markdown text (for tests and editors)."""
    from benchdoc.docs.document import parse_text

    parsed = parse_text(text, path)
    if parsed.errors:
        raise parsed.errors[0]
    return ProseChecker(facts).check(document_units(parsed, facts.historical_sections))


