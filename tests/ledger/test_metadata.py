"""ledger.metadata: typed run metadata, its versioned JSON form, and old rows still read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from benchdoc.ledger import (
    CapacityPlan,
    CapacitySearch,
    ClientLoad,
    ClientVerdict,
    ImportSource,
    Ledger,
    LevelRecord,
    NewRun,
    RepetitionRecord,
    RunLogs,
    RunMetadata,
    Sample,
    SequentialLook,
    SequentialTest,
    ServedBy,
    ServerLaunch,
    ServerMetrics,
    ServerSeries,
    ServerStop,
    SlurmTask,
    WorkloadRecord,
)
from benchdoc.ledger.declared import declared, is_open
from benchdoc.ledger.metadata import METADATA_KEYS, METADATA_VERSION, PARTS, metadata_docs

ROOT = Path(__file__).resolve().parents[2]

FULL = RunMetadata(
    log_path=".benchdoc/logs/a.server.log",
    logs=RunLogs((".benchdoc/logs/a.server.log",), (".benchdoc/logs/a.rep1.stdout.log",)),
    repetitions=2,
    planned_repetitions=3,
    interleaved=True,
    per_repetition=(RepetitionRecord(0, seed=0, requests=6, failed_requests=1, cut_short_requests=1, failure_reasons={"HTTP 500": 1},
                                     client=ClientLoad(cpu_share=0.07, lag_ms_p99=1.1, probes=40)),),
    launch=ServerLaunch(
        name="sim", argv=("sim", "--port", "8001"), env={"NCCL_ALGO": "Tree"}, cwd=".", ready_url="http://127.0.0.1:8001/health",
        ports=(8001,), pids=(4242,), ready_s=(0.5,), stops=(ServerStop(0),), restarted_per_repetition=True,
    ),
    server=ServedBy(url="http://127.0.0.1:8001", api="openai-chat"),
    workload=WorkloadRecord(name="small", kind="loadgen", settings={"requests": 6},
                            level=LevelRecord("eagle3", "rate", 4.0), capacity=CapacityPlan(target=0.8)),
    settings={"requests": 6},
    provenance={"output_tokens": {"usage": 6}},
    duration_s=1.5,
    requests=6,
    cut_short=1,
    failures={"HTTP 500": 1},
    until_decided=SequentialTest(compare_to="base", metric="output_tok_s", baseline_runs=(1,), shares=3,
                                 looks=(SequentialLook(repetitions=5, starts=5, p=0.001, decision="significant"),),
                                 decision="significant"),
    simulator=True,
    traceback="Traceback ...",
    imported=ImportSource(format="vllm-serve", fingerprint="abc"),
    figures={"ratio": 2.0},
    tool={"backend": "vllm"},
    config_fingerprint="sha256:0123456789abcdef",
    record_id="slurm:12_3",
    slurm=SlurmTask(job="12", task=3, node="gpu7"),
    load=LevelRecord("eagle3", "rate", 4.0),
    capacity=CapacitySearch(resolution=(8.0, 9.0), target=0.99),
    client=ClientVerdict(True, 1, 2, ("the client used 97% of a core",)),
    server_metrics=ServerMetrics((ServerSeries(0, "vllm", 1.0, (0.0, 1.0), {"running": (1.0, None)},
                                                {"running": {"mean": 1.0, "max": 1.0, "points": 1.0}}),)),
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
    assert all(item.meaning for _, cls in PARTS for item in declared(cls))
    page = (ROOT / "docs" / "running.md").read_text()
    assert metadata_docs() in page, "docs/running.md's metadata tables are not the registry's: paste metadata_docs()"


def test_a_value_left_open_says_why_on_its_declaration() -> None:
    """Every key's shape is declared, but for the few whose content is another's to say
    (the load generator's settings, a benchmark script's figures, another tool's fields)."""
    records = [RunMetadata, *(cls for _, cls in PARTS)]
    open_keys = {(cls.__name__, item.json): item.open_because for cls in records for item in declared(cls)
                 if is_open(item.type)}
    assert all(open_keys.values()), [k for k, why in open_keys.items() if not why]
    assert sorted(open_keys) == [("RepetitionRecord", "provenance"), ("RunMetadata", "figures"),
                                 ("RunMetadata", "provenance"), ("RunMetadata", "settings"), ("RunMetadata", "tool"),
                                 ("WorkloadRecord", "settings")]


def test_a_key_is_declared_once_and_the_docs_show_each_nested_record() -> None:
    docs = metadata_docs()
    for path, cls in PARTS:
        assert f"`{path}`: " in docs
        assert all(f"| `{item.json}` |" in docs for item in declared(cls))
    assert "| `import` | object |" in docs  # the field is `imported`; its declaration names the JSON key


STORED = Path(__file__).parent / "data" / "metadata-v2-untyped.json"


def test_a_row_written_before_the_nested_records_were_typed_reads_and_writes_back_the_same() -> None:
    # What benchdoc wrote when client, load, slurm, capacity, server and import were plain maps.
    stored = json.loads(STORED.read_text())
    meta = RunMetadata.from_json(stored)
    assert meta.slurm == SlurmTask(job="12", task=3, node="gpu7", attempt=0, ended_by="slurm")
    assert meta.client == ClientVerdict(False, 0, 1, ())
    assert meta.load == LevelRecord("eagle3", "rate", 4.0)
    assert meta.server is not None and meta.server.owned_by == ("benchdoc-sim",)
    assert meta.capacity is not None and meta.capacity.capacity_req_s == 8.0 and len(meta.capacity.searches) == 1
    assert meta.capacity.levels[0].met_target and meta.capacity.levels[0].rate == 8.0
    client = meta.per_repetition[1].client
    assert client is not None and client.cpu_share == 0.07 and client.bound is False and client.loop_busy_share is None
    assert meta.imported == ImportSource(format="vllm-serve", fingerprint="abc")
    # ... and when the workload, the sequential test and the server's series were plain maps too.
    assert meta.workload == WorkloadRecord(name="small", kind="loadgen")
    assert meta.until_decided == SequentialTest(decision="better")
    assert meta.server_metrics == ServerMetrics((ServerSeries(0, "vllm", None, (0.0, 1.0), {"running": (1.0, 4.0)}),))
    assert _without_nulls(meta.to_json()) == _without_nulls(stored)  # nothing lost but keys that said null


def test_keys_a_nested_record_does_not_declare_are_kept() -> None:
    meta = RunMetadata.from_json({"version": 2, "slurm": {"job": "7", "task": 0, "partition": "gpu"}})
    assert meta.slurm is not None and meta.slurm.other == {"partition": "gpu"}
    assert meta.to_json()["slurm"] == {"job": "7", "task": 0, "partition": "gpu"}


def _without_nulls(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


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
    assert meta.imported == ImportSource(format="sglang-serving", fingerprint="f")
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
