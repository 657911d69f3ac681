"""hyperfine ``--export-json`` results: ``{"results": [...]}``, one entry per command.

Each command becomes one run; each of its timed runs (``times``, seconds) becomes one
repetition of ``time_ms``, and, when hyperfine measured it, of ``memory_bytes`` (peak
resident memory of that run, ``memory_usage_byte``). hyperfine's own summary (mean,
stddev, median, user and system CPU time) is kept in metadata.

A command that exited with a non-zero status in any timed run (possible with
``--ignore-failure``) is recorded as a *failed* run, its timings kept: it measured a
failing command. The file records no date and no machine information.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.importers.base import MS_PER_S, Field, ImportedRun, fingerprints, scaled
from benchdoc.importers.reading import Where, as_object, list_or_empty, load_json_document, number, number_list
from benchdoc.ledger.models import Outcome, Sample

FORMAT = "hyperfine"
EXPECTED = "a hyperfine --export-json file, with a 'results' list"

# Per timed run: hyperfine list -> benchdoc metric (one repetition per item).
PER_RUN: tuple[Field, ...] = (
    Field("times", "time_ms", MS_PER_S),
    Field("memory_usage_byte", "memory_bytes"),
)
# Summary statistics, when there is no "times" list (very old exports): key -> metric.
SUMMARY: tuple[Field, ...] = (
    Field("mean", "time_ms_mean", MS_PER_S),
    Field("median", "time_ms_p50", MS_PER_S),
)
# Kept in metadata, in seconds as hyperfine wrote them.
SUMMARY_KEPT = ("mean", "stddev", "median", "min", "max", "user", "system")


def looks_like(value: Any) -> bool:
    results = value.get("results") if isinstance(value, dict) else None
    return isinstance(results, list) and bool(results) and isinstance(results[0], dict) and "command" in results[0]


def parse(path: Path) -> list[ImportedRun]:
    top = Where(path, None, "", EXPECTED)
    document = as_object(load_json_document(path, EXPECTED), top)
    results = document.get("results")
    if not isinstance(results, list):
        raise top.error("missing key 'results'")
    if not results:
        raise top.error("'results' is empty: the file holds no measurements")
    return [_run(path, index, as_object(entry, top.child("results").child(index)), top) for index, entry in enumerate(results)]


def _run(path: Path, index: int, entry: dict[str, Any], top: Where) -> ImportedRun:
    where = top.child("results").child(index)
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise where.error("missing key 'command' (text)")
    samples: list[Sample] = []
    for row in PER_RUN:
        values = number_list(entry, row.source, where)
        for repetition, value in enumerate(values or ()):
            samples.append(Sample(row.metric, scaled(value, row.scale), repetition))
    if not any(s.metric == "time_ms" for s in samples):
        for row in SUMMARY:
            summary_value = number(entry, row.source, where)
            if summary_value is not None:
                samples.append(Sample(row.metric, scaled(summary_value, row.scale), 0))
    if not samples:
        raise where.error("no timings: 'times' (each timed run's duration in seconds) is missing or empty")
    exit_codes = list_or_empty(entry, "exit_codes")
    failures = [code for code in exit_codes if code not in (0, None)]
    metadata: dict[str, Any] = {"command": command}
    summary = {f"{key}_s": entry[key] for key in SUMMARY_KEPT if isinstance(entry.get(key), (int, float))}
    if summary:
        metadata["hyperfine_summary"] = summary
    if isinstance(entry.get("parameters"), dict) and entry["parameters"]:
        metadata["parameters"] = entry["parameters"]
    if exit_codes:
        metadata["exit_codes"] = exit_codes
    parameters = metadata.get("parameters") or {}
    label = command + "".join(f" {k}={v}" for k, v in sorted(parameters.items()))
    return ImportedRun(
        format=FORMAT,
        file=str(path),
        entry=f"results[{index}]",
        line=None,
        label=label,
        samples=tuple(samples),
        **fingerprints(FORMAT, entry),
        outcome=Outcome.FAILED if failures else Outcome.OK,
        failure_reason=(
            f"the command exited with status {failures[0]} in {len(failures)} of {len(exit_codes)} timed runs"
            if failures
            else None
        ),
        environment={"tool": "hyperfine"},
        metadata=metadata,
    )
