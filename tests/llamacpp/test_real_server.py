"""`benchdoc run` against the real llama.cpp server (llama-cpp-python's `llama_cpp.server`,
in its own venv) serving a tiny random model written by the tests: the server is ready,
measured and torn down; the engine's version comes from the server's venv and shows in
the environment diff; at concurrency 2 the real server interrupts streams and the result
is unreliable in every view; a bad model path fails with the server's own error line.

The simulator is not the world: these check that what benchdoc does with its simulator it
does with a real engine too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import Project, sim_config_head
from tests.runner.conftest import assert_gone

from benchdoc.ledger.models import Outcome

from .conftest import llama_server

# The module's one `benchdoc run` starts the real server five times and waits out a wrong
# readiness URL: well inside two minutes on an idle machine, past it on a loaded one.
pytestmark = [pytest.mark.llamacpp, pytest.mark.timeout(600)]

# Random weights can sample the end-of-sequence token at any step; benchdoc forces the
# length (ignore_eos), which llama_cpp.server does not know, so the workload bans the token.
NO_EOS = '{ logit_bias = { "2" = -100 } }'
MISSING_MODEL = "/nonexistent/benchdoc-tiny-llama.gguf"


def _config(python: Path, model: Path) -> str:
    return sim_config_head() + f"""\
{llama_server("llama", python, model)}
{llama_server("llama-lost", python, MISSING_MODEL)}
{llama_server("llama-health", python, model, ready_path="/health")}
[workloads.one-by-one]
requests = 6
concurrency = 1
input_tokens = 8
output_tokens = 8
warmup_requests = 1
extra_body = {NO_EOS}

[workloads.pair]
requests = 8
concurrency = 2
input_tokens = 8
output_tokens = 32
warmup_requests = 1
extra_body = {NO_EOS}

[experiments.simulated]
role = "reference"
server = "sim"
workload = "one-by-one"
repetitions = 1

[experiments.simulated-like-llama]
server = "sim"
workload = "one-by-one"
args = ["--no-stream-usage"]
repetitions = 2

[experiments.llama]
server = "llama"
workload = "one-by-one"
compare_to = "simulated"
repetitions = 2

[experiments.llama-pair]
server = "llama"
workload = "pair"
compare_to = "llama"
repetitions = 1

[experiments.llama-queued]
server = "llama"
workload = "pair"
args = ["--interrupt_requests", "False"]
compare_to = "llama"
repetitions = 1

[experiments.llama-lost]
server = "llama-lost"
workload = "one-by-one"
repetitions = 1

[experiments.llama-health]
server = "llama-health"
workload = "one-by-one"
repetitions = 1
"""


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory, llama_python: Path, tiny_model: Path) -> Project:
    """One `benchdoc run` of all seven experiments (the wrong readiness URL alone takes 30 s)."""
    project = Project(tmp_path_factory.mktemp("llamacpp"))
    project.write_config(_config(llama_python, tiny_model))
    result = project.run("run", "simulated", "simulated-like-llama", "llama", "llama-pair", "llama-queued", "llama-lost", "llama-health")
    # The missing /health is a setup error: exit code 1, every experiment recorded.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "llama-lost" in result.stdout and "llama-pair" in result.stdout, result.stdout + result.stderr
    return project


def test_the_real_server_is_ready_measured_and_torn_down(measured: Project) -> None:
    run = measured.runs()["llama"]
    assert run.outcome == Outcome.OK  # type: ignore[attr-defined]
    metadata = run.metadata  # type: ignore[attr-defined]
    assert metadata.repetitions == 2 and metadata.requests == 12 and not metadata.cut_short and not metadata.failures
    assert [r.requests for r in metadata.per_repetition] == [6, 6]
    assert all(value > 0 for value in run.values("output_tok_s"))  # type: ignore[attr-defined]
    launch = metadata.launch
    assert launch.ready_url.endswith("/v1/models") and len(launch.pids) == 1 and launch.ready_s[0] < 120
    assert_gone(launch.pids)  # the server, its process group and everything in it
    assert not launch.stops[0].exited_before_stop  # it ran until benchdoc stopped it
    for other in ("llama-pair", "llama-lost"):
        assert_gone(measured.runs()[other].metadata.launch.pids)  # type: ignore[attr-defined]


def test_the_engine_version_comes_from_the_servers_venv(measured: Project, llama_python: Path,
                                                        llama_version: str) -> None:
    runs = measured.runs()
    engine = runs["llama"].environment["engine"]  # type: ignore[attr-defined]
    assert engine["python"] == str(llama_python)
    assert engine["packages"]["llama-cpp-python"] == llama_version
    assert "llama-cpp-python" not in runs["simulated"].environment["engine"]["packages"]  # type: ignore[attr-defined]
    compare = measured.run("compare", "llama", "simulated")
    assert compare.returncode == 0, compare.stderr
    assert f"engine llama-cpp-python (none) -> {llama_version}" in compare.stdout, compare.stdout
    assert "engine's Python " in compare.stdout


def test_concurrent_streams_are_interrupted_and_the_result_is_unreliable(measured: Project) -> None:
    """llama_cpp.server runs one request at a time and, by default (interrupt_requests),
    ends the stream under way with [DONE] and no finish_reason when another arrives."""
    run = measured.runs()["llama-pair"]
    metadata = run.metadata  # type: ignore[attr-defined]
    assert run.outcome == Outcome.OK and metadata.requests == 8  # type: ignore[attr-defined]
    # How many are cut depends on timing: a stream that ends its 32 tokens before the closed
    # loop's next arrival is not cut (3 of 8 seen, and more), but one at least always is.
    assert metadata.cut_short and 1 <= metadata.cut_short <= 7, metadata
    (cause,) = metadata.failures  # one cause, not one per token count
    assert cause.startswith("stream ended after ") and "without finish_reason" in cause
    rate = f"{metadata.cut_short / 8 * 100:.1f}%"
    show = measured.run("show")
    cut = metadata.cut_short
    assert f"llama-pair is unreliable: {rate} of requests failed ({cut} of 8; {cut} cut short)" in show.stdout, show.stdout
    shown = json.loads(measured.run("show", "--json").stdout)
    (pair,) = [e for e in (shown["experiments"] if isinstance(shown, dict) else shown) if e["name"] == "llama-pair"]
    assert pair["unreliable"] is True
    compare = measured.run("compare", "llama-pair", "llama")
    assert "unreliable" in compare.stdout + compare.stderr and rate in compare.stdout + compare.stderr
    history = measured.run("history", "llama-pair")
    assert "ok (unreliable)" in history.stdout and f"({rate}; " in history.stdout
    assert " × stream ended after " in history.stdout
    # Told not to interrupt, it queues the second request: nothing is cut, nothing unreliable.
    queued = measured.runs()["llama-queued"].metadata  # type: ignore[attr-defined]
    assert queued.requests == 8 and not queued.cut_short and not queued.failures
    assert "llama-queued is unreliable" not in show.stdout


def test_a_bad_model_path_fails_with_the_servers_own_error(measured: Project) -> None:
    run = measured.runs()["llama-lost"]
    assert run.outcome == Outcome.FAILED  # type: ignore[attr-defined]
    assert run.failure_reason == "server exited with code 1 before becoming ready"  # type: ignore[attr-defined]
    line = f"ValueError: Model path does not exist: {MISSING_MODEL}"
    assert run.failure_cause == line and run.failure_log_line == line  # type: ignore[attr-defined]
    show = measured.run("show")
    assert "Model path does not exist" in show.stdout


def test_a_readiness_url_the_server_does_not_have_is_a_setup_error(measured: Project) -> None:
    """llama_cpp.server has no /health (llama.cpp's own llama-server has): the default
    readiness URL answers 404, which says nothing about the configuration."""
    run = measured.runs()["llama-health"]
    assert run.outcome == Outcome.ERROR  # type: ignore[attr-defined]
    reason = run.failure_reason  # type: ignore[attr-defined]
    assert reason.startswith("the readiness URL http://127.0.0.1:") and "/health answered HTTP 404 for " in reason
    assert reason.endswith("the server has no such page (check ready_url)")
    assert_gone(run.metadata.launch.pids)  # type: ignore[attr-defined]


def test_the_server_sends_no_usage_and_the_simulator_can_do_the_same(measured: Project) -> None:
    """llama_cpp.server ignores stream_options: its streams never carry usage, so the output
    tokens are counted from the requests' max_tokens (finish_reason "length"), not from the
    server's count. The simulator's --no-stream-usage does what it does."""
    runs = measured.runs()
    real = runs["llama"].metadata.provenance  # type: ignore[attr-defined]
    assert real["output_tokens"] == {"max_tokens": 12}, real
    assert runs["simulated-like-llama"].metadata.provenance["output_tokens"] == real["output_tokens"]  # type: ignore[attr-defined]
    assert runs["simulated"].metadata.provenance["output_tokens"] == {"usage": 6}  # type: ignore[attr-defined]


def _llama_children(parent: int) -> list[int]:
    """The llama_cpp.server processes whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2:].split()[1]) == parent and b"llama_cpp.server" in cmdline:
            found.append(int(entry.name))
    return found


def test_a_server_killed_mid_run_is_not_explained_by_an_ordinary_log_line(
        tmp_path: Path, llama_python: Path, tiny_model: Path) -> None:
    """SIGKILL says nothing in the log, whose last lines are the server's ordinary chatter
    (llama.cpp's timings, "Llama.generate: ... prefix-match hit"): none of it is evidence."""
    project = Project(tmp_path)
    project.write_config(_config(llama_python, tiny_model) + """
[workloads.long]
requests = 400
concurrency = 1
input_tokens = 8
output_tokens = 8
extra_body = """ + NO_EOS + """

[experiments.llama-killed]
server = "llama"
workload = "long"
repetitions = 3
""")
    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    process = subprocess.Popen([sys.executable, "-m", "benchdoc", "run", "llama-killed"], cwd=tmp_path,
                               env={**env, "NO_COLOR": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.startswith("llama-killed: repetition 1/"):
                break
        else:
            raise AssertionError("never reached a repetition")
        (server,) = _llama_children(process.pid)
        os.kill(server, signal.SIGKILL)
        process.stderr.read()
        assert process.wait(timeout=120) == 0  # a failed configuration is a recorded result
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    run = project.runs()["llama-killed"]
    assert run.outcome == Outcome.FAILED and "SIGKILL" in run.failure_reason  # type: ignore[attr-defined]
    evidence = run.failure_log_line or ""  # type: ignore[attr-defined]
    assert "Llama.generate" not in evidence and "llama_perf" not in evidence and "INFO:" not in evidence, evidence
    assert_gone(run.metadata.launch.pids)  # type: ignore[attr-defined]
