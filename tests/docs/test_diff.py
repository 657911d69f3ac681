"""Unified diffs of documents and their terminal colouring."""

from __future__ import annotations

from benchdoc.docs.diff import colorize_diff, unified_diff


def test_equal_texts_have_no_diff() -> None:
    assert unified_diff("a\nb\n", "a\r\nb\r\n", "log.md") == ""


def test_diff_names_the_file_and_shows_the_change() -> None:
    diff = unified_diff("a\nb\nc\n", "a\nB\nc\n", "docs/log.md")
    assert diff == "--- a/docs/log.md\n+++ b/docs/log.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def test_missing_final_newline_is_marked() -> None:
    diff = unified_diff("a\nold", "a\nnew", "log.md")
    assert diff.endswith("-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n")


def test_colouring_wraps_lines_and_keeps_the_text() -> None:
    diff = unified_diff("a\nb\n", "a\nc\n", "log.md")
    coloured = colorize_diff(diff)
    assert "\x1b[31m-b\x1b[0m\n" in coloured and "\x1b[32m+c\x1b[0m\n" in coloured
    assert "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m" in coloured
    stripped = coloured
    for code in ("\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"):
        stripped = stripped.replace(code, "")
    assert stripped == diff
