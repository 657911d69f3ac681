"""init, record, history and export through the real command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tests.conftest import Project


def test_init_writes_a_starter_and_refuses_to_overwrite(tmp_path: Path) -> None:
    proj = Project(tmp_path)
    first = proj.run("init")
    assert first.returncode == 0, first.stderr
    text = (tmp_path / "benchdoc.toml").read_text()
    assert "[metrics.output_tok_s]" in text and text.count("#") > 5  # commented
    second = proj.run("init")
    assert second.returncode == 2
    assert "already exists; not overwriting it" in second.stderr
    assert (tmp_path / "benchdoc.toml").read_text() == text
    # The starter is valid and usable as is.
    rec = proj.run("record", "baseline", "--metric", "output_tok_s=89.5")
    assert rec.returncode == 0, rec.stderr
    assert 'pool = "latest"' in text and "latest run" in proj.run("show").stdout


def test_record_history_and_export_round_trip(project: Project) -> None:
    assert project.run("record", "baseline", "--each-start", "--metric", "output_tok_s=92.6,92.4,92.9").returncode == 0
    res = project.run("record", "EAGLE-3", "-m", "output_tok_s=96.1", "-m", "ttft_ms_p50=41.5", "--note", "new stack")
    assert res.returncode == 0, res.stderr
    assert "recorded run 2: eagle3 (output_tok_s n=1, ttft_ms_p50 n=1; one server start)" in res.stdout
    failed = project.run("record", "nccl-tree", "--failed", "CUDA graph incompatible")
    assert failed.returncode == 0 and "nccl-tree failed (CUDA graph incompatible)" in failed.stdout

    hist = project.run("history", "baseline")
    assert hist.returncode == 0, hist.stderr
    assert "92.6, 92.4, 92.9" in hist.stdout and "ok" in hist.stdout
    hist_failed = project.run("history", "nccl-tree", "--json")
    (run,) = json.loads(hist_failed.stdout)
    assert run["outcome"] == "failed" and run["failure_reason"] == "CUDA graph incompatible" and run["samples"] == []

    rows = list(csv.DictReader(io.StringIO(project.run("export").stdout)))
    assert len(rows) == 3 + 2 + 1
    assert [r["value"] for r in rows if r["experiment"] == "baseline"] == ["92.6", "92.4", "92.9"]
    assert [r["repetition"] for r in rows if r["experiment"] == "baseline"] == ["0", "1", "2"]
    (failure,) = [r for r in rows if r["experiment"] == "nccl-tree"]
    assert failure["metric"] == "" and failure["failure_reason"] == "CUDA graph incompatible"

    lines = project.run("export", "--format", "jsonl", "-e", "eagle3").stdout.splitlines()
    assert {json.loads(line)["metric"] for line in lines} == {"output_tok_s", "ttft_ms_p50"}
    out = project.root / "out.json"
    assert project.run("export", "-f", "json", "-o", str(out)).returncode == 0
    assert len(json.loads(out.read_text())) == 6


def test_record_errors_are_clear_and_record_nothing(project: Project) -> None:
    cases = [
        (["record", "basline", "-m", "output_tok_s=1"], 2, "unknown experiment 'basline' (did you mean 'baseline'?)"),
        (["record", "mtp-2", "-m", "output_tok_s=1"], 2,
         "unknown experiment 'mtp-2' in benchdoc.toml; declare it there first ([experiments.mtp-2] with a label)"),
        (["record", "baseline", "-m", "output_tok_s=fast"], 2, "'fast' is not a number"),
        (["record", "baseline", "-m", "output_tok_s"], 2, "expected NAME=VALUE"),
        (["record", "baseline", "-m", "output_toks=1"], 2, "metric 'output_toks' is not declared in benchdoc.toml (did you mean 'output_tok_s'?)"),
        (["record", "baseline"], 2, "nothing to record"),
        (["record", "baseline", "-m", "output_tok_s=1", "--failed", "x"], 2, "not both"),
        (["record", "baseline", "-m", "output_tok_s=inf"], 2, "not a finite number"),
    ]
    for argv, code, message in cases:
        res = project.run(*argv)
        assert res.returncode == code, (argv, res.stderr)
        assert message in res.stderr, res.stderr
        assert res.stderr.count("\n") == 1, res.stderr  # one clear line, no traceback
    assert json.loads(project.run("export", "-f", "json").stdout) == []


def test_secrets_are_stored_nowhere(project: Project) -> None:
    secret_key = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    password = "hunter2-very-secret"
    env = {
        "OPENAI_API_KEY": secret_key,
        "NCCL_SOCKET_IFNAME": "eth0",
        "VLLM_DB_URL": f"postgresql://bench:{password}@db.internal/ledger",
    }
    res = project.run("record", "baseline", "-m", "output_tok_s=92.6", "--note", f"token {secret_key}", env=env)
    assert res.returncode == 0, res.stderr
    database = (project.root / ".benchdoc" / "ledger.db").read_bytes()
    wal = project.root / ".benchdoc" / "ledger.db-wal"
    blobs = [database, wal.read_bytes() if wal.exists() else b""]
    for fmt in ("csv", "json", "jsonl"):
        blobs.append(project.run("export", "-f", fmt).stdout.encode())
    blobs.append(project.run("history", "baseline", "--json").stdout.encode())
    for blob in blobs:
        assert secret_key.encode() not in blob
        assert password.encode() not in blob
    # The environment was still captured: the harmless variable is there.
    (run,) = json.loads(project.run("history", "baseline", "--json").stdout)
    assert run["environment"]["env_vars"]["NCCL_SOCKET_IFNAME"] == "eth0"


def test_commands_outside_a_project_say_how_to_start(tmp_path: Path) -> None:
    res = Project(tmp_path).run("show")
    assert res.returncode == 1
    assert "no benchdoc.toml found" in res.stderr and "benchdoc init" in res.stderr


def test_help_lists_every_command_and_exit_codes(tmp_path: Path) -> None:
    res = Project(tmp_path).run("--help")
    assert res.returncode == 0
    for command in ("init", "record", "show", "history", "export"):
        assert command in res.stdout
    assert "exit codes:" in res.stdout
    for command in ("init", "record", "history", "export"):
        sub = Project(tmp_path).run(command, "--help")
        assert sub.returncode == 0 and "usage: benchdoc " + command in sub.stdout


@pytest.mark.parametrize("argv", [
    ["show", "basline"], ["compare", "basline"], ["compare", "eagle3", "basline"], ["history", "basline"],
    ["record", "basline", "-m", "output_tok_s=1"], ["export", "-f", "csv", "-e", "basline"], ["run", "basline"],
])
def test_an_unknown_experiment_is_a_usage_error_everywhere(project: Project, argv: list[str]) -> None:
    result = project.run(*argv)
    assert result.returncode == 2, (argv, result.returncode, result.stderr)
    assert "unknown experiment 'basline'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_postgresql_password_in_the_query_string_is_never_shown(project) -> None:  # type: ignore[no-untyped-def]
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql://svc@127.0.0.1:{port}/x?password=QueryPa55&sslpassword=KeyPa55&connect_timeout=2"
    res = project.run("show", env={"BENCHDOC_LEDGER_URL": url})
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr.startswith("benchdoc: error: cannot open the ledger at") and "password=***" in res.stderr
    assert "QueryPa55" not in res.stderr and "KeyPa55" not in res.stderr and "Traceback" not in res.stderr


def test_a_note_starting_with_token_keeps_its_text(project) -> None:  # type: ignore[no-untyped-def]
    note = "token: the tokenizer cut 3 prompts short"
    assert project.run("record", "baseline", "-m", "output_tok_s=90", "--note", note).returncode == 0
    res = project.run("history", "baseline", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)[0]["note"] == note


def test_a_negative_throughput_is_refused_at_the_door(project) -> None:  # type: ignore[no-untyped-def]
    res = project.run("record", "baseline", "--each-start", "-m", "output_tok_s=90,-5")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stderr.strip() == (
        "benchdoc: error: --metric output_tok_s: output_tok_s = -5 is negative, "
        "and a throughput, time, size or count cannot be; nothing was recorded"
    )
    assert not (project.root / ".benchdoc" / "ledger.db").exists() or project.run("history", "baseline", "--json").stdout.strip() == "[]"


def test_a_metric_may_declare_its_own_bounds(project) -> None:  # type: ignore[no-untyped-def]
    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text() + "\n[metrics.quality_delta]\nmin = -1\nmax = 1\n")
    assert project.run("record", "baseline", "-m", "quality_delta=-0.25").returncode == 0
    res = project.run("record", "baseline", "-m", "quality_delta=1.5")
    assert res.returncode == 1 and "quality_delta = 1.5 is above its declared max 1" in res.stderr


def test_one_negative_run_in_the_ledger_breaks_no_command(project) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.ledger import NewRun, Sample
    from benchdoc.ledger.store import Ledger

    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text() + '\n[documents]\npaths = ["log.md"]\n')
    (project.root / "log.md").write_text(
        '<!-- benchdoc:table experiments="baseline eagle3" metric=output_tok_s -->\n<!-- benchdoc:end -->\n\n'
        "EAGLE-3: <!-- benchdoc:value eagle3 show=verdict vs=baseline -->x<!-- benchdoc:end -->\n\n"
        '<!-- benchdoc:chart kind=bar metric=output_tok_s experiments="baseline eagle3" file=c.svg -->\n<!-- benchdoc:end -->\n'
    )
    assert project.run("record", "baseline", "--each-start", "-m", "output_tok_s=90,91,92").returncode == 0
    with Ledger.open(project.ledger_url) as ledger:  # as an older benchdoc, or another tool, could have written it
        ledger.record_run(NewRun("eagle3", "ok", [Sample("output_tok_s", v, i) for i, v in enumerate((-5.0, -6.0, -7.0))]))
    for argv in (("show",), ("sync", "--write"), ("check",), ("report", "-o", "r.html"), ("history", "eagle3")):
        res = project.run(*argv)
        assert res.returncode in (0, 1) and "Traceback" not in res.stderr, (argv, res.stderr)
        assert "a ratio needs a positive" not in res.stderr, argv
    shown = project.run("show")
    assert "eagle3's median output_tok_s is -6, below zero: no relative comparison" in " ".join(shown.stdout.split())
    compared = project.run("compare", "eagle3")
    assert compared.returncode == 2 and compared.stderr.count("\n") == 1


def test_reading_commands_work_on_a_read_only_ledger_folder(project) -> None:  # type: ignore[no-untyped-def]
    from tests.ledger.test_readonly import read_only_folder

    assert project.run("record", "baseline", "--each-start", "-m", "output_tok_s=90,91").returncode == 0
    with read_only_folder(project.root / ".benchdoc"):
        for argv in (("show",), ("history", "baseline"), ("export",), ("compare", "baseline", "baseline")):
            res = project.run(*argv)
            assert "Traceback" not in res.stderr and "unable to open" not in res.stderr, (argv, res.stderr)
        assert project.run("show").returncode == 0
        refused = project.run("record", "baseline", "-m", "output_tok_s=92")
        assert refused.returncode == 1 and refused.stderr.startswith("benchdoc: error:") and refused.stderr.count("\n") == 1


def test_a_ledger_file_that_is_not_a_database_is_one_line(project) -> None:  # type: ignore[no-untyped-def]
    ledger = project.root / ".benchdoc" / "ledger.db"
    ledger.parent.mkdir()
    ledger.write_text("not a database\n" * 200)
    for argv in (("show",), ("record", "baseline", "-m", "output_tok_s=90")):
        res = project.run(*argv)
        assert res.returncode == 1 and res.stderr.count("\n") == 1 and "file is not a database" in res.stderr, res.stderr
    assert ledger.read_text().startswith("not a database")


def test_a_postgresql_url_with_a_bad_option_is_one_line(project) -> None:  # type: ignore[no-untyped-def]
    res = project.run("show", env={"BENCHDOC_LEDGER_URL": "postgresql://u@127.0.0.1:1/x?bogus_option=1"})
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert 'invalid connection option "bogus_option"' in res.stderr


def test_csv_export_neutralizes_formulas_in_text_but_keeps_negative_numbers(project) -> None:  # type: ignore[no-untyped-def]
    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text() + "\n[metrics.quality_delta]\nmin = -1\n")
    note = '=HYPERLINK("http://127.0.0.1/x","click")'
    assert project.run("record", "baseline", "-m", "quality_delta=-0.5", "--note", note).returncode == 0
    assert project.run("record", "nccl-tree", "--failed", "@SUM(A1:A9) -- and +1").returncode == 0
    res = project.run("export")
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert rows[0]["note"] == "'" + note and rows[0]["value"] == "-0.5"
    assert rows[1]["failure_reason"] == "'@SUM(A1:A9) -- and +1"
    as_json = json.loads(project.run("export", "--format", "json").stdout)
    assert as_json[0]["note"] == note  # JSON is data, not a spreadsheet: left as recorded
