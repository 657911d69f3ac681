"""mdtable: Markdown tables whose cells read as written, whatever a name holds."""

from __future__ import annotations

import pytest

from benchdoc.mdtable import escape_cell, markdown_table


def test_a_cell_cannot_split_a_row_link_emphasize_or_carry_html() -> None:
    assert escape_cell("EAGLE-3 [fused] | v2") == "EAGLE-3 \\[fused\\] \\| v2"
    assert escape_cell("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert escape_cell("*bold* _it_ `code` back\\slash") == "\\*bold\\* \\_it\\_ \\`code\\` back\\\\slash"
    assert escape_cell("two\nlines") == "two lines"
    assert escape_cell("~a~ &lt; b") == "\\~a\\~ &amp;lt; b"  # no strike-through; an entity stays as typed


def test_a_table_has_a_header_an_alignment_row_and_one_line_per_row() -> None:
    text = markdown_table(["name", "tok/s"], [["a|b", "96.1"], ["c", ""]], [False, True])
    assert text.splitlines() == ["| name | tok/s |", "|:---|---:|", "| a\\|b | 96.1 |", "| c |   |"]
    with pytest.raises(ValueError, match="a row of 1 cells in a table of 2 columns"):
        markdown_table(["name", "tok/s"], [["a"]])
