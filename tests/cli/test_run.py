"""`benchdoc run` as a real command: progress, summary, dry run, errors with file:line,
exit codes, and Ctrl-C / SIGTERM tearing the server down."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import sim_argv, sim_config_head, toml_list

from benchdoc.runner.process import live_group_members

CONFIG = sim_config_head() + """
[workloads.small]
requests = 6
concurrency = 2
input_tokens = 8
output_tokens = 8

[workloads.long]
requests = 2000
concurrency = 1
input_tokens = 8
output_tokens = 16

[experiments.baseline]
label = "Baseline (no spec)"
role = "reference"
server = "sim"
workload = "small"
repetitions = 2

[experiments.eagle3]
label = "EAGLE-3 2-step"
server = "sim"
workload = "small"
compare_to = "baseline"
args = ["--draft-steps", "2", "--accept-prob", "0.8"]
repetitions = 2

[experiments.nccl-fewer-channels]
server = "sim"
workload = "small"
args = ["--fail-start", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]

[experiments.long-one]
server = "sim"
workload = "long"
repetitions = 3

[experiments.by-hand]
label = "recorded by hand"
"""


def test_run_records_and_summarises(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    result = project.run("run", "baseline", "eagle3", "nccl-fewer-channels")
    assert result.returncode == 0, result.stderr  # a failed configuration is a result, not an error
    assert "baseline: repetition 1/2" in result.stderr and "eagle3: server ready in" in result.stderr
    # Without a terminal each further repetition line says what remains, from the pace so far.
    assert re.search(r"^baseline: repetition 2/2, about \d+ s left$", result.stderr, re.MULTILINE), result.stderr
    assert "nccl-fewer-channels: FAILED: CUDA out of memory" in result.stderr
    out = result.stdout
    assert "benchdoc run: 3 experiment(s)" in out
    assert "Reference" in out and "Failed: CUDA out of memory" in out
    assert "vs baseline:" in out  # eagle3's comparison, from benchdoc.results
    assert "nccl-fewer-channels: log line: torch.OutOfMemoryError: CUDA out of memory" in out
    assert ".benchdoc/logs/baseline-" in out
    runs = project.runs()
    assert runs["baseline"].outcome == "ok" and len(runs["baseline"].values("output_tok_s")) == 2  # type: ignore[attr-defined]
    assert runs["nccl-fewer-channels"].failure_reason == "CUDA out of memory"  # type: ignore[attr-defined]


def test_quiet_prints_only_the_summary(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    result = project.run("run", "base*", "--quiet", "-n", "1")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "baseline" in result.stdout and "Reference" in result.stdout


def test_dry_run_prints_what_would_run(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    result = project.run("run", "--dry-run", "eagle3", "--until-decided", "--max-repetitions", "12")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("eagle3  (server sim, 2 repetitions, up to 12 server starts until decided)")
    assert "--port '{port}' --ttft-ms 1 --step-ms 0.5 --draft-steps 2 --accept-prob 0.8" in out
    assert "ready:    GET http://127.0.0.1:{port}/health until it answers 200, at most 30 s" in out
    assert "stop:     SIGTERM to the process group, SIGKILL after 3 s" in out
    assert "workload: small (load generator): openai-completions at http://127.0.0.1:{port}/v1/completions" in out
    assert "dry run: nothing was started (1 experiment)" in out
    assert not (project.root / ".benchdoc").exists()


def test_config_errors_name_file_line_and_key(project) -> None:  # type: ignore[no-untyped-def]
    path = project.write_config(CONFIG.replace("shutdown_grace = 3", "shutdown_grase = 3"))
    line = path.read_text().splitlines().index("shutdown_grase = 3") + 1
    result = project.run("run", "baseline")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"benchdoc: error: {path.resolve()}:{line}: servers.sim.shutdown_grase: "
        "unknown key 'shutdown_grase' (did you mean 'shutdown_grace'?)"
    )
    assert not (project.root / ".benchdoc" / "logs").exists()


def test_servers_workloads_and_the_rest_of_the_file_err_in_one_form(project) -> None:  # type: ignore[no-untyped-def]
    # [workloads] and [servers] are checked in benchdoc.config as the rest of the file is:
    # one line, file:line: key.path: message, the same exit code, whichever table is wrong.
    cases = [
        ("input_tokens = 8\noutput_tokens = 8\n\n[workloads.long]", "input_tokens = \"8\"\noutput_tokens = 8\n\n[workloads.long]",
         "input_tokens = \"8\"", "workloads.small.input_tokens: expected a whole number, got '8'"),
        ("ready_timeout = 30", "ready_timeout = -1", "ready_timeout = -1",
         "servers.sim.ready_timeout: expected a number of seconds > 0, got -1"),
        ("role = \"reference\"", "role = \"referenc\"", "role = \"referenc\"", "experiments.baseline.role: "),
    ]
    for old, new, needle, message in cases:
        path = project.write_config(CONFIG.replace(old, new, 1))
        line = path.read_text().splitlines().index(needle) + 1
        result = project.run("run", "--dry-run", "baseline")
        assert result.returncode == 1, (needle, result.stderr)
        assert result.stderr.startswith(f"benchdoc: error: {path.resolve()}:{line}: {message}"), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_bad_load_sweep_is_one_located_line(project) -> None:  # type: ignore[no-untyped-def]
    path = project.write_config(CONFIG.replace("requests = 6\nconcurrency = 2", "requests = 6\nconcurrency = [1, 2, 2]"))
    line = path.read_text().splitlines().index("concurrency = [1, 2, 2]") + 1
    result = project.run("run", "baseline")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"benchdoc: error: {path.resolve()}:{line}: workloads.small.concurrency: the level 2 is given twice"
    )
    assert not (project.root / ".benchdoc" / "logs").exists()
    good = project.write_config(CONFIG.replace("requests = 6\nconcurrency = 2", "requests = 6\nconcurrency = [1, 2]"))
    assert good.exists()
    plan = project.run("run", "baseline", "--dry-run")
    assert plan.returncode == 0, plan.stderr
    assert "baseline@concurrency=1  (server sim, 2 repetitions)" in plan.stdout
    assert "one level of baseline's load sweep: its levels share one server start" in plan.stdout


def test_usage_errors_exit_2(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    for args, message in [
        (("run", "baselin"), "unknown experiment 'baselin' (did you mean 'baseline'?)"),
        (("run", "by-hand"), "experiment 'by-hand' has no server to run"),
        (("run", "zzz*"), "no experiment matches 'zzz*'"),
        (("run", "--max-repetitions", "9"), "--max-starts goes with --until-decided"),
        (("run", "-n", "0"), "--repetitions must be at least 1"),
        (("run", "--until-decided", "--starts", "3", "--max-starts", "2"), "--max-starts (2) is below --starts (3)"),
        (("run", "eagle3", "--until-decided", "-n", "5", "--max-starts", "4"),
         "--max-starts (4) is below the 5 server starts -n asks for before the first look"),
    ]:
        result = project.run(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr


def test_until_decided_with_starts_runs_the_baseline_alongside(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    args = ("run", "baseline", "eagle3", "--until-decided", "--starts", "2", "-n", "1", "--max-starts", "3")
    plan = project.run(*args, "--dry-run")
    assert "2 server starts x 1 repetitions, up to 3 server starts until decided, interleaved" in plan.stdout
    result = project.run(*args)
    assert result.returncode == 0, result.stderr
    out = result.stdout + result.stderr
    assert "until decided against 'baseline' running alongside, one start of each a round on output_tok_s" in out
    assert "eagle3: after 2 server starts:" in out
    runs = project.runs()
    record = runs["eagle3"].metadata.until_decided
    assert record is not None
    assert record.baseline_runs == (runs["baseline"].id,) and runs["baseline"].id < runs["eagle3"].id
    assert runs["baseline"].starts == 3 if record.decision is None else runs["baseline"].starts >= 2
    assert runs["eagle3"].starts == record.looks[-1].starts == record.baseline_starts


def test_a_harness_error_exits_1_after_recording_it(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + f"""
[workloads.unreadable]
kind = "command"
argv = {json.dumps([sys.executable, "-c", "print('no numbers here')"])}
regex = {{ output_tok_s = 'tok/s: ([0-9.]+)' }}

[experiments.misconfigured]
server = "sim"
workload = "unreadable"
""")
    result = project.run("run", "misconfigured", "-n", "1")
    assert result.returncode == 1
    assert "misconfigured: ERROR: cannot read the workload's results" in result.stderr
    assert project.runs()["misconfigured"].outcome == "error"  # type: ignore[attr-defined]


def test_a_server_program_that_does_not_exist_is_a_setup_error(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + f"""
[servers.moved]
argv = {json.dumps([str(project.root / "sglang-serve"), "--port", "{{port}}"])}

[experiments.moved-away]
server = "moved"
workload = "small"
""")
    result = project.run("run", "moved-away", "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error: cannot start the server: No such file or directory" in result.stdout
    run = project.runs()["moved-away"]
    assert run.outcome == "error" and "Failed" not in project.run("show", "moved-away").stdout  # type: ignore[attr-defined]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _interrupt_during_a_repetition(  # type: ignore[no-untyped-def]
    project, signum: int, names: tuple[str, ...] = ("baseline", "long-one"), during: str = "long-one: repetition 1/",
    config: str = CONFIG,
) -> tuple[int, str, list[int]]:
    """Start `benchdoc run baseline long-one`, send ``signum`` while long-one measures."""
    project.write_config(config)
    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    process = subprocess.Popen(
        [sys.executable, "-m", "benchdoc", "run", *names],
        cwd=project.root, env={**env, "NO_COLOR": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    seen = []
    try:
        for line in process.stderr:
            seen.append(line)
            if line.startswith(during):
                break
        else:
            raise AssertionError("never reached a repetition:\n" + "".join(seen))
        time.sleep(0.5)  # well inside the repetition's requests
        servers = _children(process.pid)
        assert servers, "the server should be running"
        process.send_signal(signum)
        _, rest = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, "".join(seen) + rest, servers


def test_ctrl_c_during_a_repetition_tears_down_and_keeps_the_ledger_consistent(project) -> None:  # type: ignore[no-untyped-def]
    code, stderr, servers = _interrupt_during_a_repetition(project, signal.SIGINT)
    assert code == 130
    assert "benchdoc: interrupted: every server was stopped; not recorded: long-one (no repetition had finished)" in stderr
    assert "recorded before the interrupt: baseline" in stderr
    for pid in servers:
        assert live_group_members(pid) == [], f"server {pid} (or its group) outlived benchdoc run"
    runs = project.runs()
    assert set(runs) == {"baseline"} and runs["baseline"].outcome == "ok"  # type: ignore[attr-defined]


def test_ctrl_c_says_exactly_which_finished_repetitions_were_dropped(project) -> None:  # type: ignore[no-untyped-def]
    config = CONFIG + """
[workloads.short]
requests = 10
concurrency = 1
input_tokens = 8
output_tokens = 16

[experiments.three-short]
server = "sim"
workload = "short"
# About 3 s a repetition: the signal lands inside the second even on a loaded machine.
args = ["--step-ms", "20"]
repetitions = 3
"""
    code, stderr, _ = _interrupt_during_a_repetition(project, signal.SIGINT, ("three-short",), "three-short: repetition 2/",
                                                     config)
    assert code == 130
    assert "not recorded: three-short (its 1 finished repetition of 3 dropped)" in stderr
    assert "three-short" not in project.runs()


def test_sigterm_tears_down_like_ctrl_c(project) -> None:  # type: ignore[no-untyped-def]
    code, stderr, servers = _interrupt_during_a_repetition(project, signal.SIGTERM)
    assert code == 130 and "every server was stopped" in stderr
    for pid in servers:
        assert live_group_members(pid) == []
    assert set(project.runs()) == {"baseline"}


def test_the_summary_says_how_many_requests_were_cut_short(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + """
[workloads.preempted]
requests = 6
concurrency = 2
input_tokens = 8
output_tokens = 32

[experiments.preempting]
server = "sim"
workload = "preempted"
args = ["--step-ms", "20", "--preempt-on-arrival", "done"]
repetitions = 2
""")
    result = project.run("run", "preempting", "--quiet")
    assert result.returncode == 0, result.stderr
    # Closed loop at 2, 6 requests a repetition: all but the last are preempted.
    assert "preempting: 10 of 12 requests were cut short" in result.stdout
    assert ("preempting: warning: unreliable: 83.3% of requests failed (10 of 12; 10 cut short), "
            "above the 5% limit") in result.stdout
    run = project.runs()["preempting"]
    assert [r.cut_short_requests for r in run.metadata.per_repetition] == [5, 5]  # type: ignore[attr-defined]


def _guard_and_servers(pid: int) -> tuple[list[int], list[int]]:
    """benchdoc's children: its servers' guards, and its servers."""
    guards, servers = [], []
    for child in _children(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        (guards if b"guard.py" in cmdline else servers).append(child)
    return guards, servers


def _sigkill_during_a_repetition(project, *, guards_too: bool) -> tuple[list[int], list[int]]:  # type: ignore[no-untyped-def]
    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    process = subprocess.Popen(
        [sys.executable, "-m", "benchdoc", "run", "long-one"],
        cwd=project.root, env={**env, "NO_COLOR": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.startswith("long-one: repetition 1/"):
                break
        else:
            raise AssertionError("never reached a repetition")
        guards, servers = _guard_and_servers(process.pid)
        assert guards and servers, "a server and its guard should be running"
        if guards_too:
            for pid in guards:
                os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return guards, servers


def _gone_within(pgids: list[int], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while any(live_group_members(pgid) for pgid in pgids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_sigkill_of_benchdoc_leaves_no_server_running(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG)
    guards, servers = _sigkill_during_a_repetition(project, guards_too=False)
    assert _gone_within(servers + guards, 20), "the server outlived benchdoc"
    assert set(project.runs()) == set()  # nothing half-recorded
    # The guard stopped it: the next run has nothing to report.
    result = project.run("run", "baseline", "-n", "1", "--quiet")
    assert result.returncode == 0 and "left running" not in result.stderr


# A server that ignores SIGTERM and serves from a child process: if benchdoc and the guard
# die together, the parent-death signal cannot end it either.
STUBBORN_SERVER = [sys.executable, "-c", (
    "import signal, subprocess, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "subprocess.run([sys.executable, '-m', 'benchdoc', 'sim', '--port', sys.argv[1], '--ttft-ms', '1', "
    "'--step-ms', '0.5'])"
), "{port}"]


def test_the_next_run_stops_a_server_that_survived(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG.replace(f"argv = {toml_list(sim_argv())}", f"argv = {toml_list(STUBBORN_SERVER)}")
                         .replace("shutdown_grace = 3", "shutdown_grace = 1"))
    _, servers = _sigkill_during_a_repetition(project, guards_too=True)
    time.sleep(0.5)
    assert any(live_group_members(pgid) for pgid in servers), "the stubborn server should have survived"
    result = project.run("run", "baseline", "-n", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "benchdoc: stopped a server left running by an earlier benchdoc" in result.stderr
    assert "experiment long-one" in result.stderr
    assert _gone_within(servers, 10)
    assert not list((project.root / ".benchdoc" / "servers").glob("*.json"))


def test_a_busy_machine_is_warned_about_and_kept_in_the_environment(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + """
[workloads.medium]
requests = 150
concurrency = 2
input_tokens = 8
output_tokens = 16

[experiments.busy]
server = "sim"
workload = "medium"

[experiments.busy-too]
server = "sim"
workload = "medium"
""")
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        time.sleep(0.2)
        result = project.run("run", "busy", "-n", "2", "--quiet")
        both = project.run("run", "busy", "busy-too", "-n", "2", "--quiet")
    finally:
        burner.kill()
        burner.wait()
    assert result.returncode == 0, result.stderr
    # Busy throughout, both repetitions alike: a plain note, no per-repetition warning.
    assert "busy: the machine was busy in 2 of 2 repetitions" in result.stdout
    assert "starved" not in result.stdout and "busy: warning:" not in result.stdout
    # Two experiments on the busy machine: said once for the command, not once per experiment.
    assert both.returncode == 0, both.stderr
    said = [line for line in both.stdout.splitlines() if "the machine was busy" in line]
    assert not [line for line in both.stdout.splitlines() if "starved of CPU by other processes" in line]
    assert len(said) == 1 and said[0].startswith("the machine was busy while 2 experiments ran (busy, busy-too)"), said
    load = project.runs()["busy"].environment["load"]  # type: ignore[attr-defined]
    assert load["state"] == "busy" and load["figures"]["measurements"] == 2
    for each in load["figures"]["each"]:
        assert each["busy"] and each["others_cores"] > 0.1
        assert each["server_cores"] > 0  # the simulator's own CPU is the server's, not "other"


SECRET_LOG_LINE = (
    "RuntimeError: CUDA out of memory while loading from postgresql://svc:Pa55w0rdX@db/x "
    "api_key=k3yk3yk3y token hf_AbCdEfGhIjKlMnOpQrStUv12"
)


def test_run_never_prints_or_stores_the_secrets_in_a_failure_log_line(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + f"""
[experiments.leaky]
server = "sim"
workload = "small"
args = {json.dumps(["--fail-start", SECRET_LOG_LINE])}
""")
    result = project.run("run", "leaky", "-n", "1")
    assert result.returncode == 0, result.stderr
    everything = result.stdout + result.stderr
    assert "leaky: log line: RuntimeError: CUDA out of memory while loading from postgresql://svc:***@db/x" in result.stdout
    for secret in ("Pa55w0rdX", "k3yk3yk3y", "AbCdEfGhIjKlMnOpQrStUv12"):
        assert secret not in everything
    stored = project.runs()["leaky"]
    assert "Pa55w0rdX" not in (stored.failure_log_line or "")  # type: ignore[attr-defined]
    shown = project.run("show", "leaky")
    assert shown.returncode == 0 and "Pa55w0rdX" not in shown.stdout + shown.stderr


def test_dry_run_hides_the_values_of_custom_server_variables_unless_public(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG.replace("shutdown_grace = 3", """shutdown_grace = 3
env = { DEPLOY_CRED = "c-r-e-d-1", SERVICE_PAT = "pat-value", DB_PW = "pw-value", SIGNING_KEYS = "a,b", MY_SETTING = "plain-but-custom", SHOWN = "visible-value", NCCL_ALGO = "Tree", WORKERS = "8" }
public_env = ["SHOWN"]"""))
    result = project.run("run", "--dry-run", "baseline")
    assert result.returncode == 0, result.stderr
    for hidden in ("c-r-e-d-1", "pat-value", "pw-value", "a,b", "plain-but-custom"):
        assert hidden not in result.stdout
    assert "SHOWN=visible-value" in result.stdout and "NCCL_ALGO=Tree" in result.stdout and "WORKERS=8" in result.stdout
    assert "MY_SETTING='***'" in result.stdout


def test_brackets_in_a_failure_reason_and_a_note_are_shown_as_written(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + """
[failures]
patterns = [{ pattern = 'RuntimeError: (cannot open \\[\\S+\\])', reason = '{1}' }]

[experiments.no-device]
server = "sim"
workload = "small"
args = ["--fail-start", "RuntimeError: cannot open [/dev/nvidia0] [bold red]"]
""")
    result = project.run("run", "no-device", "-n", "1")
    assert result.returncode == 0, result.stderr
    assert "no-device: FAILED: cannot open [/dev/nvidia0]" in result.stderr
    assert "log line: RuntimeError: cannot open [/dev/nvidia0] [bold red]" in result.stdout
    assert project.run("record", "baseline", "-m", "output_tok_s=90", "--note", "[bold red]loud[/bold red] [/x]").returncode == 0
    for argv in (("show",), ("history", "no-device"), ("history", "baseline")):
        shown = project.run(*argv)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert "cannot open [/dev/nvidia0]" in project.run("show", "no-device").stdout
    assert "[bold red]loud[/bold red] [/x]" in project.run("history", "baseline").stdout


def test_a_command_workload_reporting_a_negative_throughput_is_a_harness_error(project) -> None:  # type: ignore[no-untyped-def]
    project.write_config(CONFIG + f"""
[workloads.negative]
kind = "command"
argv = {json.dumps([sys.executable, "-c", "print('tok/s: -12.5')"])}
regex = {{ output_tok_s = 'tok/s: (-?[0-9.]+)' }}

[experiments.backwards]
server = "sim"
workload = "negative"
""")
    result = project.run("run", "backwards", "-n", "1")
    assert result.returncode == 1, result.stderr
    assert "cannot use the workload's results: output_tok_s = -12.5 is negative" in result.stderr
    run = project.runs()["backwards"]
    assert run.outcome == "error" and not run.values("output_tok_s")  # type: ignore[attr-defined]
