"""Planning and writing documents: statuses, exact bytes, idempotency, hand edits, atomicity."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchdoc.docs import (
    DocumentProblems,
    Region,
    RegionStatus,
    leftover_temp_files,
    plan_document,
    write_plan,
)
from benchdoc.docs.markers import content_checksum
from benchdoc.errors import DocumentError

LOG = """\
# EAGLE-3 fast verify

EAGLE-3 reaches <!-- benchdoc:value eagle3 -->54.1<!-- benchdoc:end --> tok/s, baseline <!-- benchdoc:value baseline -->89.5<!-- benchdoc:end -->.

<!-- benchdoc:table experiments="baseline eagle3" -->
| Config | tok/s |
|---|---|
| Baseline | **89.5** |
| EAGLE-3 | **54.1** |
<!-- benchdoc:end -->

Conclusion stays as written.
"""


class Ledger:
    """A real render callback over a small in-memory result set."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)
        self.calls: list[Region] = []

    def __call__(self, region: Region) -> str:
        self.calls.append(region)
        if region.kind == "value":
            name = region.args[0]
            if name not in self.values:
                raise DocumentError(f"unknown experiment {name!r} in value marker")
            return self.values[name]
        if region.kind == "table":
            rows = "".join(
                f"| {name} | **{self.values[name]}** |\n" for name in region.attrs["experiments"].split()
            )
            return "| Config | tok/s |\n|---|---|\n" + rows
        if region.kind == "list":
            return "\n".join(f"- {name}" for name in sorted(self.values))
        raise DocumentError(f"unknown region kind {region.kind!r}")


OLD = Ledger({"baseline": "89.5", "eagle3": "54.1"})
NEW = Ledger({"baseline": "92.6", "eagle3": "96.1"})


def write(tmp_path: Path, text: str | bytes, name: str = "log.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def synced(tmp_path: Path, render: Ledger = OLD, text: str = LOG) -> Path:
    """A document as benchdoc leaves it after a first sync."""
    path = write(tmp_path, text)
    assert write_plan(plan_document(path, render))
    return path


def test_fresh_regions_are_filled_and_stamped(tmp_path) -> None:
    path = write(tmp_path, LOG)
    plan = plan_document(path, OLD)
    assert plan.errors == ()
    # Content already right, but no checksum recorded yet: benchdoc stamps the end markers.
    assert [r.status for r in plan.regions] == [RegionStatus.STALE] * 3
    assert plan.changed and write_plan(plan)
    text = path.read_text()
    assert f"<!-- benchdoc:end sum={content_checksum('54.1')} -->" in text
    assert text.replace(" sum=" + content_checksum("54.1"), "").count("sum=") == 2


def test_new_results_show_as_a_diff_and_only_regions_change(tmp_path) -> None:
    path = synced(tmp_path)
    before = path.read_text()
    plan = plan_document(path, NEW)
    assert [r.status for r in plan.regions] == [RegionStatus.STALE] * 3
    assert plan.diff.startswith(f"--- {path}\n+++ {path}\n")
    assert "-| baseline | **89.5** |\n-| eagle3 | **54.1** |\n" in plan.diff
    assert "+| baseline | **92.6** |\n+| eagle3 | **96.1** |\n" in plan.diff
    changed_lines = [line for line in plan.diff.splitlines()[2:] if line[:1] in "+-"]
    assert not any("Conclusion" in line or "# EAGLE" in line for line in changed_lines)
    assert write_plan(plan)
    after = path.read_text()
    assert after.replace("96.1", "54.1").replace("92.6", "89.5").split("sum=")[0] == before.split("sum=")[0]
    assert after.endswith("<!-- benchdoc:end sum=" + content_checksum(
        "| Config | tok/s |\n|---|---|\n| baseline | **92.6** |\n| eagle3 | **96.1** |\n"
    ) + " -->\n\nConclusion stays as written.\n")


def test_idempotent_and_unchanged_file_keeps_its_mtime(tmp_path) -> None:
    path = synced(tmp_path, NEW)
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    inode = path.stat().st_ino
    plan = plan_document(path, NEW)
    assert not plan.changed and plan.diff == ""
    assert [r.status for r in plan.regions] == [RegionStatus.UNCHANGED] * 3
    assert write_plan(plan) is False
    assert path.stat().st_mtime_ns == 1_000_000_000_000_000_000
    assert path.stat().st_ino == inode


@pytest.mark.parametrize("bom", [False, True])
def test_every_byte_outside_regions_survives(tmp_path, bom: bool) -> None:
    # CRLF from the first line, one stray LF line, trailing whitespace, tabs, no final newline.
    head = "# Log  \r\n\r\nmixed line\nbaseline\t<!-- benchdoc:value baseline -->89.5<!-- benchdoc:end -->   \r\n\r\n"
    table = '<!-- benchdoc:table experiments="baseline" -->\r\n| stale |\r\n<!-- benchdoc:end -->\r\n'
    tail = "trailing spaces   \r\n\r\nno final newline \t"
    prefix = b"\xef\xbb\xbf" if bom else b""
    path = write(tmp_path, prefix + (head + table + tail).encode())
    assert write_plan(plan_document(path, NEW))
    table_content = "| Config | tok/s |\r\n|---|---|\r\n| baseline | **92.6** |\r\n"
    table_sum = content_checksum(table_content)
    expected = (
        head.replace("89.5<!-- benchdoc:end -->", f"92.6<!-- benchdoc:end sum={content_checksum('92.6')} -->")
        + '<!-- benchdoc:table experiments="baseline" -->\r\n'
        + table_content
        + f"<!-- benchdoc:end sum={table_sum} -->\r\n"
        + tail
    )
    assert path.read_bytes() == prefix + expected.encode()
    assert not plan_document(path, NEW).changed


def test_line_ending_conversion_alone_is_not_a_hand_edit(tmp_path) -> None:
    path = synced(tmp_path, NEW)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    plan = plan_document(path, NEW)
    assert plan.errors == () and not plan.changed
    assert {r.status for r in plan.regions} == {RegionStatus.UNCHANGED}


def test_hand_edit_is_refused_with_location_and_diff(tmp_path) -> None:
    path = synced(tmp_path, OLD)
    edited = path.read_text().replace("| eagle3 | **54.1** |", "| eagle3 | **60.0** |")
    path.write_text(edited)
    plan = plan_document(path, NEW)
    by_kind = {r.region.kind + str(r.region.line): r for r in plan.regions}
    table = by_kind["table5"]
    assert table.status is RegionStatus.HAND_EDITED and not table.written
    assert "-| baseline | **92.6** |\n-| eagle3 | **96.1** |\n+| baseline | **89.5** |\n+| eagle3 | **60.0** |\n" in (
        table.hand_edit_diff
    )
    assert f"{path}:5 (table region as edited by hand)" in table.hand_edit_diff
    ((error),) = plan.errors
    assert (error.file, error.line) == (str(path), 5)
    assert "edited by hand" in error.message and "--force" in error.message
    with pytest.raises(DocumentError, match="edited by hand"):
        write_plan(plan)
    assert path.read_text() == edited


def test_force_overwrites_a_hand_edit(tmp_path) -> None:
    path = synced(tmp_path, OLD)
    path.write_text(path.read_text().replace("| eagle3 | **54.1** |", "| eagle3 | hand |"))
    plan = plan_document(path, NEW, force=True)
    assert plan.errors == ()
    assert [r.status for r in plan.regions].count(RegionStatus.HAND_EDITED) == 1
    assert write_plan(plan)
    assert "| eagle3 | **96.1** |" in path.read_text()
    assert not plan_document(path, NEW).changed


def test_hand_edit_matching_the_ledger_is_just_restamped(tmp_path) -> None:
    path = synced(tmp_path, OLD)
    path.write_text(path.read_text().replace("54.1<!--", "96.1<!--"))
    plan = plan_document(path, Ledger({"baseline": "89.5", "eagle3": "96.1"}))
    assert plan.errors == ()
    assert plan.regions[0].status is RegionStatus.STALE


def test_render_errors_are_located_and_collected(tmp_path) -> None:
    text = LOG + "\nAlso <!-- benchdoc:value ghost -->1<!-- benchdoc:end --> and <!-- benchdoc:chart x -->c<!-- benchdoc:end -->.\n"
    path = write(tmp_path, text)
    plan = plan_document(path, NEW)
    assert [(e.line, e.message) for e in plan.errors] == [
        (14, "unknown experiment 'ghost' in value marker"),
        (14, "unknown region kind 'chart'"),
    ]
    assert [r.status for r in plan.regions] == [RegionStatus.STALE] * 3 + [RegionStatus.ERROR] * 2
    with pytest.raises(DocumentProblems) as caught:
        write_plan(plan)
    assert str(caught.value).splitlines() == [
        f"{path}:14: unknown experiment 'ghost' in value marker",
        f"{path}:14: unknown region kind 'chart'",
    ]
    assert path.read_text() == text


def test_marker_errors_block_writing(tmp_path) -> None:
    path = write(tmp_path, LOG + "\n<!-- benchdoc:end -->\n")
    plan = plan_document(path, NEW)
    assert [e.line for e in plan.errors] == [14]
    with pytest.raises(DocumentError, match="stray end marker"):
        write_plan(plan)
    assert path.read_text() == LOG + "\n<!-- benchdoc:end -->\n"


def test_inline_region_must_render_to_one_line(tmp_path) -> None:
    path = write(tmp_path, "x <!-- benchdoc:value eagle3 -->1<!-- benchdoc:end -->\n")
    plan = plan_document(path, Ledger({"eagle3": "96.1\n(n=5)"}))
    ((error,),) = [plan.errors]
    assert error.line == 1 and "must render to one line" in error.message


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("```\nunclosed fence", "change the document's structure"),
        ("<!-- benchdoc:end -->", "contains a benchdoc marker"),
    ],
)
def test_content_that_would_break_the_document_is_refused(tmp_path, content: str, problem: str) -> None:
    text = "<!-- benchdoc:list x -->\n<!-- benchdoc:end -->\n\nafter\n"
    path = write(tmp_path, text)
    plan = plan_document(path, lambda region: content)
    ((error,),) = [plan.errors]
    assert error.line == 1 and problem in error.message
    with pytest.raises(DocumentError):
        write_plan(plan)
    assert path.read_text() == text


def test_block_content_is_indented_like_its_marker(tmp_path) -> None:
    text = "- Results:\n\n  <!-- benchdoc:list all -->\n  <!-- benchdoc:end -->\n- next item\n"
    path = write(tmp_path, text)
    assert write_plan(plan_document(path, NEW))
    assert "  <!-- benchdoc:list all -->\n  - baseline\n  - eagle3\n  <!-- benchdoc:end sum=" in path.read_text()
    assert not plan_document(path, NEW).changed


def test_a_document_changed_after_planning_is_not_overwritten(tmp_path) -> None:
    path = write(tmp_path, LOG)
    plan = plan_document(path, NEW)
    path.write_text(LOG + "\nA late edit.\n")
    with pytest.raises(DocumentError, match="changed on disk"):
        write_plan(plan)
    assert path.read_text().endswith("A late edit.\n")


def test_region_summaries_say_how_to_fix(tmp_path) -> None:
    path = synced(tmp_path, OLD)
    plan = plan_document(path, NEW)
    assert plan.regions[0].summary() == (
        f"{path}:3: value region is stale: regenerate it with `benchdoc sync --write`"
    )
    assert [r.line for r in (p.region for p in plan.stale)] == [3, 3, 5]


# -- a write killed midway leaves the original document intact

WRITER = textwrap.dedent(
    """\
    import os, sys, time
    from benchdoc.docs import plan_document, write_plan

    hook = sys.argv[2]
    real = getattr(os, hook)

    def pause_after_first_call(*args):
        result = real(*args)
        sys.stdout.write("paused\\n")
        sys.stdout.flush()
        time.sleep(60)
        return result

    body = "".join(f"sample {i} " + "x" * 100 + "\\n" for i in range(25000))
    plan = plan_document(sys.argv[1], lambda region: "```text\\n" + body + "```\\n")
    assert plan.errors == () and len(plan.new_bytes) > 2_000_000
    setattr(os, hook, pause_after_first_call)
    write_plan(plan)
    """
)


@pytest.mark.parametrize("hook", ["write", "fsync"])
def test_killed_write_leaves_the_original_intact(tmp_path, hook: str) -> None:
    original = "# Log\r\n\r\n<!-- benchdoc:list samples -->\r\n- old\r\n<!-- benchdoc:end -->\r\n\r\nnotes\r\n"
    path = write(tmp_path, original)
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), hook],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert line == "paused\n", child.stderr.read() if child.stderr else ""
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert path.read_bytes() == original.encode()
    # The half-written temporary file is hidden and not a Markdown file.
    (leftover,) = leftover_temp_files(path)
    assert leftover.name.startswith(".log.md.") and not leftover.name.endswith(".md")
    assert leftover.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.glob("*.md")) == ["log.md"]
    # The document still syncs normally afterwards, and the next write removes the leftover.
    plan = plan_document(path, lambda region: "- new\n")
    assert plan.errors == () and write_plan(plan)
    assert leftover_temp_files(path) == []
    assert path.read_bytes().startswith(b"# Log\r\n\r\n<!-- benchdoc:list samples -->\r\n- new\r\n")
    time.sleep(0)  # keep the kill-to-assert order obvious in tracebacks
