"""Run the benchmarks and record their figures in benchdoc's own ledger.

Each benchmark script prints its figures as one JSON object with ``--json``. Every
figure whose name is a metric declared in the repository's benchdoc.toml is recorded
as one run of the benchmark's experiment; the README quotes them through managed
regions, so `benchdoc sync --write` afterwards updates it and `benchdoc check` keeps
it honest.

    python benchmarks/record.py                 # every benchmark
    python benchmarks/record.py sync-large      # only some
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# experiment name -> the benchmark script that measures it
BENCHMARKS: dict[str, str] = {
    "sync-large": "sync_large.py",
    "docs-parse": "docs_parse.py",
    "stats-power": "stats_power.py",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT", help=f"any of: {', '.join(BENCHMARKS)}")
    args = parser.parse_args()
    unknown = [e for e in args.experiments if e not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(BENCHMARKS)})")

    from benchdoc.config import load_config
    from benchdoc.environment import capture_environment, git_info
    from benchdoc.ledger import Ledger, NewRun, Sample

    config = load_config(ROOT / "benchdoc.toml")
    chosen = args.experiments or list(BENCHMARKS)
    with Ledger.open(config.ledger_url) as ledger:
        for experiment in chosen:
            script = ROOT / "benchmarks" / BENCHMARKS[experiment]
            print(f"running {script.name} ...", file=sys.stderr)
            proc = subprocess.run([sys.executable, str(script), "--json"], capture_output=True, text=True, cwd=ROOT)
            if proc.returncode != 0:
                print(f"{script.name} failed:\n{proc.stderr}", file=sys.stderr)
                return 1
            figures = json.loads(proc.stdout.strip().splitlines()[-1])
            samples = [Sample(name, float(value)) for name, value in figures.items() if name in config.metrics]
            if not samples:
                print(f"{script.name} gave no declared metric (got {', '.join(figures)})", file=sys.stderr)
                return 1
            git = git_info(ROOT)
            environment = capture_environment(cwd=ROOT)
            run_id = ledger.record_run(
                NewRun(
                    experiment=experiment,
                    samples=samples,
                    command=[Path(sys.executable).name, f"benchmarks/{script.name}", "--json"],
                    host=environment["host"].get("hostname"),
                    git_commit=git.commit if git else None,
                    git_dirty=git.dirty if git else None,
                    environment=environment,
                    source="benchmark",
                    metadata={"figures": figures},
                )
            )
            print(f"recorded run {run_id}: {experiment} ({', '.join(f'{s.metric}={s.value:g}' for s in samples)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
