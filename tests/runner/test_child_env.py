"""The server under test never inherits the ledger's URL nor any credential of benchdoc's:
read from the running server's own /proc/PID/environ."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from benchdoc.childenv import child_environment
from benchdoc.ledger.store import Ledger
from benchdoc.runner import events as ev
from benchdoc.runner import run_experiments

from .conftest import write_project

PASSWORD = "s3cret-ledger-pw-9931"


def test_only_benchdocs_variables_and_libpqs_password_are_withheld() -> None:
    env = {"PATH": "/usr/bin", "BENCHDOC_LEDGER_URL": f"postgresql://u:{PASSWORD}@db/l", "BENCHDOC_TASK_LOG": "x",
           "PGPASSWORD": PASSWORD, "PGPASSFILE": "/home/u/.pgpass", "CUDA_VISIBLE_DEVICES": "0", "HF_HOME": "/h"}
    assert child_environment(env) == {"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "0", "HF_HOME": "/h"}


def test_the_running_server_sees_no_ledger_url_nor_password(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [experiments.baseline]
        server = "sim"
        workload = "small"
        repetitions = 1
        env = { SERVER_OWN = "kept" }
        """)
    seen: list[dict[str, str]] = []

    def on_event(event: Any) -> None:
        if isinstance(event, ev.ServerReady):
            raw = Path(f"/proc/{event.pid}/environ").read_bytes()
            seen.append(dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item))

    environ = {**os.environ, "BENCHDOC_LEDGER_URL": f"postgresql://bench:{PASSWORD}@127.0.0.1/ledger",
               "PGPASSWORD": PASSWORD, "BENCHDOC_TASK_LOG": str(tmp_path / "task.out")}
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, ["baseline"], on_event=on_event, environ=environ)
    assert report.outcomes[0].outcome == "ok"
    assert len(seen) == 1
    server_env = seen[0]
    assert server_env["SERVER_OWN"] == "kept" and "PATH" in server_env
    assert not [name for name in server_env if name.startswith(("BENCHDOC_", "PGPASS"))]
    assert not [name for name, value in server_env.items() if PASSWORD in value]
