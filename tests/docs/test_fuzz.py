"""Fuzzing the marker parser and the sync: any document parses to regions and located
errors, never a traceback, and a document with errors is never written."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdoc.docs import parse_text, plan_document, write_plan
from benchdoc.docs.document import Region
from benchdoc.errors import DocumentError

PIECES = [
    "<!-- benchdoc:table experiments=\"a b\" metric=x -->", "<!-- benchdoc:value a.x -->", "<!-- benchdoc:end -->",
    "<!-- benchdoc:end sum=0123456789 -->", "<!-- benchdoc:list -->", "<!-- benchdoc:chart file=c.svg -->",
    "<!-- benchdoc: -->", "<!-- benchdoc:table a='unclosed -->", "<!--", "-->", "```", "~~~", "\n", "\r\n", "\r",
    "| a | b |\n|---|---|\n", "    indented\n", "<div>", "</div>", "text ", "\ufeff", "[bold]", "<img onerror=x>",
]
DOCUMENTS = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=25).map("".join)
FUZZ = settings(max_examples=400, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


def _render(region: Region) -> str:
    if region.kind == "table" and "x" in region.attrs.get("metric", ""):
        raise DocumentError("no such metric")
    return "new" if region.inline else "| new |\n"


@FUZZ
@given(text=DOCUMENTS)
def test_any_document_parses_to_regions_and_located_errors(text: str) -> None:
    parsed = parse_text(text, "log.md")
    for error in parsed.errors:
        assert isinstance(error, DocumentError) and error.file == "log.md"
    for region in parsed.regions:
        assert region.line >= 1


@FUZZ
@given(text=DOCUMENTS)
def test_a_document_with_errors_is_never_written_and_one_without_stays_parseable(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.md"
        path.write_bytes(text.encode("utf-8"))
        before = path.read_bytes()
        plan = plan_document(path, _render)
        if plan.errors:
            with pytest.raises(DocumentError):
                write_plan(plan)
            assert path.read_bytes() == before
            return
        write_plan(plan)
        again = plan_document(path, _render)
        assert again.errors == () and not again.changed  # written once, stable
        assert sorted(p.name for p in Path(folder).iterdir()) == ["log.md"]
