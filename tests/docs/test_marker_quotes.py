"""Quoted marker arguments, positional and named, and the canonical spelling read back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.docs.markers import MarkerSyntaxError, format_open_marker, parse_attributes, parse_marker


def test_quoted_positional_arguments_are_arguments() -> None:
    assert parse_attributes('"a b" c=\'d e\' \'f g\' h') == (("a b", "f g", "h"), {"c": "d e"})
    assert parse_attributes("'it \"x\"'") == (('it "x"',), {})
    assert parse_attributes('""') == (("",), {})
    marker = parse_marker(' benchdoc:value "EAGLE 3" metric=tok_s ')
    assert marker.kind == "value" and marker.args == ("EAGLE 3",) and marker.attrs == {"metric": "tok_s"}


@pytest.mark.parametrize("text", ['"a b', '"a"b', "a'b'", "a=", "=b", 'a="x"y', "a=b c=d a=e"])
def test_malformed_quotes_are_refused(text: str) -> None:
    with pytest.raises(MarkerSyntaxError):
        parse_attributes(text)


_TEXT = st.text(alphabet="abc XYZ019_-./:\"'=", max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    args=st.lists(_TEXT.filter(lambda v: not ('"' in v and "'" in v)), max_size=3),
    attrs=st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,5}", fullmatch=True),
                          _TEXT.filter(lambda v: not ('"' in v and "'" in v)), max_size=3),
)
def test_the_canonical_spelling_reads_back(args: list[str], attrs: dict[str, str]) -> None:
    text = format_open_marker("table", tuple(args), attrs)
    marker = parse_marker(text[len("<!--"):-len("-->")])
    assert marker.kind == "table" and marker.args == tuple(args) and marker.attrs == attrs


@pytest.mark.parametrize("text", ["1x=2", "-a=b", "a,b='c'"])
def test_an_attribute_name_must_be_a_name(text: str) -> None:
    with pytest.raises(MarkerSyntaxError, match="malformed attribute name"):
        parse_attributes(text)


def test_a_long_bad_value_is_quoted_short_and_on_one_line() -> None:
    exact = '"' + "x" * 59  # 60 characters: shown whole
    with pytest.raises(MarkerSyntaxError) as caught:
        parse_attributes(exact)
    assert repr(exact) in str(caught.value)
    longer = '"' + "y" * 80
    with pytest.raises(MarkerSyntaxError) as caught:
        parse_attributes(longer)
    assert repr(longer[:57] + "...") in str(caught.value)
    with pytest.raises(MarkerSyntaxError) as caught:
        parse_attributes('"a\n  b')
    assert repr('"a b') in str(caught.value)
