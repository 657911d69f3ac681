"""One redaction corpus, run through every sink: stdout, stderr, SQLite, PostgreSQL, CSV,
JSON, the HTML report, Markdown documents and the Slurm files."""

from __future__ import annotations

import glob
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG, Project

from benchdoc.ledger.models import NewRun, RequestRow
from benchdoc.ledger.store import Ledger

# Each entry: a line from outside (a server's log, an HTTP body, a note) and the secret in it.
CORPUS: tuple[tuple[str, str], ...] = (
    ("SGLANG_DB_PWD=dbPwdValue417", "dbPwdValue417"),
    ("export VLLM_SSHPASS=sshPassValue233", "sshPassValue233"),
    ("TORCH_ADMIN_PASSCODE=8841927", "8841927"),
    ("SSHPASS=plainSshValue59 sshpass -e ssh node7", "plainSshValue59"),
    ("mysql: MYSQL_PWD=mysqlValue771 given", "mysqlValue771"),
    ("login refused: password hunter2Value", "hunter2Value"),
    ("the passphrase is correctHorseValue", "correctHorseValue"),
    ("worker got token Zx8kQ2mN7pL4vR9tY3wB6cJ1dF5gH0sA from the hub", "Zx8kQ2mN7pL4vR9tY3wB6cJ1dF5gH0sA"),
    ("Authorization: Bearer bearerValue0123456789", "bearerValue0123456789"),
    ("cannot reach postgresql://svc:pgValue934@db/x", "pgValue934"),
    ("sbatch --comment=token=commentValue616", "commentValue616"),
    ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz in env", "hf_abcdefghijklmnopqrstuvwxyz"),
    ("USER_PIN=4471", "4471"),
)
SECRETS = tuple(secret for _, secret in CORPUS)
# Escape sequences from outside: clear screen, retitle the window, a hyperlink, a bare CR.
HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\\r=1+1"
CONTROL_MARKS = ("\x1b", "\x07", "\r=1+1")


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text] + [repr(m) for m in CONTROL_MARKS if m in text]


def _hostile_runs() -> list[NewRun]:
    start = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
    env = {name: value for name, value in (line.split()[0].split("=", 1) for line, _ in CORPUS if "=" in line.split()[0])}
    runs = [NewRun(experiment="baseline", samples=[], started_at=start, finished_at=start, outcome="failed",
                   failure_reason=f"{line} {HOSTILE}", failure_log_line=f"[log] {line}\n# Heading\n| a |",
                   failure_cause=line, note=f"{line}{HOSTILE}", environment={"env_vars": env},
                   command=["sh", "-c", line],
                   requests=[RequestRow(0, 0, False, error=f"HTTP 500: {line}{HOSTILE}", ttft_ms=None,
                                       e2e_ms=None, output_tokens=None, record={"body": f"{line}{HOSTILE}"})])
            for line, _ in CORPUS]
    return runs


@pytest.fixture
def hostile(project: Project) -> Project:
    project.write_config(STORY_CONFIG + '\n[documents]\npaths = ["log.md"]\n')
    (project.root / ".benchdoc").mkdir()
    with Ledger.open(project.ledger_url) as ledger:
        for run in _hostile_runs():
            ledger.record_run(run)
    (project.root / "log.md").write_text(
        "# Log\n\n<!-- benchdoc:list status=failed -->\n<!-- benchdoc:end -->\n\n"
        "| what | why |\n|---|---|\n| baseline | <!-- benchdoc:value baseline show=reason -->x<!-- benchdoc:end --> |\n"
    )
    return project


def test_sqlite_holds_no_secret_and_no_escape(hostile: Project) -> None:
    db = hostile.root / ".benchdoc" / "ledger.db"
    with sqlite3.connect(db) as conn:
        dumped = "\n".join(conn.iterdump())
    assert not _leaks(dumped)


def test_stdout_csv_json_html_markdown(hostile: Project) -> None:
    outputs: dict[str, str] = {}
    for name, argv in {
        "history": ["history", "baseline"], "show": ["show"], "csv": ["export", "-f", "csv"],
        "json": ["export", "-f", "json"], "requests": ["export", "--requests", "-f", "json"],
    }.items():
        res = hostile.run(*argv)
        assert res.returncode == 0, res.stderr
        outputs[name] = res.stdout + res.stderr
    res = hostile.run("report", "-o", "r.html")
    assert res.returncode == 0, res.stderr
    outputs["html"] = (hostile.root / "r.html").read_text()
    res = hostile.run("sync", "--write")
    assert res.returncode == 0, res.stderr
    document = (hostile.root / "log.md").read_text()
    outputs["markdown"] = document
    for name, text in outputs.items():
        assert not _leaks(text), name
    # The reason stays one escaped line: no heading, no table row, the value region intact.
    assert "\n# Heading" not in document and "\n| a |" not in document
    assert hostile.run("check").returncode == 0
    # A CR in a note never starts a CSV row of its own, and no cell starts a formula.
    import csv
    import io

    rows = list(csv.reader(io.StringIO(outputs["csv"])))
    assert len({len(row) for row in rows}) == 1 and len(rows) == 1 + len(CORPUS)
    assert not [cell for row in rows for cell in row if cell.startswith(("=", "+", "@"))]


def test_stderr_of_an_unreachable_ledger_hides_its_password(project: Project) -> None:
    res = project.run("show", env={"BENCHDOC_LEDGER_URL": "postgresql://svc:pgValue934@127.0.0.1:1/x"})
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert not _leaks(res.stdout + res.stderr)


@pytest.mark.parametrize("key", ["setup", "sbatch_args"])
def test_slurm_files_never_receive_a_secret(project: Project, key: str) -> None:
    value = '["export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz"]' if key == "setup" else '["--comment=token=commentValue616"]'
    project.write_config('[metrics.output_tok_s]\nprimary = true\n[servers.sim]\nargv = ["true"]\n'
                         '[workloads.quick]\nrequests = 1\n[experiments.baseline]\nserver = "sim"\nworkload = "quick"\n'
                         f"[slurm]\n{key} = {value}\n")
    res = project.run("submit", "--slurm", "--dry-run", "baseline",
                      env={"BENCHDOC_LEDGER_URL": "postgresql://svc:pgValue934@127.0.0.1:1/x"})
    assert res.returncode != 0 and "holds a secret" in res.stderr and "export it in the shell" in res.stderr
    assert not _leaks(res.stdout + res.stderr)
    written = [Path(p).read_text(errors="replace") for p in glob.glob(str(project.root / ".benchdoc" / "**" / "*"),
                                                                        recursive=True) if Path(p).is_file()]
    assert not any(_leaks(text) for text in written)


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    from tests.ledger.postgres_server import postgres_server

    try:
        with postgres_server() as url:
            yield url
    except RuntimeError as err:
        pytest.skip(str(err))


def test_postgresql_holds_no_secret_and_no_escape(pg_server: str) -> None:
    import sqlalchemy as sa

    with Ledger.open(pg_server) as ledger:
        for run in _hostile_runs():
            ledger.record_run(run)
    engine = sa.create_engine(pg_server.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as conn:
        texts = [str(row) for table in ("runs", "run_requests")
                 for row in conn.exec_driver_sql(f"SELECT * FROM {table}")]  # noqa: S608 (fixed names)
    engine.dispose()
    assert texts and not _leaks("\n".join(texts))


@pytest.mark.parametrize(("name", "secret"), [
    ("SGLANG_DB_PWD", True), ("VLLM_SSHPASS", True), ("TORCH_ADMIN_PASSCODE", True), ("MYSQL_PWD", True),
    ("SSHPASS", True), ("KEY_PASSPHRASE", True), ("USER_PIN", True), ("PGPASS", True),
    ("PWD", False), ("OLDPWD", False), ("PIN_MEMORY", False), ("CPU_PIN", False), ("BYPASS_CACHE", False),
    ("max_tokens", False),
])
def test_secret_names(name: str, secret: bool) -> None:
    from benchdoc.redact import is_secret_name, redact_env

    assert is_secret_name(name) is secret
    assert (redact_env({name: "v4lue/x"})[name] == "***") is secret


@pytest.mark.parametrize(("line", "secret"), CORPUS)
def test_each_corpus_line_loses_its_secret_as_free_text(line: str, secret: str) -> None:
    from benchdoc.untrusted import safe_line

    cleaned = safe_line(line + HOSTILE)
    assert secret not in cleaned and "***" in cleaned and not _leaks(cleaned)


@pytest.mark.parametrize("prose", ["password authentication failed for user bench", "the password is required",
                                   "commit 4f2a9c0e1b3d5f7a9c0e1b3d5f7a9c0e1b3d5f7a",
                                   "model Meta-Llama-3.1-8B-Instruct is ready"])
def test_prose_keeps_its_words(prose: str) -> None:
    from benchdoc.untrusted import safe_line

    assert safe_line(prose) == prose


def test_a_server_error_body_becomes_a_clean_redacted_reason() -> None:
    import json

    from benchdoc.workloads.inflight import http_error
    from benchdoc.workloads.protocols import CompletionsDecoder, StreamError

    for line, _ in CORPUS:
        reason = http_error(500, "Internal Server Error", json.dumps({"error": {"message": line + HOSTILE}}).encode())
        assert reason.startswith("HTTP 500 Internal Server Error: ") and not _leaks(reason)
        with pytest.raises(StreamError) as raised:
            CompletionsDecoder().feed(json.dumps({"error": {"message": line + HOSTILE}}))
        assert not _leaks(str(raised.value))


def test_run_dry_run_hides_the_stacks_own_secret_variables(project: Project) -> None:
    project.write_config(
        '[metrics.output_tok_s]\nprimary = true\n'
        '[servers.s]\nargv = ["python", "-m", "sglang.launch_server", "--port", "{port}"]\n'
        'env = { SGLANG_DB_PWD = "dbPwdValue417", VLLM_SSHPASS = "sshPassValue233", TORCH_ADMIN_PASSCODE = "8841927" }\n'
        '[workloads.w]\nrequests = 1\n[experiments.baseline]\nserver = "s"\nworkload = "w"\n'
    )
    res = project.run("run", "--dry-run", "baseline")
    assert res.returncode == 0, res.stderr
    assert "SGLANG_DB_PWD='***'" in res.stdout and not _leaks(res.stdout + res.stderr)
