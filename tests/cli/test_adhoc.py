"""From the command line alone: `run --command` with a parameter scan against a real server
process, `compare RUN_ID RUN_ID`, and `show --where` over experiment variables."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from tests.conftest import Project

SIM = f"{shlex.quote(sys.executable)} -m benchdoc sim --port {{port}} --step-ms {{step}}"
WORKLOAD = """
[workloads.tiny]
concurrency = 2
requests = 12
input_tokens = 8
output_tokens = 8
"""


@pytest.mark.timeout(120)
def test_a_command_and_its_scan_are_run_and_recorded_like_any_run(project: Project) -> None:
    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text() + WORKLOAD)
    before = config.read_bytes()
    res = project.run("run", "--command", SIM, "--scan", "step=1,4", "--name", "sim", "--workload", "tiny", "-n", "4",
                      "--quiet")
    assert res.returncode == 0, res.stdout + res.stderr
    assert config.read_bytes() == before  # benchdoc.toml is not edited
    # One experiment per value, each started with its value, compared with the first.
    assert "sim-step1" in res.stdout and "vs sim-step1: " in res.stdout
    runs = {name: json.loads(project.run("history", name, "--json").stdout) for name in ("sim-step1", "sim-step4")}
    for name, (run,) in runs.items():
        assert run["outcome"] == "ok" and run["source"] == "run"
        assert run["command"][-2:] == ["--step-ms", name[-1]]
    fast, slow = (next(s["value"] for s in runs[n][0]["samples"] if s["metric"] == "tpot_ms_p50")
                  for n in ("sim-step1", "sim-step4"))
    assert slow > 2 * fast
    # Any two runs compared by id, whatever their experiments.
    ids = [runs[n][0]["run_id"] for n in ("sim-step4", "sim-step1")]
    compared = project.run("compare", str(ids[0]), f"#{ids[1]}", "--metric", "tpot_ms_p50", "--json")
    assert compared.returncode == 0, compared.stderr
    data = json.loads(compared.stdout)
    assert (data["candidate"], data["baseline"]) == (f"run#{ids[0]}", f"run#{ids[1]}")
    assert data["comparisons"]["tpot_ms_p50"]["corrected"] is False
    text = project.run("compare", str(ids[0]), str(ids[1]), "--metric", "tpot_ms_p50").stdout
    assert f"run {ids[0]} (sim-step4, " in text and "each side: one run's repetitions" in text


def test_command_mistakes_are_usage_errors(project: Project) -> None:
    cases = [
        (("run", "--command", "server --port 80"), "with {port} where it listens"),
        (("run", "--command", "server --port {port}", "--scan", "bs=1"), "--scan bs: the command has no {bs}"),
        (("run", "--command", "s --port {port} -b {b}", "--scan", "b=1,1"), "given twice"),
        (("run", "--command", "s --port {port} -b {b}", "--scan", "b=a/b"), "cannot be part of an experiment name"),
        (("run", "--command", "s --port {port}", "--name", "baseline"), "already declares 'baseline'"),
        (("run", "--scan", "b=1"), "--scan goes with --command"),
        (("run", "baseline", "--command", "s --port {port}"), "name no experiment beside it"),
    ]
    for args, message in cases:
        res = project.run(*args)
        assert res.returncode == 2 and message in res.stderr, (args, res.stderr)


def test_show_where_selects_by_variables_and_facts(project: Project) -> None:
    project.write_config(project.root.joinpath("benchdoc.toml").read_text() + """
[experiments.tp2]
label = "TP 2"
compare_to = "baseline"
variables = { tp = 2, attn = "flashinfer" }

[experiments.tp4]
label = "TP 4"
compare_to = "baseline"
variables = { tp = 4, attn = "triton" }
""")
    for name in ("baseline", "tp2", "tp4"):
        assert project.run("record", name, "--metric", "output_tok_s=90,91,92").returncode == 0
    def names(*where: str) -> list[str]:
        res = project.run("show", "--json", *(arg for w in where for arg in ("--where", w)))
        assert res.returncode == 0, res.stderr
        return [e["name"] for e in json.loads(res.stdout)["experiments"]]

    assert names("tp=2") == ["tp2"]
    assert names("attn=*in*") == ["tp2"]
    assert names("tp=*", "attn=triton") == ["tp4"]
    assert names("status=Reference") == ["baseline"]
    assert names("tp=8") == []
    bad = project.run("show", "--where", "tp")
    assert bad.returncode == 2 and "expected NAME=VALUE" in bad.stderr
