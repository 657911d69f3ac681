"""The exceptions benchdoc raises, each carrying where it happened and its exit code.

The library raises these; only the CLI turns them into a message and an exit code.
"""

from __future__ import annotations

from pathlib import Path

# Exit codes shared by every command (documented in `benchdoc --help`).
EXIT_OK = 0
EXIT_FAILED = 1  # a check failed (stale document, lint finding) or validation failed
EXIT_USAGE = 2  # bad command-line usage
EXIT_DOCUMENT = 3  # a document is broken or was edited by hand inside a managed region
EXIT_INTERRUPTED = 130


class BenchdocError(Exception):
    """Base class: a message, optionally located at file:line."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}: {self.message}"
        if self.file:
            return f"{self.file}: {self.message}"
        return self.message


class ConfigError(BenchdocError):
    """benchdoc.toml is missing, malformed or inconsistent."""


class LedgerError(BenchdocError):
    """The ledger cannot be opened, is of an unknown schema, or a query failed."""


class LedgerUnreachable(LedgerError):
    """The ledger could not be reached or written just now: trying again may succeed."""


class UsageError(BenchdocError):
    """The user asked for something that cannot be done as asked (unknown experiment, bad value)."""

    exit_code = EXIT_USAGE


class DocumentError(BenchdocError):
    """A managed document is malformed (broken markers, unknown names) or was edited by hand."""

    exit_code = EXIT_DOCUMENT


class ValidationError(BenchdocError):
    """A value given to benchdoc cannot be what it claims to be (a negative latency)."""


class ImportFormatError(BenchdocError):
    """A results file to import is malformed or truncated."""


class RunError(BenchdocError):
    """An experiment could not be run (as opposed to running and failing, which is a result)."""
