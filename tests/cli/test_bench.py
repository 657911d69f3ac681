"""`benchdoc bench` through the real command, against the simulator on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator

import pytest
from tests.conftest import Project

from benchdoc.sim import SimConfig, start_in_process, start_in_thread


@pytest.fixture
def sim_url() -> Iterator[str]:
    with start_in_thread(SimConfig(ttft_ms=5.0, step_ms=1.0, draft_steps=2, accept_prob=0.7)) as sim:
        yield sim.url


@pytest.mark.timeout(60)
def test_prints_a_summary_labelled_with_the_server(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--concurrency", "4", "--requests", "12",
                      "--output-tokens", "16", "--input-tokens", "8", "--percentile", "95")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert f"benchdoc bench  {sim_url}  ·  openai-completions  ·  model sim-llm" in out
    assert "the benchdoc simulator; its figures are simulated" in out
    assert "closed loop, concurrency 4; 12 requests" in out and "(12 ok, 0 failed" in out
    for label in ("TTFT", "TPOT", "ITL", "E2E latency", "Client queue", "Chunk gap", "p95", "accept length"):
        assert label in out
    assert "output tokens counted from: usage (12)" in out
    for label in ("std", "output, peak second", "concurrency achieved, mean", "concurrency achieved, peak"):
        assert label in out


@pytest.mark.timeout(60)
def test_json_output_and_the_key_is_never_shown(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--api", "sglang", "--rate", "50", "--requests", "10",
                      "--output-tokens", "8", "--json", "--per-request", env={"OPENAI_API_KEY": "sk-never-shown-123"})
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["server"]["api"] == "sglang" and data["settings"]["load"] == "open"
    assert data["settings"]["authenticated"] is True
    assert data["requests"] == 10 and data["failed"] == 0
    assert data["metrics"]["error_rate"] == 0.0 and data["metrics"]["output_tok_s"] > 0
    assert data["provenance"]["accept_length"].startswith("meta_info")
    assert len(data["request_records"]) == 10
    assert "sk-never-shown-123" not in res.stdout + res.stderr


@pytest.mark.timeout(60)
def test_record_stores_the_run_with_settings_and_provenance(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--requests", "6", "--output-tokens", "8", "--record", "EAGLE-3",
                      "--api-key", "sk-secret-in-argv", "--note", "sim check")
    assert res.returncode == 0, res.stderr
    assert "recorded run 1: eagle3 (ok," in res.stdout
    hist = project.run("history", "eagle3", "--json")
    assert hist.returncode == 0, hist.stderr
    (run,) = json.loads(hist.stdout)
    assert run["outcome"] == "ok" and run["source"] == "bench"
    assert run["metadata"]["simulator"] is True
    assert run["environment"]["engine"] == {"endpoint": "/get_server_info", "version": "sim-1"}  # asked of the server
    metrics = {s["metric"] for s in run["samples"]}
    assert {"output_tok_s", "ttft_ms_p50", "itl_ms_p99", "error_rate", "accept_length"} <= metrics
    assert "sk-secret-in-argv" not in hist.stdout
    exported = project.run("export", "-f", "json").stdout
    assert "sk-secret-in-argv" not in exported


@pytest.mark.timeout(60)
def test_failed_run_exits_1_lists_reasons_and_is_recorded_as_failed(project: Project) -> None:
    with start_in_thread(SimConfig(ttft_ms=5.0, step_ms=1.0, stall_after_tokens=2)) as sim:
        res = project.run("bench", "--url", sim.url, "--requests", "2", "--output-tokens", "10",
                          "--timeout-idle", "0.3", "--record", "nccl-tree")
    assert res.returncode == 1, res.stderr
    assert "2 × stalled: no data within the idle timeout (0.3 s) after output had started" in res.stdout
    (run,) = json.loads(project.run("history", "nccl-tree", "--json").stdout)
    assert run["outcome"] == "failed"
    assert run["failure_reason"].startswith("all 2 requests failed; most often: stalled")


@pytest.mark.timeout(60)
def test_unknown_experiment_is_refused_before_measuring(project: Project) -> None:
    # No server at all: the experiment check must come first.
    res = project.run("bench", "--url", "http://127.0.0.1:9", "--record", "basline")
    assert res.returncode == 2  # a usage error, as in every command
    assert "unknown experiment 'basline' (did you mean 'baseline'?)" in res.stderr
    # The fix is offered: declare it, or record it under a new name.
    assert "declare it there ([experiments.basline]), or pass --allow-new" in res.stderr


@pytest.mark.timeout(60)
def test_bad_arguments_are_usage_errors(project: Project) -> None:
    both = project.run("bench", "--url", "http://127.0.0.1:9", "--concurrency", "2", "--rate", "3")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    zero = project.run("bench", "--url", "http://127.0.0.1:9", "--requests", "0", "--output-tokens", "0")
    assert zero.returncode == 2
    assert "benchdoc: error: invalid workload: requests must be >= 1 (got 0); output_tokens must be >= 1" in zero.stderr


@pytest.mark.timeout(60)
def test_unreachable_server_is_one_clear_error(project: Project) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    res = project.run("bench", "--url", f"http://127.0.0.1:{port}", "--timeout-connect", "2")
    assert res.returncode == 1
    assert res.stderr.startswith(f"benchdoc: error: cannot reach the server at http://127.0.0.1:{port}:")
    assert "Traceback" not in res.stderr


@pytest.mark.timeout(60)
def test_streams_cut_short_are_said_in_the_summary_json_and_ledger(project: Project) -> None:
    config = SimConfig(ttft_ms=2.0, step_ms=10.0, preempt_on_arrival="done")
    with start_in_thread(config) as sim:
        args = ("bench", "--url", sim.url, "--concurrency", "2", "--requests", "6", "--output-tokens", "32")
        text = project.run(*args, "--record", "eagle3")
        data = json.loads(project.run(*args, "--json").stdout)
    assert text.returncode == 0, text.stderr
    assert "(1 ok, 5 failed, 5 of them cut short;" in text.stdout
    assert "without finish_reason" in text.stdout
    assert data["cut_short"] == 5 and data["failed"] == 5
    assert data["metrics"]["error_rate"] == pytest.approx(5 / 6)
    (run,) = json.loads(project.run("history", "eagle3", "--json").stdout)
    assert run["metadata"]["cut_short"] == 5


@pytest.mark.timeout(60)
def test_a_busy_machine_is_said_in_the_summary_json_and_ledger(project: Project, sim_url: str) -> None:
    import subprocess
    import sys
    import time

    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        time.sleep(0.2)
        args = ("bench", "--url", sim_url, "--requests", "40", "--output-tokens", "16", "--concurrency", "2")
        text = project.run(*args, "--record", "eagle3")
        data = json.loads(project.run(*args, "--json").stdout)
    finally:
        burner.kill()
        burner.wait()
    assert text.returncode == 0, text.stderr
    assert "warning: the machine was busy (other processes kept up to" in " ".join(text.stdout.split())
    assert data["load"]["busy"] is True and data["load"]["others_cores"] > 0.1
    (run,) = json.loads(project.run("history", "eagle3", "--json").stdout)
    load = run["environment"]["load"]
    assert load["state"] == "busy" and load["figures"]["max_others_cores"] > 0.1


@pytest.mark.timeout(60)
def test_rate_sweep_records_each_level_as_its_own_experiment(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--rate", "20,40", "--requests", "8", "--output-tokens", "6",
                      "--slo", "ttft_ms:500", "--record", "baseline")
    assert res.returncode == 0, res.stderr
    assert "rate sweep" in res.stdout and "goodput" in res.stdout
    for level in ("rate=20", "rate=40"):
        (run,) = json.loads(project.run("history", f"baseline@{level}", "--json").stdout)
        assert run["outcome"] == "ok"
        assert run["metadata"]["load"] == {"of": "baseline", "kind": "rate", "value": float(level.split("=")[1])}
        assert run["metadata"]["settings"]["rate"] == float(level.split("=")[1])
        samples = {s["metric"]: s["value"] for s in run["samples"]}
        assert samples["slo_attainment"] == 1.0 and samples["goodput_req_s"] > 0


@pytest.mark.timeout(60)
def test_concurrency_sweep_as_json(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--concurrency", "1,3", "--requests", "6", "--output-tokens", "4",
                      "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["sweep"]
    assert [r["level"] for r in rows] == ["concurrency=1", "concurrency=3"]
    assert all(r["requests"] == 6 and r["error_rate"] == 0.0 for r in rows)
    assert [r["concurrency_max"] for r in rows] == [1.0, 3.0]
    assert all(r["concurrency_mean"] <= r["concurrency_max"] and r["output_tok_s_peak"] > 0 for r in rows)


@pytest.mark.timing
@pytest.mark.timeout(120)
def test_every_sweep_level_carries_the_clients_verdict(project: Project) -> None:
    # A zero-latency server: 64 streams saturate one client (one stream may too: it never waits).
    with start_in_process("--ttft-ms", "0", "--step-ms", "0", "--max-running", "4096") as url:
        _sweep_verdicts(project, url)


def _sweep_verdicts(project: Project, url: str) -> None:
    common = ("bench", "--url", url, "--concurrency", "1,64", "--requests", "128", "--output-tokens", "150",
              "--input-tokens", "4", "--workers", "1")
    res = project.run(*common, "--json", "--per-request", "--record", "baseline", process=True)
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["sweep"]
    verdicts = [r["client"]["bound"] for r in rows]
    assert all(isinstance(v, bool) for v in verdicts) and verdicts[1] is True
    assert all(len(r["request_records"]) == 128 for r in rows)
    for level, bound in zip(("concurrency=1", "concurrency=64"), verdicts):
        (run,) = json.loads(project.run("history", f"baseline@{level}", "--json").stdout)
        assert run["metadata"]["client"]["bound"] is bound
    text = project.run(*common, process=True)
    assert text.returncode == 0, text.stderr
    table = [line for line in text.stdout.splitlines() if line.strip().startswith(("1 ", "64 "))]
    assert len(table) == 2 and all(line.rstrip().endswith(("kept up", "CLIENT-BOUND")) for line in table), table
    assert "concurrency=64: CLIENT-BOUND: " in text.stdout
    assert "concurrency=1: client kept up" not in text.stdout  # the table's column said it
    # Recorded, each level says where it went.
    recorded = project.run(*common, "--record", "baseline", process=True)
    assert recorded.returncode == 0, recorded.stderr
    line = next(line for line in recorded.stdout.splitlines() if line.startswith("recorded 2 levels: "))
    assert "baseline@concurrency=1 (run " in line and "baseline@concurrency=64 (run " in line


@pytest.mark.timeout(90)
def test_capacity_search_records_its_bracket(project: Project) -> None:
    # One batch slot held 21 ms per request (about 47 req/s): past it the queue, and TTFT, grow.
    # The search's accuracy is tested against the library; here, what the command records.
    with start_in_thread(SimConfig(ttft_ms=20.0, step_ms=1.0, max_running=1)) as sim:
        res = project.run("bench", "--url", sim.url, "--find-capacity", "--slo", "ttft_ms:300", "--target", "0.8",
                          "--start-rate", "5", "--precision", "0.3", "--duration", "1", "--output-tokens", "2",
                          "--time-budget", "40", "--record", "baseline", process=True)  # the simulator has this one
    assert res.returncode == 0, res.stderr
    assert "capacity: " in res.stdout and "req/s with SLO attainment >= 0.8" in res.stdout
    (run,) = json.loads(project.run("history", "baseline", "--json").stdout)
    samples = {s["metric"]: s["value"] for s in run["samples"]}
    low, high = run["metadata"]["capacity"]["resolution"]
    assert samples["capacity_req_s"] == low and samples["capacity_high_req_s"] == high and 5 <= low < high
    levels = run["metadata"]["capacity"]["levels"]
    assert levels[0]["rate"] == 5 and levels[0]["met_target"] is True
    assert max(level["rate"] for level in levels if level["met_target"]) == low
    tried = json.loads(project.run("history", "baseline@rate=5", "--json").stdout)
    assert tried[0]["metadata"]["load"]["kind"] == "rate"


@pytest.mark.timeout(30)
def test_sweep_and_search_mistakes_are_usage_errors(project: Project, tmp_path) -> None:
    bad = project.run("bench", "--url", "http://127.0.0.1:9", "--rate", "1,fast")
    assert bad.returncode == 2 and "--rate: rate level 'fast' is not a number" in bad.stderr
    no_slo = project.run("bench", "--url", "http://127.0.0.1:9", "--find-capacity")
    assert no_slo.returncode == 2 and "needs an SLO" in no_slo.stderr
    both = project.run("bench", "--url", "http://127.0.0.1:9", "--find-capacity", "--rate", "2", "--slo", "ttft_ms:9")
    assert both.returncode == 2 and "chooses the rates itself" in both.stderr
    missing = project.run("bench", "--url", "http://127.0.0.1:9", "--dataset", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and missing.stderr.strip().endswith("none.jsonl: dataset file not found")


@pytest.mark.timeout(60)
def test_the_clients_own_load_is_in_the_summary_json_and_ledger(project: Project, sim_url: str) -> None:
    args = ("bench", "--url", sim_url, "--concurrency", "2", "--requests", "4", "--output-tokens", "4")
    text = project.run(*args, "--record", "baseline")
    assert text.returncode == 0, text.stderr
    # The verdict in one short line; its figures with -v (and always in --json).
    verdict = next(line for line in text.stdout.splitlines() if line.startswith(("client kept up", "CLIENT-BOUND")))
    assert len(verdict) < 200 and "event-loop lag" not in text.stdout, verdict
    verbose = project.run(*args, "-v")
    assert verbose.returncode == 0, verbose.stderr
    assert "client kept up: " in verbose.stdout or "CLIENT-BOUND: " in verbose.stdout
    assert "event-loop lag p99" in verbose.stdout and "beside the server's own stamps" in verbose.stdout
    assert "Send delay" in verbose.stdout and "send delay p99 " in " ".join(verbose.stdout.split())
    data = json.loads(project.run(*args, "--json", "--workers", "1").stdout)
    assert set(data["client"]) >= {"bound", "cpu_share", "lag_ms_p99", "ttft_error_ms_mean", "reasons",
                                   "send_delay_ms_p50", "send_delay_ms_p99", "send_delay_ms_max", "smallest_ttft_ms"}
    assert data["metrics"]["send_delay_ms_max"] >= data["metrics"]["send_delay_ms_p99"] >= 0
    assert data["settings"]["workers"] == 1
    (run,) = json.loads(project.run("history", "baseline", "--json").stdout)
    assert run["metadata"]["per_repetition"][0]["client"]["probes"] > 0
    assert run["metadata"]["client"]["of"] == 1 and isinstance(run["metadata"]["client"]["bound"], bool)
    samples = {s["metric"] for s in run["samples"]}
    assert {"send_delay_ms_p50", "send_delay_ms_p99", "send_delay_ms_max"} <= samples


def test_a_key_in_the_url_query_is_never_shown(project: Project, sim_url: str) -> None:
    url = f"{sim_url}/?api_key=q-key-never-shown&model=m"
    res = project.run("bench", "--url", url, "--requests", "2", "--output-tokens", "4", "--input-tokens", "4")
    assert "api_key=***" in res.stdout + res.stderr, res.stdout + res.stderr
    assert "q-key-never-shown" not in res.stdout + res.stderr


@pytest.mark.parametrize(
    ("url", "extra", "message"),
    [
        ("http://u:pw@127.0.0.1:1/", ["--api-key", "k"], "the url carries a user and password and an API key is given too"),
        ("http://[::1", [], "is not a valid address: Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/", [], "is not a valid address: Port out of range"),
    ],
)
def test_a_bad_url_is_one_line(project: Project, url: str, extra: list[str], message: str) -> None:
    res = project.run("bench", "--url", url, *extra)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and message in res.stderr, res.stderr
    assert "pw@" not in res.stderr


@pytest.mark.timeout(90)
def test_a_rate_the_client_cannot_keep_up_with_stops_the_run_and_says_so(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--rate", "1e9", "--duration", "60", "--output-tokens", "4", "--input-tokens", "4")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "run aborted: the client cannot keep up with 1e+09 requests/s" in res.stdout


@pytest.mark.timeout(60)
def test_without_a_terminal_progress_comes_as_lines_with_an_estimate(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--concurrency", "2", "--requests", "20", "--output-tokens", "4")
    assert res.returncode == 0, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("bench: ")]
    # One line per further tenth at most (a slow stretch adds one per 10 s): never a line per request.
    assert 2 <= len(lines) <= 11, res.stderr
    assert lines[-1].startswith("bench: 20/20 requests (100%), ")
    assert any(", about " in line and " s left" in line for line in lines[:-1]), res.stderr
    assert "bench: " not in res.stdout


def test_progress_lines_are_paced_by_tenths_and_by_time() -> None:
    from benchdoc.cli._bench_summary import ProgressLines

    now = [0.0]
    out: list[str] = []
    lines = ProgressLines(out.append, every_s=10.0, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] = done * 0.01
        lines(done, 100)
    assert len(out) == 10 and out[0].startswith("bench: 10/100 requests (10%), 0 s elapsed, about 1 s left")
    out.clear()
    now[0] = 0.0
    open_ended = ProgressLines(out.append, every_s=10.0, clock=lambda: now[0])
    for done, at in ((1, 5.0), (2, 11.0), (3, 12.0), (4, 25.0)):
        now[0] = at
        open_ended(done, None)
    assert out == ["bench: 2 requests done, 11 s elapsed\n", "bench: 4 requests done, 25 s elapsed\n"]


@pytest.mark.timeout(60)
def test_allow_new_records_under_an_undeclared_name(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--requests", "3", "--output-tokens", "4", "--record", "trial-7",
                      "--allow-new")
    assert res.returncode == 0, res.stderr
    assert re.search(r"recorded run \d+: trial-7 \(ok, \d+ metrics, one server start: the server was already running\)", res.stdout), res.stdout
    (run,) = json.loads(project.run("history", "trial-7", "--json").stdout)
    assert run["outcome"] == "ok"
    # Its UTC start and end: the end less the measured time, not the moment it was recorded twice.
    assert run["started_at"] < run["finished_at"]


@pytest.mark.timeout(60)
def test_result_dir_keeps_each_runs_summary_and_requests(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--concurrency", "1,2", "--requests", "4", "--output-tokens", "4",
                      "--result-dir", "results", "--header", "X-Api-Key:abcdef0123456789ABCDEFxyz", "--json")
    assert res.returncode == 0, res.stderr
    folders = sorted((project.root / "results").iterdir())
    assert [f.name.split("-", 1)[1] for f in folders] == ["bench@concurrency=1", "bench@concurrency=2"]
    for folder in folders:
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["requests"] == 4 and "ttft_ms_mean" in summary["metrics"]
        assert summary["settings"]["headers"] == {"X-Api-Key": "***"}
        lines = (folder / "requests.jsonl").read_text().splitlines()
        assert len(lines) == 4 and all(json.loads(line)["ok"] for line in lines)
        assert "abcdef0123456789ABCDEFxyz" not in (folder / "summary.json").read_text()
    (project.root / "a-file").write_text("x")
    bad = project.run("bench", "--url", sim_url, "--requests", "1", "--result-dir", "a-file")
    assert bad.returncode == 2 and "a-file: --result-dir: not a folder" in bad.stderr
    bad = project.run("bench", "--url", sim_url, "--header", "nocolon")
    assert bad.returncode == 2 and "--header: expected NAME:VALUE" in bad.stderr
