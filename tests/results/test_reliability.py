"""A result whose requests failed or were cut short too often is unreliable, in every view:
`show`, `compare`, `history`, a document's table, the report and JSON, with the rate; and
every comparison against it warns. Runs the real simulator, its streams cut by
--preempt-on-arrival (a new request ends the one running, as llama.cpp's server does)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import Project, sim_argv, toml_list

from benchdoc.config import load_config
from benchdoc.ledger import Ledger
from benchdoc.results import build_results
from benchdoc.results.reliability import Reliability
from benchdoc.results.words import unreliable_note
from benchdoc.runner import run_experiments

CONFIG = f"""\
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
primary = true

[servers.cutting]
argv = {toml_list(sim_argv("--step-ms", "2", "--preempt-on-arrival", "done"))}
ready_timeout = 30
shutdown_grace = 3

[servers.clean]
argv = {toml_list(sim_argv("--step-ms", "2"))}
ready_timeout = 30
shutdown_grace = 3

[workloads.pair]
requests = 12
concurrency = 4
input_tokens = 8
output_tokens = 16

[experiments.baseline]
role = "reference"
server = "cutting"
workload = "pair"
repetitions = 2

[experiments.fused]
server = "clean"
workload = "pair"
compare_to = "baseline"
repetitions = 2

[documents]
paths = ["log.md"]
"""

DOC = """# Log

<!-- benchdoc:table experiments="baseline fused" metric=output_tok_s -->
<!-- benchdoc:end -->
"""


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("unreliable")
    project = Project(root)
    project.write_config(CONFIG)
    (root / "log.md").write_text(DOC)
    config = load_config(root / "benchdoc.toml")
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, ["baseline", "fused"])
    assert [o.outcome for o in report.outcomes] == ["ok", "ok"]
    return project


def _results(project: Project):  # type: ignore[no-untyped-def]
    config = load_config(project.root / "benchdoc.toml")
    with Ledger.open(config.ledger_url) as ledger:
        return build_results(config, ledger)


def test_a_result_with_cut_streams_is_unreliable_and_warns_its_comparisons(measured: Project) -> None:
    results = _results(measured)
    base, fused = results["baseline"], results["fused"]
    assert base.unreliable and base.reliability is not None
    assert base.reliability.requests == 24 and base.reliability.cut_short and base.reliability.rate > 0.5
    assert not fused.unreliable and fused.reliability is not None and fused.reliability.rate == 0
    note = unreliable_note(base.reliability)
    assert note.startswith("unreliable: ") and "of 24; " in note and note.endswith("above the 5% limit")
    assert any(w.startswith("baseline is unreliable: ") for w in base.warnings)
    assert any(w.startswith("fused is compared with baseline, which is unreliable: ") for w in fused.warnings)


def test_every_view_says_unreliable_with_the_rate(measured: Project) -> None:
    rate = f"{_results(measured)['baseline'].reliability.rate * 100:.1f}%"  # type: ignore[union-attr]
    show = measured.run("show")
    assert show.returncode == 0, show.stderr
    base_row = next(line for line in show.stdout.splitlines() if line.startswith("│ baseline "))
    assert f"unreliable: {rate} failed" in base_row
    assert "fused is compared with baseline, which is unreliable" in show.stdout + show.stderr
    compare = measured.run("compare", "fused", "baseline")
    assert "which is unreliable" in compare.stdout and rate in compare.stdout
    history = measured.run("history", "baseline")
    assert "ok (unreliable)" in history.stdout and f"({rate}; " in history.stdout
    assert " × stream ended after " in history.stdout  # the failed requests' cause, with its count
    data = json.loads(measured.run("history", "baseline", "--json").stdout)
    assert data[0]["unreliable"] is True and data[0]["failed_share"] > 0.5
    assert measured.run("sync", "--write").returncode == 0
    table = (measured.root / "log.md").read_text()
    assert f"unreliable: {rate} of requests failed" in table
    fused_row = next(line for line in table.splitlines() if line.startswith("| fused "))
    assert f"compared with baseline, unreliable: {rate} failed" in fused_row
    assert measured.run("report", "-o", "report.html").returncode == 0
    html = (measured.root / "report.html").read_text()
    assert f"unreliable: {rate} failed" in html
    shown = json.loads(measured.run("show", "--json").stdout)
    by_name = {e["name"]: e for e in (shown["experiments"] if isinstance(shown, dict) else shown)}
    assert by_name["baseline"]["unreliable"] is True and by_name["fused"]["unreliable"] is False


def test_the_limit_is_configurable(tmp_path: Path, measured: Project) -> None:
    text = (measured.root / "benchdoc.toml").read_text() + "\n[stats]\nmax_error_rate = 0.99\n"
    (tmp_path / "benchdoc.toml").write_text(text.replace('paths = ["log.md"]', "paths = []"))
    (tmp_path / ".benchdoc").mkdir()
    (tmp_path / ".benchdoc" / "ledger.db").write_bytes((measured.root / ".benchdoc" / "ledger.db").read_bytes())
    config = load_config(tmp_path / "benchdoc.toml")
    with Ledger.open(config.ledger_url) as ledger:
        results = build_results(config, ledger)
    assert not results["baseline"].unreliable and results["baseline"].reliability is not None
    assert not any("unreliable" in w for w in results["fused"].warnings)
    bad = tmp_path / "bad.toml"
    bad.write_text("[stats]\nmax_error_rate = 5\n")
    result = Project(tmp_path).run("show", "--config", str(bad))
    assert result.returncode != 0 and "max_error_rate must be at least 0 and below 1, got 5" in result.stderr


def test_counts_are_summed_and_an_error_rate_alone_is_judged() -> None:
    assert Reliability(0.06, 0.05).unreliable and not Reliability(0.05, 0.05).unreliable


def test_the_cut_streams_are_one_cause_with_their_count(measured: Project) -> None:
    base = _results(measured)["baseline"]
    run = base.pooled[0]
    reasons = run.metadata.failures
    assert len(reasons) == 1, reasons  # not one reason per token count
    (reason, count), = reasons.items()
    assert reason.startswith("stream ended after ") and " of 16 tokens" in reason
    assert count == base.reliability.failed  # type: ignore[union-attr]


def test_bench_against_a_preempting_server_says_unreliable_and_show_agrees(tmp_path: Path) -> None:
    """The issue's case: `bench --concurrency 4 --repetitions 3 --record` against a server that
    preempts streams was recorded OK and shown as "Measured" with no warning."""
    from benchdoc.sim import SimConfig, start_in_thread

    project = Project(tmp_path)
    project.write_config('[metrics.output_tok_s]\nlabel = "tok/s"\nunit = "tok/s"\nprimary = true\n\n[experiments.cut]\n')
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=2.0, preempt_on_arrival="done")) as sim:
        bench = project.run("bench", "--url", sim.url, "--concurrency", "4", "--requests", "12", "--output-tokens", "16",
                            "--input-tokens", "8", "--repetitions", "3", "--record", "cut")
    assert bench.returncode == 0, bench.stderr
    assert "warning: unreliable: " in bench.stdout and "above the 5% limit" in bench.stdout
    show = project.run("show")
    row = next(line for line in show.stdout.splitlines() if line.startswith("│ cut "))
    assert "Measured (unreliable: " in row
