"""`benchdoc demo` plays the whole story against real simulator processes."""

from __future__ import annotations

import json
import re

import pytest
from tests.conftest import Project


@pytest.mark.timeout(600)  # 25 server starts: about a minute on a quiet machine, several on a busy one
def test_demo_plays_the_story_end_to_end(tmp_path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "demo"
    res = Project(tmp_path).run("demo", str(folder))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    out = res.stdout
    assert "simulated, not measured on hardware" in out
    for command in ("$ benchdoc run baseline-cuda12 eagle3", "$ benchdoc compare eagle3-cuda13",
                    "$ benchdoc sync --check", "$ benchdoc check"):
        assert command in out
    assert "CUDA out of memory" in out
    # Piped, the console has no width limit; the step headings' rules stay 80 columns.
    headings = [line for line in out.splitlines() if "Is EAGLE-3 faster now, or is that noise?" in line]
    assert headings and all(len(line) <= 80 for line in headings), [len(line) for line in headings]
    # check's prose lint finds the hand-written conclusion still quoting the old stack.
    assert "stale-claim [EAGLE-3 fast verify: experiment log > Abstract]" in out
    assert "stale-verdict [EAGLE-3 fast verify: experiment log > Conclusion]" in out
    assert "> History]" not in out
    log = (folder / "eagle-fast-verify.md").read_text()
    assert "| NCCL fewer channels | Failed |" in log and "| NCCL Tree | Untested |" in log
    assert "![Bar chart of tok/s" in log and (folder / "charts" / "throughput.svg").is_file()
    assert any((folder / ".benchdoc" / "logs").iterdir())

    # The ledger the demo leaves behind is usable with the ordinary commands.
    demo = Project(folder)
    shown = json.loads(demo.run("show", "--json").stdout)
    statuses = {e["name"]: e["status"] for e in shown["experiments"]}
    assert statuses["eagle3-cuda13"] == "Works" and statuses["eagle3"] == "Superseded"
    assert statuses["nccl-fewer-channels"] == "Failed" and statuses["nccl-tree"] == "Untested"
    # The story's figures: on the new stack EAGLE-3 is about 3.8% faster than its baseline,
    # decided over five server starts a side with its interval above zero; on the old
    # stack it lost about 40%.
    by_name = {e["name"]: e for e in shown["experiments"]}
    new = by_name["eagle3-cuda13"]["comparisons"]["output_tok_s"]
    assert new["verdict"] == "better" and 2.5 <= new["delta_pct"] <= 5.5, new["delta_pct"]
    assert 0 < new["delta_ci_low_pct"] < new["delta_pct"] < new["delta_ci_high_pct"] < 8
    assert new["starts_candidate"] == new["starts_baseline"] == 5
    old = by_name["eagle3"]["comparisons"]["output_tok_s"]
    assert old["verdict"] == "worse" and -45 <= old["delta_pct"] <= -35, old["delta_pct"]
    verdict = f"{new['delta_pct']:.1f}% faster"
    assert "| EAGLE-3 2-step (CUDA 13 + fusion) | Works | **" in log and verdict in log
    written = re.search(r"EAGLE-3 is (\d+)% slower than baseline", log)  # the hand-written abstract
    assert written and 35 <= int(written.group(1)) <= 45, written
    compared = out[out.index("$ benchdoc compare eagle3-cuda13"):out.index("$ benchdoc sync --check")]
    assert f"+{new['delta_pct']:.1f}%" in compared and verdict in compared
    assert demo.run("sync", "--check").returncode == 0


def test_demo_refuses_a_folder_with_a_project(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "benchdoc.toml").write_text("")
    res = Project(tmp_path).run("demo", str(tmp_path))
    assert res.returncode == 2 and "already exists; give the demo an empty folder" in res.stderr
    assert (tmp_path / "benchdoc.toml").read_text() == ""


def test_demo_on_a_path_that_is_a_file_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    path = tmp_path / "notes.txt"
    path.write_text("mine\n")
    for target in (path, path / "sub"):
        res = subprocess.run([sys.executable, "-m", "benchdoc", "demo", str(target)], capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
    assert path.read_text() == "mine\n"
