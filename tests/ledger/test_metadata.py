"""ledger.metadata: typed run metadata, its versioned JSON form, and old rows still read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from benchdoc.ledger import Ledger, NewRun, RepetitionRecord, RunMetadata, Sample, ServerLaunch, ServerStop
from benchdoc.ledger.metadata import METADATA_KEYS, METADATA_VERSION, metadata_table

ROOT = Path(__file__).resolve().parents[2]

FULL = RunMetadata(
    log_path=".benchdoc/logs/a.server.log",
    server_logs=(".benchdoc/logs/a.server.log",),
    workload_logs=(".benchdoc/logs/a.rep1.stdout.log",),
    repetitions=2,
    planned_repetitions=3,
    interleaved=True,
    per_repetition=(RepetitionRecord(0, seed=0, requests=6, failed_requests=1, cut_short_requests=1, failure_reasons={"HTTP 500": 1}),),
    launch=ServerLaunch(
        name="sim", argv=("sim", "--port", "8001"), env={"NCCL_ALGO": "Tree"}, cwd=".", ready_url="http://127.0.0.1:8001/health",
        ports=(8001,), pids=(4242,), ready_s=(0.5,), stops=(ServerStop(0),), restarted_per_repetition=True,
    ),
    server={"url": "http://127.0.0.1:8001", "api": "openai-chat"},
    workload={"name": "small", "kind": "loadgen"},
    settings={"requests": 6},
    provenance={"output_tokens": {"usage": 6}},
    duration_s=1.5,
    requests=6,
    cut_short=1,
    failures={"HTTP 500": 1},
    until_decided={"decision": "better"},
    simulator=True,
    traceback="Traceback ...",
    imported={"format": "vllm-serve", "fingerprint": "abc"},
    figures={"ratio": 2.0},
    tool={"backend": "vllm"},
    config_fingerprint="sha256:0123456789abcdef",
    record_id="slurm:12_3",
    slurm={"job": "12", "task": 3, "node": "gpu7"},
    load={"of": "eagle3", "kind": "rate", "value": 4.0},
    capacity={"bracket": [8.0, 9.0], "target": 0.99},
    client={"bound": True, "reasons": ["the client used 97% of a core"]},
    server_metrics={"repetitions": [{"repetition": 0, "dialect": "vllm", "times_s": [0.0, 1.0],
                                     "series": {"running": [1.0, 4.0]}}]},
    interrupted=True,
)


def test_the_json_form_round_trips_and_carries_its_version() -> None:
    data = FULL.to_json()
    assert data["version"] == METADATA_VERSION
    assert RunMetadata.from_json(json.loads(json.dumps(data))) == FULL
    assert RunMetadata().to_json() == {"version": METADATA_VERSION}  # nothing said, nothing written


def test_every_key_written_is_in_the_registry_and_the_registry_is_documented() -> None:
    registry = {key.key for key in METADATA_KEYS}
    assert set(FULL.to_json()) == registry  # FULL sets every field
    assert all(key.type and key.meaning for key in METADATA_KEYS)
    page = (ROOT / "docs" / "running.md").read_text()
    assert metadata_table() in page, "docs/running.md's metadata table is not the registry's: paste metadata_table()"


def test_a_version_1_run_row_reads_its_log_and_launch() -> None:
    # What `run` wrote before metadata had a version: "log", and the launch under "server".
    old = {
        "log": ".benchdoc/logs/b.server.log",
        "logs": {"server": [".benchdoc/logs/b.server.log"], "workload": []},
        "repetitions": 1, "planned_repetitions": 1, "interleaved": False,
        "per_repetition": [{"repetition": 0, "seed": 0, "requests": 6, "failed_requests": 0, "failure_reasons": {},
                            "warmup_requests": 1, "duration_s": 0.2, "aborted": None}],
        "server": {"name": "sim", "argv": ["sim"], "env": {}, "cwd": ".", "ready_url": "http://127.0.0.1:1/health",
                   "ports": [1], "pids": [2], "ready_s": [0.1],
                   "stops": [{"returncode": 0, "killed": False, "exited_before_stop": True}],
                   "restarted_per_repetition": False},
        "simulator": True,
    }
    meta = RunMetadata.from_json(old)
    assert meta.log_path == ".benchdoc/logs/b.server.log"
    assert meta.launch is not None and meta.launch.stops == (ServerStop(0, False, True),) and meta.launch.pids == (2,)
    assert meta.server is None and meta.simulator and meta.tool == {}
    assert meta.per_repetition == (RepetitionRecord(0, seed=0, requests=6, failed_requests=0, warmup_requests=1, duration_s=0.2),)


def test_a_version_1_import_row_keeps_the_tools_fields_apart() -> None:
    old = {"backend": "sglang", "duration_s": 12.5, "command": "x", "import": {"format": "sglang-serving", "fingerprint": "f"}}
    meta = RunMetadata.from_json(old)
    assert meta.imported == {"format": "sglang-serving", "fingerprint": "f"}
    assert meta.tool == {"backend": "sglang", "duration_s": 12.5, "command": "x"} and meta.duration_s is None


def test_values_of_the_wrong_type_are_left_out_not_fatal() -> None:
    meta = RunMetadata.from_json({"version": 2, "log_path": 42, "repetitions": "3", "launch": "sim", "failures": {"x": "y"}})
    assert meta == RunMetadata()


def test_old_rows_of_a_ledger_still_read(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with Ledger.open(url) as ledger:
        run_id = ledger.record_run(NewRun(experiment="a", samples=[Sample("x", 1.0)]))
    with sqlite3.connect(tmp_path / "l.db") as db:  # as an older benchdoc left it
        db.execute("UPDATE runs SET run_metadata = ? WHERE id = ?", (json.dumps({"log": "logs/a.log"}), run_id))
    with Ledger.open(url) as ledger:
        assert ledger.run(run_id).metadata.log_path == "logs/a.log"
