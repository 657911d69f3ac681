"""pytest-benchmark JSON (``--benchmark-json`` or ``.benchmarks/.../NNNN_*.json``).

Each entry of ``benchmarks`` becomes one run. When the file has the timing of every
round (``stats.data``, written with ``--benchmark-save-data``) each round becomes one
repetition of ``time_ms``: the time of one iteration in that round. Otherwise the run
gets the summary statistics instead, one value each (``time_ms_mean``, ``time_ms_p50``,
``time_ms_min``, ``time_ms_max``, ``ops_s``). All times are seconds in the source.

``machine_info`` becomes the run's environment (its ``node`` the host), ``commit_info``
its git commit, and ``datetime`` (when the file was written, the end of the session) its
finish time. Benchmarks that raised are not in the file: pytest-benchmark drops them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.importers.base import MS_PER_S, Field, ImportedRun, fingerprints, samples_from_table, scaled
from benchdoc.importers.reading import (
    Where,
    as_object,
    load_json_document,
    number_list,
    object_or_empty,
    require,
    sub_object,
    utc_from_text,
)
from benchdoc.ledger.models import Sample

FORMAT = "pytest-benchmark"
EXPECTED = "a pytest-benchmark JSON file (machine_info, benchmarks[].stats)"

# Per round: stats.data (seconds per iteration) -> one repetition each.
PER_ROUND = Field("data", "time_ms", MS_PER_S)
# Without per-round data: stats key -> benchdoc metric.
STATS: tuple[Field, ...] = (
    Field("mean", "time_ms_mean", MS_PER_S),
    Field("median", "time_ms_p50", MS_PER_S),
    Field("min", "time_ms_min", MS_PER_S),
    Field("max", "time_ms_max", MS_PER_S),
    Field("ops", "ops_s"),
)
STATS_KEPT = ("mean", "stddev", "median", "min", "max", "iqr", "rounds", "iterations", "outliers", "ops")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("benchmarks"), list) and "machine_info" in value


def parse(path: Path) -> list[ImportedRun]:
    top = Where(path, None, "", EXPECTED)
    document = as_object(load_json_document(path, EXPECTED), top)
    require(document, ("benchmarks",), top)
    benchmarks = document["benchmarks"]
    if not isinstance(benchmarks, list):
        raise top.error("'benchmarks' should be a list")
    if not benchmarks:
        raise top.error("'benchmarks' is empty: the file holds no measurements")
    machine = object_or_empty(document, "machine_info")
    commit = object_or_empty(document, "commit_info")
    finished_at = utc_from_text(document.get("datetime"), top, "datetime")
    environment: dict[str, Any] = {"tool": "pytest-benchmark", "machine_info": machine}
    if document.get("version") is not None:
        environment["tool_version"] = document["version"]
    runs = []
    for index, entry in enumerate(benchmarks):
        runs.append(
            _run(path, index, as_object(entry, top.child("benchmarks").child(index)), top, environment, machine, commit, finished_at)
        )
    return runs


def _run(
    path: Path,
    index: int,
    bench: dict[str, Any],
    top: Where,
    environment: dict[str, Any],
    machine: dict[str, Any],
    commit: dict[str, Any],
    finished_at: Any,
) -> ImportedRun:
    where = top.child("benchmarks").child(index)
    name = bench.get("fullname") or bench.get("name")
    if not isinstance(name, str) or not name:
        raise where.error("missing key 'fullname' (the test's name)")
    stats = sub_object(bench, "stats", where, required=True) or {}
    stats_where = where.child("stats")
    require(stats, ("mean",), stats_where)
    data = number_list(stats, PER_ROUND.source, stats_where)
    if data is None:
        data = number_list(bench, PER_ROUND.source, where)
    if data:
        samples = [Sample(PER_ROUND.metric, scaled(value, PER_ROUND.scale), i) for i, value in enumerate(data)]
    else:
        samples = samples_from_table(stats, STATS, stats_where)
    metadata: dict[str, Any] = {
        "stats": {key: stats[key] for key in STATS_KEPT if key in stats},
        "stats_unit": "s",
    }
    for key in ("group", "name", "params", "extra_info", "options"):
        if bench.get(key) not in (None, {}, ""):
            metadata[key] = bench[key]
    dirty = commit.get("dirty")
    return ImportedRun(
        format=FORMAT,
        file=str(path),
        entry=f"benchmarks[{index}]",
        line=None,
        label=name,
        samples=tuple(samples),
        **fingerprints(FORMAT, bench, machine, commit),
        finished_at=finished_at,
        host=machine.get("node") if isinstance(machine.get("node"), str) else None,
        git_commit=_commit_id(commit),
        git_dirty=dirty if isinstance(dirty, bool) and _commit_id(commit) is not None else None,
        environment=environment,
        metadata=metadata,
    )


def _commit_id(commit: dict[str, Any]) -> str | None:
    """The git commit of the benchmarked code; outside a repository pytest-benchmark
    writes ``unversioned``, which is no commit."""
    value = commit.get("id")
    if not isinstance(value, str) or not value or value == "unversioned":
        return None
    return value
