"""Does the verdict benchdoc shows after `run --until-decided` keep its false-positive rate
at or below alpha?

Simulates seeded A/A comparisons: a baseline of 5 recorded runs, and a candidate drawn
from the same distribution (Gaussian noise, 1.5% coefficient of variation) that gets
repetitions added one at a time, from 5 up to 20, stopping at the first look that
declares a significant difference. Three stopping rules are compared:

- until decided: benchdoc's rule (`benchdoc.runner.sequential`): alpha split in equal
  shares over the looks that can reject (Bonferroni alpha spending);
- naive peeking: test at the full alpha after every repetition, stop at the first p <= alpha;
- fixed: one test after the planned 5 repetitions (the reference point).

In an A/A comparison every "significant" is a false positive. The headline figure is the
rate of the verdict a user sees: a sample of trials is replayed through the runner's own
look (`take_look`), recorded as the runner records a run (`stopping_record`), and read
back through the views' one computation (`benchdoc.results.compute_results`), the one
`show`, tables and the lint print. For contrast it reports what re-testing the runs a
trial stopped with at the full alpha would say (the fixed-sample verdict of data whose
size was chosen by peeking), the power to detect a real +3.8% change, and, replayed
through the views, how far the shift shown after a decided stop is from the truth and how
often the interval shown (the repeated confidence interval) holds it.

Equivalence stopping is left out on purpose: it would only end trials earlier, giving
false positives fewer chances, so this is the worst case. The p-values of all trials are
computed at once with scipy's Welch t-test on the log values, which is the runner's test
when every repetition is a server start of its own (as with `--interleave`); the replayed
sample checks that both decide alike.

    python benchmarks/until_decided.py          # a small table
    python benchmarks/until_decided.py --json   # {"fpr_shown": ..., "fpr_until_decided": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import ttest_ind

from benchdoc.config import Config, parse_config
from benchdoc.ledger.metadata import RunMetadata, SequentialTest
from benchdoc.ledger.models import RunRecord, Sample
from benchdoc.results import compute_results
from benchdoc.runner.sequential import Look, StoppingPlan, plan_stopping, stopping_record, take_look

NOISE_CV = 0.015
EFFECT = 0.038
CENTRE = 92.6
ALPHA = 0.05
METRIC = "output_tok_s"
PROJECT = f"""
[stats]
alpha = {ALPHA}

[metrics.{METRIC}]
direction = "higher"
primary = true

[experiments.baseline]
role = "reference"

[experiments.candidate]
compare_to = "baseline"
"""
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _p_values(candidate: np.ndarray, baseline: np.ndarray, first: int, maximum: int) -> dict[int, np.ndarray]:
    """Each trial's two-sided Welch p-value (log values, one a start) after n candidate repetitions, for every n."""
    return {
        n: ttest_ind(np.log(candidate[:, :n]), np.log(baseline), axis=1, equal_var=False).pvalue
        for n in range(first, maximum + 1)
    }


def _first_rejection(p: dict[int, np.ndarray], looks: tuple[int, ...], level: float, trials: int) -> np.ndarray:
    """The repetition count at which each trial is first declared significant (0: never)."""
    decided = np.zeros(trials, dtype=int)
    for n in looks:
        hit = (p[n] <= level) & (decided == 0)
        decided[hit] = n
    return decided


def _draw(rng: np.random.Generator, trials: int, effect: float, baseline_n: int, maximum: int) -> tuple[np.ndarray, np.ndarray]:
    baseline = rng.normal(CENTRE, CENTRE * NOISE_CV, size=(trials, baseline_n))
    candidate = rng.normal(CENTRE, CENTRE * NOISE_CV, size=(trials, maximum)) * (1.0 + effect)
    return candidate, baseline


def _run(run_id: int, experiment: str, values: list[float], until_decided: SequentialTest | None) -> RunRecord:
    """A run as the ledger gives it back."""
    started = T0 + timedelta(minutes=run_id)
    return RunRecord(
        id=run_id, experiment=experiment, outcome="ok", started_at=started, finished_at=started + timedelta(seconds=30),
        failure_reason=None, failure_log_line=None, command=None, host=None, git_commit=None, git_dirty=None,
        environment={}, note=None, source="run", metadata=RunMetadata(until_decided=until_decided),
        samples=tuple(Sample(METRIC, value, index, index) for index, value in enumerate(values)),  # interleaved: a start each
    )


def _replay(plan: StoppingPlan, candidate: np.ndarray, baseline: list[float]) -> tuple[list[Look], str | None]:
    """The looks the runner takes on this trial's values, up to its first decision."""
    looks: list[Look] = []
    for n in plan.looks:
        look = take_look(plan, [float(v) for v in candidate[:n]], baseline)
        looks.append(look)
        if look.decision is not None:
            return looks, look.decision
    return looks, None


def _shown(plan: StoppingPlan, config: Config, candidate: np.ndarray, baseline: np.ndarray, until: np.ndarray) -> tuple[np.ndarray, int]:
    """(verdict shown is better/worse, per trial; trials whose replay stopped elsewhere than the vectorized rule)."""
    declared = np.zeros(len(candidate), dtype=bool)
    disagreements = 0
    for trial in range(len(candidate)):
        base = [float(v) for v in baseline[trial]]
        looks, decision = _replay(plan, candidate[trial], base)
        stopped = looks[-1].repetitions if looks else plan.first
        disagreements += (stopped if decision else 0) != until[trial]
        record = stopping_record(
            plan, looks, decision, compare_to="baseline", metric=METRIC, baseline_runs=[1], baseline_n=len(base),
            alpha=ALPHA, max_repetitions=plan.maximum,
        )
        runs = [_run(1, "baseline", base, None), _run(2, "candidate", [float(v) for v in candidate[trial, :stopped]], record)]
        comparison = compute_results(config, runs)["candidate"].comparisons[METRIC]
        declared[trial] = comparison.verdict in ("better", "worse")
    return declared, disagreements


def _shown_estimates(plan: StoppingPlan, config: Config, candidate: np.ndarray, baseline: np.ndarray) -> tuple[list[float], float]:
    """(shift shown after each decided stop, share of shown intervals holding the true shift)
    for trials with a real change, replayed through the runner and read back through the views."""
    truth = EFFECT * 100.0
    decided: list[float] = []
    covered = shown = 0
    for trial in range(len(candidate)):
        base = [float(v) for v in baseline[trial]]
        looks, decision = _replay(plan, candidate[trial], base)
        stopped = looks[-1].repetitions if looks else plan.first
        record = stopping_record(
            plan, looks, decision, compare_to="baseline", metric=METRIC, baseline_runs=[1], baseline_n=len(base),
            alpha=ALPHA, max_repetitions=plan.maximum,
        )
        runs = [_run(1, "baseline", base, None), _run(2, "candidate", [float(v) for v in candidate[trial, :stopped]], record)]
        comparison = compute_results(config, runs)["candidate"].comparisons[METRIC]
        if comparison.verdict == "better":
            decided.append(comparison.delta_pct)
        if comparison.delta_ci_low is not None and comparison.delta_ci_high is not None:
            shown += 1
            covered += comparison.delta_ci_low <= truth <= comparison.delta_ci_high
    return decided, covered / shown if shown else float("nan")


def measure(trials: int, seed: int, baseline_n: int, first: int, maximum: int, shown_trials: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    plan = plan_stopping(ALPHA, first, maximum, baseline_n)
    every = tuple(range(first, maximum + 1))
    config = parse_config(PROJECT, Path("benchdoc.toml"))

    candidate, baseline = _draw(rng, trials, 0.0, baseline_n, maximum)
    p = _p_values(candidate, baseline, first, maximum)
    until = _first_rejection(p, plan.looks, plan.alpha_per_look, trials)
    naive = _first_rejection(p, every, ALPHA, trials)
    last = plan.looks[-1] if plan.looks else first
    stopped_at = np.where(until > 0, until, last)
    by_size = np.stack([p[n] for n in every], axis=1)  # trials x sizes
    reread = by_size[np.arange(trials), stopped_at - first] <= ALPHA
    sample = min(shown_trials, trials)
    shown, disagreements = _shown(plan, config, candidate[:sample], baseline[:sample], until[:sample])

    candidate_e, baseline_e = _draw(rng, trials, EFFECT, baseline_n, maximum)
    p_e = _p_values(candidate_e, baseline_e, first, maximum)
    until_e = _first_rejection(p_e, plan.looks, plan.alpha_per_look, trials)
    higher = np.median(candidate_e, axis=1) > np.median(baseline_e, axis=1)
    detected = (until_e > 0) & higher
    repetitions = np.where(until_e > 0, until_e, last)
    decided_deltas, coverage_shown = _shown_estimates(plan, config, candidate_e[:sample], baseline_e[:sample])

    return {
        "alpha": ALPHA,
        "trials": trials,
        "seed": seed,
        "baseline_runs": baseline_n,
        "first": first,
        "max_repetitions": maximum,
        "looks": list(plan.looks),
        "alpha_per_look": plan.alpha_per_look,
        "fpr_shown": float(np.mean(shown)),
        "shown_trials": sample,
        "fpr_until_decided": float(np.mean(until > 0)),
        "fpr_reread": float(np.mean(reread)),
        "fpr_naive": float(np.mean(naive > 0)),
        "fpr_fixed": float(np.mean(p[first] <= ALPHA)),
        "power_until_decided": float(np.mean(detected)),
        "power_fixed": float(np.mean((p_e[first] <= ALPHA) & higher)),
        "mean_repetitions_with_effect": float(np.mean(repetitions)),
        # After a stop the data chose, the shift shown runs high; its interval (1 - alpha / K) still holds.
        "bias_shown_pct": float(np.mean(decided_deltas) - EFFECT * 100.0) if decided_deltas else float("nan"),
        "coverage_shown": coverage_shown,
        "replay_disagreements": int(disagreements),
        "shown_disagreements": int(np.sum(shown != (until[:sample] > 0))),
    }


def _print_table(figures: dict[str, Any], args: argparse.Namespace, elapsed: float) -> None:
    looks = figures["looks"]
    print(
        f"A/A comparisons: baseline {args.baseline_runs} runs, candidate {args.first}..{args.max_repetitions} "
        f"repetitions, {NOISE_CV:.1%} noise CV, alpha {ALPHA}, {args.trials} trials, seed {args.seed}"
    )
    where = f"{looks[0]}-{looks[-1]}" if looks else "none"
    print(f"until-decided looks at {where} repetitions, each at alpha {figures['alpha_per_look']:.4g}")
    print(f"{'stopping rule':<58} {'false positives':>15}")
    shown = f"until decided: the verdict shown ({figures['shown_trials']} trials)"
    print(f"{shown:<58} {figures['fpr_shown']:>15.4f}")
    print(f"{'until decided: the sequential test':<58} {figures['fpr_until_decided']:>15.4f}")
    print(f"{'until decided, its runs re-tested at the full alpha':<58} {figures['fpr_reread']:>15.4f}")
    print(f"{'naive: alpha at every repetition':<58} {figures['fpr_naive']:>15.4f}")
    print(f"{f'fixed: one test after {args.first} repetitions':<58} {figures['fpr_fixed']:>15.4f}")
    print(
        f"power to detect +{EFFECT:.1%}: until decided {figures['power_until_decided']:.3f} "
        f"(mean {figures['mean_repetitions_with_effect']:.1f} repetitions), fixed {figures['power_fixed']:.3f}"
    )
    print(
        f"after a decided stop the shift shown is {figures['bias_shown_pct']:+.2f} points off the true "
        f"+{EFFECT:.1%} on average; the interval shown (repeated, 1 - alpha / K) holds it in "
        f"{figures['coverage_shown']:.3f} of trials"
    )
    print(
        f"replayed through the runner and the views: {figures['shown_trials']} trials, "
        f"{figures['replay_disagreements']} stopped elsewhere, {figures['shown_disagreements']} shown otherwise "
        f"than the sequential test decided ({elapsed:.1f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--trials", type=int, default=20000, help="simulated comparisons per scenario (default 20000)")
    parser.add_argument("--seed", type=int, default=20260101, help="seed of the simulated noise")
    parser.add_argument("--baseline-runs", type=int, default=5, help="repetitions recorded for the baseline (default 5)")
    parser.add_argument("--first", type=int, default=5, help="planned repetitions before the first look (default 5)")
    parser.add_argument("--max-repetitions", type=int, default=20, help="most repetitions (default 20)")
    parser.add_argument("--shown", type=int, default=500,
                        help="trials replayed through the runner and read back through the views (default 500: "
                        "each reads its run back through every view's computation)")
    args = parser.parse_args(argv)
    if args.trials < 1 or args.baseline_runs < 1 or args.shown < 1 or not 1 <= args.first <= args.max_repetitions:
        parser.error("need --trials, --baseline-runs and --shown >= 1 and 1 <= --first <= --max-repetitions")
    started = time.perf_counter()
    figures = measure(args.trials, args.seed, args.baseline_runs, args.first, args.max_repetitions, args.shown)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        _print_table(figures, args, elapsed)
    # The shown rate is the sequential one trial by trial (no disagreement), so the
    # sequential rate over all trials is the bound that must hold.
    ok = (
        figures["fpr_until_decided"] <= ALPHA
        and figures["replay_disagreements"] == 0
        and figures["shown_disagreements"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
