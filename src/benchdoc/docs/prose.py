"""The prose of a document: the text a reader sees that benchdoc does not manage.

This is what the prose lint reads for stale numbers: paragraphs, headings, list
items, table cells and text in HTML blocks, without code (fenced, indented, inline),
HTML comments and tags, or anything inside a managed region.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from benchdoc.docs.document import Heading, ParsedDocument


@dataclass(frozen=True)
class ProseBlock:
    """A stretch of prose on one line."""

    line: int  # 1-based
    column: int  # 1-based, in characters
    text: str
    section_path: tuple[str, ...]  # headings enclosing the line, outermost first
    block: int  # stretches with the same number belong to one paragraph, heading or cell


def prose_blocks(parsed: ParsedDocument) -> list[ProseBlock]:
    """Every stretch of unmanaged prose in document order."""
    managed = sorted((region.open_start, region.end_end) for region in parsed.regions)
    managed_starts = [start for start, _ in managed]
    sections = _section_paths(parsed.headings)
    section_lines = [line for line, _ in sections]
    blocks: list[ProseBlock] = []
    text = parsed.text
    for run in parsed.text_runs:
        for start, end in _outside(run.start, run.end, managed, managed_starts):
            stretch = text[start:end]
            if not stretch.strip():
                continue
            where = bisect.bisect_right(section_lines, run.line) - 1
            blocks.append(
                ProseBlock(
                    line=run.line,
                    column=start - parsed.line_starts[run.line - 1] + 1,
                    text=stretch,
                    section_path=sections[where][1] if where >= 0 else (),
                    block=run.block,
                )
            )
    return blocks


def _outside(
    start: int, end: int, managed: list[tuple[int, int]], managed_starts: list[int]
) -> list[tuple[int, int]]:
    """The parts of [start, end) outside every managed span (spans do not overlap)."""
    pieces: list[tuple[int, int]] = []
    index = max(bisect.bisect_right(managed_starts, start) - 1, 0)
    pos = start
    while index < len(managed) and managed[index][0] < end:
        lo, hi = managed[index]
        if hi > pos:
            if lo > pos:
                pieces.append((pos, lo))
            pos = max(pos, hi)
        index += 1
    if pos < end:
        pieces.append((pos, end))
    return pieces


def _section_paths(headings: tuple[Heading, ...]) -> list[tuple[int, tuple[str, ...]]]:
    """For each heading line, the path of headings in force from that line on."""
    paths: list[tuple[int, tuple[str, ...]]] = []
    stack: list[Heading] = []
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        paths.append((heading.line, tuple(h.text for h in stack)))
    return paths
