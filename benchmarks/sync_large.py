"""How long does `benchdoc sync --check` take on a large project, relative to importing benchdoc?

Builds, in a temporary folder, a project of 2,000 experiments with 20,000 runs (10 runs of
5 repetitions each) in a SQLite ledger, and a 10,000-line experiment log with 200 managed
regions (100 tables of 10 experiments, 100 inline values). Then times, in the same run:

- ``python -c "import benchdoc"`` (the unit);
- ``benchdoc sync --write`` once (cold: computes every result), then
- ``benchdoc sync --check`` cold (cache removed) and ``benchdoc check`` warm (cache kept).

Machines here are noisy, so each is the median of a few repetitions and reported as a
ratio to the import time.

    python benchmarks/sync_large.py            # a small table
    python benchmarks/sync_large.py --json     # {"import_s": ..., "check_cold_ratio": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXPERIMENTS = 2000
RUNS_PER_EXPERIMENT = 10
REPETITIONS = 5
DOC_LINES = 10_000
TABLES = 100
VALUES = 100


def build_project(root: Path) -> None:
    import random

    from benchdoc.ledger import Ledger, NewRun, Sample

    lines = ['[metrics.output_tok_s]', 'label = "tok/s"', 'unit = "tok/s"', "primary = true", ""]
    for i in range(EXPERIMENTS):
        lines.append(f"[experiments.exp-{i:04d}]")
        lines.append(f'label = "Config {i}"')
        lines.append('role = "reference"' if i == 0 else 'compare_to = "exp-0000"')
        lines.append("")
    lines += ["[documents]", 'paths = ["log.md"]', ""]
    (root / "benchdoc.toml").write_text("\n".join(lines))

    rng = random.Random(7)
    ledger = Ledger.open(f"sqlite:///{root / '.benchdoc' / 'ledger.db'}")
    for i in range(EXPERIMENTS):
        centre = 90.0 * (1 + rng.uniform(-0.1, 0.1))
        ledger.record_runs([
            NewRun(f"exp-{i:04d}", samples=[Sample("output_tok_s", rng.gauss(centre, centre * 0.015), r) for r in range(REPETITIONS)])
            for _ in range(RUNS_PER_EXPERIMENT)
        ])
    ledger.close()

    doc: list[str] = ["# A large experiment log", ""]
    per_table = EXPERIMENTS // TABLES
    # Each table renders to per_table + 4 lines between its markers.
    fixed = 2 + TABLES * (2 + 3 + 2) + TABLES * (per_table + 4)
    filler = DOC_LINES - fixed
    chunk = filler // (2 * TABLES)
    for t in range(TABLES):
        names = " ".join(f"exp-{t * per_table + k:04d}" for k in range(per_table))
        doc += [f"## Section {t}", ""] + [f"Narrative line {t}.{k} about the runs." for k in range(chunk)]
        doc += [f'<!-- benchdoc:table experiments="{names}" -->', "<!-- benchdoc:end -->", ""]
        doc += [f"The config reaches <!-- benchdoc:value exp-{t * per_table:04d}.output_tok_s -->0<!-- benchdoc:end --> tok/s.", ""]
        doc += [f"More narrative {t}.{k}." for k in range(chunk)]
    (root / "log.md").write_text("\n".join(doc) + "\n")


def timed(argv: list[str], cwd: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="benchdoc-sync-large-"))
    try:
        build_start = time.perf_counter()
        build_project(root)
        build_s = time.perf_counter() - build_start
        lines = sum(1 for _ in (root / "log.md").open())
        benchdoc = [sys.executable, "-m", "benchdoc"]
        import_s = timed([sys.executable, "-c", "import benchdoc"], root, args.repeat)
        write_s = timed([*benchdoc, "sync", "--write", "--quiet"], root, 1)
        cache = root / ".benchdoc" / "cache"
        cold = []
        for _ in range(args.repeat):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(timed([*benchdoc, "sync", "--check", "--quiet"], root, 1))
        check_cold_s = statistics.median(cold)
        timed([*benchdoc, "check"], root, 1)  # warm the cache
        check_warm_s = timed([*benchdoc, "check"], root, args.repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    figures = {
        "experiments": EXPERIMENTS,
        "runs": EXPERIMENTS * RUNS_PER_EXPERIMENT,
        "document_lines": lines,
        "regions": TABLES + VALUES,
        "import_s": round(import_s, 4),
        "sync_write_ratio": round(write_s / import_s, 1),
        "check_cold_ratio": round(check_cold_s / import_s, 1),
        "check_warm_ratio": round(check_warm_s / import_s, 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"project: {EXPERIMENTS} experiments, {EXPERIMENTS * RUNS_PER_EXPERIMENT} runs, "
              f"{lines}-line document with {TABLES + VALUES} regions (built in {build_s:.1f} s)")
        print(f"{'command':<34} ratio to `import benchdoc`")
        print(f"{'sync --write (first)':<34} {figures['sync_write_ratio']:>6}x")
        print(f"{'sync --check, cold cache':<34} {figures['check_cold_ratio']:>6}x")
        print(f"{'check, warm cache':<34} {figures['check_warm_ratio']:>6}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
