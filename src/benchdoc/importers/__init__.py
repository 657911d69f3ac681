"""Importers: other benchmark tools' result files read into benchdoc runs.

Each supported format has a module with a ``parse(path)`` function and a visible table
mapping the tool's fields onto benchdoc's metric names (see docs/importers.md for every
mapping and where the tools define a metric differently). :func:`parse_file` reads a
whole file into :class:`ImportedRun` objects or refuses it with an
:class:`~benchdoc.errors.ImportFormatError` naming the file and line; nothing is recorded
until the whole file has been read.

    runs = parse_file("bench.jsonl", "sglang-serving")
    new_runs = [run.to_new_run("eagle3-2step") for run in runs]
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchdoc.errors import ImportFormatError, UsageError
from benchdoc.importers import (
    genai_perf,
    guidellm,
    hyperfine,
    llmperf,
    pytest_benchmark,
    sglang_one_batch,
    sglang_serving,
    vllm_serve,
)
from benchdoc.importers.base import Field, ImportedRun, Importer
from benchdoc.importers.plan import ImportPlan, plan_import
from benchdoc.importers.reading import load_json_values, read_text
from benchdoc.ledger.models import Outcome

__all__ = [
    "ALIASES",
    "FORMATS",
    "Field",
    "ImportedRun",
    "Importer",
    "ImportPlan",
    "detect_format",
    "parse_file",
    "plan_import",
    "resolve_format",
]

FORMATS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            "sglang-serving",
            "SGLang bench_serving JSONL (one run per line)",
            sglang_serving.parse,
            sglang_serving.looks_like,
        ),
        Importer(
            "sglang-one-batch",
            "SGLang bench_one_batch / bench_one_batch_server JSONL (one case per line)",
            sglang_one_batch.parse,
            sglang_one_batch.looks_like,
        ),
        Importer(
            "vllm-serve",
            "vllm bench serve JSON (--save-result; --append-result: one run per object)",
            vllm_serve.parse,
            vllm_serve.looks_like,
        ),
        Importer("genai-perf", "genai-perf *_genai_perf.json export", genai_perf.parse_genai_perf, genai_perf.looks_like),
        Importer("aiperf", "AIPerf profile_export_aiperf.json", genai_perf.parse_aiperf, genai_perf.looks_like),
        Importer("guidellm", "guidellm JSON report (one run per benchmark)", guidellm.parse, guidellm.looks_like),
        Importer("llmperf", "llmperf *_summary.json", llmperf.parse, llmperf.looks_like),
        Importer("hyperfine", "hyperfine --export-json (one run per command)", hyperfine.parse, hyperfine.looks_like),
        Importer(
            "pytest-benchmark",
            "pytest-benchmark JSON (one run per benchmark)",
            pytest_benchmark.parse,
            pytest_benchmark.looks_like,
        ),
    )
}

# Other spellings people type for the same formats.
ALIASES: dict[str, str] = {
    "sglang": "sglang-serving",
    "sglang-bench-serving": "sglang-serving",
    "bench-serving": "sglang-serving",
    "sglang-bench-one-batch": "sglang-one-batch",
    "bench-one-batch": "sglang-one-batch",
    "vllm": "vllm-serve",
    "vllm-bench-serve": "vllm-serve",
    "genai_perf": "genai-perf",
    "pytest_benchmark": "pytest-benchmark",
}


def resolve_format(name: str) -> str:
    """The canonical format name for ``name`` (an alias is accepted), or a UsageError."""
    key = name.strip().lower()
    if key in FORMATS:
        return key
    if key in ALIASES:
        return ALIASES[key]

    close = difflib.get_close_matches(key, [*FORMATS, *ALIASES], n=1, cutoff=0.6)
    hint = f" (did you mean '{ALIASES.get(close[0], close[0])}'?)" if close else ""
    raise UsageError(f"unknown format '{name}'{hint}; known formats: {', '.join(FORMATS)}")


def detect_format(path: str | Path) -> str:
    """The format of a results file, told from the keys of its first JSON value."""
    path = Path(path)
    first = _first_value(path, f"a results file of a known format ({', '.join(FORMATS)})")
    # Order matters: vLLM's keys are a superset of SGLang's for some fields.
    for name in ("vllm-serve", "sglang-serving", "sglang-one-batch", "guidellm", "llmperf", "hyperfine", "pytest-benchmark"):
        if FORMATS[name].looks_like(first):
            return name
    if FORMATS["aiperf"].looks_like(first):
        return "aiperf" if genai_perf.is_aiperf(first) else "genai-perf"
    raise ImportFormatError(
        f"cannot tell the format from its content; give it with --format ({', '.join(FORMATS)})", path
    )


def _first_value(path: Path, expected: str) -> Any:
    try:
        values = load_json_values(path, expected)
        if not values:  # nothing but whitespace or a byte-order mark
            raise ImportFormatError(f"the file holds no JSON value; expected {expected}", path)
        return values[0][1]
    except ImportFormatError as err:
        # A JSON Lines file with a broken later line still tells its format by its first
        # line; the format's own parser then reports the broken line.
        lines = [line for line in read_text(path, expected).splitlines() if line.strip()]
        try:
            return json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            raise err from None


def parse_file(path: str | Path, fmt: str, *, required: Sequence[str] = ()) -> list[ImportedRun]:
    """Every run in the file, or an ImportFormatError (file, line, what was expected).

    ``fmt`` is a name from :data:`FORMATS` (or an alias), or ``auto`` to detect it. A
    metric the file gives as NaN or infinite is left out of its run, unless it is one of
    ``required`` (the project's primary metric): then the file is refused at that line.
    """
    path = Path(path)
    try:
        return _parse_file(path, fmt, tuple(required))
    except (RecursionError, ValueError) as exc:
        from benchdoc.limits import json_limit_message

        message = json_limit_message(exc)
        if message is None:
            raise
        raise ImportFormatError(f"{message}; nothing was recorded", path) from None


def _parse_file(path: Path, fmt: str, required: tuple[str, ...]) -> list[ImportedRun]:
    auto = fmt.strip().lower() == "auto"
    name = detect_format(path) if auto else resolve_format(fmt)
    try:
        runs = [_finite_only(run, path, required) for run in FORMATS[name].parse(path)]
    except ImportFormatError as err:
        raise _with_format_hint(err, path, name) if not auto else err from None
    if not auto:
        _refuse_another_format(path, name)
    if not runs:
        raise ImportFormatError(f"no runs in the file; expected {FORMATS[name].description}", path)
    from benchdoc.metricbounds import value_problem

    for run in runs:
        if run.outcome == Outcome.OK and not run.samples:
            raise ImportFormatError(f"{run.entry} has no values (every metric is null)", path, run.line)
        for sample in run.samples:
            problem = value_problem(sample.metric, sample.value)
            if problem:
                raise ImportFormatError(problem if run.line else f"{run.entry}: {problem}", path, run.line)
    return runs


def _finite_only(run: ImportedRun, path: Path, required: tuple[str, ...]) -> ImportedRun:
    """The run without its NaN samples; a NaN in a required metric refuses the file at its line."""
    missing = [s.metric for s in run.samples if math.isnan(s.value)]
    if not missing:
        return run
    for metric in missing:
        if metric in required:
            raise ImportFormatError(
                f"{'' if run.line else run.entry + ': '}{metric}, the project's primary metric, is NaN (the tool had no data); "
                "a run without it would become the latest result with no value; nothing was recorded",
                path, run.line,
            )
    return dataclasses.replace(run, samples=tuple(s for s in run.samples if not math.isnan(s.value)))


def _refuse_another_format(path: Path, name: str) -> None:
    """Refuse a file given as ``name`` that parsed, but whose content is plainly another format's.

    Formats share field names (SGLang's and vLLM's serving results both have
    ``output_throughput``, ``mean_itl_ms``): parsed as the wrong one, a file would be
    recorded with its numbers under the wrong metrics.
    """
    try:
        first = _first_value(path, FORMATS[name].description)
    except ImportFormatError:
        return  # the format's own parser says what is wrong
    if FORMATS[name].looks_like(first):
        return
    try:
        detected = detect_format(path)
    except ImportFormatError:
        return
    if detected != name:
        raise ImportFormatError(
            f"this is '{detected}' output, not '{name}'; import it with --format {detected} (or --format auto)", path
        )


def _with_format_hint(err: ImportFormatError, path: Path, name: str) -> ImportFormatError:
    """The same error, saying which format the file looks like when it is not ``name``."""
    try:
        detected = detect_format(path)
    except ImportFormatError:
        return err
    if detected == name:
        return err
    return ImportFormatError(f"{err.message}; the file looks like '{detected}' output", err.file, err.line)
