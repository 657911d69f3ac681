"""Sizes and counts benchdoc accepts, each refused beyond its bound with one clear line.

One place for the numbers, so the docs (docs/limits.md) and the checks agree. Each bound
keeps a worst case well under half a gigabyte of memory on a small machine; the figures
measured at each bound are in docs/limits.md.
"""

from __future__ import annotations

import os
import re
import stat

# Files benchdoc reads whole.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024  # a managed Markdown document
MAX_IMPORT_BYTES = 16 * 1024 * 1024  # a results file to import
MAX_DATASET_BYTES = 64 * 1024 * 1024  # a --dataset file of prompts
MAX_TOKENIZER_BYTES = 64 * 1024 * 1024  # a tokenizer.json

# JSON read from files and servers: nesting as deep as the interpreter recurses (about
# 1,000 levels) and integers of up to 4,300 digits (Python's own bound) decode; beyond,
# json_limit_message says so in one line. Counts from a server are bounded by
# MAX_SERVER_TOKENS before anything keeps them.

# A load-generating run.
MAX_CONCURRENCY = 100_000  # requests in flight at once
MAX_TOKENS = 10_000_000  # input or output tokens of one request (a prompt's, a prefix's)
MAX_PREFIX_TOKENS = 10_000_000  # tokens of all shared prefixes together
MAX_PROMPT_TOKENS_TOTAL = 30_000_000  # synthetic prompt tokens of one run, built before timing (~8 B each)
MAX_SERVER_TOKENS = 10**9  # a token count reported by a server: beyond it the request failed
MAX_EVENT_BYTES = 16 * 1024 * 1024  # one server-sent event (or line) not yet complete
DEFAULT_REQUEST_TIMEOUT_S = 600.0  # one request, unless --timeout-request or timeouts.request_s says otherwise

# Sweeps.
MAX_SWEEP_EXPERIMENTS = 10_000  # experiments one sweep (or all together) expands to


def bounded_read(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, never reading more than ``limit + 1``.

    Raises ValueError (with a message naming ``what``) for a device, FIFO or socket, or a
    larger file; IsADirectoryError for a folder; OSError when it cannot be opened.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the open
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        if not stat.S_ISREG(info.st_mode):
            from benchdoc.textfile import file_kind

            raise ValueError(f"{what} is {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{what} is {info.st_size:,} bytes, over the {_size(limit)} benchdoc reads")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)  # a file that grew since the stat is still cut off here
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"{what} is over the {_size(limit)} benchdoc reads")
    return data


def json_limit_message(exc: BaseException) -> str | None:
    """What a JSON decoder's failure that is not a syntax error means, in words: nesting
    deeper than the interpreter recurses, or an integer longer than it converts; None
    for any other exception."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply (hundreds of levels of lists or objects inside each other)"
    if isinstance(exc, ValueError) and "digits" in str(exc) and "limit" in str(exc):
        return "a JSON number has thousands of digits, more than any measurement"
    return None


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit:,} bytes"


# Numbers typed by a person: ASCII digits only (Python's float() and int() also take
# "1_000" and Arabic-Indic or full-width digits, which no one means as a measurement).
_DECIMAL = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d{1,3})?|[-+]?(?:inf|infinity|nan)", re.ASCII | re.I)
_WHOLE = re.compile(r"[-+]?\d{1,18}", re.ASCII)


def number(text: str) -> float:
    """A decimal number written in ASCII digits; ValueError for anything else ("1_000", "١٢")."""
    stripped = text.strip()
    if not _DECIMAL.fullmatch(stripped):
        raise ValueError(f"{text!r} is not a number")
    return float(stripped)


def whole_number(text: str) -> int:
    """A whole number of at most 18 ASCII digits; ValueError for anything else."""
    stripped = text.strip()
    if not _WHOLE.fullmatch(stripped):
        raise ValueError(f"{text!r} is not a whole number")
    return int(stripped)
