"""`benchdoc retract` / `unretract` through the real command: a retracted run is out of every
result, sync, check and lint; history shows it struck with its reason; undoing restores it."""

from __future__ import annotations

import json

import pytest
from tests.conftest import STORY_CONFIG, Project

DOC = """\
# Log

Baseline (no spec) reaches 90.0 tok/s.

Now: <!-- benchdoc:value baseline.output_tok_s --><!-- benchdoc:end -->
"""


@pytest.fixture
def two_runs(project: Project) -> Project:
    project.write_config(STORY_CONFIG + '\n[documents]\npaths = ["log.md"]\n')
    (project.root / "log.md").write_text(DOC)
    assert project.run("record", "baseline", "--each-start", "-m", "output_tok_s=90,90.5,89.5").returncode == 0
    assert project.run("record", "baseline", "--each-start", "-m", "output_tok_s=100,100.2,99.8").returncode == 0
    assert project.run("sync", "--write").returncode == 0
    return project


def _value_in_doc(project: Project) -> str:
    text = (project.root / "log.md").read_text()
    return text.split("benchdoc:value baseline.output_tok_s -->", 1)[1].split("<!--", 1)[0]


def test_a_retracted_run_is_out_of_every_result(two_runs: Project) -> None:
    project = two_runs
    assert _value_in_doc(project) == "100.0"
    assert project.run("lint").returncode == 1  # the prose quotes run 1, the ledger says 100.0
    result = project.run("retract", "2", "--reason", "measured with the debug build")
    assert result.returncode == 0 and result.stdout == "retracted run 2 of baseline: measured with the debug build\n"
    assert project.run("check").returncode == 1  # the synced value came from the retracted run
    assert project.run("lint").returncode == 0  # 90.0 is the result again
    assert "90.0" in project.run("show", "baseline").stdout
    assert project.run("sync", "--write").returncode == 0 and _value_in_doc(project) == "90.0"
    history = project.run("history", "baseline").stdout
    struck = next(line for line in history.splitlines() if line.strip("│ ").startswith("2 "))
    assert "ok (retracted)" in struck and "measured with the debug build" in struck
    (newest, oldest) = json.loads(project.run("history", "baseline", "--json").stdout)
    assert newest["retraction"]["reason"] == "measured with the debug build" and oldest["retraction"] is None
    export = project.run("export", "-f", "json").stdout
    assert {row["run_id"]: row["retracted"] for row in json.loads(export)} == {1: None, 2: "measured with the debug build"}

    undone = project.run("unretract", "2")
    assert undone.returncode == 0 and "run 2 of baseline counts again" in undone.stdout
    assert project.run("check").returncode == 1  # now 100.0 is the result again
    assert project.run("sync", "--write").returncode == 0 and _value_in_doc(project) == "100.0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("retract", "9", "--reason", "x"), "no run with id 9"),
        (("unretract", "1"), "run 1 is not retracted"),
        (("retract", "1", "--reason", " "), "a retraction needs a reason"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(two_runs: Project, args: tuple[str, ...], message: str) -> None:
    result = two_runs.run(*args)
    assert result.returncode == 2 and result.stderr == f"benchdoc: error: {message}\n"


def test_a_run_is_retracted_once(two_runs: Project) -> None:
    assert two_runs.run("retract", "1", "--reason", "stale build").returncode == 0
    again = two_runs.run("retract", "1", "--reason", "again")
    assert again.returncode == 2 and again.stderr == "benchdoc: error: run 1 is already retracted (stale build)\n"
    assert two_runs.run("retract", "1").returncode == 2  # --reason is required
