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


@pytest.mark.timeout(120)
def test_show_warns_once_per_experiment_when_it_pools_different_workloads(project: Project) -> None:
    from benchdoc.sim import SimConfig, start_in_thread

    project.write_config(STORY_CONFIG + '\n[documents]\npaths = ["log.md"]\n')
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=0.5)) as sim:
        for concurrency, name in (("2", "eagle3"), ("4", "eagle3"), ("2", "baseline"), ("2", "baseline")):
            res = project.run("bench", "--url", sim.url, "--concurrency", concurrency, "--requests", "4",
                              "--output-tokens", "4", "--input-tokens", "8", "--record", name)
            assert res.returncode == 0, res.stderr
    latest = project.run("show")
    assert latest.returncode == 0 and "different workloads" not in latest.stdout + latest.stderr
    pooled = project.run("show", "--all-runs")
    assert pooled.returncode == 0, pooled.stderr
    lines = [line for line in pooled.stderr.splitlines() if "different workloads" in line]
    assert lines == ["benchdoc: warning: eagle3 pools 2 runs of different workloads (concurrency 2, 4); the workload "
                     "is part of what a result is: pool fewer runs, or record each workload as its own experiment"]
    assert "different workloads" not in pooled.stdout
    data = json.loads(project.run("show", "--all-runs", "--json").stdout)
    mixed = {e["name"]: e["mixed_workloads"] for e in data["experiments"] if e["mixed_workloads"]}
    assert mixed == {"eagle3": {"runs": 2, "differences": {"concurrency": ["2", "4"]}}}
    (project.root / "log.md").write_text(
        '<!-- benchdoc:table experiments="eagle3 baseline" columns="label notes" -->\n<!-- benchdoc:end -->\n')
    project.write_config(STORY_CONFIG + '\n[stats]\npool = "all"\n\n[documents]\npaths = ["log.md"]\n')
    assert project.run("sync", "--write").returncode == 0
    rows = (project.root / "log.md").read_text().splitlines()
    (eagle,) = [row for row in rows if row.startswith("| EAGLE-3 2-step |")]
    assert eagle.endswith("; pools different workloads (concurrency 2, 4) |")
    assert "| Baseline (no spec) |  |" in rows
    compared = project.run("compare", "eagle3", "baseline")
    assert "warning: eagle3 pools 2 runs of different workloads (concurrency 2, 4)" in compared.stdout


def test_sync_and_check_take_a_pooling_for_one_call(pooled_project: Project) -> None:
    config = (pooled_project.root / "benchdoc.toml").read_text().replace('pool = "runs:2"', 'pool = "latest"')
    (pooled_project.root / "benchdoc.toml").write_text(config)
    log = pooled_project.root / "log.md"
    log.write_text(LOG.replace("<!-- benchdoc:end -->\n\nBaseline", "<!-- benchdoc:end -->\n\n"
                               "<!-- benchdoc:value baseline.output_tok_s show=n runs=1 --><!-- benchdoc:end -->\nBaseline"))
    assert pooled_project.run("sync", "--write", "--all-runs").returncode == 0
    text = log.read_text()
    assert "Baseline pools <!-- benchdoc:value baseline.output_tok_s show=n -->5<!-- benchdoc:end" in text
    assert "show=n runs=1 -->2<!-- benchdoc:end" in text  # the region's own pooling wins
    assert "Median of every successful run of each experiment (not the project's [stats] pool = \"latest\");" in text
    for _ in range(2):  # cold, then from the derived cache
        assert pooled_project.run("check", "--all-runs").returncode == 0
    stale = pooled_project.run("check")
    assert stale.returncode == 1 and "stale" in stale.stderr
    assert pooled_project.run("check", "--all-runs").returncode == 0
    assert pooled_project.run("sync", "--check", "--all-runs").returncode == 0
    assert pooled_project.run("sync", "--check", "--runs", "2").returncode == 1
    bad = pooled_project.run("check", "--since", "yesterday")
    assert bad.returncode == 2 and "--since 'yesterday': expected a date like 2026-11-02" in bad.stderr
