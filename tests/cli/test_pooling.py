"""The project's [stats] pool is what every view pools, unless a command line says otherwise."""

from __future__ import annotations

import json

import pytest
from tests.conftest import STORY_CONFIG, Project

LOG = """\
# Log

<!-- benchdoc:table experiments="baseline eagle3" metric=output_tok_s columns="label value n" -->
<!-- benchdoc:end -->

Baseline pools <!-- benchdoc:value baseline.output_tok_s show=n --><!-- benchdoc:end --> samples.
"""


@pytest.fixture
def pooled_project(project: Project) -> Project:
    """Three runs of each side, one and two samples each; the project pools the latest two."""
    project.write_config(STORY_CONFIG + '\n[stats]\npool = "runs:2"\n\n[documents]\npaths = ["log.md"]\n')
    for values in ("90.0", "91.0,91.5", "92.0,92.5"):
        for name, offset in (("baseline", 0.0), ("eagle3", 5.0)):
            shifted = ",".join(f"{float(v) + offset:g}" for v in values.split(","))
            assert project.run("record", name, "-m", f"output_tok_s={shifted}").returncode == 0
    (project.root / "log.md").write_text(LOG)
    return project


def shown_n(project: Project, *args: str) -> dict[str, int]:
    res = project.run("show", "--json", *args)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    return {e["name"]: e["summaries"]["output_tok_s"]["n"] for e in data["experiments"] if e["summaries"]}


def test_show_and_compare_pool_what_the_project_says(pooled_project: Project) -> None:
    assert shown_n(pooled_project) == {"baseline": 4, "eagle3": 4}
    res = pooled_project.run("show", "--json")
    assert json.loads(res.stdout)["pooling"] == "the latest 2 successful runs of each experiment"
    compared = json.loads(pooled_project.run("compare", "eagle3", "--json").stdout)
    assert compared["pooling"] == "the latest 2 successful runs of each experiment"


def test_a_command_line_overrides_the_project_setting(pooled_project: Project) -> None:
    assert shown_n(pooled_project, "--runs", "1") == {"baseline": 2, "eagle3": 2}
    assert shown_n(pooled_project, "--all-runs") == {"baseline": 5, "eagle3": 5}


def test_history_marks_the_runs_the_result_pools(pooled_project: Project) -> None:
    res = pooled_project.run("history", "baseline", "--json")
    assert [run["pooled"] for run in json.loads(res.stdout)] == [True, True, False]
    table = pooled_project.run("history", "baseline").stdout
    marked = [line for line in table.splitlines() if "●" in line and "pooled into" not in line]
    assert len(marked) == 2 and "● pooled into the current result" in table
    everything = json.loads(pooled_project.run("history", "baseline", "--json", "--all-runs").stdout)
    assert all(run["pooled"] for run in everything)


def test_sync_and_check_pool_what_the_project_says(pooled_project: Project) -> None:
    res = pooled_project.run("sync", "--write")
    assert res.returncode == 0, res.stderr
    text = (pooled_project.root / "log.md").read_text()
    assert "Baseline pools <!-- benchdoc:value baseline.output_tok_s show=n -->4<!-- benchdoc:end sum=" in text
    row = next(line for line in text.splitlines() if line.startswith("| Baseline"))
    assert "91.8" in row and row.endswith("| 4 |")
    assert "Median of the latest 2 successful runs of each experiment" in text
    assert pooled_project.run("check").returncode == 0
    config = (pooled_project.root / "benchdoc.toml").read_text().replace('pool = "runs:2"', 'pool = "all"')
    (pooled_project.root / "benchdoc.toml").write_text(config)
    stale = pooled_project.run("check")
    assert stale.returncode == 1 and "stale" in stale.stderr
