"""Run the benchmarks and record their figures in benchdoc's own ledger.

Each benchmark script prints its figures as one JSON object with ``--json``. Every
figure whose name is a metric declared in the repository's benchdoc.toml is recorded
as one run of the benchmark's experiment; the README quotes them through managed
regions, so `benchdoc sync --write` afterwards updates it and `benchdoc check` keeps
it honest.

    python benchmarks/record.py                   # every benchmark
    python benchmarks/record.py sync_large.py     # only some
    python benchmarks/record.py client_capacity.py --sglang-python VENV/bin/python --repeats 5
                                                  # benchdoc's client beside SGLang's
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# benchmark script -> how its figures split into experiments: a suffix of the figure's
# name picks the experiment (e.g. "chunks_per_cpu_s_64" -> client-64, metric
# chunks_per_cpu_s); figures without a listed suffix go to the default experiment.
BENCHMARKS: dict[str, tuple[str, dict[str, str]]] = {
    "sync_large.py": ("sync-large", {}),
    "docs_parse.py": ("docs-parse", {}),
    "stats_power.py": (
        "stats-power",
        {
            **{f"_k{k}": f"holm-{k}" for k in (1, 2, 6, 10)},
            **{f"_at_{n}": f"interval-{n}v{n}" for n in range(2, 11)},
            **{f"_d{i}": f"starts-d{i}" for i in range(1, 6)},
            **{f"_n{n}": f"outliers-n{n}" for n in (5, 6, 8, 10, 20)},
        },
    ),
    "until_decided.py": ("until-decided", {}),
    "client_capacity.py": (
        "client-zero-1",
        {
            # With --sglang-python: beside SGLang's client (listed first: the longer suffix wins).
            **{f"_vs_sglang_{regime}_{n}": f"client-vs-sglang-{regime}-{n}" for regime in ("zero", "paced")
               for n in (1, 64, 256)},
            **{f"_{regime}_{n}": f"client-{regime}-{n}" for regime in ("zero", "paced") for n in (1, 64, 256, 1024)},
        },
    ),
    "lint_corpus.py": ("lint-corpus", {"_unseen": "lint-corpus-unseen"}),
    "slurm_sweep.py": ("slurm-sweep", {}),
    "mcp_startup.py": ("mcp-startup", {}),
}


def split_figures(figures: dict[str, float], default: str, suffixes: dict[str, str]) -> dict[str, dict[str, float]]:
    """{experiment: {metric: value}} for the figures of one benchmark run."""
    split: dict[str, dict[str, float]] = {}
    for name, value in figures.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        experiment, metric = default, name
        for suffix, target in suffixes.items():
            if name.endswith(suffix):
                experiment, metric = target, name[: -len(suffix)]
                break
        split.setdefault(experiment, {})[metric] = float(value)
    return split


def _extra_arguments(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The script's own arguments, and as the ledger records them: the path of SGLang's
    Python is this machine's, so the command says SGLANG_PYTHON in its place."""
    given: list[str] = []
    shown: list[str] = []
    if args.sglang_python:
        given += ["--sglang-python", args.sglang_python]
        shown += ["--sglang-python", "SGLANG_PYTHON"]
    if args.repeats:
        given += ["--repeats", str(args.repeats)]
        shown += ["--repeats", str(args.repeats)]
    return given, shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", nargs="*", metavar="SCRIPT", help=f"any of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--sglang-python", metavar="PATH",
                        help="client_capacity.py only: the Python of a venv with SGLang (recorded as SGLANG_PYTHON)")
    parser.add_argument("--repeats", type=int, help="client_capacity.py with --sglang-python: repeats of every cell")
    parser.add_argument("--from-json", metavar="FILE",
                        help="one benchmark: record the figures its --json run already printed into FILE (with the "
                        "same options), instead of running it again; e.g. after a rebase moved the ledger")
    args = parser.parse_args()
    if args.from_json and len(args.benchmarks) != 1:
        parser.error("--from-json goes with exactly one benchmark")
    unknown = [b for b in args.benchmarks if b not in BENCHMARKS]
    if (args.sglang_python or args.repeats) and args.benchmarks != ["client_capacity.py"]:
        parser.error("--sglang-python and --repeats go with client_capacity.py alone")
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(BENCHMARKS)})")

    from benchdoc.config import load_config
    from benchdoc.ledger import Ledger, NewRun, RunMetadata, Sample
    from benchdoc.provenance import provenance

    config = load_config(ROOT / "benchdoc.toml")
    where = provenance(ROOT)
    with Ledger.open(config.ledger_url) as ledger:
        for script_name in args.benchmarks or list(BENCHMARKS):
            default, suffixes = BENCHMARKS[script_name]
            extra, shown_extra = _extra_arguments(args)
            if args.from_json:
                figures = json.loads(Path(args.from_json).read_text())
            else:
                print(f"running {script_name} ...", file=sys.stderr)
                proc = subprocess.run(
                    [sys.executable, str(ROOT / "benchmarks" / script_name), "--json", *extra],
                    stdout=subprocess.PIPE, stderr=None if extra else subprocess.PIPE, text=True, cwd=ROOT,
                )
                if proc.returncode != 0:
                    print(f"{script_name} failed:\n{proc.stderr or ''}", file=sys.stderr)
                    return 1
                figures = json.loads(proc.stdout)
            runs = []
            for experiment, values in split_figures(figures, default, suffixes).items():
                samples = [Sample(metric, value) for metric, value in values.items() if metric in config.metrics]
                if experiment in config.experiments and samples:
                    runs.append(
                        where.stamp(
                            NewRun(
                                experiment=experiment,
                                samples=samples,
                                command=[Path(sys.executable).name, f"benchmarks/{script_name}", "--json", *shown_extra],
                                source="benchmark",
                                metadata=RunMetadata(figures=figures),
                            )
                        )
                    )
            if not runs:
                print(f"{script_name} gave no declared metric of a declared experiment", file=sys.stderr)
                return 1
            for run, run_id in zip(runs, ledger.record_runs(runs)):
                shown = ", ".join(f"{s.metric}={s.value:g}" for s in run.samples)
                print(f"recorded run {run_id}: {run.experiment} ({shown})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
