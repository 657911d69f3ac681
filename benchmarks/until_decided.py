"""Does `benchdoc run --until-decided` keep its false-positive rate at or below alpha?

Simulates seeded A/A comparisons: a baseline of 5 recorded runs, and a candidate drawn
from the same distribution (Gaussian noise, 1.5% coefficient of variation) that gets
repetitions added one at a time, from 5 up to 20, stopping at the first look that
declares a significant difference. Three stopping rules are compared:

- until decided: benchdoc's rule (`benchdoc.runner.sequential`): alpha split in equal
  shares over the looks that can reject (Bonferroni alpha spending);
- naive peeking: test at the full alpha after every repetition, stop at the first p <= alpha;
- fixed: one test after the planned 5 repetitions (the reference point).

In an A/A comparison every "significant" is a false positive. Equivalence stopping is
left out on purpose: it would only end trials earlier, giving false positives fewer
chances, so this is the worst case. For contrast it also reports the power to detect a
real +3.8% change and how many repetitions that took.

The p-values are the runner's own test (two-sided Mann-Whitney U, scipy's default
method), computed for all trials at once; a sample of trials is replayed through the
runner's `take_look` to check that both paths decide alike.

    python benchmarks/until_decided.py          # a small table
    python benchmarks/until_decided.py --json   # {"fpr_until_decided": ..., "fpr_naive": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
from scipy.stats import mannwhitneyu

from benchdoc.runner.sequential import StoppingPlan, plan_stopping, take_look

NOISE_CV = 0.015
EFFECT = 0.038
CENTRE = 92.6
ALPHA = 0.05


def _p_values(candidate: np.ndarray, baseline: np.ndarray, first: int, maximum: int) -> dict[int, np.ndarray]:
    """Each trial's two-sided Mann-Whitney p-value after n candidate repetitions, for every n."""
    return {
        n: mannwhitneyu(candidate[:, :n], baseline, axis=1, alternative="two-sided").pvalue
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
    centre = CENTRE * (1.0 + effect)
    candidate = rng.normal(centre, centre * NOISE_CV, size=(trials, maximum))
    return candidate, baseline


def _cross_check(plan: StoppingPlan, candidate: np.ndarray, baseline: np.ndarray, decided: np.ndarray, count: int) -> int:
    """Replay ``count`` trials through the runner's own look; the number that disagree."""
    disagreements = 0
    for trial in range(min(count, len(candidate))):
        stopped_at = 0
        for n in plan.looks:
            look = take_look(plan, list(candidate[trial, :n]), list(baseline[trial]))
            if look.decision == "significant":
                stopped_at = n
                break
        disagreements += stopped_at != decided[trial]
    return disagreements


def measure(trials: int, seed: int, baseline_n: int, first: int, maximum: int, cross_check: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    plan = plan_stopping(ALPHA, first, maximum, baseline_n)
    every = tuple(range(first, maximum + 1))

    candidate, baseline = _draw(rng, trials, 0.0, baseline_n, maximum)
    p = _p_values(candidate, baseline, first, maximum)
    until = _first_rejection(p, plan.looks, plan.alpha_per_look, trials)
    naive = _first_rejection(p, every, ALPHA, trials)
    fixed = p[first] <= ALPHA
    disagreements = _cross_check(plan, candidate, baseline, until, cross_check)

    candidate_e, baseline_e = _draw(rng, trials, EFFECT, baseline_n, maximum)
    p_e = _p_values(candidate_e, baseline_e, first, maximum)
    until_e = _first_rejection(p_e, plan.looks, plan.alpha_per_look, trials)
    higher = np.median(candidate_e, axis=1) > np.median(baseline_e, axis=1)
    detected = (until_e > 0) & higher
    repetitions = np.where(until_e > 0, until_e, plan.looks[-1] if plan.looks else first)

    return {
        "alpha": ALPHA,
        "trials": trials,
        "seed": seed,
        "baseline_runs": baseline_n,
        "first": first,
        "max_repetitions": maximum,
        "looks": list(plan.looks),
        "alpha_per_look": plan.alpha_per_look,
        "fpr_until_decided": float(np.mean(until > 0)),
        "fpr_naive": float(np.mean(naive > 0)),
        "fpr_fixed": float(np.mean(fixed)),
        "power_until_decided": float(np.mean(detected)),
        "power_fixed": float(np.mean((p_e[first] <= ALPHA) & higher)),
        "mean_repetitions_with_effect": float(np.mean(repetitions)),
        "cross_checked_trials": min(cross_check, trials),
        "cross_check_disagreements": int(disagreements),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--trials", type=int, default=20000, help="simulated comparisons per scenario (default 20000)")
    parser.add_argument("--seed", type=int, default=20260101, help="seed of the simulated noise")
    parser.add_argument("--baseline-runs", type=int, default=5, help="repetitions recorded for the baseline (default 5)")
    parser.add_argument("--first", type=int, default=5, help="planned repetitions before the first look (default 5)")
    parser.add_argument("--max-repetitions", type=int, default=20, help="most repetitions (default 20)")
    parser.add_argument("--cross-check", type=int, default=100,
                        help="trials replayed through the runner's own look function (default 100)")
    args = parser.parse_args(argv)
    if args.trials < 1 or args.baseline_runs < 1 or not 1 <= args.first <= args.max_repetitions:
        parser.error("need --trials >= 1, --baseline-runs >= 1 and 1 <= --first <= --max-repetitions")
    started = time.perf_counter()
    figures = measure(args.trials, args.seed, args.baseline_runs, args.first, args.max_repetitions, args.cross_check)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        looks = figures["looks"]
        print(
            f"A/A comparisons: baseline {args.baseline_runs} runs, candidate {args.first}..{args.max_repetitions} "
            f"repetitions, {NOISE_CV:.1%} noise CV, alpha {ALPHA}, {args.trials} trials, seed {args.seed}"
        )
        where = f"{looks[0]}-{looks[-1]}" if looks else "none"
        print(f"until-decided looks at {where} repetitions, each at alpha {figures['alpha_per_look']:.4g}")
        print(f"{'stopping rule':<44} {'false positives':>15}")
        print(f"{'until decided (Bonferroni alpha spending)':<44} {figures['fpr_until_decided']:>15.4f}")
        print(f"{'naive: alpha at every repetition':<44} {figures['fpr_naive']:>15.4f}")
        print(f"{f'fixed: one test after {args.first} repetitions':<44} {figures['fpr_fixed']:>15.4f}")
        print(
            f"power to detect +{EFFECT:.1%}: until decided {figures['power_until_decided']:.3f} "
            f"(mean {figures['mean_repetitions_with_effect']:.1f} repetitions), fixed {figures['power_fixed']:.3f}"
        )
        print(
            f"cross-check: {figures['cross_checked_trials']} trials replayed through the runner, "
            f"{figures['cross_check_disagreements']} disagreements ({elapsed:.1f} s)"
        )
    ok = figures["fpr_until_decided"] <= ALPHA and figures["cross_check_disagreements"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
