"""Does the verdict benchdoc shows after `run --until-decided` keep its false-positive rate
at or below alpha?

Simulates seeded A/A comparisons in the design `run baseline candidate --until-decided`
runs: the baseline runs alongside the candidate in rounds, one server start of each a
round, every start of a few repetitions; the first look comes after 5 starts each, then one
look a round up to 20 starts each, stopping at the first look that declares a significant
difference. A value is the true throughput times exp(b + w): b drawn once per server start
(between-start noise), w once per repetition (within-start noise), both Gaussian, 1.5% in
all, 90% of its variance between starts (intra-start correlation 0.9: starts differ more
than repetitions do), three repetitions a start. Three stopping
rules are compared:

- until decided: benchdoc's rule (`benchdoc.runner.sequential`): alpha split in equal
  shares over the looks that can reject (Bonferroni alpha spending);
- naive peeking: test at the full alpha after every round, stop at the first p <= alpha;
- fixed: one test after the planned 5 starts each (the reference point).

In an A/A comparison every "significant" is a false positive. The headline figure is the
rate of the verdict a user sees: a sample of trials is replayed through the runner's own
look (`take_look`, given each value's server start), recorded as the runner records a run
(`stopping_record`), and read back through the views' one computation
(`benchdoc.results.compute_results`), the one `show`, tables and the lint print. For
contrast it reports what re-testing the starts a trial stopped with at the full alpha
would say (the fixed-sample verdict of data whose size was chosen by peeking), the power
to detect a real +3.8% change, and, replayed through the views, how far the shift shown
after a decided stop is from the truth and how often the interval shown (the repeated
confidence interval) holds it.

A family: --family K candidates (default 3) run alongside one baseline, each deciding at
the level the project's correction (Holm) leaves it while the others are still running
(alpha / K), every view then correcting the K comparisons together; the family-wise
false-positive rate, of the sequential tests and of the verdicts shown, must stay at or
below alpha too.

Equivalence stopping is left out on purpose: it would only end trials earlier, giving
false positives fewer chances, so this is the worst case. The p-values of all trials are
computed at once with scipy's Welch t-test on the per-start means of the log values,
which is the runner's test; the replayed sample checks that both decide alike.

    python benchmarks/until_decided.py          # a small table
    python benchmarks/until_decided.py --json   # {"fpr_shown": ..., "fpr_until_decided": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import ttest_ind

from benchdoc.config import Config, parse_config
from benchdoc.ledger.metadata import RunMetadata, SequentialTest
from benchdoc.ledger.models import RunRecord, Sample
from benchdoc.results import compute_results
from benchdoc.results.sequential import family_level
from benchdoc.runner.sequential import Look, StoppingPlan, plan_stopping, stopping_record, take_look

NOISE_CV = 0.015
EFFECT = 0.038
CENTRE = 92.6
ALPHA = 0.05
METRIC = "output_tok_s"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _project(candidates: list[str]) -> str:
    experiments = "".join(f'\n[experiments.{name}]\ncompare_to = "baseline"\n' for name in candidates)
    return f"""
[stats]
alpha = {ALPHA}
correction = "holm"

[metrics.{METRIC}]
direction = "higher"
primary = true

[experiments.baseline]
role = "reference"
{experiments}"""


@dataclass(frozen=True)
class Design:
    first: int
    maximum: int
    reps: int
    between: float
    within: float


def _draw(rng: np.random.Generator, design: Design, trials: int, effect: float) -> np.ndarray:
    """(trials, starts, reps) values of one side."""
    starts = rng.normal(0.0, design.between, size=(trials, design.maximum, 1))
    noise = rng.normal(0.0, design.within, size=(trials, design.maximum, design.reps))
    return CENTRE * (1.0 + effect) * np.exp(starts + noise)


def _p_values(candidate: np.ndarray, baseline: np.ndarray, design: Design) -> dict[int, np.ndarray]:
    """Each trial's two-sided Welch p-value of per-start log means after n rounds, for every n."""
    a, b = np.log(candidate).mean(axis=2), np.log(baseline).mean(axis=2)
    return {
        n: ttest_ind(a[:, :n], b[:, :n], axis=1, equal_var=False).pvalue
        for n in range(max(design.first, 2), design.maximum + 1)
    }


def _first_rejection(p: dict[int, np.ndarray], looks: tuple[int, ...], level: float, trials: int) -> np.ndarray:
    """The round at which each trial is first declared significant (0: never)."""
    decided = np.zeros(trials, dtype=int)
    for n in looks:
        hit = (p[n] <= level) & (decided == 0)
        decided[hit] = n
    return decided


def _flat(side: np.ndarray, starts: int) -> tuple[list[float], list[int]]:
    """The first ``starts`` starts of one trial's side: values and the start of each."""
    values = side[:starts]
    return [float(v) for v in values.ravel()], [s for s in range(starts) for _ in range(values.shape[1])]


def _run(run_id: int, experiment: str, side: np.ndarray, starts: int, until_decided: SequentialTest | None) -> RunRecord:
    """A run of ``starts`` server starts as the ledger gives it back."""
    started = T0 + timedelta(minutes=run_id)
    values, labels = _flat(side, starts)
    return RunRecord(
        id=run_id, experiment=experiment, outcome="ok", started_at=started, finished_at=started + timedelta(seconds=30),
        failure_reason=None, failure_log_line=None, command=None, host=None, git_commit=None, git_dirty=None,
        environment={}, note=None, source="run", metadata=RunMetadata(until_decided=until_decided),
        samples=tuple(Sample(METRIC, value, index, start) for index, (value, start) in enumerate(zip(values, labels))),
    )


def _replay(plan: StoppingPlan, candidate: np.ndarray, baseline: np.ndarray) -> tuple[list[Look], str | None]:
    """The looks the runner takes on one trial, the baseline alongside, up to its first decision."""
    looks: list[Look] = []
    for n in plan.looks:
        values, starts = _flat(candidate, n)
        base, base_starts = _flat(baseline, n)
        look = take_look(plan, values, base, candidate_starts=starts, baseline_starts=base_starts)
        looks.append(look)
        if look.decision is not None:
            return looks, look.decision
    return looks, None


def _shown_family(plan: StoppingPlan, config: Config, candidates: list[np.ndarray], baseline: np.ndarray
                  ) -> tuple[dict[str, Any], list[int], list[str | None]]:
    """One trial of ``len(candidates)`` candidates and their baseline alongside, replayed
    through the runner and read back through the views: (comparisons, rounds, decisions)."""
    stops: list[int] = []
    decisions: list[str | None] = []
    records = []
    for candidate in candidates:
        looks, decision = _replay(plan, candidate, baseline)
        stopped = looks[-1].starts if looks else plan.first
        base_n = stopped * baseline.shape[1]
        records.append(stopping_record(
            plan, looks, decision, compare_to="baseline", metric=METRIC, baseline_runs=[1], baseline_n=base_n,
            alpha=ALPHA, max_repetitions=plan.maximum,
        ))
        stops.append(stopped)
        decisions.append(decision)
    runs = [_run(1, "baseline", baseline, max(stops), None)]  # it runs while any candidate does
    runs += [_run(2 + i, f"c{i}", c, stop, record) for i, (c, stop, record) in enumerate(zip(candidates, stops, records))]
    results = compute_results(config, runs)
    return {f"c{i}": results[f"c{i}"].comparisons[METRIC] for i in range(len(candidates))}, stops, decisions


def _plan(config: Config, design: Design, names: list[str], alpha: float = ALPHA) -> StoppingPlan:
    """The runner's plan for c0 with the others of ``names`` running alongside: the level
    its family correction leaves it, split over its looks (the baseline counts by the most starts)."""
    level, _ = family_level([], "c0", METRIC, config.stats.correction, alpha, running=names)
    return plan_stopping(level, design.first, design.maximum, design.maximum)


def _single(rng: np.random.Generator, design: Design, trials: int, sample: int) -> dict[str, Any]:
    config = parse_config(_project(["c0"]), Path("benchdoc.toml"))
    plan = _plan(config, design, ["c0"])
    every = tuple(range(max(design.first, 2), design.maximum + 1))

    candidate, baseline = _draw(rng, design, trials, 0.0), _draw(rng, design, trials, 0.0)
    p = _p_values(candidate, baseline, design)
    until = _first_rejection(p, plan.looks, plan.alpha_per_look, trials)
    naive = _first_rejection(p, every, ALPHA, trials)
    last = plan.looks[-1] if plan.looks else design.first
    stopped_at = np.where(until > 0, until, last)
    by_size = np.stack([p[n] for n in every], axis=1)
    reread = by_size[np.arange(trials), stopped_at - every[0]] <= ALPHA
    shown = np.zeros(sample, dtype=bool)
    disagreements = 0
    for trial in range(sample):
        comparisons, stops, decisions = _shown_family(plan, config, [candidate[trial]], baseline[trial])
        shown[trial] = comparisons["c0"].verdict in ("better", "worse")
        disagreements += (stops[0] if decisions[0] else 0) != until[trial]

    candidate_e, baseline_e = _draw(rng, design, trials, EFFECT), _draw(rng, design, trials, 0.0)
    p_e = _p_values(candidate_e, baseline_e, design)
    until_e = _first_rejection(p_e, plan.looks, plan.alpha_per_look, trials)
    higher = np.log(candidate_e).mean(axis=(1, 2)) > np.log(baseline_e).mean(axis=(1, 2))
    rounds = np.where(until_e > 0, until_e, last)
    truth = EFFECT * 100.0
    decided: list[float] = []
    covered = intervals = 0
    for trial in range(sample):
        comparison = _shown_family(plan, config, [candidate_e[trial]], baseline_e[trial])[0]["c0"]
        if comparison.verdict == "better":
            decided.append(comparison.delta_pct)
        if comparison.delta_ci_low is not None and comparison.delta_ci_high is not None:
            intervals += 1
            covered += comparison.delta_ci_low <= truth <= comparison.delta_ci_high
    return {
        "looks": list(plan.looks),
        "alpha_per_look": plan.alpha_per_look,
        "fpr_shown": float(np.mean(shown)),
        "fpr_until_decided": float(np.mean(until > 0)),
        "fpr_reread": float(np.mean(reread)),
        "fpr_naive": float(np.mean(naive > 0)),
        "fpr_fixed": float(np.mean(p[every[0]] <= ALPHA)),
        "power_until_decided": float(np.mean((until_e > 0) & higher)),
        "power_fixed": float(np.mean((p_e[every[0]] <= ALPHA) & higher)),
        "mean_starts_with_effect": float(np.mean(rounds)),
        # After a stop the data chose, the shift shown runs high; its interval (1 - alpha / K) still holds.
        "bias_shown_pct": float(np.mean(decided) - truth) if decided else float("nan"),
        "coverage_shown": covered / intervals if intervals else float("nan"),
        "replay_disagreements": int(disagreements),
        "shown_disagreements": int(np.sum(shown != (until[:sample] > 0))),
    }


def _family(rng: np.random.Generator, design: Design, size: int, trials: int, sample: int) -> dict[str, Any]:
    """Family-wise A/A rates of ``size`` candidates alongside one baseline, Holm-corrected."""
    names = [f"c{i}" for i in range(size)]
    config = parse_config(_project(names), Path("benchdoc.toml"))
    plan = _plan(config, design, names)
    baseline = _draw(rng, design, trials, 0.0)
    candidates = [_draw(rng, design, trials, 0.0) for _ in names]
    any_until = np.zeros(trials, dtype=bool)
    for candidate in candidates:
        any_until |= _first_rejection(_p_values(candidate, baseline, design), plan.looks, plan.alpha_per_look, trials) > 0
    shown = 0
    for trial in range(sample):
        comparisons = _shown_family(plan, config, [c[trial] for c in candidates], baseline[trial])[0]
        shown += any(c.verdict in ("better", "worse") for c in comparisons.values())
    return {
        "family_size": size,
        "family_alpha_per_look": plan.alpha_per_look,
        "family_fpr_until_decided": float(np.mean(any_until)),
        "family_fpr_shown": shown / sample if sample else float("nan"),
    }


def measure(trials: int, seed: int, design: Design, shown_trials: int, family: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    sample = min(shown_trials, trials)
    figures: dict[str, Any] = {
        "alpha": ALPHA, "trials": trials, "seed": seed, "first": design.first, "max_starts": design.maximum,
        "reps_per_start": design.reps, "between_start_sd": design.between, "within_start_sd": design.within,
        "shown_trials": sample,
    }
    figures.update(_single(rng, design, trials, sample))
    if family > 1:
        figures.update(_family(rng, design, family, trials, sample))
    return figures


def _print_table(figures: dict[str, Any], elapsed: float) -> None:
    looks = figures["looks"]
    print(
        f"A/A comparisons, the baseline alongside: {figures['first']}..{figures['max_starts']} server starts a side "
        f"of {figures['reps_per_start']} repetitions, between-start sd {figures['between_start_sd']:.2%}, within "
        f"{figures['within_start_sd']:.2%}, alpha {ALPHA}, {figures['trials']} trials, seed {figures['seed']}"
    )
    where = f"{looks[0]}-{looks[-1]}" if looks else "none"
    se = math.sqrt(ALPHA * (1 - ALPHA) / figures["trials"])
    print(f"until-decided looks at {where} starts, each at alpha {figures['alpha_per_look']:.4g} "
          f"(standard error of a rate near alpha: {se:.4f}; of the shown rate "
          f"{math.sqrt(ALPHA * (1 - ALPHA) / figures['shown_trials']):.4f})")
    print(f"{'stopping rule':<58} {'false positives':>15}")
    shown = f"until decided: the verdict shown ({figures['shown_trials']} trials)"
    print(f"{shown:<58} {figures['fpr_shown']:>15.4f}")
    print(f"{'until decided: the sequential test':<58} {figures['fpr_until_decided']:>15.4f}")
    print(f"{'until decided, its starts re-tested at the full alpha':<58} {figures['fpr_reread']:>15.4f}")
    print(f"{'naive: alpha at every round':<58} {figures['fpr_naive']:>15.4f}")
    print(f"{'fixed: one test after ' + str(figures['first']) + ' starts':<58} {figures['fpr_fixed']:>15.4f}")
    if "family_size" in figures:
        label = f"family of {figures['family_size']} (Holm), any false verdict: sequential tests"
        print(f"{label:<58} {figures['family_fpr_until_decided']:>15.4f}")
        print(f"{'  ... the verdicts shown':<58} {figures['family_fpr_shown']:>15.4f}")
    print(
        f"power to detect +{EFFECT:.1%}: until decided {figures['power_until_decided']:.3f} "
        f"(mean {figures['mean_starts_with_effect']:.1f} starts a side), fixed {figures['power_fixed']:.3f}"
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
    parser.add_argument("--first", type=int, default=5, help="server starts a side before the first look (default 5)")
    parser.add_argument("--max-starts", type=int, default=20, help="most server starts a side (default 20)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per server start (default 3)")
    parser.add_argument("--icc", type=float, default=0.9,
                        help="share of the 1.5%% noise variance between server starts (default 0.9)")
    parser.add_argument("--family", type=int, default=3,
                        help="candidates alongside one baseline for the family-wise figures (default 3; 1 leaves them out)")
    parser.add_argument("--shown", type=int, default=500,
                        help="trials replayed through the runner and read back through the views (default 500: "
                        "each reads its runs back through every view's computation)")
    args = parser.parse_args(argv)
    if (args.trials < 1 or args.shown < 1 or args.reps < 1 or args.family < 1 or not 0.0 <= args.icc <= 1.0
            or not 1 <= args.first <= args.max_starts):
        parser.error("need --trials, --shown, --reps, --family >= 1, 0 <= --icc <= 1 and 1 <= --first <= --max-starts")
    design = Design(args.first, args.max_starts, args.reps, NOISE_CV * math.sqrt(args.icc),
                    NOISE_CV * math.sqrt(1.0 - args.icc))
    started = time.perf_counter()
    figures = measure(args.trials, args.seed, design, args.shown, args.family)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        _print_table(figures, elapsed)
    # The shown rate is the sequential one trial by trial (no disagreement), so the
    # sequential rates over all trials are the bounds that must hold.
    ok = (
        figures["fpr_until_decided"] <= ALPHA
        and figures.get("family_fpr_until_decided", 0.0) <= ALPHA
        and figures["replay_disagreements"] == 0
        and figures["shown_disagreements"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
