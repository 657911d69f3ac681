"""GitHub-flavoured Markdown tables from plain text cells, for pasting into a pull request.

Every cell is escaped here, so a name holding a pipe, brackets or HTML (``EAGLE-3 [fused] | v2``,
``<img onerror=...>``) reads as written and never splits a row, becomes a link or runs as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

# Characters that start Markdown syntax inside a table cell (GitHub strikes through ~text~):
# escaped with a backslash.
_MARKDOWN_SPECIAL = "\\`*_[]|~"


def escape_cell(text: str) -> str:
    """Text safe inside one Markdown table cell: one line, no raw HTML, no link, emphasis or column split."""
    text = " ".join(text.split())
    escaped = "".join(f"\\{ch}" if ch in _MARKDOWN_SPECIAL else ch for ch in text)
    return escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] = ()) -> str:
    """A GitHub-flavoured table: a header, an alignment row (``---:`` where ``right``), one line per row."""
    aligned = list(right) + [False] * (len(headers) - len(right))
    lines = [_row(headers), "|" + "|".join("---:" if r else ":---" for r in aligned) + "|"]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"a row of {len(row)} cells in a table of {len(headers)} columns")
        lines.append(_row(row))
    return "\n".join(lines) + "\n"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(escape_cell(cell) or " " for cell in cells) + " |"
