"""A broken setup is not a measurement: a server program that is missing, not executable
or refuses its argv is recorded as an ``error`` (not ``failed``), against real processes;
and a server that died of an unknown exception keeps that exception as the run's cause."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from tests.conftest import sim_argv, toml_list

from benchdoc.ledger import Ledger, NewRun, Sample
from benchdoc.results import build_results
from benchdoc.runner import run_experiments

from .conftest import write_project


def _run(config: Any, names: list[str]) -> tuple[Any, dict[str, Any]]:
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, names)
        return report, {r.experiment: r for r in ledger.runs()}


def _server(name: str, argv: list[str]) -> str:
    return f"""
        [servers.{name}]
        argv = {toml_list(argv)}
        ready_timeout = 30

        [experiments.{name}]
        server = "{name}"
        workload = "small"
        """


def test_missing_unexecutable_and_refused_programs_are_setup_errors(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/sh\nexec sleep 60\n")  # no execute permission
    body = (
        _server("missing", [str(tmp_path / "no-such-server"), "--port", "{port}"])
        + _server("not-executable", [str(script), "--port", "{port}"])
        + _server("typo", sim_argv("--tp-sze", "2"))
        + _server("no-module", [sys.executable, "-m", "benchdoc_no_such_module", "--port", "{port}"])
    )
    config = write_project(tmp_path, body)
    report, runs = _run(config, ["missing", "not-executable", "typo", "no-module"])
    assert [o.outcome for o in report.outcomes] == ["error"] * 4 and len(report.errors) == 4
    assert runs["missing"].failure_reason == f"cannot start the server: No such file or directory: {tmp_path / 'no-such-server'}"
    assert runs["not-executable"].failure_reason.startswith("cannot start the server: Permission denied")
    assert runs["typo"].failure_reason.startswith("the server's command line was refused: ")
    assert "unrecognized arguments: --tp-sze 2" in runs["typo"].failure_reason
    assert "No module named benchdoc_no_such_module" in runs["no-module"].failure_reason
    assert all(run.outcome == "error" and not run.samples for run in runs.values())


def test_a_setup_error_does_not_become_the_current_result(tmp_path: Path) -> None:
    config = write_project(tmp_path, _server("moved", [str(tmp_path / "moved-away"), "--port", "{port}"]))
    with Ledger.open(config.ledger_url) as ledger:
        ledger.record_run(NewRun("moved", samples=[Sample("output_tok_s", 90.0), Sample("output_tok_s", 91.0, 1)]))
        report = run_experiments(config, ledger, ["moved"])
        assert report.outcomes[0].outcome == "error"
        result = build_results(config, ledger)["moved"]
        assert len(ledger.runs("moved")) == 2
    assert result.status != "Failed" and result.reason is None
    assert [run.outcome for run in result.runs] == ["ok"] and result.values("output_tok_s") == [90.0, 91.0]


def test_an_unknown_exception_is_the_cause_of_the_failure(tmp_path: Path) -> None:
    message = "ValueError: Model path does not exist: /x.gguf"
    config = write_project(tmp_path, _server("bad-path", sim_argv("--fail-start", message)))
    report, runs = _run(config, ["bad-path"])
    run = runs["bad-path"]
    assert report.outcomes[0].outcome == "failed" and run.outcome == "failed"  # the configuration failed
    assert run.failure_reason == "server exited with code 1 before becoming ready"
    assert run.failure_cause == message and run.failure_log_line == message
    assert run.explanation == f"{message} (server exited with code 1 before becoming ready)"
    assert report.outcomes[0].explanation == run.explanation


def test_a_readiness_url_answering_404_is_a_setup_error(tmp_path: Path) -> None:
    body = """
        [servers.wrong-url]
        argv = ARGV
        ready_url = "http://{host}:{port}/no-such-health"
        # Long enough for the simulator to come up and answer 404 on a loaded machine; the 404s then
        # run until this timeout, which ends the wait with the last answer (the grace is longer).
        ready_timeout = 6

        [experiments.wrong-url]
        server = "wrong-url"
        workload = "small"
        """.replace("ARGV", toml_list(sim_argv()))
    config = write_project(tmp_path, body)
    report, runs = _run(config, ["wrong-url"])
    run = runs["wrong-url"]
    assert report.outcomes[0].outcome == "error" and run.outcome == "error" and not run.samples
    assert run.failure_reason is not None and re.search(r"answered HTTP 404 for \d+ s: ", run.failure_reason)
    assert "check ready_url" in run.failure_reason


def test_a_setup_error_shows_with_its_reason_in_list_regions_and_show(tmp_path: Path) -> None:
    from tests.conftest import Project

    body = _server("typo", sim_argv("--tp-sze", "2")) + '\n[documents]\npaths = ["log.md"]\n'
    (tmp_path / "log.md").write_text("# Log\n\n<!-- benchdoc:list status=\"failed untested\" -->\n<!-- benchdoc:end -->\n")
    config = write_project(tmp_path, body)
    report, runs = _run(config, ["typo"])
    reason = runs["typo"].failure_reason
    assert report.outcomes[0].outcome == "error" and reason is not None
    with Ledger.open(config.ledger_url) as ledger:
        result = build_results(config, ledger)["typo"]
    assert result.status == "Untested" and result.setup_error == reason
    project = Project(tmp_path)
    assert project.run("sync", "--write").returncode == 0
    text = (tmp_path / "log.md").read_text()
    assert f"Untested: setup error: {reason}" in text.replace("\\|", "|") and "no reason recorded" not in text
    shown = project.run("show", "typo")
    assert "setup error: the server's command line was refused" in shown.stdout
    assert project.run("report", "-o", "report.html").returncode == 0
    assert "(setup error: the server&#x27;s command line was refused" in (tmp_path / "report.html").read_text()
