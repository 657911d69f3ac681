"""Unified diffs of document text, and an optional colouring for terminals."""

from __future__ import annotations

import difflib
import os

_NO_NEWLINE = "\\ No newline at end of file\n"
_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def unified_diff(
    old: str,
    new: str,
    path: str,
    *,
    context: int = 3,
    old_label: str | None = None,
    new_label: str | None = None,
) -> str:
    """A unified diff of two texts, "" when they are equal.

    Line endings are compared as LF, so the diff shows what a reader would see
    change; a missing final newline is marked the way git marks it.
    """
    old_lines = _lines(old)
    new_lines = _lines(new)
    if old_lines == new_lines:
        return ""
    hunks = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile=old_label if old_label is not None else _label("a", path),
        tofile=new_label if new_label is not None else _label("b", path),
        n=context,
    )
    out: list[str] = []
    for line in hunks:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + _NO_NEWLINE)
    return "".join(out)


def _label(side: str, path: str) -> str:
    # git's a/ and b/ prefixes, so `git apply` takes the diff of a relative path.
    return path if os.path.isabs(path) or path.startswith("<") else f"{side}/{path}"


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").splitlines(keepends=True)


def colorize_diff(diff: str) -> str:
    """The same diff with ANSI colours: additions green, removals red, hunks cyan."""
    out: list[str] = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\n")
        ending = line[len(body) :]
        if line.startswith(("+++", "---")):
            out.append(f"{_BOLD}{body}{_RESET}{ending}")
        elif line[:1] in _COLOURS:
            out.append(f"{_COLOURS[line[:1]]}{body}{_RESET}{ending}")
        else:
            out.append(line)
    return "".join(out)
