"""`benchdoc sync --write` writes only inside the document's folder, and a document with its charts as one unit."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli.test_sync import story_project
from tests.conftest import Project

CHART = '<!-- benchdoc:chart kind=bar metric=output_tok_s experiments="baseline eagle3-cuda13" file={file} -->\n<!-- benchdoc:end -->\n'


def _with_chart(project: Project, file: str = "charts/tps.svg", extra: str = "") -> Path:
    log = story_project(project)
    log.write_text(log.read_text() + "\n" + CHART.format(file=file) + extra)
    return log


def test_chart_file_that_is_a_symlink_outside_the_project_is_not_followed(project: Project, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path_factory.mktemp("elsewhere") / "precious.txt"
    outside.write_text("keep me\n")
    log = _with_chart(project)
    (project.root / "charts").mkdir()
    (project.root / "charts" / "tps.svg").symlink_to(outside)
    before = log.read_bytes()
    res = project.run("sync", "--write")
    assert res.returncode == 3, res.stdout + res.stderr
    assert "eagle-fast-verify.md:19: chart file 'charts/tps.svg' is a symlink" in res.stderr
    assert outside.read_text() == "keep me\n" and log.read_bytes() == before


def test_chart_file_under_a_symlinked_folder_outside_the_project_is_refused(project: Project, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "tps.svg").write_text("keep me\n")
    log = _with_chart(project)
    (project.root / "charts").symlink_to(elsewhere, target_is_directory=True)
    before = log.read_bytes()
    res = project.run("sync", "--write")
    assert res.returncode == 3, res.stdout + res.stderr
    assert "chart file 'charts/tps.svg' resolves to" in res.stderr and "outside the document's folder" in res.stderr
    assert (elsewhere / "tps.svg").read_text() == "keep me\n" and sorted(p.name for p in elsewhere.iterdir()) == ["tps.svg"]
    assert log.read_bytes() == before
    check = project.run("check")  # check refuses it too
    assert check.returncode != 0 and "chart file 'charts/tps.svg' resolves to" in check.stdout + check.stderr


def _limit_file_size() -> None:
    """Files may not grow past 1 MB in this process: a real write failure, like a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


def test_document_that_cannot_be_written_leaves_its_chart_unchanged(project: Project) -> None:
    log = _with_chart(project, extra="\n" + "Long hand-written notes. " * 60_000 + "\n")
    assert log.stat().st_size > 1 << 20
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("BENCHDOC_LEDGER_URL", None)
    res = subprocess.run(
        [sys.executable, "-m", "benchdoc", "sync", "--write"],
        cwd=project.root, env=env, capture_output=True, text=True, timeout=120, preexec_fn=_limit_file_size,
    )
    assert res.returncode == 3, res.stdout + res.stderr
    assert "File too large; nothing was written (the document and its charts are unchanged)" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (project.root / "charts" / "tps.svg").exists()
    assert "<!-- benchdoc:chart" in log.read_text() and "![Bar chart" not in log.read_text()
    assert not [p for p in project.root.rglob("*benchdoc-tmp")]
    # Without the limit the same command writes both.
    assert project.run("sync", "--write").returncode == 0
    assert (project.root / "charts" / "tps.svg").is_file() and "![Bar chart" in log.read_text()


def test_two_chart_regions_writing_one_file_are_refused_with_both_lines(project: Project) -> None:
    log = _with_chart(project)
    log.write_text(log.read_text() + "\n" + CHART.format(file="./charts/tps.svg").replace("eagle3-cuda13", "eagle3"))
    res = project.run("sync", "--write")
    assert res.returncode == 3, res.stdout + res.stderr
    assert (
        "eagle-fast-verify.md:22: chart file './charts/tps.svg' is also written by the chart region at "
        "eagle-fast-verify.md:19" in res.stderr
    )
    assert not (project.root / "charts").exists()


def test_two_documents_writing_one_chart_file_are_refused(project: Project) -> None:
    _with_chart(project)
    (project.root / "other.md").write_text("# Other\n\n" + CHART.format(file="charts/tps.svg"))
    res = project.run("sync", "--write", "eagle-fast-verify.md", "other.md")
    assert res.returncode == 3 and "other.md:3: chart file 'charts/tps.svg' is also written by" in res.stderr


def test_the_same_document_named_twice_is_synced_once(project: Project) -> None:
    log = story_project(project)
    res = project.run("sync", "--write", "eagle-fast-verify.md", "./eagle-fast-verify.md")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("wrote eagle-fast-verify.md") == 1 and "changed on disk" not in res.stderr
    assert "**96.1**" in log.read_text()


def test_a_temporary_left_by_a_killed_write_is_removed_and_reported(project: Project) -> None:
    log = story_project(project)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    leftover = project.root / f".eagle-fast-verify.md.{dead.pid}.x1y2z3.benchdoc-tmp"
    leftover.write_bytes(b"half a document" * 1000)
    res = project.run("sync", "--write")
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"removed {leftover}: a temporary file left by a write that was interrupted" in res.stdout
    assert not leftover.exists() and "**96.1**" in log.read_text()
