"""A run keeps what bench knows: each repetition's counts, where its counts came from and
its failure reasons, and every request in the ledger (`history --requests`,
`export --requests`), against the real simulator; `[ledger] keep_requests = false` keeps none."""

from __future__ import annotations

import csv
import io
import json
import sys

from tests.conftest import Project

from benchdoc.ledger import Ledger

SIM = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--ttft-ms", "1", "--step-ms", "20",
       "--preempt-on-arrival", "done"]


def config(keep: bool = True) -> str:
    return f"""\
[ledger]
keep_requests = {str(keep).lower()}

[metrics.output_tok_s]
label = "tok/s"
primary = true

[servers.preempting]
argv = {json.dumps(SIM)}
ready_timeout = 30

[workloads.pair]
requests = 6
concurrency = 2
input_tokens = 8
output_tokens = 32
warmup_requests = 0

[experiments.preempted]
server = "preempting"
workload = "pair"
repetitions = 2
"""


def _run(project: Project, keep: bool = True) -> tuple[object, list]:
    project.write_config(config(keep))
    result = project.run("run", "preempted", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    with Ledger.open(project.ledger_url) as ledger:
        (run,) = ledger.runs("preempted")
        return run, ledger.requests([run.id])[run.id]


def test_a_run_keeps_each_request_and_where_its_counts_came_from(project: Project) -> None:
    run, kept = _run(project)
    meta = run.metadata  # type: ignore[attr-defined]
    # Closed loop at 2: each arrival preempts the stream running beside it, so all but the last are cut short.
    for index, rep in enumerate(meta.per_repetition):
        assert (rep.repetition, rep.requests, rep.failed_requests, rep.cut_short_requests) == (index, 6, 5, 5)
        assert sum(rep.failure_reasons.values()) == 5 and all("stream ended after" in r for r in rep.failure_reasons)
        assert rep.provenance["output_tokens"] == {"usage": 1} and "accept_length" in rep.provenance
    assert meta.provenance["output_tokens"] == {"usage": 2} and meta.provenance["clock"] == "time.perf_counter"
    assert (meta.requests, meta.cut_short, sum(meta.failures.values())) == (12, 10, 10)
    assert any("benchdoc-simulator" in owner for owner in meta.server.owned_by)
    assert [(r.repetition, r.index) for r in kept] == [(rep, i) for rep in (0, 1) for i in range(6)]
    cut = [r for r in kept if not r.ok]
    assert len(cut) == 10 and all(r.record["cut_short"] and r.error and "stream ended after" in r.error for r in cut)
    done = [r for r in kept if r.ok]
    assert all(r.output_tokens == 32 and r.record["output_token_source"] == "usage" and r.ttft_ms for r in done)

    history = project.run("history", "preempted", "--requests").stdout
    assert f"run {run.id} — 12 request(s)" in history  # type: ignore[attr-defined]
    # Ten requests' own reasons, and the run's line grouping them by cause.
    assert history.count("stream ended after") == 11 and "32 (usage)" in history
    assert "10 × stream ended after " in history
    (as_json,) = json.loads(project.run("history", "preempted", "--requests", "--json").stdout)
    assert len(as_json["requests"]) == 12 and all(len(r["chunk_ms"]) == 32 for r in as_json["requests"] if r["ok"])

    rows = list(csv.DictReader(io.StringIO(project.run("export", "--requests").stdout)))
    assert len(rows) == 12 and sum(row["cut_short"] == "True" for row in rows) == 10
    assert {row["output_token_source"] for row in rows if row["ok"] == "True"} == {"usage"}
    assert all(float(row["send_delay_ms"]) >= 0 for row in rows if row["ok"] == "True")  # the client's own share
    full = [json.loads(line) for line in project.run("export", "--requests", "-f", "jsonl").stdout.splitlines()]
    assert len(full) == 12 and all("chunk_ms" in row for row in full) and full[0]["run_id"] == run.id  # type: ignore[attr-defined]


def test_keep_requests_false_keeps_the_counts_but_no_request(project: Project) -> None:
    run, kept = _run(project, keep=False)
    assert kept == []
    assert [rep.cut_short_requests for rep in run.metadata.per_repetition] == [5, 5]  # type: ignore[attr-defined]
    assert "no requests kept" in project.run("history", "preempted", "--requests").stdout
