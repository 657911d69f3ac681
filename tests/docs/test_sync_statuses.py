"""What a document plan says of each region and error: the summary and fix of every status,
which regions a plan writes, the error type raised for one problem and for several, a
rendering that is not text, bytes planned as a file would be, and a write the system
refuses."""

from __future__ import annotations

import resource
import signal
from pathlib import Path

import pytest
from tests.docs.test_sync import LOG, NEW, OLD, Ledger, synced, write

from benchdoc.docs import DocumentProblems, RegionStatus, plan_bytes, plan_document, write_plan
from benchdoc.docs.sync import FIX_HAND_EDITED, FIX_STALE, plan_source, plan_text
from benchdoc.docs.textio import decode_text
from benchdoc.errors import DocumentError


def _hand_edited(tmp_path: Path) -> Path:
    path = synced(tmp_path, OLD)
    path.write_text(path.read_text().replace("| eagle3 | **54.1** |", "| eagle3 | **60.0** |"))
    return path


def test_each_status_has_its_own_summary_and_fix(tmp_path: Path) -> None:
    path = _hand_edited(tmp_path)
    forced = plan_document(path, NEW, force=True)
    edited = forced.hand_edited
    assert [p.region.line for p in edited] == [5] and edited[0].written
    assert edited[0].how_to_fix == FIX_HAND_EDITED
    assert edited[0].summary() == f"{path}:5: table region is hand-edited: {FIX_HAND_EDITED}"
    stale = forced.stale
    assert [p.region.kind for p in stale] == ["value", "value"]
    assert all(p.how_to_fix == FIX_STALE and p.written for p in stale)
    # Rendered as recorded: unchanged, nothing to fix, nothing written.
    (tmp_path / "again").mkdir()
    same = plan_document(synced(tmp_path / "again", OLD), OLD)
    assert {p.status for p in same.regions} == {RegionStatus.UNCHANGED}
    assert not any(p.written for p in same.regions) and not same.changed
    assert same.regions[0].how_to_fix == ""
    assert same.regions[0].summary().endswith(":3: value region is unchanged")
    assert same.hand_edited == [] and same.stale == []


def test_an_error_region_is_summarised_by_its_error_and_never_written(tmp_path: Path) -> None:
    path = write(tmp_path, "x <!-- benchdoc:value ghost -->1<!-- benchdoc:end -->\n")
    plan = plan_document(path, NEW)
    (region,) = plan.regions
    assert region.status is RegionStatus.ERROR and not region.written and region.new_content is None
    assert region.summary() == f"{path}:1: unknown experiment 'ghost' in value marker"
    assert region.how_to_fix == ""
    inline = plan_document(write(tmp_path, "x <!-- benchdoc:value eagle3 -->1<!-- benchdoc:end -->\n", "two.md"),
                           Ledger({"eagle3": "96.1\n(n=5)"}))
    assert inline.regions[0].status is RegionStatus.ERROR and not inline.regions[0].written


def test_one_problem_is_raised_as_itself_several_together(tmp_path: Path) -> None:
    path = _hand_edited(tmp_path)
    plan = plan_document(path, NEW)
    with pytest.raises(DocumentError) as one:
        write_plan(plan)
    assert type(one.value) is DocumentError and one.value is plan.errors[0]
    two = plan_document(write(tmp_path, LOG + "\n<!-- benchdoc:value ghost -->1<!-- benchdoc:end -->\n"
                              "<!-- benchdoc:value nobody -->1<!-- benchdoc:end -->\n", "two.md"), NEW)
    with pytest.raises(DocumentProblems) as several:
        two.raise_for_errors()
    assert [e.line for e in several.value.errors] == [14, 15]


def test_the_default_plan_refuses_a_hand_edit(tmp_path: Path) -> None:
    """Without force, a plan never overwrites what a person wrote inside a region."""
    path = _hand_edited(tmp_path)
    plan = plan_source(decode_text(path.read_text(), path), NEW)
    assert not plan.ok and not plan.force
    assert plan.hand_edited[0].written is False


def test_a_rendering_that_is_not_text_is_a_located_error(tmp_path: Path) -> None:
    path = write(tmp_path, "a\n<!-- benchdoc:list x -->\n<!-- benchdoc:end -->\n")
    plan = plan_document(path, lambda region: 42)  # type: ignore[arg-type,return-value]
    ((error,),) = [plan.errors]
    assert (error.line, error.message) == (2, "rendering produced int, not text")


def test_bytes_are_planned_like_the_file_holding_them(tmp_path: Path) -> None:
    data = ("\ufeff" + LOG).replace("\n", "\r\n").encode()
    from_bytes = plan_bytes(data, NEW)
    from_file = plan_document(write(tmp_path, data), NEW)
    assert from_bytes.path == "<bytes>" and from_bytes.ok
    assert from_bytes.new_bytes == from_file.new_bytes
    assert from_bytes.new_bytes.startswith(b"\xef\xbb\xbf") and b"96.1" in from_bytes.new_bytes
    assert plan_bytes(data, NEW, path="log.md").path == "log.md"


def test_a_write_the_system_refuses_leaves_the_document_and_says_why(tmp_path: Path) -> None:
    path = write(tmp_path, LOG)
    plan = plan_document(path, lambda region: "x" * 4000 if region.kind == "table" else "1")
    assert plan.ok and len(plan.new_bytes) > 4000
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, hard))
    try:
        with pytest.raises(DocumentError) as caught:
            write_plan(plan)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert caught.value.message == "cannot write: File too large; the document is unchanged"
    assert caught.value.file == str(path)
    assert path.read_text() == LOG


def test_a_refused_hand_edit_is_summarised_as_hand_edited_not_by_its_error(tmp_path: Path) -> None:
    path = _hand_edited(tmp_path)
    (refused,) = plan_document(path, NEW).hand_edited
    assert refused.error is not None and not refused.written
    assert refused.summary() == f"{path}:5: table region is hand-edited: {FIX_HAND_EDITED}"


def test_bytes_and_text_are_planned_without_force_by_default(tmp_path: Path) -> None:
    data = _hand_edited(tmp_path).read_bytes()
    for plan in (plan_bytes(data, NEW), plan_text(data.decode(), NEW)):
        assert not plan.ok and not plan.force
        assert plan.hand_edited[0].written is False and b"**60.0**" in plan.new_bytes


def test_errors_are_listed_in_the_order_of_their_lines(tmp_path: Path) -> None:
    """A render error above a broken marker comes first, though markers are read first."""
    path = write(tmp_path, "<!-- benchdoc:value ghost -->1<!-- benchdoc:end -->\n\n<!-- benchdoc:end -->\n")
    plan = plan_document(path, NEW)
    assert [e.line for e in plan.errors] == [1, 3]
    assert "unknown experiment 'ghost'" in plan.errors[0].message and "stray end marker" in plan.errors[1].message
