"""The syntax of a single benchdoc comment: kinds, attributes, checksums."""

from __future__ import annotations

import pytest

from benchdoc.docs.markers import (
    MarkerSyntaxError,
    content_checksum,
    format_end_marker,
    format_open_marker,
    is_addressed_to_benchdoc,
    parse_attributes,
    parse_marker,
)


def test_kind_positional_and_named_attributes() -> None:
    marker = parse_marker(
        """ benchdoc:table baseline experiments="baseline eagle3-*" metric=output_tok_s note='say "hi"' """
    )
    assert marker.kind == "table"
    assert marker.args == ("baseline",)
    assert marker.attrs == {
        "experiments": "baseline eagle3-*",
        "metric": "output_tok_s",
        "note": 'say "hi"',
    }
    assert not marker.is_end and not marker.is_directive


@pytest.mark.parametrize(
    "body",
    [
        " benchdoc:value eagle3.output_tok_s ",
        "benchdoc:value eagle3.output_tok_s",
        "   benchdoc:value    eagle3.output_tok_s   ",
        " benchdoc : value eagle3.output_tok_s ",
        "\tBENCHDOC:Value eagle3.output_tok_s\n",
    ],
)
def test_whitespace_and_case_variants(body: str) -> None:
    marker = parse_marker(body)
    assert marker.kind == "value"
    assert marker.args == ("eagle3.output_tok_s",)


def test_end_marker_with_and_without_checksum() -> None:
    assert parse_marker(" benchdoc:end ").checksum is None
    end = parse_marker(" benchdoc:end sum=0123456789 ")
    assert end.is_end and end.checksum == "0123456789"


def test_ignore_is_a_directive() -> None:
    marker = parse_marker(" benchdoc:ignore reason='quoted from the vendor' ")
    assert marker.is_directive
    assert marker.attrs == {"reason": "quoted from the vendor"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('experiments="baseline eagle3', 'unbalanced "'),
        ("note='open", "unbalanced '"),
        ("metric=", "missing value"),
        ("metric= x", "missing value"),
        ("=x", "without a name"),
        ("a=1 a=2", "given twice"),
        ('metric=tok"s', "quote the whole value"),
        ('label"x"', "missing '='"),
        ('a="x"b', "a space must follow"),
        ("a==b", "quote a value"),
    ],
)
def test_malformed_attributes(text: str, expected: str) -> None:
    with pytest.raises(MarkerSyntaxError, match="malformed attribute") as caught:
        parse_attributes(text)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    "body",
    [
        " benchdoc table ",
        " benchdoc table experiments=a ",
        " benchdoc: ",
        " benchdoc:9table ",
        " /benchdoc ",
        " benchdoc-end ",
        " benchdoc:table:x ",
    ],
)
def test_unknown_directive_shapes(body: str) -> None:
    assert is_addressed_to_benchdoc(body)
    with pytest.raises(MarkerSyntaxError, match="unknown directive shape"):
        parse_marker(body)


def test_end_marker_takes_only_a_checksum() -> None:
    with pytest.raises(MarkerSyntaxError, match="only sum="):
        parse_marker(" benchdoc:end table ")
    with pytest.raises(MarkerSyntaxError, match="malformed attribute sum="):
        parse_marker(" benchdoc:end sum=xyz ")


@pytest.mark.parametrize(
    "body",
    [" benchdoc.toml lists the documents ", " TODO: rerun benchdoc ", " see benchdoc:table ", ""],
)
def test_ordinary_comments_are_not_markers(body: str) -> None:
    assert not is_addressed_to_benchdoc(body)


def test_checksum_ignores_line_endings_but_not_content() -> None:
    lf = "| a |\n|---|\n| 1 |\n"
    assert content_checksum(lf) == content_checksum(lf.replace("\n", "\r\n"))
    assert content_checksum(lf) != content_checksum(lf.replace("1", "2"))
    assert len(content_checksum(lf)) == 10


def test_formatted_markers_parse_back() -> None:
    opening = format_open_marker("table", ("x",), {"experiments": "a b*", "metric": "tok", "q": 'say "x"'})
    assert opening.startswith("<!-- ") and opening.endswith(" -->")
    marker = parse_marker(opening[4:-3])
    assert (marker.kind, marker.args, marker.attrs) == (
        "table",
        ("x",),
        {"experiments": "a b*", "metric": "tok", "q": 'say "x"'},
    )
    assert parse_marker(format_end_marker("0123456789")[4:-3]).checksum == "0123456789"
    assert format_end_marker(None) == "<!-- benchdoc:end -->"
