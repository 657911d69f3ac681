"""Find the managed regions of a Markdown document.

Markdown is parsed with markdown-it-py (CommonMark plus tables), and only comments
that the parser sees as raw HTML (``html_block`` and ``html_inline`` tokens) can be
markers: a marker quoted in a fenced or indented code block or in an inline code
span is text. The tokens carry line ranges but no columns, so two parser rules are
wrapped to record where each inline code span and inline HTML comment starts inside
its paragraph; those offsets are then mapped back to the document.

A block region has its opening and end markers on lines of their own and owns the
lines between them; an inline region opens and closes on one line and owns the text
between its markers. Every problem found is collected with its line, not only the
first.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchdoc.docs.markers import (
    COMMENT_RE,
    Marker,
    MarkerSyntaxError,
    format_open_marker,
    is_addressed_to_benchdoc,
    parse_marker,
)
from benchdoc.docs.textio import DocumentText, decode_bytes, decode_text, read_document
from benchdoc.errors import DocumentError

if TYPE_CHECKING:
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

_TAG = re.compile(r"<[^>\n]*>")
_SPAN_KEY = "benchdoc_span"  # Token.meta key: (start, end) offsets inside the inline content


@dataclass(frozen=True)
class Region:
    """One managed region: its marker, where it is, and what it holds now."""

    path: str
    kind: str
    args: tuple[str, ...]
    attrs: dict[str, str]
    inline: bool
    line: int  # 1-based line of the opening marker
    column: int  # 1-based column of the opening marker
    end_line: int  # 1-based line of the end marker
    indent: str  # block regions: the whitespace before the opening marker, given to each content line
    content: str  # what is between the markers now (LF line endings)
    checksum: str | None  # what the end marker records benchdoc last wrote, if anything
    # Offsets in the LF-normalised text (DocumentText.text).
    open_start: int
    content_start: int
    content_end: int
    end_start: int
    end_end: int

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def marker(self) -> str:
        """The opening marker in canonical spelling, to name the region in messages."""
        return format_open_marker(self.kind, self.args, self.attrs)

    def describe(self) -> str:
        """A short name for messages: ``table region at doc.md:12``."""
        shape = "inline" if self.inline else "block"
        return f"{self.kind} {shape} region at {self.location}"

    def error(self, message: str) -> DocumentError:
        """A DocumentError located at this region's opening marker."""
        return DocumentError(message, file=self.path, line=self.line)


@dataclass(frozen=True)
class Directive:
    """A standalone directive such as ``<!-- benchdoc:ignore -->`` (not a region)."""

    path: str
    kind: str
    args: tuple[str, ...]
    attrs: dict[str, str]
    line: int
    column: int
    standalone: bool  # alone on its line (applies to what follows) rather than inside a line


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


@dataclass(frozen=True)
class TextRun:
    """Visible text of one Markdown block on one line: code and HTML already cut out."""

    line: int  # 1-based
    start: int  # offset in the LF-normalised text
    end: int
    block: int  # index of the Markdown block (paragraph, heading, table cell, ...) it belongs to


@dataclass(frozen=True)
class ParsedDocument:
    path: str
    source: DocumentText
    regions: tuple[Region, ...]
    directives: tuple[Directive, ...]
    errors: tuple[DocumentError, ...]
    headings: tuple[Heading, ...]
    text_runs: tuple[TextRun, ...] = field(repr=False)
    line_starts: tuple[int, ...] = field(repr=False)

    @property
    def text(self) -> str:
        """The LF-normalised text the offsets refer to."""
        return self.source.text

    def line_of(self, offset: int) -> int:
        """1-based line of an offset in the LF text."""
        return bisect.bisect_right(self.line_starts, offset)


@dataclass
class _Found:
    """A comment addressed to benchdoc, where it is, and what it says (or why it doesn't parse)."""

    start: int
    end: int
    marker: Marker | None
    problem: str | None


@dataclass
class _Open:
    found: _Found
    marker: Marker
    inline: bool
    poisoned: bool = False  # another region opened inside it; it yields no region


def parse_document(path: str | os.PathLike[str]) -> ParsedDocument:
    """Read a document from disk and find its regions (errors are collected, not raised)."""
    return parse_source(read_document(path))


def parse_bytes(data: bytes, path: str | os.PathLike[str] = "<bytes>") -> ParsedDocument:
    return parse_source(decode_bytes(data, path))


def parse_text(text: str, path: str | os.PathLike[str] = "<text>") -> ParsedDocument:
    return parse_source(decode_text(text, path))


def parse_source(source: DocumentText) -> ParsedDocument:
    text = source.text
    line_starts = _line_starts(text)
    scan = _Scanner(source.path, text, line_starts)
    scan.run(_markdown_tokens(text))
    regions, directives, errors = _pair(source.path, text, line_starts, scan.found)
    return ParsedDocument(
        path=source.path,
        source=source,
        regions=tuple(regions),
        directives=tuple(directives),
        errors=tuple(sorted(scan.errors + errors, key=lambda e: e.line or 0)),
        headings=tuple(scan.headings),
        text_runs=tuple(scan.runs),
        line_starts=line_starts,
    )


def _line_starts(text: str) -> tuple[int, ...]:
    return (0, *(m.end() for m in re.finditer("\n", text)))


def _markdown_tokens(text: str) -> list[Token]:
    # Imported here: only commands that read documents pay for the parser.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    # Emphasis and entities never decide what is code or raw HTML; skipping them saves time.
    md.disable(["emphasis", "entity"])
    for rule in md.inline.ruler.__rules__:
        if rule.name in ("backticks", "html_inline"):
            md.inline.ruler.at(rule.name, _recording_span(rule.fn))
    return md.parse(text)


def _recording_span(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """Wrap an inline rule so the token it emits remembers its offsets in the inline source."""

    def recording(state: StateInline, silent: bool) -> bool:
        start = state.pos
        emitted = len(state.tokens)
        matched = rule(state, silent)
        if matched and not silent and len(state.tokens) > emitted:
            state.tokens[-1].meta[_SPAN_KEY] = (start, state.pos)
        return matched

    return recording


class _Scanner:
    """Walks the token stream once, collecting markers, headings and visible text."""

    def __init__(self, path: str, text: str, line_starts: tuple[int, ...]) -> None:
        self.path = path
        self.text = text
        self.line_starts = line_starts
        self.found: list[_Found] = []
        self.errors: list[DocumentError] = []
        self.headings: list[Heading] = []
        self.runs: list[TextRun] = []
        self._cell_cursor: dict[int, int] = {}  # line -> column where the next table cell is searched
        self._block = 0

    def line_span(self, line: int) -> tuple[int, int]:
        """Start and end (before the newline) offsets of a 0-based line."""
        start = self.line_starts[line]
        end = self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(self.text)
        return start, end

    def run(self, tokens: Sequence[Token]) -> None:
        previous: Token | None = None
        for index, token in enumerate(tokens):
            if token.type == "heading_open" and token.map and index + 1 < len(tokens):
                self.headings.append(
                    Heading(line=token.map[0] + 1, level=int(token.tag[1:]), text=tokens[index + 1].content)
                )
            if token.type == "html_block" and token.map:
                self._block += 1
                self._html_block(token.map[0], token.map[1])
            elif token.type == "inline" and token.map:
                self._block += 1
                in_cell = previous is not None and previous.type in ("th_open", "td_open")
                self._inline(token, in_cell)
            previous = token

    # -- raw HTML blocks: every comment in them is real

    def _html_block(self, first: int, stop: int) -> None:
        start = self.line_starts[first]
        end = self.line_span(stop - 1)[1]
        masked: list[tuple[int, int]] = []
        pos = start
        for match in COMMENT_RE.finditer(self.text, start, end):
            masked.append(match.span())
            self._comment(match.start(), match.end(), match.group("body"))
            pos = match.end()
        dangling = self.text.find("<!--", pos, end)
        if dangling >= 0 and is_addressed_to_benchdoc(self.text[dangling + 4 : end]):
            self.errors.append(
                DocumentError("unclosed comment: '<!--' has no '-->'", file=self.path, line=self._line(dangling))
            )
            masked.append((dangling, end))
        masked.extend(m.span() for m in _TAG.finditer(self.text, start, end))
        for line in range(first, stop):
            line_start, line_end = self.line_span(line)
            self._add_runs(line + 1, line_start, line_end, masked)

    # -- inline content: code spans and inline HTML carry recorded offsets

    def _inline(self, token: Token, in_cell: bool) -> None:
        assert token.map is not None
        content = token.content
        content_lines = content.split("\n")
        content_starts = [0]
        for content_line in content_lines[:-1]:
            content_starts.append(content_starts[-1] + len(content_line) + 1)
        bases: list[int | None] = []
        for i, content_line in enumerate(content_lines):
            bases.append(self._locate(token.map[0] + i, content_line, in_cell))

        def source_length(i: int, local: int) -> int:
            """Source characters of a line's first ``local`` content characters: a cell's pipe was written ``\\|``."""
            return local + content_lines[i].count("|", 0, local) if in_cell else local

        def to_source(offset: int) -> int | None:
            i = bisect.bisect_right(content_starts, offset) - 1
            base = bases[i] if i < len(bases) else None
            return None if base is None else base + source_length(i, offset - content_starts[i])

        masked: list[tuple[int, int]] = []  # in content offsets
        for child in token.children or ():
            span = child.meta.get(_SPAN_KEY)
            if span is None or child.type not in ("code_inline", "html_inline"):
                continue
            masked.append(span)
            if child.type != "html_inline" or not child.content.startswith("<!--"):
                continue
            body = child.content[4:-3] if child.content.endswith("-->") else child.content[4:]
            if not is_addressed_to_benchdoc(body):
                continue
            start = to_source(span[0])
            last = to_source(span[1] - 1)
            first_line = child.content.split("\n")[0]
            if start is None or last is None or not self.text.startswith(first_line, start):
                located = self._locate_unique(token, content, span[0], child.content)
                if located is None:
                    self.errors.append(
                        DocumentError(
                            "cannot tell which of several identical markers on this line is meant "
                            "(tabs in the indentation?); indent with spaces",
                            file=self.path,
                            line=token.map[0] + 1,
                        )
                    )
                    continue
                start, last = located, located + len(child.content) - 1
            self._comment(start, last + 1, body)

        for i, content_line in enumerate(content_lines):
            base = bases[i]
            if base is None:
                continue
            line_lo = content_starts[i]
            line_hi = line_lo + len(content_line)
            local = [
                (base + source_length(i, max(lo, line_lo) - line_lo), base + source_length(i, min(hi, line_hi) - line_lo))
                for lo, hi in masked
                if lo < line_hi and hi > line_lo
            ]
            self._add_runs(token.map[0] + i + 1, base, base + source_length(i, len(content_line)), local)

    def _locate_unique(self, token: Token, content: str, offset: int, comment: str) -> int | None:
        """Where a one-line comment is, when its line cannot be matched but it occurs there once."""
        assert token.map is not None
        line = token.map[0] + content.count("\n", 0, offset)
        if "\n" in comment or line >= len(self.line_starts):
            return None
        line_start, line_end = self.line_span(line)
        source_line = self.text[line_start:line_end]
        if source_line.count(comment) != 1:
            return None
        return line_start + source_line.index(comment)

    def _locate(self, line: int, content_line: str, in_cell: bool) -> int | None:
        """Offset in the document where a line of a block's inline content starts.

        Paragraph and heading content is the source line with its prefix (indent,
        list bullet, '>', '#') removed, so its last occurrence is the right one;
        table cells share a line and are found left to right (a pipe in a cell is written ``\\|``).
        """
        if line >= len(self.line_starts):
            return None
        line_start, line_end = self.line_span(line)
        source_line = self.text[line_start:line_end]
        if in_cell:
            written = content_line.replace("|", "\\|")
            cursor = self._cell_cursor.get(line, 0)
            column = source_line.find(written, cursor)
            if column >= 0:
                self._cell_cursor[line] = column + len(written)
        else:
            column = source_line.rfind(content_line)
        return None if column < 0 else line_start + column

    # -- shared

    def _comment(self, start: int, end: int, body: str) -> None:
        if not is_addressed_to_benchdoc(body):
            return
        try:
            self.found.append(_Found(start, end, parse_marker(body), None))
        except MarkerSyntaxError as err:
            self.found.append(_Found(start, end, None, str(err)))

    def _line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def _add_runs(self, line: int, start: int, end: int, masked: Sequence[tuple[int, int]]) -> None:
        for lo, hi in _complement(start, end, masked):
            if self.text[lo:hi].strip():
                self.runs.append(TextRun(line=line, start=lo, end=hi, block=self._block))


def _complement(start: int, end: int, masked: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    pos = start
    for lo, hi in sorted(masked):
        if hi <= pos or lo >= end:
            continue
        if lo > pos:
            yield pos, lo
        pos = max(pos, hi)
    if pos < end:
        yield pos, end


def _pair(
    path: str, text: str, line_starts: tuple[int, ...], found: list[_Found]
) -> tuple[list[Region], list[Directive], list[DocumentError]]:
    """Pair opening and end markers into regions; report every structural problem."""
    pairing = _Pairing(path, text, line_starts)
    for item in sorted(found, key=lambda f: f.start):
        pairing.take(item)
    pairing.finish()
    return pairing.regions, pairing.directives, pairing.errors


class _Pairing:
    """The state of pairing markers in document order: open regions, and what was found."""

    def __init__(self, path: str, text: str, line_starts: tuple[int, ...]) -> None:
        self.path = path
        self.text = text
        self.line_starts = line_starts
        self.regions: list[Region] = []
        self.directives: list[Directive] = []
        self.errors: list[DocumentError] = []
        self.stack: list[_Open] = []

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def column_of(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset) - 1] + 1

    def alone(self, item: _Found) -> bool:
        """Whether the marker has its line to itself (a block marker) or shares it (inline)."""
        line_start = self.line_starts[self.line_of(item.start) - 1]
        line_end = self.text.find("\n", item.end)
        line_end = len(self.text) if line_end < 0 else line_end
        return not self.text[line_start : item.start].strip() and not self.text[item.end : line_end].strip()

    def error(self, message: str, item: _Found) -> None:
        self.errors.append(DocumentError(message, file=self.path, line=self.line_of(item.start)))

    def name(self, opened: _Open) -> str:
        return f"{opened.marker.kind} region opened at line {self.line_of(opened.found.start)}"

    def take(self, item: _Found) -> None:
        self.close_unclosed_inline(item)
        marker = item.marker
        if marker is None:
            self.error(item.problem or "malformed marker", item)
        elif marker.is_directive:
            self.directives.append(Directive(
                path=self.path, kind=marker.kind, args=marker.args, attrs=marker.attrs, line=self.line_of(item.start),
                column=self.column_of(item.start), standalone=self.alone(item),
            ))
        elif not marker.is_end:
            self.open(item, marker)
        else:
            self.close(item)

    def open(self, item: _Found, marker: Marker) -> None:
        if self.stack:
            self.error(
                f"nested region: this {marker.kind} marker opens inside the {self.name(self.stack[-1])}; "
                "regions cannot nest (close the outer region first)",
                item,
            )
            for opened in self.stack:
                opened.poisoned = True
        self.stack.append(_Open(found=item, marker=marker, inline=not self.alone(item)))

    def close(self, item: _Found) -> None:
        if not self.stack:
            self.error(
                "stray end marker: no region is open here "
                "(markers inside code blocks and code spans do not count)",
                item,
            )
            return
        opened = self.stack.pop()
        if self.stack:
            return  # the inner one of a nested pair; already reported
        if not opened.inline and not self.alone(item):
            self.error(f"the end marker of the block {self.name(opened)} must be on a line of its own", item)
            return
        if opened.poisoned:
            return
        self.regions.append(_region(self.path, self.text, self.line_starts, opened, item, self.line_of, self.column_of))

    def close_unclosed_inline(self, before: _Found | None) -> None:
        # An inline region must close on the line where its opening marker ends.
        while self.stack and self.stack[-1].inline and (
            before is None or self.line_of(before.start) != self.line_of(self.stack[-1].found.end - 1)
        ):
            opened = self.stack.pop()
            self.error(
                f"unclosed inline {opened.marker.kind} region: put <!-- benchdoc:end --> after its "
                "value on the same line (a region spanning lines needs its markers on lines of their own)",
                opened.found,
            )
            if self.stack:
                self.stack[-1].poisoned = True

    def finish(self) -> None:
        self.close_unclosed_inline(None)
        for opened in self.stack:
            self.error(
                f"unclosed {opened.marker.kind} region: no <!-- benchdoc:end --> follows its opening marker "
                "(markers inside code blocks and code spans do not count)",
                opened.found,
            )


def _region(
    path: str,
    text: str,
    line_starts: tuple[int, ...],
    opened: _Open,
    end: _Found,
    line_of: Callable[[int], int],
    column_of: Callable[[int], int],
) -> Region:
    start = opened.found
    if opened.inline:
        content_start, content_end = start.end, end.start
        indent = ""
    else:
        newline = text.find("\n", start.end)
        content_start = len(text) if newline < 0 else newline + 1
        content_end = line_starts[line_of(end.start) - 1]
        indent = text[line_starts[line_of(start.start) - 1] : start.start]
    assert end.marker is not None
    return Region(
        path=path,
        kind=opened.marker.kind,
        args=opened.marker.args,
        attrs=opened.marker.attrs,
        inline=opened.inline,
        line=line_of(start.start),
        column=column_of(start.start),
        end_line=line_of(end.start),
        indent=indent,
        content=text[content_start:content_end],
        checksum=end.marker.checksum,
        open_start=start.start,
        content_start=content_start,
        content_end=content_end,
        end_start=end.start,
        end_end=end.end,
    )
