"""Scheduling overhead of a 16-experiment sweep submitted to Slurm as one job array.

Starts the tests' single-node Slurm cluster and a private PostgreSQL server (as root,
Debian's packages: see scripts/test), writes a project whose 4 x 4 sweep runs against
`benchdoc sim`, submits it with `benchdoc submit --slurm` (exclusive: one task on the
node at a time) and waits until every task has recorded its run. Then:

- each run's own time is its recorded start to finish (launch the server, wait ready,
  warm up, the repetitions, stop, record);
- the overhead is everything else between the submission and the last run recorded:
  Slurm's dispatch, starting Python and benchdoc on the node, loading the project,
  capturing the environment;

and reports the overhead per task as a ratio to a task's own run time (a ratio, since
the machine is shared and noisy). The simulator's numbers are not hardware figures.

    python benchmarks/slurm_sweep.py [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the test cluster and PostgreSQL helpers live under tests/

EXPERIMENTS = 16


def project(folder: Path) -> None:
    sim = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--ttft-ms", "2", "--step-ms", "2"]
    (folder / "benchdoc.toml").write_text(textwrap.dedent(f"""\
        [metrics.output_tok_s]
        label = "tok/s"
        primary = true

        [servers.sim]
        argv = {json.dumps(sim)}
        shutdown_grace = 3

        [workloads.sweep]
        requests = 40
        concurrency = 4
        input_tokens = 16
        output_tokens = 32

        [experiments.eagle3]
        label = "EAGLE-3"
        server = "sim"
        workload = "sweep"
        repetitions = 3

        [sweeps.grid]
        base = "eagle3"
        name = "eagle3-s{{steps}}-p{{prob}}"
        matrix = {{ steps = [1, 2, 3, 4], prob = [0.5, 0.6, 0.7, 0.8] }}
        args = ["--draft-steps", "{{steps}}", "--accept-prob", "{{prob}}"]
        """), encoding="utf-8")


def measure() -> dict[str, float]:
    import tempfile

    from tests.cluster.slurm_cluster import slurm_cluster
    from tests.ledger.postgres_server import postgres_server

    from benchdoc.ledger import Ledger

    with slurm_cluster() as cluster, postgres_server() as url, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project(folder)
        env = {**os.environ, **cluster.env, "BENCHDOC_LEDGER_URL": url}
        submitted_at = time.time()
        done = subprocess.run([sys.executable, "-m", "benchdoc", "submit", "eagle3-s*", "--slurm"],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise SystemExit(f"submit failed: {done.stderr.strip()}")
        with Ledger.open(url) as ledger:
            deadline = time.monotonic() + 1800
            while len(runs := ledger.runs(with_samples=False)) < EXPERIMENTS:
                if time.monotonic() > deadline:
                    raise SystemExit(f"only {len(runs)} of {EXPERIMENTS} runs after 30 minutes\n{cluster.logs()}")
                time.sleep(1)
        failed = [r.experiment for r in runs if r.outcome != "ok"]
        if failed:
            raise SystemExit(f"runs failed: {', '.join(failed)}")
        last = max(r.finished_at.timestamp() for r in runs)
        own = [(r.finished_at - r.started_at).total_seconds() for r in runs]
        wall = last - submitted_at
        overhead = (wall - sum(own)) / EXPERIMENTS
        mean_run = sum(own) / EXPERIMENTS
        return {
            "experiments": EXPERIMENTS,
            "wall_s": round(wall, 2),
            "mean_run_s": round(mean_run, 2),
            "overhead_per_task_s": round(overhead, 2),
            "overhead_ratio": round(overhead / mean_run, 3),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure()
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{figures['experiments']} experiments in {figures['wall_s']} s; a task's own run takes "
              f"{figures['mean_run_s']} s on average and Slurm plus starting benchdoc add "
              f"{figures['overhead_per_task_s']} s per task ({figures['overhead_ratio']:.2f} x its run time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
