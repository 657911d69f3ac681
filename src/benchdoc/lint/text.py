"""The prose a lint reads: sentences and table cells, each with its place in the file.

Built on :func:`benchdoc.docs.prose_blocks` (which already leaves out managed regions,
code and HTML). Here a block's stretches are put back on their source lines, so every
offset maps to a line and column; link targets, bare URLs, emphasis markers and struck
text are blanked (same length, so offsets stay true); paragraphs are split into
sentences; pipe-table cells are tied to their row and column header. Ignore directives
and historical sections are resolved to flags on each unit.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchdoc.docs.document import ParsedDocument
from benchdoc.docs.prose import ProseBlock, prose_blocks

# Link and image targets: `](url "title")`; the visible text in [...] stays.
_LINK_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.IGNORECASE)
_BARE_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>()]+", re.IGNORECASE)
_STRUCK = re.compile(r"~~[^~\n](?:.*?[^~])?~~")
_EMPHASIS = re.compile(r"\*+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# A GFM delimiter row: | --- | :--: | ---: |
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
# Words a sentence may end on with a period that does not end it.
_ABBREVIATIONS = frozenset(["e.g", "i.e", "vs", "cf", "etc", "approx", "fig", "figs", "nos", "eq", "resp", "ca", "al", "mr", "dr", "incl", "excl", "est"])


@dataclass(frozen=True)
class Piece:
    """Where a stretch of a unit's text starts in the file."""

    offset: int  # in the unit's text
    line: int  # 1-based
    column: int  # 1-based column of the stretch's first character


@dataclass(frozen=True)
class Unit:
    """One sentence of prose, or one table cell, with everything needed to report on it."""

    text: str  # visible text; blanked characters are spaces
    pieces: tuple[Piece, ...]
    section: tuple[str, ...]  # heading path, outermost first
    historical: bool  # inside a section declared historical
    row: int | None = None  # table cells: an id shared by the cells of one row
    column_index: int | None = None  # table cells: 0-based column
    header: str | None = None  # table cells: the header text of the column
    heading: bool = False  # the unit is (part of) a heading
    block: int = 0  # sentences of one paragraph share it
    lead: str = ""  # a later sentence of a paragraph: the paragraph's opening words ("**11-03.** IFB-64 ...")

    def position(self, offset: int) -> tuple[int, int]:
        """Line and column (1-based) of an offset in ``text``."""
        piece = self.pieces[0]
        for candidate in self.pieces:
            if candidate.offset > offset:
                break
            piece = candidate
        return piece.line, piece.column + (offset - piece.offset)

    @property
    def line(self) -> int:
        return self.pieces[0].line

    @property
    def section_name(self) -> str:
        return " > ".join(self.section)


@dataclass(frozen=True)
class DocumentText:
    """A document's prose units and the lines its ignore directives cover."""

    path: str
    units: tuple[Unit, ...]
    ignored_lines: frozenset[int]


def document_units(parsed: ParsedDocument, historical_sections: Sequence[str] = ()) -> DocumentText:
    """Split a parsed document into sentences and table cells, in document order."""
    lines = parsed.text.split("\n")
    tables = _table_rows(lines)
    heading_lines = {h.line for h in parsed.headings}
    historical = _historical_matcher(historical_sections)
    units: list[Unit] = []
    for block in _group_blocks(prose_blocks(parsed)):
        first = block[0]
        section = tuple(_clean_heading(s) for s in first.section_path)
        is_historical = historical is not None and any(historical.search(s) for s in section)
        row_info = tables.get(first.line)
        if row_info is not None and len(block) == 1:
            row_id, header_cells, leading_pipe = row_info
            if row_id < 0:
                continue  # the header row: column names, not statements
            text, pieces = _assemble(block)
            index = _cell_index(lines[first.line - 1], first.column - 1, leading_pipe)
            header = header_cells[index] if 0 <= index < len(header_cells) else None
            units.append(
                Unit(text, pieces, section, is_historical, row=row_id, column_index=index, header=header)
            )
            continue
        text, pieces = _assemble(block)
        is_heading = first.line in heading_lines
        offsets = [piece.offset for piece in pieces]
        marked = [p.offset for p in pieces[1:] if _LINE_MARK.match(text, p.offset)]
        for start, end in sentence_spans(text, marked):
            sentence_pieces = _slice_pieces(pieces, offsets, start, end)
            units.append(
                Unit(text[start:end], sentence_pieces, section, is_historical, heading=is_heading, block=first.block,
                     lead=text[:24] if start else "")
            )
    return DocumentText(parsed.path, tuple(units), frozenset(_ignored_lines(parsed, lines)))


def _clean_heading(text: str) -> str:
    return " ".join(_HTML_COMMENT.sub(" ", text).replace("`", "").split())


def _historical_matcher(names: Sequence[str]) -> re.Pattern[str] | None:
    words = [re.escape(n.strip()) for n in names if n.strip()]
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(words) + r")(?!\w)", re.IGNORECASE)


def _group_blocks(blocks: Iterable[ProseBlock]) -> list[list[ProseBlock]]:
    grouped: list[list[ProseBlock]] = []
    for block in blocks:
        if grouped and grouped[-1][0].block == block.block:
            grouped[-1].append(block)
        else:
            grouped.append([block])
    return grouped


def _assemble(block: Sequence[ProseBlock]) -> tuple[str, tuple[Piece, ...]]:
    """The block's visible text, line by line, with masked stretches blanked."""
    by_line: dict[int, list[ProseBlock]] = {}
    for stretch in block:
        by_line.setdefault(stretch.line, []).append(stretch)
    parts: list[str] = []
    pieces: list[Piece] = []
    offset = 0
    for line, stretches in sorted(by_line.items()):
        lo = min(s.column for s in stretches) - 1
        hi = max(s.column - 1 + len(s.text) for s in stretches)
        chars = [" "] * (hi - lo)
        for s in stretches:
            start = s.column - 1 - lo
            chars[start : start + len(s.text)] = s.text
        if parts:
            parts.append(" ")
            offset += 1
        pieces.append(Piece(offset, line, lo + 1))
        visible = "".join(chars)
        parts.append(visible)
        offset += len(visible)
    return _blank_markup("".join(parts)), tuple(pieces)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _blank_markup(text: str) -> str:
    """Blank what a reader does not read as prose: link targets, URLs, struck text, emphasis marks, escapes of pipes."""
    # Each pattern only where its telltale character is present: most lines have none.
    if "](" in text:
        text = _LINK_TARGET.sub(lambda m: "]" + " " * (len(m.group()) - 1), text)
    if "<" in text:
        text = _AUTOLINK.sub(_blank, text)
    if "://" in text or "www." in text:
        text = _BARE_URL.sub(_blank, text)
    if "~~" in text:
        text = _STRUCK.sub(_blank, text)
    text = text.replace("[", " ").replace("]", " ")
    if "\\|" in text:
        text = text.replace("\\|", " |")  # an escaped pipe in a table cell reads as a pipe
    if "*" in text or "_" in text:
        text = _EMPHASIS.sub(_blank, text)
    return text


_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)")
# A line of a paragraph opened by a journal's mark ("– note", "× done", "· task", "• point"): an entry of its own.
_LINE_MARK = re.compile(r"\s*[–—·×•](?=\s)")


def sentence_spans(text: str, breaks: Sequence[int] = ()) -> list[tuple[int, int]]:
    """Start and end offsets of each sentence (semicolons end one too, as does the offset of each of
    ``breaks``, a line that opens with a mark of its own); blanks are trimmed."""
    spans: list[tuple[int, int]] = []
    start = 0
    ends = [(m.end(), m.group(), m.start()) for m in _SENTENCE_END.finditer(text)] + [(b, "", b) for b in breaks]
    for end, mark, at in sorted(ends):
        if end <= start or (mark == "." and _is_abbreviation(text, at)):
            continue
        spans.append((start, end))
        start = end
    if start < len(text):
        spans.append((start, len(text)))
    return [_trim(text, s, e) for s, e in spans if text[s:e].strip()]


def _is_abbreviation(text: str, dot: int) -> bool:
    """'e.g.', 'vs.', an initial 'J.'; not a unit ending a sentence ('tok/s.', '120 s.')."""
    j = dot
    while j > 0 and (text[j - 1].isalpha() or text[j - 1] == "."):
        j -= 1
    if j > 0 and (text[j - 1].isalnum() or text[j - 1] == "/"):
        return False
    word = text[j:dot]
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper() and (j == 0 or text[j - 1] == " "))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _slice_pieces(pieces: Sequence[Piece], offsets: Sequence[int], start: int, end: int) -> tuple[Piece, ...]:
    """The pieces of [start, end), re-based so offset 0 is ``start`` (``offsets``: each piece's offset)."""
    first = max(bisect.bisect_right(offsets, start) - 1, 0)
    result: list[Piece] = []
    for index in range(first, len(pieces)):
        piece = pieces[index]
        if piece.offset >= end:
            break
        if piece.offset <= start:
            result.append(Piece(0, piece.line, piece.column + (start - piece.offset)))
        else:
            result.append(Piece(piece.offset - start, piece.line, piece.column))
    return tuple(result)


def _table_rows(lines: Sequence[str]) -> dict[int, tuple[int, tuple[str, ...], bool]]:
    """For each line of a pipe table: (row id or -1 for the header, header cells, leading pipe).

    Found from the text: a delimiter row under a header row, then rows up to a blank line.
    Rows inside code or managed regions never reach the lint, so a table found there is harmless.
    """
    rows: dict[int, tuple[int, tuple[str, ...], bool]] = {}
    row_id = 0
    index = 1
    while index < len(lines):
        line = lines[index]
        header = lines[index - 1]
        if "|" in header and "-" in line and _DELIMITER_ROW.match(line) and ("|" in line or "|" in header):
            leading = header.lstrip().startswith("|")
            cells = _split_cells(header, leading)
            rows[index] = (-1, cells, leading)  # line numbers are 1-based: `index` is the header's
            follow = index + 1
            while follow < len(lines) and lines[follow].strip() and "|" in lines[follow]:
                row_id += 1
                rows[follow + 1] = (row_id, cells, lines[follow].lstrip().startswith("|"))
                follow += 1
            index = follow + 1
            continue
        index += 1
    return rows


def _split_cells(line: str, leading_pipe: bool) -> tuple[str, ...]:
    parts = _UNESCAPED_PIPE.split(line.strip())
    if leading_pipe and parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip() and line.rstrip().endswith("|"):
        parts = parts[:-1]
    return tuple(" ".join(_HTML_COMMENT.sub(" ", p).replace("*", "").replace("\\|", "|").split()) for p in parts)


def _cell_index(line: str, column: int, leading_pipe: bool) -> int:
    pipes = len(_UNESCAPED_PIPE.findall(line[:column]))
    return pipes - 1 if leading_pipe else pipes


def _ignored_lines(parsed: ParsedDocument, lines: Sequence[str]) -> set[int]:
    """Lines covered by ``<!-- benchdoc:ignore -->``: the next paragraph when it stands alone, else its own line."""
    ignored: set[int] = set()
    for directive in parsed.directives:
        if directive.kind != "ignore":
            continue
        if not directive.standalone:
            ignored.add(directive.line)
            continue
        line = directive.line + 1
        while line <= len(lines) and not lines[line - 1].strip():
            line += 1
        while line <= len(lines) and lines[line - 1].strip():
            ignored.add(line)
            line += 1
    return ignored
