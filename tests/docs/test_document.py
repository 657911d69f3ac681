"""Finding regions in Markdown: code is never a marker, and every broken marker is reported."""

from __future__ import annotations

import textwrap

import pytest

from benchdoc.docs.document import ParsedDocument, parse_bytes, parse_document, parse_text


def parse(text: str) -> ParsedDocument:
    return parse_text(textwrap.dedent(text), "log.md")


def errors_of(doc: ParsedDocument) -> list[tuple[int | None, str]]:
    return [(error.line, error.message) for error in doc.errors]


def test_block_region_owns_the_lines_between_its_markers() -> None:
    doc = parse(
        """\
        # Results

        <!-- benchdoc:table experiments="baseline eagle3-*" metric=output_tok_s -->
        | Config | tok/s |
        |---|---|
        | Baseline | **89.5** |
        <!-- benchdoc:end sum=0123456789 -->

        After.
        """
    )
    assert doc.errors == ()
    (region,) = doc.regions
    assert region.kind == "table" and not region.inline
    assert region.attrs == {"experiments": "baseline eagle3-*", "metric": "output_tok_s"}
    assert (region.line, region.end_line, region.column) == (3, 7, 1)
    assert region.content == "| Config | tok/s |\n|---|---|\n| Baseline | **89.5** |\n"
    assert region.checksum == "0123456789"
    assert region.location == "log.md:3"
    assert doc.text[region.content_start : region.content_end] == region.content


def test_inline_region_owns_the_text_between_its_markers() -> None:
    doc = parse("EAGLE-3 now reaches <!-- benchdoc:value eagle3.output_tok_s -->96.1<!-- benchdoc:end --> tok/s.\n")
    assert doc.errors == ()
    (region,) = doc.regions
    assert region.inline and region.kind == "value"
    assert region.args == ("eagle3.output_tok_s",)
    assert region.content == "96.1"
    assert (region.line, region.column) == (1, 21)


def test_inline_region_at_the_start_of_a_line_and_in_table_cells() -> None:
    # A line starting with "<!--" is an HTML block to CommonMark; it still holds an inline region.
    doc = parse(
        """\
        <!-- benchdoc:value a.tok -->1<!-- benchdoc:end --> tok/s at the start

        | Config | tok/s | again |
        |---|---|---|
        | A | <!-- benchdoc:value a.tok -->1<!-- benchdoc:end --> | <!-- benchdoc:value a.tok -->2<!-- benchdoc:end --> |
        """
    )
    assert doc.errors == ()
    assert [(r.line, r.column, r.content, r.inline) for r in doc.regions] == [
        (1, 1, "1", True),
        (5, 7, "1", True),
        (5, 61, "2", True),
    ]


def test_several_inline_regions_on_one_line_with_a_code_span_between() -> None:
    doc = parse(
        "Base <!-- benchdoc:value b -->92.6<!-- benchdoc:end --> vs `<!-- benchdoc:end -->` "
        "and <!-- benchdoc:value e -->96.1<!-- benchdoc:end -->.\n"
    )
    assert doc.errors == ()
    assert [r.content for r in doc.regions] == ["92.6", "96.1"]


def test_indented_block_region_records_its_indent() -> None:
    doc = parse(
        """\
        - results:

          <!-- benchdoc:list failed -->
          - NCCL Tree: CUDA graph incompatible
          <!-- benchdoc:end -->
        """
    )
    assert doc.errors == ()
    (region,) = doc.regions
    assert region.indent == "  " and region.content == "  - NCCL Tree: CUDA graph incompatible\n"


def test_empty_block_region() -> None:
    doc = parse("<!-- benchdoc:table x -->\n<!-- benchdoc:end -->\n")
    assert doc.errors == () and doc.regions[0].content == ""


def test_markers_spanning_lines_and_whitespace_variants() -> None:
    doc = parse(
        """\
        <!--benchdoc:table
            experiments="a b"
            metric=tok-->
        | x |
        <!--   benchdoc:end   -->
        """
    )
    assert doc.errors == ()
    (region,) = doc.regions
    assert region.attrs == {"experiments": "a b", "metric": "tok"} and region.content == "| x |\n"


# -- code is never a marker


@pytest.mark.parametrize(
    "code",
    [
        "```\n<!-- benchdoc:end -->\n```\n",
        "~~~\n<!-- benchdoc:end -->\n~~~\n",
        "```markdown\n<!-- benchdoc:table x -->\n<!-- benchdoc:end -->\n```\n",
        # A longer fence holding shorter fences of both kinds: the inner ones are text.
        "````\n```\n<!-- benchdoc:end -->\n```\n````\n",
        "~~~~~\n~~~\n<!-- benchdoc:value x -->1\n~~~\n<!-- benchdoc:end -->\n~~~~~\n",
        "```` md\n```\n````\n",  # a fence closes only with at least its own length
        "    <!-- benchdoc:end -->\n    <!-- benchdoc:table x -->\n",  # indented code block
        "`<!-- benchdoc:end -->` in inline code\n",
        "``<!-- benchdoc:value a -->` still code <!-- benchdoc:end -->``\n",  # double backticks around a backtick
        "- item\n\n  ```\n  <!-- benchdoc:end -->\n  ```\n",  # fenced code inside a list item
        "> ```\n> <!-- benchdoc:end -->\n> ```\n",  # fenced code inside a blockquote
    ],
)
def test_marker_text_in_code_is_not_a_marker(code: str) -> None:
    doc = parse_text("Intro.\n\n" + code + "\nOutro.\n", "log.md")
    assert doc.errors == ()
    assert doc.regions == ()


def test_unclosed_fence_swallows_the_rest() -> None:
    # CommonMark: an unclosed fence runs to the end, so the end marker is code and the region is unclosed.
    doc = parse(
        """\
        <!-- benchdoc:table x -->
        ```
        <!-- benchdoc:end -->
        """
    )
    assert errors_of(doc)[0][0] == 1
    assert "unclosed table region" in errors_of(doc)[0][1]


def test_a_fenced_example_next_to_a_real_region() -> None:
    doc = parse(
        """\
        Write a region like this:

        ````markdown
        <!-- benchdoc:value eagle3.output_tok_s -->96.1<!-- benchdoc:end -->
        ```
        ````

        Real: <!-- benchdoc:value eagle3.output_tok_s -->54.1<!-- benchdoc:end -->
        """
    )
    assert doc.errors == ()
    assert [(r.line, r.content) for r in doc.regions] == [(8, "54.1")]


# -- errors, each with its line, all of them collected


def test_unclosed_block_region() -> None:
    doc = parse("# T\n\n<!-- benchdoc:table x -->\n| a |\n")
    assert errors_of(doc) == [
        (
            3,
            "unclosed table region: no <!-- benchdoc:end --> follows its opening marker "
            "(markers inside code blocks and code spans do not count)",
        )
    ]
    assert str(doc.errors[0]).startswith("log.md:3: unclosed table region")
    assert doc.regions == ()


def test_unclosed_inline_region() -> None:
    doc = parse("text <!-- benchdoc:value a -->96.1 tok/s\n\nmore\n")
    ((line, message),) = errors_of(doc)
    assert line == 1 and message.startswith("unclosed inline value region")


def test_nested_region() -> None:
    doc = parse(
        """\
        <!-- benchdoc:table x -->
        | a |
        <!-- benchdoc:table y -->
        | b |
        <!-- benchdoc:end -->
        <!-- benchdoc:end -->

        <!-- benchdoc:table ok -->
        <!-- benchdoc:end -->
        """
    )
    ((line, message),) = errors_of(doc)
    assert line == 3
    assert "nested region" in message and "table region opened at line 1" in message
    assert [r.args for r in doc.regions] == [("ok",)]


def test_stray_end_marker() -> None:
    doc = parse("# T\n\ntext\n\n<!-- benchdoc:end -->\n")
    ((line, message),) = errors_of(doc)
    assert line == 5 and message.startswith("stray end marker")


def test_block_end_marker_must_be_on_its_own_line() -> None:
    doc = parse("<!-- benchdoc:table x -->\n| a | <!-- benchdoc:end -->\n")
    ((line, message),) = errors_of(doc)
    assert line == 2 and "must be on a line of its own" in message


def test_malformed_attribute_and_unknown_shape_are_located() -> None:
    doc = parse(
        """\
        # T

        <!-- benchdoc:table experiments="baseline eagle3-* metric=tok -->

        Text <!-- benchdoc:value metric= --> here.

        <!-- benchdoc table x -->
        """
    )
    assert [(line, message.split(":")[0]) for line, message in errors_of(doc)] == [
        (3, "malformed attribute"),
        (5, "malformed attribute metric="),
        (7, "unknown directive shape <!-- benchdoc table x -->"),
    ]


def test_all_errors_are_collected_and_good_regions_still_found() -> None:
    doc = parse(
        """\
        <!-- benchdoc:end -->

        <!-- benchdoc:value x="open -->

        ok <!-- benchdoc:value a -->1<!-- benchdoc:end -->

        <!-- benchdoc:list failed -->
        """
    )
    assert [line for line, _ in errors_of(doc)] == [1, 3, 7]
    assert [r.content for r in doc.regions] == ["1"]


def test_ignore_directive_is_reported_with_its_position() -> None:
    doc = parse(
        """\
        <!-- benchdoc:ignore -->
        Vendor says 120 tok/s.

        Quoted: 54.1 tok/s <!-- benchdoc:ignore reason=historical -->
        """
    )
    assert doc.errors == () and doc.regions == ()
    assert [(d.line, d.column, d.standalone, d.attrs) for d in doc.directives] == [
        (1, 1, True, {}),
        (4, 20, False, {"reason": "historical"}),
    ]


def test_ordinary_comments_are_left_alone() -> None:
    doc = parse("<!-- benchdoc.toml lists this file -->\n\ntext <!-- note to self -->\n")
    assert doc.errors == () and doc.regions == () and doc.directives == ()


def test_headings_are_recorded() -> None:
    doc = parse("# Log\n\n## Results\n\nSetext\n------\n")
    assert [(h.line, h.level, h.text) for h in doc.headings] == [(1, 1, "Log"), (3, 2, "Results"), (5, 2, "Setext")]


def test_crlf_and_bom_documents_parse_like_lf(tmp_path) -> None:
    lf = "# T\n\nx <!-- benchdoc:value a -->1<!-- benchdoc:end -->\n<!-- benchdoc:table t -->\n| a |\n<!-- benchdoc:end -->\n"
    path = tmp_path / "log.md"
    path.write_bytes(b"\xef\xbb\xbf" + lf.replace("\n", "\r\n").encode())
    crlf = parse_document(path)
    plain = parse_bytes(lf.encode(), path)
    assert crlf.errors == ()
    assert [(r.line, r.column, r.content) for r in crlf.regions] == [
        (r.line, r.column, r.content) for r in plain.regions
    ]
    assert crlf.source.bom and crlf.source.newline == "\r\n"


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("# EAGLE-3 is <!-- benchdoc:value d -->40%<!-- benchdoc:end --> slower", 14),
        ("- item <!-- benchdoc:value d -->40%<!-- benchdoc:end -->", 8),
        ("> > quoted <!-- benchdoc:value d -->40%<!-- benchdoc:end -->", 12),
        ("see [<!-- benchdoc:value d -->40%<!-- benchdoc:end -->](https://example.org)", 6),
        ("-\tafter a tab <!-- benchdoc:value d -->40%<!-- benchdoc:end -->", 15),
        ("1. numbered 1 <!-- benchdoc:value d -->40%<!-- benchdoc:end -->", 15),
    ],
)
def test_inline_regions_in_headings_lists_quotes_and_links(line: str, column: int) -> None:
    doc = parse_text("Intro.\n\n" + line + "\n", "log.md")
    assert doc.errors == ()
    (region,) = doc.regions
    assert (region.line, region.column, region.content) == (3, column, "40%")
    assert line[column - 1 :].startswith("<!-- benchdoc:value d -->")


def test_importing_the_package_does_not_load_the_parser() -> None:
    import subprocess
    import sys

    code = "import sys, benchdoc.docs; print(sorted(m for m in ('markdown_it', 'rich', 'numpy', 'scipy') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_cell_with_escaped_pipes_keeps_its_text_and_its_regions_their_place() -> None:
    line = "| A \\| fused `x \\| y` | <!-- benchdoc:value a.tok -->1<!-- benchdoc:end --> \\| <!-- benchdoc:value b.tok -->2<!-- benchdoc:end --> |"
    doc = parse("| Config | tok/s |\n|---|---|\n" + line + "\n")
    assert doc.errors == ()
    assert [(r.line, r.column, r.content) for r in doc.regions] == [
        (3, line.index("<!-- benchdoc:value a") + 1, "1"),
        (3, line.index("<!-- benchdoc:value b") + 1, "2"),
    ]
    # The prose of the first cell is its source text, the code span masked out.
    cell = [doc.text[run.start : run.end] for run in doc.text_runs if run.line == 3]
    assert cell[0] == "A \\| fused " and not any("x" in text for text in cell)
