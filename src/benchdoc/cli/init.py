"""`benchdoc init`: write a commented starter benchdoc.toml."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchdoc.errors import UsageError

ORDER = 10

STARTER = '''\
# benchdoc.toml — the experiments you run and the documents benchdoc keeps true.
# Docs: every key is optional unless marked otherwise.

[ledger]
# Where every run is recorded. SQLite by default (relative to this file);
# for a team: url = "postgresql://user@host/benchdoc" (the password is never stored or printed).
url = "sqlite:///.benchdoc/ledger.db"

# Metrics: how each one is shown and which way is better.
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
direction = "higher"          # "higher" or "lower" is better
digits = 1
equivalence_margin = "1%"     # differences smaller than this count as equivalent
primary = true                # the metric `show` and tables use by default

[metrics.ttft_ms_p50]
label = "TTFT p50"
unit = "ms"
direction = "lower"
digits = 1

# Experiments: one table each. `role = "reference"` marks a baseline;
# `compare_to` names what an experiment is judged against; `supersedes` names
# an older experiment this one replaces (its result stays as the "before").
[experiments.baseline]
label = "Baseline (no spec)"
role = "reference"

[experiments.eagle3]
label = "EAGLE-3 2-step"
aliases = ["EAGLE-3", "eagle"]
compare_to = "baseline"
notes = "Speculative decoding with 2 draft steps"

# To let `benchdoc run` start a server, measure it and stop it, declare the server and a
# workload and name them in an experiment (uncomment; the simulator stands in for your
# server until you put its command here). All keys: docs/running.md in benchdoc's sources.
# [servers.sim]
# argv = ["benchdoc", "sim", "--port", "{port}"]   # e.g. ["python", "-m", "sglang.launch_server",
#                                                 #   "--model-path", "{model}", "--port", "{port}"]
# ready_url = "http://{host}:{port}/health"       # benchdoc waits for a 200 here (the default)
#
# [workloads.chat]
# concurrency = 4              # requests in flight (closed loop); or rate = 8.0 req/s (open loop)
# requests = 64                # per repetition
# input_tokens = 128
# output_tokens = 64
#
# [experiments.sim-baseline]
# label = "Simulator baseline"
# server = "sim"
# workload = "chat"
# repetitions = 5
#
# Then: benchdoc run sim-baseline

[stats]
alpha = 0.05          # significance level of every comparison
confidence = 0.95     # level of every interval
correction = "holm"   # multiple comparisons: holm, bonferroni, bh or none
pool = "latest"       # which runs each result pools: "latest", "all", "runs:5" or "since:2026-11-01"

[documents]
# Markdown logs whose managed regions benchdoc regenerates.
paths = []
'''


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init",
        help="write a commented starter benchdoc.toml",
        description="Write a commented starter benchdoc.toml in DIR (default: the current folder). "
        "Refuses to overwrite an existing one.",
    )
    parser.add_argument("dir", nargs="?", default=".", help="folder to create it in (default: .)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    target = folder / "benchdoc.toml"
    if target.exists():
        raise UsageError(f"{target} already exists; not overwriting it")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with open(target, "x", encoding="utf-8") as handle:  # "x": never clobber a file that appeared meanwhile
            handle.write(STARTER)
    except FileExistsError as exc:
        raise UsageError(f"{target} already exists; not overwriting it") from exc
    print(f"wrote {target}")
    print("next: benchdoc record baseline --metric output_tok_s=89.5  (then: benchdoc show)")
    return 0
