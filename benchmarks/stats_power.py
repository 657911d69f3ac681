"""How often does `benchdoc.stats.compare` cry wolf, and how often does it catch a real change?

Simulates seeded benchmark runs with Gaussian noise (1.5% coefficient of variation):

- false-positive rate: A/A comparisons (both sides from the same distribution, 5 vs 5
  runs) declared "better" or "worse"; it must be at or below alpha;
- power: the share of comparisons that declare a real +3.8% change "better", at 3, 5
  and 10 runs each.

    python benchmarks/stats_power.py          # a small table
    python benchmarks/stats_power.py --json   # {"fpr_5v5": ..., "power_3": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from benchdoc.stats import compare

NOISE_CV = 0.015
EFFECT = 0.038
BASELINE = 92.6
ALPHA = 0.05


def _declared_rate(rng: np.random.Generator, runs: int, effect: float, trials: int, expect: tuple[str, ...]) -> float:
    """The share of trials whose verdict is one of ``expect``."""
    hits = 0
    for _ in range(trials):
        baseline = rng.normal(BASELINE, BASELINE * NOISE_CV, size=runs)
        candidate_centre = BASELINE * (1.0 + effect)
        candidate = rng.normal(candidate_centre, candidate_centre * NOISE_CV, size=runs)
        verdict = compare(candidate, baseline, direction="higher", alpha=ALPHA).verdict
        hits += verdict in expect
    return hits / trials


def measure(trials: int, seed: int) -> dict[str, float]:
    """The four figures, each from ``trials`` simulated comparisons."""
    rng = np.random.default_rng(seed)
    return {
        "fpr_5v5": _declared_rate(rng, 5, 0.0, trials, ("better", "worse")),
        "power_3": _declared_rate(rng, 3, EFFECT, trials, ("better",)),
        "power_5": _declared_rate(rng, 5, EFFECT, trials, ("better",)),
        "power_10": _declared_rate(rng, 10, EFFECT, trials, ("better",)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--trials", type=int, default=1000, help="simulated comparisons per figure (default 1000)")
    parser.add_argument("--seed", type=int, default=20260101, help="seed of the simulated noise")
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    started = time.perf_counter()
    figures = measure(args.trials, args.seed)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"compare(): {NOISE_CV:.1%} noise CV, alpha {ALPHA}, {args.trials} trials each, seed {args.seed}")
    print(f"{'scenario':<32} {'runs each':>9} {'rate':>7}")
    rows = [
        ("false positives (A/A)", 5, figures["fpr_5v5"]),
        (f"power to detect +{EFFECT:.1%}", 3, figures["power_3"]),
        (f"power to detect +{EFFECT:.1%}", 5, figures["power_5"]),
        (f"power to detect +{EFFECT:.1%}", 10, figures["power_10"]),
    ]
    for name, runs, rate in rows:
        print(f"{name:<32} {runs:>9} {rate:>7.3f}")
    verdict = "OK" if figures["fpr_5v5"] <= ALPHA else "TOO HIGH"
    print(f"false-positive rate {figures['fpr_5v5']:.3f} vs alpha {ALPHA}: {verdict} ({elapsed:.1f} s)")
    return 0 if figures["fpr_5v5"] <= ALPHA else 1


if __name__ == "__main__":
    sys.exit(main())
