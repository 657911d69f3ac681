"""A finding's fix as an edit: the quoted words, where they stand, and the value region to put there.

The lint proposes each fix as text to paste ("bind it: <!-- benchdoc:value ... -->...<!-- benchdoc:end -->").
A fix that binds the words to a value region can be applied mechanically: the quoted words are
found at the finding's line and column (across a line break if the sentence wraps there) and
replaced by the region, which `sync` then keeps true. A fix that only says "reword" has no edit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from benchdoc.lint.findings import Finding

_REGION = re.compile(r"<!-- benchdoc:value [^>]*-->.*?<!-- benchdoc:end -->")


@dataclass(frozen=True)
class FixEdit:
    """Replace ``text[start:end]`` (the finding's quoted words) with ``replacement``."""

    finding: Finding
    start: int
    end: int
    replacement: str

    def apply(self, text: str) -> str:
        return text[: self.start] + self.replacement + text[self.end :]


def replacement(finding: Finding) -> str | None:
    """The text the fix puts in place of the quoted words, or None when it proposes no region.

    A fix that is all region (and the unit after it: "<!-- ... -->96.1<!-- benchdoc:end --> tok/s")
    replaces the quoted value with its unit; otherwise the region alone replaces the quoted words.
    """
    found = _REGION.search(finding.fix)
    if found is None:
        return None
    return finding.fix if found.start() == 0 else found.group(0)


def locate(text: str, finding: Finding) -> tuple[int, int] | None:
    """Where the finding's quoted words stand in ``text`` (LF or CRLF), or None if they are not at its line:column."""
    words = finding.text.split()
    if not words or finding.line < 1 or finding.column < 1:
        return None
    lines = text.split("\n")
    if finding.line > len(lines):
        return None
    start = sum(len(line) + 1 for line in lines[: finding.line - 1]) + finding.column - 1
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
    match = pattern.match(text, start)
    return match.span() if match else None


def fix_edits(text: str, findings: Sequence[Finding]) -> list[FixEdit]:
    """The edit of each finding whose fix can be applied to ``text``, in the findings' order."""
    edits = []
    for finding in findings:
        new = replacement(finding)
        span = locate(text, finding) if new is not None else None
        if new is not None and span is not None:
            edits.append(FixEdit(finding, span[0], span[1], new))
    return edits
