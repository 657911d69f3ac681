"""How often does `benchdoc.stats` cry wolf, how often does it catch a real change, and do
its intervals cover what they claim?

Simulates seeded benchmark runs with Gaussian noise (1.5% coefficient of variation); a
candidate with a real change is the baseline's distribution scaled by 1.038, so the true
shift is known exactly:

- single comparisons: the false-positive rate of A/A comparisons at 5 vs 5 runs (declared
  "better" or "worse"; it must be at or below alpha) and the power to declare a real
  +3.8% change "better" at 3, 5 and 10 runs each;
- families: K candidates of 5 runs each against one shared baseline of 5, corrected
  together with Holm as a project is (`compare_many`), for K = 1, 2, 6 and 10: the
  family-wise false-positive rate (any A/A comparison declared), the power (share of
  +3.8% comparisons declared "better") and the share whose verdict asks for more runs;
  and the power with 10 comparisons of 6 runs each, the size the verdict asks for;
- the coverage of the shift interval (how often it contains the true +3.8%) from 4 to 10
  runs each, and at 2 and 3 runs each, where benchdoc shows no interval, the coverage of
  the widest one it could have shown.

    python benchmarks/stats_power.py          # a small table
    python benchmarks/stats_power.py --json   # {"fpr_5v5": ..., "family_fpr_k10": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from benchdoc.stats import compare, compare_many

NOISE_CV = 0.015
EFFECT = 0.038
BASELINE = 92.6
ALPHA = 0.05
FAMILY_SIZES = (1, 2, 6, 10)
INTERVAL_SIZES = tuple(range(2, 11))


def _draw(rng: np.random.Generator, effect: float, size: int | tuple[int, int]) -> np.ndarray:
    """Runs of the baseline's distribution scaled by (1 + effect): the same noise, shifted."""
    return rng.normal(BASELINE, BASELINE * NOISE_CV, size=size) * (1.0 + effect)


def _declared_rate(rng: np.random.Generator, runs: int, effect: float, trials: int, expect: tuple[str, ...]) -> float:
    """The share of single comparisons whose verdict is one of ``expect``."""
    hits = 0
    for _ in range(trials):
        baseline = _draw(rng, 0.0, runs)
        candidate = _draw(rng, effect, runs)
        hits += compare(candidate, baseline, direction="higher", alpha=ALPHA).verdict in expect
    return hits / trials


def _family(rng: np.random.Generator, size: int, runs: int, effect: float, trials: int) -> dict[str, float]:
    """Rates over ``trials`` families of ``size`` candidates against one baseline, Holm-corrected."""
    any_declared = declared = needs_more = 0
    for _ in range(trials):
        baseline = _draw(rng, 0.0, runs)
        candidates = {f"c{i}": _draw(rng, effect, runs) for i in range(size)}
        verdicts = [c.verdict for c in compare_many(candidates, baseline, alpha=ALPHA, correction="holm").values()]
        any_declared += any(v in ("better", "worse") for v in verdicts)
        declared += sum(v == "better" for v in verdicts)
        needs_more += sum(v == "insufficient" for v in verdicts)
    return {
        "any_declared": any_declared / trials,
        "declared": declared / (trials * size),
        "needs_more": needs_more / (trials * size),
    }


def _coverage(rng: np.random.Generator, runs: int, trials: int) -> tuple[float, bool]:
    """(coverage, shown): how often the interval holds the true shift. Where benchdoc
    shows none, the widest interval, from the smallest to the largest pairwise ratio."""
    truth = EFFECT * 100.0
    covered = 0
    shown = True
    for _ in range(trials):
        baseline = _draw(rng, 0.0, runs)
        candidate = _draw(rng, EFFECT, runs)
        comparison = compare(candidate, baseline, direction="higher", alpha=ALPHA)
        low, high = comparison.delta_ci_low, comparison.delta_ci_high
        if low is None or high is None:
            shown = False
            ratios = np.divide.outer(candidate, baseline)
            low, high = (float(ratios.min()) - 1) * 100, (float(ratios.max()) - 1) * 100
        covered += low <= truth <= high
    return covered / trials, shown


def measure(trials: int, seed: int) -> dict[str, float]:
    """Every figure; ``trials`` simulated comparisons (or families) for each."""
    rng = np.random.default_rng(seed)
    figures: dict[str, float] = {
        "fpr_5v5": _declared_rate(rng, 5, 0.0, trials, ("better", "worse")),
        "power_3": _declared_rate(rng, 3, EFFECT, trials, ("better",)),
        "power_5": _declared_rate(rng, 5, EFFECT, trials, ("better",)),
        "power_10": _declared_rate(rng, 10, EFFECT, trials, ("better",)),
    }
    for size in FAMILY_SIZES:
        null = _family(rng, size, 5, 0.0, trials)
        real = _family(rng, size, 5, EFFECT, trials)
        figures[f"family_fpr_k{size}"] = null["any_declared"]
        figures[f"family_power_k{size}"] = real["declared"]
        figures[f"family_needs_more_k{size}"] = real["needs_more"]
    figures["family_power_6runs_k10"] = _family(rng, 10, 6, EFFECT, trials)["declared"]
    for runs in INTERVAL_SIZES:
        coverage, shown = _coverage(rng, runs, 2 * trials)
        figures[f"{'coverage' if shown else 'widest_coverage'}_at_{runs}"] = coverage
    return figures


def _print_table(figures: dict[str, float], trials: int, seed: int, elapsed: float) -> None:
    print(f"benchdoc.stats: {NOISE_CV:.1%} noise CV, alpha {ALPHA}, {trials} trials each, seed {seed}")
    print(f"{'single comparisons':<40} {'runs each':>9} {'rate':>7}")
    print(f"{'false positives (A/A)':<40} {5:>9} {figures['fpr_5v5']:>7.3f}")
    for runs in (3, 5, 10):
        print(f"{f'power to detect +{EFFECT:.1%}':<40} {runs:>9} {figures[f'power_{runs}']:>7.3f}")
    print(f"\n{'Holm families, 5 runs each':<28} {'false pos.':>10} {'power':>7} {'need more runs':>15}")
    for size in FAMILY_SIZES:
        print(
            f"{f'{size} comparison(s)':<28} {figures[f'family_fpr_k{size}']:>10.3f} "
            f"{figures[f'family_power_k{size}']:>7.3f} {figures[f'family_needs_more_k{size}']:>15.3f}"
        )
    print(f"{'10 comparisons, 6 runs each':<28} {'':>10} {figures['family_power_6runs_k10']:>7.3f}")
    print(f"\n{'shift interval (95%)':<28} {'coverage':>9}")
    for runs in INTERVAL_SIZES:
        key = f"coverage_at_{runs}"
        if key in figures:
            print(f"{f'{runs} vs {runs}':<28} {figures[key]:>9.3f}")
        else:
            print(f"{f'{runs} vs {runs}':<28} {figures[f'widest_{key}']:>9.3f}  (none shown: the widest possible)")
    print(f"({elapsed:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument(
        "--trials", type=int, default=1000, help="simulated comparisons or families per figure (default 1000)"
    )
    parser.add_argument("--seed", type=int, default=20260101, help="seed of the simulated noise")
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    started = time.perf_counter()
    figures = measure(args.trials, args.seed)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        _print_table(figures, args.trials, args.seed, elapsed)
    # The error rates must hold; the shown intervals must cover what they claim (within
    # the simulation's own sampling error, three standard errors).
    fpr_slack = 3 * math.sqrt(ALPHA * (1 - ALPHA) / args.trials)
    coverage_slack = 3 * math.sqrt(0.05 * 0.95 / (2 * args.trials))
    covered = all(v >= 0.95 - coverage_slack for k, v in figures.items() if k.startswith("coverage_"))
    fpr_ok = all(figures[k] <= ALPHA + fpr_slack for k in ("fpr_5v5", *(f"family_fpr_k{s}" for s in FAMILY_SIZES)))
    return 0 if covered and fpr_ok else 1


if __name__ == "__main__":
    sys.exit(main())
