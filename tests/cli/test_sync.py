"""`benchdoc sync` and `benchdoc check` on real files: the story, errors, hand edits, exit codes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import Project

BASE = "92.6,92.4,92.9,92.5,92.7"
NEW = "96.1,95.8,96.4,96.0,96.3"

STORY_LOG = """\
# EAGLE-3 fast verify: experiment log

EAGLE-3 reaches <!-- benchdoc:value eagle3-cuda13.output_tok_s -->54.1<!-- benchdoc:end --> tok/s,
<!-- benchdoc:value eagle3-cuda13 show=verdict vs=baseline -->40% slower than baseline<!-- benchdoc:end -->.

## Results

<!-- benchdoc:table experiments="baseline eagle3-cuda13 nccl-*" metric=output_tok_s -->
| Config | Status | tok/s | Notes |
|---|---|---|---|
| Baseline (no spec) | Reference | **89.5** | Improved from 82 with --cuda-graph-max-bs 128 |
| EAGLE-3 2-step | Reference | **54.1** | 40% slower than baseline |
| NCCL Tree | FAILED | — | CUDA graph incompatible |
| NCCL fewer channels | UNTESTED | — | OOM (wrong mem-fraction, could retry) |
<!-- benchdoc:end -->

Hand-written text after the table stays as it is.   
"""


def story_project(project: Project) -> Path:
    """The story: old numbers recorded, then the stack upgrade's new runs."""
    (project.root / "benchdoc.toml").write_text(
        (project.root / "benchdoc.toml").read_text() + '\n[documents]\npaths = ["eagle-fast-verify.md"]\n'
    )
    for argv in (
        ["record", "baseline", "-m", "output_tok_s=89.5"],
        ["record", "eagle3", "-m", "output_tok_s=54.1"],
        ["record", "nccl-tree", "--failed", "CUDA graph incompatible"],
        ["record", "baseline", "--each-start", "-m", f"output_tok_s={BASE}"],
        ["record", "eagle3-cuda13", "--each-start", "-m", f"output_tok_s={NEW}"],
    ):
        res = project.run(*argv)
        assert res.returncode == 0, res.stderr
    log = project.root / "eagle-fast-verify.md"
    log.write_bytes(STORY_LOG.encode())
    return log


def test_the_story_end_to_end(project: Project) -> None:
    log = story_project(project)
    check = project.run("sync", "--check")
    assert check.returncode == 1, check.stderr
    assert "eagle-fast-verify.md:3: value region is stale" in check.stdout
    assert "eagle-fast-verify.md:8: table region is stale" in check.stdout
    assert log.read_bytes() == STORY_LOG.encode()  # --check never writes

    shown = project.run("sync")
    assert shown.returncode == 0
    assert "-| EAGLE-3 2-step | Reference | **54.1** | 40% slower than baseline |" in shown.stdout
    assert log.read_bytes() == STORY_LOG.encode()  # no --write, no terminal: nothing written

    written = project.run("sync", "--write")
    assert written.returncode == 0, written.stderr
    text = log.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| EAGLE-3 2-step (CUDA 13 + fusion)"))
    assert "**96.1**" in row and "54.1 → 96.1 (+77.6%)" in row and "| 3.8% faster (p=" in row
    assert "| NCCL Tree | Failed |" in text and "CUDA graph incompatible" in text
    assert "| NCCL fewer channels | Untested |" in text and "OOM (wrong mem-fraction, could retry)" in text
    assert "96.1<!-- benchdoc:end sum=" in text
    assert "3.8% faster than Baseline (no spec)<!-- benchdoc:end" in text
    assert text.endswith("Hand-written text after the table stays as it is.   \n")

    again = project.run("sync", "--check")
    assert again.returncode == 0, again.stdout + again.stderr
    assert project.run("check").returncode == 0
    mtime = log.stat().st_mtime_ns
    assert project.run("sync", "--write").returncode == 0
    assert log.stat().st_mtime_ns == mtime  # idempotent: nothing rewritten


def test_hand_edit_is_refused_then_forced(project: Project) -> None:
    log = story_project(project)
    assert project.run("sync", "--write").returncode == 0
    edited = log.read_text().replace("| NCCL Tree | Failed |", "| NCCL Tree | Works |")
    log.write_text(edited)
    res = project.run("sync", "--write")
    assert res.returncode == 3
    assert "eagle-fast-verify.md:8: table region was edited by hand" in res.stderr
    assert "+| NCCL Tree | Works |" in res.stdout  # the hand edit is shown
    assert log.read_text() == edited
    # One exit code for a hand edit whichever command meets it: 3, as for a broken document.
    check = project.run("check")
    assert check.returncode == 3 and "edited by hand" in check.stderr
    assert project.run("sync", "--check").returncode == 3
    # The advice check gives is the command that works: a plain sync --write would refuse.
    advice = check.stderr.strip().splitlines()[-1]
    assert "1 region(s) edited by hand" in advice and "`benchdoc sync --write --force`" in advice, advice
    assert "regenerate the regions with `benchdoc sync --write`" not in advice
    forced = project.run("sync", "--write", "--force", "--quiet")
    assert forced.returncode == 0, forced.stderr
    assert "| NCCL Tree | Failed |" in log.read_text()
    # Quiet means no diff, the hand edit's included: one line says what was overwritten.
    assert "NCCL Tree | Works" not in forced.stdout
    assert "eagle-fast-verify.md:8: overwriting a table region edited by hand" in forced.stdout


def test_document_errors_name_file_and_line_and_write_nothing(project: Project) -> None:
    doc = project.root / "bad.md"
    original = (
        "# Log\n\n"
        "<!-- benchdoc:table experiments=\"nope\" -->\n<!-- benchdoc:end -->\n\n"
        "<!-- benchdoc:table experiments=\"zzz-*\" -->\n<!-- benchdoc:end -->\n\n"
        "<!-- benchdoc:table metric=tok -->\n<!-- benchdoc:end -->\n\n"
        "<!-- benchdoc:value baseline.output_tok_s show=\"value -->x<!-- benchdoc:end -->\n\n"
        "<!-- benchdoc:value baseline.output_tok_s -->92.6<!-- benchdoc:end -->\n\n"
        "<!-- benchdoc:table -->\nunclosed\n"
    )
    doc.write_text(original)
    res = project.run("sync", "--write", "bad.md")
    assert res.returncode == 3
    for expected in (
        "bad.md:3: unknown experiment 'nope'",
        "bad.md:6: no experiment matches 'zzz-*'",
        "bad.md:9: unknown metric 'tok'",
        "bad.md:12:",
        "bad.md:16:",
    ):
        assert expected in res.stderr, res.stderr
    assert doc.read_text() == original


def test_code_fences_are_not_markers(project: Project) -> None:
    assert project.run("record", "baseline", "-m", f"output_tok_s={BASE}").returncode == 0
    doc = project.root / "fences.md"
    original = (
        "~~~~markdown\n```\n<!-- benchdoc:value baseline.output_tok_s -->1<!-- benchdoc:end -->\n```\n~~~~\n\n"
        "    <!-- benchdoc:table -->\n\n"
        "Inline `<!-- benchdoc:end -->` is text.\n\n"
        "Now: <!-- benchdoc:value baseline.output_tok_s -->1<!-- benchdoc:end -->\n"
    )
    doc.write_text(original)
    assert project.run("sync", "--write", "fences.md").returncode == 0
    text = doc.read_text()
    assert text.startswith(original.split("Now:")[0])
    assert "Now: <!-- benchdoc:value baseline.output_tok_s -->92.6<!-- benchdoc:end sum=" in text


def test_crlf_and_bom_survive(project: Project) -> None:
    assert project.run("record", "baseline", "-m", f"output_tok_s={BASE}").returncode == 0
    doc = project.root / "crlf.md"
    original = "\ufeff# Log\r\n\r\nValue: <!-- benchdoc:value baseline.output_tok_s -->0<!-- benchdoc:end -->  \r\nlast line, no newline"
    doc.write_bytes(original.encode("utf-8"))
    assert project.run("sync", "--write", "crlf.md").returncode == 0
    data = doc.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# Log\r\n\r\nValue: ")
    assert b"92.6<!-- benchdoc:end sum=" in data and data.endswith(b"-->  \r\nlast line, no newline")
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_usage_errors(project: Project) -> None:
    none = project.run("sync")
    assert none.returncode == 2 and "no documents to sync" in none.stderr
    missing = project.run("sync", "missing.md")
    assert missing.returncode == 2 and "no such document: missing.md" in missing.stderr
    both = project.run("sync", "--write", "--check", "x.md")
    assert both.returncode == 2


def test_sync_keeps_file_permissions(project: Project) -> None:
    assert project.run("record", "baseline", "-m", f"output_tok_s={BASE}").returncode == 0
    doc = project.root / "perm.md"
    doc.write_text("<!-- benchdoc:value baseline.output_tok_s -->0<!-- benchdoc:end -->\n")
    os.chmod(doc, 0o640)
    assert project.run("sync", "--write", "perm.md").returncode == 0
    assert (doc.stat().st_mode & 0o777) == 0o640


def test_warm_check_imports_no_statistics_or_plotting(project: Project) -> None:
    story_project(project)
    assert project.run("sync", "--write").returncode == 0
    project.run("check")  # the first check fills the cache for anything sync did not render
    res = project.run("check", env={"PYTHONPROFILEIMPORTTIME": "1"}, process=True)
    assert res.returncode == 0, res.stderr
    imported = {line.split("|")[-1].strip() for line in res.stderr.splitlines() if line.startswith("import time:")}
    assert "benchdoc.docs.document" in imported  # the profile did capture benchdoc's imports
    assert not {m for m in imported if m.split(".")[0] in ("scipy", "matplotlib", "numpy")}
    # A new run invalidates the cache: the next check recomputes and sees the stale region.
    assert project.run("record", "baseline", "--each-start", "-m", "output_tok_s=80,80.1,79.9,80.2,80.3").returncode == 0
    stale = project.run("check")
    assert stale.returncode == 1 and "table region is stale" in stale.stdout


def test_warm_check_of_a_chart_needs_no_matplotlib_while_its_file_is_intact(project: Project) -> None:
    story_project(project)
    log = project.root / "eagle-fast-verify.md"
    log.write_text(
        log.read_text()
        + '\n<!-- benchdoc:chart kind=bar metric=output_tok_s experiments="baseline eagle3-cuda13" file=charts/tps.svg -->\n'
        "<!-- benchdoc:end -->\n"
    )
    assert project.run("sync", "--write").returncode == 0
    chart = project.root / "charts" / "tps.svg"
    assert chart.is_file()
    project.run("check")
    res = project.run("check", env={"PYTHONPROFILEIMPORTTIME": "1"}, process=True)
    assert res.returncode == 0, res.stdout + res.stderr
    imported = {line.split("|")[-1].strip() for line in res.stderr.splitlines() if line.startswith("import time:")}
    assert not {m for m in imported if m.split(".")[0] in ("matplotlib", "scipy", "numpy")}
    chart.write_text("<svg>edited</svg>")
    stale = project.run("check")
    assert stale.returncode == 1 and "charts/tps.svg: chart file is out of date" in stale.stdout


def _sync_at_a_terminal(project: Project, answer: bytes) -> str:
    """Run `benchdoc sync` with a pseudo-terminal as stdin and stdout, typing ``answer``."""
    import pty
    import subprocess
    import sys
    import time

    leader, follower = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("BENCHDOC_LEDGER_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "benchdoc", "sync"], cwd=project.root, env=env,
                            stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    output = b""
    deadline = time.monotonic() + 60
    answered = False
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
        if not answered and b"[y/N]" in output:
            os.write(leader, answer + b"\n")
            answered = True
    proc.wait(timeout=60)
    os.close(leader)
    assert answered, output.decode(errors="replace")
    return output.decode(errors="replace")


def test_at_a_terminal_sync_asks_before_writing(project: Project) -> None:
    log = story_project(project)
    no = _sync_at_a_terminal(project, b"n")
    assert "Write these changes to 1 document(s)? [y/N]" in no and "nothing written" in no
    assert log.read_bytes() == STORY_LOG.encode()
    yes = _sync_at_a_terminal(project, b"y")
    assert "wrote eagle-fast-verify.md" in yes
    assert "**96.1**" in log.read_text()
