"""`benchdoc report`: the real command writes one self-contained page."""

from __future__ import annotations

import html
import json
import re
import sys

import pytest
from tests.conftest import Project
from tests.plots.story import record_story

from benchdoc.ledger.store import Ledger


@pytest.fixture
def story(project: Project) -> Project:
    (project.root / ".benchdoc").mkdir()
    log = project.root / "logs" / "nccl-tree.log"
    log.parent.mkdir()
    log.write_text("starting\nRuntimeError: NCCL Tree algorithm is not supported with CUDA graph capture\n")
    with Ledger.open(project.ledger_url) as ledger:
        record_story(ledger, log_path=log.relative_to(project.root))
    return project


def test_report_is_written_with_table_charts_and_failures(story: Project) -> None:
    res = story.run("report")
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(r"wrote report\.html \([\d,]+ KB\): 5 experiments, 5 runs\n", res.stdout), res.stdout
    page = (story.root / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<table id="results">' in page
    assert page.count('<figure class="chart">') == 3  # 2 metrics, before/after; no history has 3 runs
    assert "every successful run" not in page and "the latest run of each experiment" in page
    # The log path in the run's metadata is relative to the project; its tail is shown.
    assert "Last 2 lines of logs/nccl-tree.log</summary><pre>starting\nRuntimeError: NCCL Tree" in page
    assert "ledger.db" in page


def test_report_options_pooling_output_and_history_limit(story: Project) -> None:
    # A history chart is drawn from three runs with a value: give the baseline a third.
    assert story.run("record", "baseline", "--metric", "output_tok_s=92.1,92.3,92.2").returncode == 0
    res = story.run("report", "--all-runs", "-o", "all.html")
    assert res.returncode == 0, res.stderr
    assert (story.root / "all.html").read_text(encoding="utf-8").count('alt="History of') == 1
    res = story.run("report", "--all-runs", "--history-charts", "0", "-o", "out.html")
    assert res.returncode == 0, res.stderr
    page = (story.root / "out.html").read_text(encoding="utf-8")
    assert "every successful run of each experiment" in page
    assert 'alt="History of' not in page and "History charts are drawn for the first 0 experiments only" in page
    res = story.run("report", "-o", "logs")
    assert res.returncode == 2 and res.stderr.startswith("benchdoc: error: logs is a folder")


def test_report_shows_the_log_excerpt_of_a_run_that_failed_to_start(project: Project) -> None:
    # A real `benchdoc run` against the simulator told to die while loading: the runner records
    # the run, and the report reads the log the runner kept (not a path written by hand).
    message = "ValueError: Model path does not exist: /x.gguf"
    sim = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--fail-start", message]
    project.write_config(
        f"""\
        [metrics.output_tok_s]
        label = "tok/s"
        primary = true

        [servers.sim]
        argv = {json.dumps(sim)}
        ready_timeout = 30

        [workloads.small]
        requests = 2

        [experiments.broken]
        label = "Broken model path"
        server = "sim"
        workload = "small"
        """
    )
    res = project.run("run", "broken", "--quiet")
    assert res.returncode == 0, res.stderr  # a failed configuration is a result
    with Ledger.open(project.ledger_url) as ledger:
        (record,) = ledger.runs("broken")
    assert record.outcome == "failed" and record.metadata.log_path is not None
    log = record.metadata.log_path
    assert log.startswith(".benchdoc/logs/broken-") and log.endswith(".server.log")
    res = project.run("report")
    assert res.returncode == 0, res.stderr
    page = (project.root / "report.html").read_text(encoding="utf-8")
    excerpt = re.search(r"<summary>Last (\d+) lines of ([^<]+)</summary><pre>(.*?)</pre>", page, re.S)
    assert excerpt is not None, "the failed run's log excerpt is missing from the report"
    assert excerpt.group(2) == log
    assert "Scheduler hit an exception" in excerpt.group(3) and html.escape(message, quote=True) in excerpt.group(3)


def _limited_to_2_kb() -> None:
    """Files may not grow past 2 KB in the child: a write fails as on a full disk."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 10, 2 << 10))


def test_report_and_export_on_a_full_disk_or_a_missing_folder_are_one_line(story: Project) -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    for argv in (["report", "-o", "r.html"], ["export", "--format", "json", "-o", "runs.json"]):
        full = subprocess.run([sys.executable, "-m", "benchdoc", *argv], cwd=story.root, env=env, capture_output=True,
                              text=True, timeout=120, preexec_fn=_limited_to_2_kb)
        assert full.returncode == 1 and full.stderr.count("\n") == 1, full.stderr
        assert "File too large; nothing was written" in full.stderr
        assert not (story.root / argv[-1]).exists() and not list(story.root.glob("*.benchdoc-tmp"))
    for argv in (["report", "-o", "missing/r.html"], ["export", "-o", "missing/runs.csv"], ["plot", "baseline", "-o", "missing/c.svg"]):
        res = story.run(*argv)
        assert res.returncode == 2 and res.stderr.strip().endswith("no such folder missing"), (argv, res.stderr)


@pytest.mark.timeout(120)
def test_a_run_keeps_the_servers_metrics_over_time_and_the_report_draws_them(project: Project) -> None:
    # Two batch slots and four streams: two run, two wait, for about two seconds of scrapes.
    sim = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--ttft-ms", "20", "--step-ms", "25",
           "--max-running", "2"]
    project.write_config(
        f"""\
        [metrics.output_tok_s]
        label = "tok/s"
        primary = true

        [servers.sim]
        argv = {json.dumps(sim)}
        ready_timeout = 30

        [workloads.queue]
        concurrency = 4
        requests = 12
        output_tokens = 24
        input_tokens = 16

        [experiments.queued]
        label = "Queued"
        server = "sim"
        workload = "queue"
        repetitions = 2
        """
    )
    res = project.run("run", "queued", "--quiet")
    assert res.returncode == 0, res.stderr
    # run's summary gives the server's figures beside the client's.
    assert "queued: server (vllm /metrics, every second): running requests mean " in res.stdout
    assert "waiting requests mean" in res.stdout and ", max 2.0" in res.stdout
    with Ledger.open(project.ledger_url) as ledger:
        (record,) = ledger.runs("queued")
    assert record.outcome == "ok"
    assert record.metadata.server_metrics is not None
    kept = record.metadata.server_metrics.repetitions
    assert [k.repetition for k in kept] == [0, 1] and all(k.dialect == "vllm" for k in kept)
    for entry in kept:
        assert len(entry.times_s) >= 2
        assert max(v for v in entry.series["running"] if v is not None) == 2.0
        assert max(v for v in entry.series["waiting"] if v is not None) == 2.0
        assert entry.summary["kv_cache_usage"]["max"] > 0
    res = project.run("report")
    assert res.returncode == 0, res.stderr
    page = (project.root / "report.html").read_text(encoding="utf-8")
    assert "Line chart of the server&#x27;s own metrics (vllm /metrics, scraped every second)" in page
    assert "running, waiting" in page.split("Line chart of the server")[1].split('"')[0]
