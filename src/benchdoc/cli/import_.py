"""`benchdoc import`: record results written by another benchmark tool.

The whole file is read and checked before anything is written; then every selected run
goes into the ledger in one transaction. Runs already imported (same content) are
skipped, so importing a file that a tool keeps appending to can be repeated.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.cli._common import load_project, open_ledger, print_json
from benchdoc.errors import ConfigError, ImportFormatError, LedgerError, UsageError
from benchdoc.outcome import Outcome

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.importers import ImportedRun, ImportPlan

ORDER = 50

_SHOWN_VALUES = 6

EPILOG = """\
formats:
  sglang-serving     SGLang bench_serving JSONL (one run per line)
  sglang-one-batch   SGLang bench_one_batch / bench_one_batch_server JSONL
  vllm-serve         vllm bench serve JSON (--save-result, --append-result)
  genai-perf         genai-perf *_genai_perf.json
  aiperf             AIPerf profile_export_aiperf.json
  guidellm           guidellm JSON report (one run per benchmark)
  llmperf            llmperf *_summary.json
  hyperfine          hyperfine --export-json (one run per command)
  pytest-benchmark   pytest-benchmark JSON (one run per benchmark)
  auto               tell the format from the file's keys (the default)

examples:
  benchdoc import bench.jsonl --format sglang-serving --experiment eagle3
  benchdoc import sweep.json -f guidellm -e baseline --select 'constant rate=4'
  benchdoc import hyperfine.json -f hyperfine --dry-run

Field mappings and where each tool defines a metric differently: docs/importers.md.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="record results written by another benchmark tool (sglang, vLLM, guidellm, ...)",
        description="Read FILE, written by another benchmark tool, and record its runs as runs of "
        "EXPERIMENT. The whole file is checked first: a malformed or truncated file is refused "
        "(file:line) and nothing is recorded. A file holding several configurations (a sweep, "
        "several commands) is imported one configuration at a time with --select.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="the results file")
    parser.add_argument("--format", "-f", default="auto", metavar="FORMAT", help="the file's format (default: auto)")
    parser.add_argument(
        "--experiment", "-e", metavar="NAME",
        help="experiment (name or alias in benchdoc.toml) to record the runs under; required unless --dry-run",
    )
    parser.add_argument(
        "--select", "-s", metavar="LABEL",
        help="import only the runs of this configuration (a label shown by --dry-run; shell-style globs work)",
    )
    parser.add_argument(
        "--metric", "-m", action="append", default=[], metavar="PATTERN",
        help="keep only metrics matching PATTERN (a glob, e.g. 'ttft_ms_*'); repeat for several",
    )
    parser.add_argument(
        "--mixed", action="store_true",
        help="record runs of different configurations under one experiment anyway",
    )
    parser.add_argument(
        "--allow-new", action="store_true",
        help="record under an experiment that benchdoc.toml does not declare (yet)",
    )
    parser.add_argument(
        "--allow-duplicates", action="store_true",
        help="record runs even if the same content was imported before",
    )
    parser.add_argument("--note", help="free text kept with every imported run")
    parser.add_argument("--dry-run", "-n", action="store_true", help="show what would be recorded; record nothing")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.importers import parse_file, plan_import
    from benchdoc.recording import record_all

    config = _load_config(args)
    if args.experiment is None and not args.dry_run:
        raise UsageError("say which experiment the runs belong to: --experiment NAME (or try --dry-run first)")
    experiment = _experiment(config, args.experiment, args.allow_new) if args.experiment is not None else "(none)"
    primary = config.primary_metric if config is not None else None
    runs = parse_file(args.file, args.format, required=(primary,) if primary else ())
    recorded = None if args.allow_duplicates else _recorded_fingerprints(config, create=not args.dry_run)
    plan = plan_import(
        runs, experiment, select=args.select, metrics=args.metric, mixed=args.mixed or args.dry_run, recorded=recorded
    )
    if config is not None:
        _check_declared_bounds(config, plan)
    ids: list[int | None] = []
    if not args.dry_run and plan.runs:
        assert config is not None
        with open_ledger(config, write=True) as ledger:
            # Checked again under the write lock: another import of the file may have just recorded it.
            ids = record_all(ledger, plan.measurements(args.note), once=not args.allow_duplicates)
    if args.json:
        print_json(_as_json(args, plan, runs[0].format, ids))
    else:
        _print_text(args, config, plan, runs[0].format, ids)
    return 0


def _check_declared_bounds(config: Config, plan: Any) -> None:
    """Refuse the file when a value breaks its metric's declared min/max (the importer checked meaning)."""
    for run in plan.runs:
        for sample in run.samples:
            spec = config.metrics.get(sample.metric)
            problem = spec.value_problem(sample.value) if spec else None
            if problem:
                raise ImportFormatError(f"{run.location}: {problem}; nothing was recorded")


def _load_config(args: argparse.Namespace) -> Config | None:
    """The project's configuration; a dry run works without one (to inspect a file anywhere)."""
    if args.dry_run and not args.config:
        from benchdoc.config import find_config

        try:
            find_config()
        except ConfigError:
            return None
    return load_project(args)


def _experiment(config: Config | None, name: str, allow_new: bool) -> str:
    from benchdoc.cli._common import recording_experiment

    return name if config is None else recording_experiment(config, name, allow_new)


def _recorded_fingerprints(config: Config | None, *, create: bool) -> dict[str, int]:
    """Fingerprints of the runs imported before, mapped to their run ids."""
    if config is None:
        return {}
    try:
        with open_ledger(config, create=create) as ledger:
            previous = ledger.runs(with_samples=False)
    except LedgerError:
        if create:
            raise
        return {}  # a dry run before the ledger exists: nothing was imported yet
    found: dict[str, int] = {}
    for record in previous:
        provenance = record.metadata.imported if record.source.startswith("import:") else None
        if provenance is not None and provenance.fingerprint:
            found.setdefault(provenance.fingerprint, record.id)
    return found


def _fmt(value: float, digits: int | None) -> str:
    if digits is not None:
        return f"{value:.{digits}f}"
    if abs(value) >= 1e6:
        return f"{value:.0f}"
    return f"{value:.6g}"


def _values(runs: tuple[ImportedRun, ...]) -> dict[str, list[float]]:
    merged: dict[str, list[float]] = {}
    for run in runs:
        for metric, values in run.metrics().items():
            merged.setdefault(metric, []).extend(values)
    return merged


def _print_text(args: argparse.Namespace, config: Config | None, plan: ImportPlan, fmt: str,
                ids: list[int | None]) -> None:
    name = Path(args.file).name
    count = len(plan.runs)
    noun = "run" if count == 1 else "runs"
    if args.dry_run:
        target = f" as runs of '{plan.experiment}'" if args.experiment else ""
        print(f"would import {count} {noun} from {name} ({fmt}){target}; nothing recorded (dry run)")
    elif ids and all(i is None for i in ids):
        print(f"nothing to import from {name} ({fmt}): another import recorded every run just now")
    elif count:
        print(f"imported {count} {noun} from {name} ({fmt}) as runs of '{plan.experiment}'")
    else:
        print(f"nothing to import from {name} ({fmt}): every run was imported before")
    width = max((len(r.location) for r in plan.runs), default=0)
    for index, imported in enumerate(plan.runs):
        prefix = ("  already " if ids[index] is None else f"  run {ids[index]:<4} ") if ids else "  "
        status = "" if imported.outcome == Outcome.OK else f"  [{imported.outcome}: {imported.failure_reason}]"
        print(f"{prefix}{imported.location:<{width}}  {imported.label or '-'}{status}")
    labels = list(dict.fromkeys(r.label for r in plan.runs))
    if args.dry_run and len(labels) > 1 and not args.mixed:
        print(f"  note: {len(labels)} configurations; import one with --select LABEL, or all together with --mixed")
    for dup in plan.duplicates:
        print(f"  skipped {dup.run.location}: already recorded as run {dup.recorded_as} (--allow-duplicates to record it again)")
    values = _values(plan.runs)
    if not values:
        return
    metric_width = max(len(m) for m in values)
    print(f"  {'metric':<{metric_width}}  {'n':>3}  values")
    for metric, numbers in values.items():
        digits = config.metrics[metric].digits if config is not None and metric in config.metrics else None
        shown = ", ".join(_fmt(v, digits) for v in numbers[:_SHOWN_VALUES])
        if len(numbers) > _SHOWN_VALUES:
            shown += f", ... ({len(numbers) - _SHOWN_VALUES} more)"
        print(f"  {metric:<{metric_width}}  {len(numbers):>3}  {shown}")


def _as_json(args: argparse.Namespace, plan: ImportPlan, fmt: str, ids: list[int | None]) -> dict[str, Any]:
    def moment(value: Any) -> str | None:
        return value.isoformat() if value is not None else None

    runs = []
    for index, imported in enumerate(plan.runs):
        started_at, finished_at = imported.period()
        runs.append(
            {
                "id": ids[index] if ids else None,
                "entry": imported.entry,
                "location": imported.location,
                "label": imported.label,
                "outcome": imported.outcome,
                "failure_reason": imported.failure_reason,
                "started_at": moment(started_at),
                "finished_at": moment(finished_at),
                "metrics": imported.metrics(),
            }
        )
    return {
        "file": args.file,
        "format": fmt,
        "experiment": plan.experiment if args.experiment else None,
        "dry_run": bool(args.dry_run),
        "runs": runs,
        "skipped_duplicates": [
            {"entry": d.run.entry, "label": d.run.label, "recorded_as": d.recorded_as} for d in plan.duplicates
        ],
    }
