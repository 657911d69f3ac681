"""run_experiments end to end against the real simulator, started as a subprocess:
success, failures with their reasons, teardown on every path, command workloads,
interleaving, --until-decided and the dry run."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import toml_list

from benchdoc.errors import ConfigError
from benchdoc.ledger import NewRun, Sample, ServerStop
from benchdoc.ledger.store import Ledger
from benchdoc.runner import RunOptions, plan_runs, run_experiments
from benchdoc.runner import events as ev

from .conftest import assert_gone, write_project

SECRET = "hf_zyxwvutsrqponmlkjihgfedcba0123"


class Recorder:
    """Collects the runner's events."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def pids(self) -> list[int]:
        return [e.pid for e in self.of(ev.ServerReady)]


def run(config: Any, names: list[str], options: RunOptions = RunOptions(), recorder: Recorder | None = None):  # type: ignore[no-untyped-def]
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, names, options, on_event=recorder)
        return report, {r.experiment: r for r in ledger.runs()}


def test_a_successful_run_records_every_repetition_and_leaves_nothing_running(tmp_path: Path) -> None:
    config = write_project(tmp_path, f"""
        [experiments.baseline]
        server = "sim"
        workload = "small"
        repetitions = 2
        env = {{ NCCL_ALGO = "Tree", HF_TOKEN = "{SECRET}" }}
        """)
    recorder = Recorder()
    report, runs = run(config, ["baseline"], recorder=recorder)
    outcome = report.outcomes[0]
    assert outcome.outcome == "ok" and outcome.repetitions == 2 and not report.errors
    record = runs["baseline"]
    assert record.outcome == "ok" and record.source == "run" and record.id == outcome.run_id
    assert len(record.values("output_tok_s")) == 2 and all(v > 0 for v in record.values("output_tok_s"))
    assert {s.repetition for s in record.samples} == {0, 1}
    assert "ttft_ms_p50" in record.metrics and "error_rate" in record.metrics
    # The exact command, with the port it got, and the environment it ran with (redacted).
    port = record.metadata.launch.ports[0]
    assert record.command is not None and record.command[-4:] == ["--ttft-ms", "1", "--step-ms", "0.5"]
    assert record.command[record.command.index("--port") + 1] == str(port)
    assert record.metadata.launch.env == {"NCCL_ALGO": "Tree", "HF_TOKEN": "***"}
    assert record.environment["env_vars"]["NCCL_ALGO"] == "Tree"
    assert SECRET not in json.dumps([record.metadata.to_json(), record.environment, record.command])
    # The workload's settings and each repetition's bookkeeping.
    assert record.metadata.simulator is True  # the simulator said so; reports label it simulated
    assert record.metadata.workload is not None and record.metadata.workload.kind == "loadgen"
    settings = record.metadata.workload.settings or {}
    assert settings["requests"] == 6 and settings["concurrency"] == 2 and settings["model"] == "sim-llm"
    assert [r.seed for r in record.metadata.per_repetition] == [0, 1]
    assert [r.warmup_requests for r in record.metadata.per_repetition] == [1, 0]  # once per server start
    # The log is kept, named after the experiment and a UTC time.
    log = tmp_path / record.metadata.log_path
    assert log.parent == tmp_path / ".benchdoc" / "logs" and log.name.startswith("baseline-2")
    assert "listening on" in log.read_text()
    assert outcome.log_path == log
    assert record.metadata.launch.stops == (ServerStop(returncode=0, killed=False, exited_before_stop=False),)
    kinds = [type(e) for e in recorder.events]
    assert kinds[:2] == [ev.ExperimentStarted, ev.ServerStarting]
    assert kinds.index(ev.ServerReady) < kinds.index(ev.RepetitionStarted) and kinds[-1] is ev.ExperimentFinished
    assert len(recorder.of(ev.RepetitionFinished)) == 2 and recorder.of(ev.RequestsProgress)[-1].completed == 6
    assert_gone(recorder.pids)


def test_out_of_memory_at_start_is_a_failed_run_with_its_reason(tmp_path: Path) -> None:
    message = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    config = write_project(tmp_path, f"""
        [experiments.nccl-fewer-channels]
        server = "sim"
        workload = "small"
        args = ["--fail-start", "{message}"]
        """)
    recorder = Recorder()
    report, runs = run(config, ["nccl-fewer-channels"], recorder=recorder)
    assert report.outcomes[0].outcome == "failed" and not report.errors
    record = runs["nccl-fewer-channels"]
    assert record.outcome == "failed" and record.samples == ()
    assert record.failure_reason == "CUDA out of memory"
    assert record.failure_log_line == message
    assert message in (tmp_path / record.metadata.log_path).read_text()
    assert record.metadata.launch.stops[0].exited_before_stop is True
    assert not recorder.of(ev.ServerReady)
    assert_gone(record.metadata.launch.pids)


def test_readiness_timeout(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.slow]
        server = "sim"
        workload = "small"
        """, server_extra=["--ready-delay", "60"], ready_timeout=5.0)
    report, runs = run(config, ["slow"])
    record = runs["slow"]
    assert record.outcome == "failed"
    assert record.failure_reason is not None
    assert record.failure_reason.startswith("readiness timeout: not ready within 5 s")
    assert "HTTP 503" in record.failure_reason
    assert record.metadata.launch.stops[0].exited_before_stop is False
    assert_gone(record.metadata.launch.pids)


def test_a_server_killed_mid_run_keeps_the_finished_repetitions(tmp_path: Path) -> None:
    # Repetition 1 sends 1 warm-up + 6 requests; the server dies at the 10th request, in repetition 2.
    config = write_project(tmp_path, """
        [experiments.crashy]
        server = "sim"
        workload = "small"
        args = ["--die-after-requests", "10"]
        repetitions = 3
        """)
    report, runs = run(config, ["crashy"])
    assert report.outcomes[0].outcome == "failed" and report.outcomes[0].repetitions == 1
    record = runs["crashy"]
    assert record.outcome == "failed" and record.failure_reason == "illegal memory access"
    assert record.failure_log_line and "CUDA error: an illegal memory access was encountered" in record.failure_log_line
    assert {s.repetition for s in record.samples} == {0}
    assert record.metadata.launch.stops[0].exited_before_stop is True
    assert_gone(record.metadata.launch.pids)


def test_ctrl_c_during_a_repetition_stops_the_server_and_records_nothing_for_it(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.done-first]
        server = "sim"
        workload = "small"
        repetitions = 1

        [experiments.interrupted]
        server = "sim"
        workload = "small"
        repetitions = 3
        """)
    recorder = Recorder()

    def interrupt(event: Any) -> None:
        recorder(event)
        if isinstance(event, ev.RequestsProgress) and event.experiment == "interrupted" and event.completed == 3:
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of the load

    with Ledger.open(config.ledger_url) as ledger:
        with pytest.raises(KeyboardInterrupt):
            run_experiments(config, ledger, ["done-first", "interrupted"], on_event=interrupt)
        assert [r.experiment for r in ledger.runs()] == ["done-first"]
    assert len(recorder.pids) == 2
    assert_gone(recorder.pids)


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


# A small client measuring the server with plain HTTP requests.
CLIENT = """
    import json, sys, time, urllib.request
    url = sys.argv[1]
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    models = json.load(opener.open(url + "/v1/models", timeout=10))["data"]
    started = time.perf_counter()
    for _ in range(5):
        opener.open(url + "/health", timeout=10).read()
    rate = 5 / (time.perf_counter() - started)
"""


def test_command_workloads_read_by_json_path_and_by_regex(tmp_path: Path) -> None:
    json_client = _script(tmp_path, "json_client.py", CLIENT + """
    with open(sys.argv[2], "w") as out:
        json.dump({"result": {"health_per_s": rate, "models": len(models)}}, out)
    """)
    regex_client = _script(tmp_path, "regex_client.py", CLIENT + """
    print(f"served: {models[0]['id']}")
    print(f"health checks: {rate:.3f} per second")
    """)
    config = write_project(tmp_path, f"""
        [workloads.by-json]
        kind = "command"
        argv = {toml_list([sys.executable, json_client, "{url}", "{output}"])}
        json = {{ health_per_s = "result.health_per_s", models = "result.models" }}
        timeout = 30

        [workloads.by-regex]
        kind = "command"
        argv = {toml_list([sys.executable, regex_client, "{url}"])}
        regex = {{ health_per_s = 'health checks: ([0-9.]+) per second' }}
        warmup = 1

        [experiments.json-read]
        server = "sim"
        workload = "by-json"
        repetitions = 2

        [experiments.regex-read]
        server = "sim"
        workload = "by-regex"
        repetitions = 2
        """)
    recorder = Recorder()
    report, runs = run(config, ["json-read", "regex-read"], recorder=recorder)
    assert [o.outcome for o in report.outcomes] == ["ok", "ok"]
    by_json = runs["json-read"]
    assert by_json.values("models") == [1.0, 1.0] and all(v > 0 for v in by_json.values("health_per_s"))
    outputs = [tmp_path / str(r.results) for r in by_json.metadata.per_repetition]
    assert all(p.name.endswith(".output.json") and p.exists() for p in outputs)
    assert by_json.metadata.workload is not None and by_json.metadata.workload.argv[-1] == "{output}"
    assert by_json.metadata.workload.results is not None and by_json.metadata.workload.results.source == "{output}"
    by_regex = runs["regex-read"]
    assert len(by_regex.values("health_per_s")) == 2
    stdout_logs = [p for p in by_regex.metadata.logs.workload if p.endswith(".stdout.log")]
    assert any(".warmup1." in p for p in stdout_logs) and sum(".rep" in p for p in stdout_logs) == 2
    assert_gone(recorder.pids)


def test_workload_failures_and_harness_errors(tmp_path: Path) -> None:
    failing = _script(tmp_path, "failing.py", """
        import sys
        print("Traceback (most recent call last):", file=sys.stderr)
        print("ModuleNotFoundError: No module named 'vllm'", file=sys.stderr)
        sys.exit(1)
    """)
    prints_json = toml_list([sys.executable, "-c", 'print(\'{"tput": 5}\')'])
    config = write_project(tmp_path, f"""
        [workloads.fails]
        kind = "command"
        argv = {toml_list([sys.executable, failing])}
        regex = {{ x = 'x=(\\d+)' }}

        [workloads.wrong-path]
        kind = "command"
        argv = {prints_json}
        json = {{ output_tok_s = "throughput" }}

        [workloads.no-program]
        kind = "command"
        argv = ["benchdoc-no-such-bench", "{{url}}"]
        regex = {{ x = 'x=(\\d+)' }}

        [experiments.client-fails]
        server = "sim"
        workload = "fails"

        [experiments.bad-path]
        server = "sim"
        workload = "wrong-path"

        [experiments.bad-program]
        server = "sim"
        workload = "no-program"

        [experiments.no-server-binary]
        server = "missing"
        workload = "small"

        [servers.missing]
        argv = ["benchdoc-no-such-server", "--port", "{{port}}"]
        """)
    recorder = Recorder()
    report, runs = run(config, ["client-fails", "bad-path", "bad-program", "no-server-binary"], recorder=recorder)
    outcomes = {o.experiment: o for o in report.outcomes}
    assert outcomes["client-fails"].outcome == "failed"
    assert runs["client-fails"].failure_reason == "missing module 'vllm'"
    assert runs["client-fails"].failure_log_line == "ModuleNotFoundError: No module named 'vllm'"
    assert outcomes["bad-path"].outcome == "error"
    assert runs["bad-path"].failure_reason == (
        "cannot read the workload's results: output_tok_s = 'throughput': no key 'throughput' at the top "
        "in the command's stdout "
        f"({Path(runs['bad-path'].metadata.logs.workload[0]).name})"
    )
    assert outcomes["bad-program"].outcome == "error"
    assert "cannot start the workload command" in (runs["bad-program"].failure_reason or "")
    assert outcomes["no-server-binary"].outcome == "error"  # a broken setup, not a measurement
    assert runs["no-server-binary"].failure_reason == (
        "cannot start the server: No such file or directory: benchdoc-no-such-server"
    )
    assert len(report.errors) == 3
    assert_gone(recorder.pids)


def test_interleave_alternates_and_restarts_each_server(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.a]
        server = "sim"
        workload = "small"
        repetitions = 2

        [experiments.b]
        server = "sim"
        workload = "small"
        repetitions = 2
        args = ["--step-ms", "1"]
        """)
    recorder = Recorder()
    report, runs = run(config, ["a", "b"], RunOptions(interleave=True), recorder=recorder)
    order = [(e.experiment, e.repetition) for e in recorder.of(ev.RepetitionStarted)]
    assert order == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
    assert len(recorder.of(ev.ServerStarting)) == 4 and len(set(recorder.pids)) == 4
    for name in ("a", "b"):
        record = runs[name]
        assert record.outcome == "ok" and len(record.values("output_tok_s")) == 2
        assert record.metadata.interleaved is True and len(record.metadata.launch.pids) == 2
        assert [Path(p).name.split(".")[-3] for p in record.metadata.logs.server] == ["rep1", "rep2"]
        # A fresh server for every repetition: the warm-up runs every time.
        assert [r.warmup_requests for r in record.metadata.per_repetition] == [1, 1]
        assert {s.start for s in record.samples} == {0, 1}  # each repetition is a start of its own
    assert_gone(recorder.pids)


def test_starts_run_their_repetitions_each_on_a_fresh_server(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.a]
        server = "sim"
        workload = "small"

        [experiments.b]
        server = "sim"
        workload = "small"
        args = ["--step-ms", "1"]
        """)
    recorder = Recorder()
    report, runs = run(config, ["a", "b"], RunOptions(repetitions=2, starts=2), recorder=recorder)
    assert not report.errors and [o.repetitions for o in report.outcomes] == [4, 4]
    order = [(e.experiment, e.repetition) for e in recorder.of(ev.RepetitionStarted)]
    assert order == [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("b", 0), ("b", 1), ("b", 2), ("b", 3)]
    assert len(recorder.of(ev.ServerStarting)) == 4 and len(set(recorder.pids)) == 4
    for name in ("a", "b"):
        record = runs[name]
        starts = [s.start for s in sorted(record.samples, key=lambda s: s.repetition) if s.metric == "output_tok_s"]
        assert starts == [0, 0, 1, 1] and record.starts == 2
    interleaved = Recorder()
    run(config, ["a", "b"], RunOptions(repetitions=2, starts=2, interleave=True), recorder=interleaved)
    order = [(e.experiment, e.repetition) for e in interleaved.of(ev.RepetitionStarted)]
    assert order == [("a", 0), ("a", 1), ("b", 0), ("b", 1), ("a", 2), ("a", 3), ("b", 2), ("b", 3)]
    with Ledger.open(config.ledger_url) as ledger:
        newest = ledger.runs(experiment="a")[0]
    assert [Path(p).name.split(".")[-3] for p in newest.metadata.logs.server] == ["start1", "start2"]
    assert_gone(recorder.pids + interleaved.pids)


def test_until_decided_stops_at_the_first_decisive_look(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.baseline]
        label = "recorded elsewhere, far slower"

        [experiments.candidate]
        server = "sim"
        workload = "small"
        compare_to = "baseline"
        repetitions = 5

        [experiments.lonely]
        server = "sim"
        workload = "small"
        repetitions = 2
        compare_to = "baseline-of-one"

        [experiments.baseline-of-one]
        """)
    with Ledger.open(config.ledger_url) as ledger:
        ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 1.0 + i / 100, i, i) for i in range(10)]))
        ledger.record_run(NewRun("baseline-of-one", samples=[Sample("output_tok_s", 1.0, 0)]))
    recorder = Recorder()
    options = RunOptions(until_decided=True, max_starts=12)
    report, runs = run(config, ["candidate", "lonely"], options, recorder=recorder)
    candidate = runs["candidate"]
    assert report.outcomes[0].decision == "significant"
    assert len(candidate.values("output_tok_s")) == 5  # decided at the first look, after the planned 5
    decided = candidate.metadata.until_decided
    assert decided is not None and decided.decision == "significant" and decided.baseline_n == 10
    first, per_look, shares = decided.looks[0], decided.alpha_per_look, decided.shares
    assert per_look is not None and shares is not None and first.p is not None
    assert first.repetitions == 5 and first.p <= per_look
    assert per_look * len(decided.looks_planned) <= 0.05
    # Its family holds two comparisons on tok/s: lonely's, measured by the same run, counts as the worst it can
    # become (p = 1), so Holm leaves this one 0.05 / 2 whatever lonely ends up showing.
    assert per_look * shares == pytest.approx(0.025)
    assert decided.baseline_runs == (1,)  # the ledger id of the baseline run it looked at
    # Views read the run back as its sequential test decided it: the p they show is the spent one.
    from benchdoc.results import build_results

    with Ledger.open(config.ledger_url) as ledger:
        shown = build_results(config, ledger)["candidate"].comparisons["output_tok_s"]
    assert shown.sequential is not None and shown.sequential.decision == "significant"
    assert shown.p_tested == pytest.approx(min(1.0, first.p * shares))
    # Against a single recorded value no look can decide: the planned repetitions run, and it says so.
    lonely = runs["lonely"]
    assert len(lonely.values("output_tok_s")) == 2 and lonely.metadata.until_decided is not None
    assert lonely.metadata.until_decided.decision is None
    assert any("no look can reach significance" in n.message for n in recorder.of(ev.Notice))
    assert_gone(recorder.pids)


def test_dry_run_says_exactly_what_would_run_and_runs_nothing(tmp_path: Path) -> None:
    config = write_project(tmp_path, f"""
        [experiments.eagle3]
        server = "sim"
        workload = "small"
        args = ["--draft-steps", "{{steps}}"]
        variables = {{ steps = 2 }}
        env = {{ HF_TOKEN = "{SECRET}", NCCL_ALGO = "Tree" }}
        """)
    planned = plan_runs(config, ["eagle3"], RunOptions(repetitions=3))
    item = planned[0]
    assert item.argv[item.argv.index("--port") + 1] == "{port}" and item.argv[-2:] == ("--draft-steps", "2")
    assert item.env == {"HF_TOKEN": "***", "NCCL_ALGO": "Tree"}
    assert item.ready_url == "http://127.0.0.1:{port}/health" and item.port is None
    assert item.repetitions == 3 and item.workload["kind"] == "loadgen"
    assert item.workload["settings"]["requests"] == 6
    assert not (tmp_path / ".benchdoc").exists()


def test_config_errors_stop_everything_before_a_server_starts(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.fine]
        server = "sim"
        workload = "small"

        [experiments.typo]
        server = "sim"
        workload = "small"
        args = ["--draft-steps", "{stesp}"]
        variables = { steps = 2 }
        """)
    with Ledger.open(config.ledger_url) as ledger:
        with pytest.raises(ConfigError, match=r"benchdoc.toml:\d+: experiments.typo.args: unknown placeholder \{stesp\} \(did you mean 'steps'\?\)"):
            run_experiments(config, ledger, ["fine", "typo"])
        assert ledger.runs() == []
    assert not (tmp_path / ".benchdoc" / "logs").exists()
