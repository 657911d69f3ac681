"""`benchdoc bench --repetitions N`: one workload measured N times, recorded as one run of N samples."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests.conftest import Project

from benchdoc.sim import SimConfig, start_in_thread


@pytest.fixture
def sim_url() -> Iterator[str]:
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=0.5)) as sim:
        yield sim.url


@pytest.mark.timeout(120)
def test_one_run_of_n_samples_reaches_show_with_n(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--concurrency", "2", "--requests", "6", "--output-tokens", "8",
                      "--input-tokens", "8", "--warmup", "2", "--seed", "7", "--repetitions", "5", "--record", "eagle3")
    assert res.returncode == 0, res.stderr
    progress = [line for line in res.stderr.splitlines() if line.startswith("repetition ")]
    assert [line.split(":")[0] for line in progress] == [f"repetition {i}/5 (seed {6 + i})" for i in range(1, 6)]
    assert all("6/6 ok" in line for line in progress)
    assert "5 of 5 repetitions measured (seeds 7..11)" in res.stdout and "output tok/s: median" in res.stdout
    assert "recorded run 1: eagle3 (ok, 5 repetition(s) × " in res.stdout

    (run,) = json.loads(project.run("history", "eagle3", "--json").stdout)
    assert run["source"] == "bench" and run["outcome"] == "ok"
    per_metric = {s["metric"]: sorted(x["repetition"] for x in run["samples"] if x["metric"] == s["metric"])
                  for s in run["samples"]}
    assert per_metric["output_tok_s"] == [0, 1, 2, 3, 4] and per_metric["ttft_ms_p50"] == [0, 1, 2, 3, 4]
    meta = run["metadata"]
    assert meta["repetitions"] == 5 and meta["planned_repetitions"] == 5 and meta["requests"] == 30
    reps = meta["per_repetition"]
    # run's seed scheme: repetition i draws from seed + i; the warm-up goes before the first only.
    assert [r["seed"] for r in reps] == [7, 8, 9, 10, 11]
    assert [r.get("warmup_requests", 0) for r in reps] == [2, 0, 0, 0, 0]
    assert meta["settings"]["seed"] == 7

    shown = json.loads(project.run("show", "eagle3", "--json").stdout)["experiments"][0]
    assert shown["summaries"]["output_tok_s"]["n"] == 5
    # A pass against a server that was already running is one server start, whatever its repetitions.
    assert "5 repetition(s) × " in res.stdout and "metrics, one server start: the server was already running)" in res.stdout
    assert {s["start"] for s in run["samples"]} == {0}
    assert shown["summaries"]["output_tok_s"]["starts"] == 1
    assert shown["summaries"]["output_tok_s"]["ci_method"] == "order statistics"


@pytest.mark.timeout(180)
def test_each_bench_pass_counts_as_one_server_start_in_a_comparison(project: Project, sim_url: str) -> None:
    project.write_config('[experiments.base]\nrole = "reference"\n\n[experiments.eagle3]\ncompare_to = "base"\n')
    bench = ("bench", "--url", sim_url, "--requests", "4", "--output-tokens", "8", "--input-tokens", "8", "-n", "2")
    for name in ("base", "base", "eagle3", "eagle3"):
        assert project.run(*bench, "--record", name).returncode == 0
    compared = project.run("compare", "eagle3", "--all-runs")
    assert compared.returncode == 0, compared.stderr
    assert "output_tok_s: 2 v 2 server starts of about 2 repetitions" in compared.stdout.replace("\n", " ")
    exported = project.run("export", "--format", "csv")
    header = exported.stdout.splitlines()[0].split(",")
    assert header[-3:] == ["repetition", "start", "value"]


@pytest.mark.timeout(120)
def test_json_lists_each_repetition(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--requests", "3", "--output-tokens", "4", "--repetitions", "2",
                      "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [r["settings"]["seed"] for r in data["repetitions"]] == [0, 1] and data["failure"] is None
    assert "recorded" not in data and "repetition 1/2" not in res.stderr


@pytest.mark.timeout(120)
def test_a_failed_repetition_stops_them_and_the_run_is_recorded_failed(project: Project) -> None:
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=1.0, stall_after_tokens=2)) as sim:
        res = project.run("bench", "--url", sim.url, "--requests", "2", "--output-tokens", "10",
                          "--timeout-idle", "0.3", "--repetitions", "3", "--record", "nccl-tree")
    assert res.returncode == 1, res.stderr
    assert "repetition 1/3 (seed 0): failed: all 2 requests failed" in res.stderr
    assert "repetition 2/3" not in res.stderr and "0 of 3 repetitions measured" in res.stdout
    (run,) = json.loads(project.run("history", "nccl-tree", "--json").stdout)
    assert run["outcome"] == "failed" and run["failure_reason"].startswith("repetition 1 of 3: all 2 requests failed")
    assert run["samples"] == []


def test_repetitions_mistakes_are_usage_errors(project: Project) -> None:
    zero = project.run("bench", "--url", "http://127.0.0.1:9", "--repetitions", "0")
    assert zero.returncode == 2 and "--repetitions needs a positive number" in zero.stderr
    sweep = project.run("bench", "--url", "http://127.0.0.1:9", "--rate", "1,2", "--repetitions", "3")
    assert sweep.returncode == 2 and "--repetitions repeats one load level" in sweep.stderr


@pytest.mark.timeout(120)
def test_repetitions_over_a_dataset_keep_its_description_once(project: Project, sim_url: str) -> None:
    dataset = project.root / "prompts.jsonl"
    dataset.write_text("".join(json.dumps({"prompt": f"question {i} " * 4, "output_len": 4}) + "\n" for i in range(8)))
    res = project.run("bench", "--url", sim_url, "--requests", "3", "--dataset", str(dataset), "--repetitions", "2",
                      "--record", "eagle3")
    assert res.returncode == 0, res.stderr
    (run,) = json.loads(project.run("history", "eagle3", "--json").stdout)
    described = run["metadata"]["provenance"]["dataset"]
    assert described["path"] == str(dataset) and described["entries"] == 8 and len(described["sha256"]) == 64


@pytest.mark.timeout(120)
def test_ctrl_c_after_a_finished_pass_records_it_marked_interrupted(project: Project) -> None:
    """A real SIGINT to a real `benchdoc bench --repetitions 3 --record` once its first pass ended."""
    import os
    import signal
    import subprocess
    import sys

    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=2.0)) as sim:
        env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
        bench = subprocess.Popen(
            [sys.executable, "-m", "benchdoc", "bench", "--url", sim.url, "--concurrency", "1", "--requests", "60",
             "--output-tokens", "32", "--input-tokens", "8", "--repetitions", "3", "--record", "eagle3"],
            cwd=project.root, env={**env, "NO_COLOR": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert bench.stderr is not None
        seen = []
        for line in bench.stderr:
            seen.append(line)
            if line.startswith("repetition 1/3"):
                bench.send_signal(signal.SIGINT)
                break
        rest, more = bench.communicate(timeout=60)
    err = "".join(seen) + more
    assert bench.returncode == 130, err
    assert ("benchdoc: interrupted during repetition 2 of 3: recorded run 1 of eagle3 with the 1 finished "
            "repetition (marked interrupted); the pass under way was dropped") in err
    (run,) = json.loads(project.run("history", "eagle3", "--json").stdout)
    meta = run["metadata"]
    assert run["outcome"] == "ok" and meta["interrupted"] is True
    assert meta["repetitions"] == 1 and meta["planned_repetitions"] == 3 and meta["requests"] == 60
    assert sorted({s["repetition"] for s in run["samples"]}) == [0]
