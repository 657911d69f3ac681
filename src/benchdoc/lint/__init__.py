"""The prose lint: numbers, relative claims and verdicts in a log's narrative that the ledger contradicts.

    facts = load_facts(config, LazyResults.from_ledger(config, ledger), cache)
    for document in lint_paths(facts, lint_documents(config, [])):
        for finding in document.findings:
            print(finding.location, finding.kind, finding.message)

The lint reads only :class:`LintFacts` (plain numbers, kept in the derived cache), so a
warm run needs no statistics. See docs/lint.md for what it reports and how to silence it.
"""

from __future__ import annotations

from benchdoc.lint.checker import ProseChecker
from benchdoc.lint.facts import LintFacts, facts_from_results, load_facts
from benchdoc.lint.findings import KINDS, STALE_CLAIM, STALE_VALUE, STALE_VERDICT, Finding
from benchdoc.lint.project import DocumentLint, lint_documents, lint_parsed, lint_paths, lint_text, markdown_files

__all__ = [
    "KINDS",
    "STALE_CLAIM",
    "STALE_VALUE",
    "STALE_VERDICT",
    "DocumentLint",
    "Finding",
    "LintFacts",
    "ProseChecker",
    "facts_from_results",
    "lint_documents",
    "lint_parsed",
    "lint_paths",
    "lint_text",
    "load_facts",
    "markdown_files",
]
