"""`run --until-decided` with the baseline selected too: rounds of one server start each,
the baseline alongside its undecided candidates, the looks counting starts, and the views
reading each candidate against the baseline starts its test saw."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.conftest import toml_list

from benchdoc.ledger.store import Ledger
from benchdoc.results import build_results
from benchdoc.results.words import verdict_text
from benchdoc.runner import RunOptions, run_experiments
from benchdoc.runner import events as ev

from .conftest import assert_gone, write_project

# Prints the next of its values at each call (a counter file beside it), as a benchmark would.
SCRIPT = """
import sys
from pathlib import Path
counter = Path(sys.argv[1])
done = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(done + 1))
print(f"tok={sys.argv[2 + done % (len(sys.argv) - 2)]}")
"""
VALUES = {
    "base": [100, 100.4, 101, 100.6, 99, 99.4, 100.5, 100.1],
    "fast": [200, 200.4, 201, 200.6, 199, 199.4, 200.5, 200.1],  # twice the baseline: decided at the first look
    "same": [100.2, 100.4, 99.8, 99.6, 100.9, 100.5, 99.1, 99.5],  # the baseline's twin: never decided
}


def _project(tmp_path: Path) -> Any:
    script = tmp_path / "bench.py"
    script.write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    body = ""
    for name, values in VALUES.items():
        argv = [sys.executable, str(script), str(tmp_path / f"{name}.count"), *map(str, values)]
        body += f"""
[workloads.w-{name}]
kind = "command"
argv = {toml_list(argv)}
regex = {{ output_tok_s = 'tok=([0-9.]+)' }}

[experiments.{name}]
server = "sim"
workload = "w-{name}"
{'compare_to = "base"' if name != "base" else 'role = "reference"'}
"""
    return write_project(tmp_path, body)


class Recorder(list):  # type: ignore[type-arg]
    def of(self, kind: type) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]


def test_the_baseline_runs_alongside_its_undecided_candidates_start_by_start(tmp_path: Path) -> None:
    config = _project(tmp_path)
    events = Recorder()
    options = RunOptions(until_decided=True, starts=2, repetitions=2, max_starts=4)
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, ["fast", "same", "base"], options, on_event=events.append)
        runs = {r.experiment: r for r in ledger.runs()}
        results = build_results(config, ledger)
    # Rounds of one start each (two repetitions a start): the baseline first, then each undecided candidate.
    order = [e.experiment for e in events.of(ev.ServerStarting)]
    assert order == ["base", "fast", "same"] * 2 + ["base", "same"] * 2
    assert [o.experiment for o in report.outcomes] == ["base", "fast", "same"]  # the baseline recorded first
    base, fast, same = runs["base"], runs["fast"], runs["same"]
    assert (base.starts, fast.starts, same.starts) == (4, 2, 4)
    assert len(fast.values("output_tok_s")) == 4 and len(base.values("output_tok_s")) == 8
    decided = fast.metadata.until_decided
    assert decided is not None and decided.decision == "significant" and decided.baseline_runs == (base.id,)
    assert decided.baseline_starts == 2 and [look.starts for look in decided.looks] == [2]
    # Holm across the two comparisons this run measures: each counts the other at its worst, p = 1.
    assert decided.alpha_per_look is not None and decided.shares is not None
    assert decided.alpha_per_look * decided.shares == 0.025 and decided.looks_planned == (2, 3, 4)
    undecided = same.metadata.until_decided
    assert undecided is not None and undecided.decision is None and [look.starts for look in undecided.looks] == [2, 3, 4]
    assert undecided.baseline_starts == 4
    notes = [e.message for e in events.of(ev.Notice) if e.experiment == "same"]
    assert any("not decided after 4 server starts, the most --max-starts allows (4)" in n for n in notes)
    # Every view reads each candidate against the baseline starts its test saw.
    shown = results["fast"].comparisons["output_tok_s"]
    assert shown.starts_baseline == 2 and shown.sequential is not None and shown.verdict == "better"
    assert shown.p_used <= 0.05 and shown.delta_ci_low is not None and shown.delta_ci_low > 0
    twin = results["same"].comparisons["output_tok_s"]
    assert twin.starts_baseline == 4 and twin.verdict == "undecided"
    assert verdict_text(twin) == "undecided after 4 server starts (sequential test)"
    assert_gone([e.pid for e in events.of(ev.ServerReady)])
