"""benchmarks/stats_power.py: the simulation runs, is seeded, and reports every figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "stats_power.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600, check=False
    )


def test_json_figures_are_seeded_and_sensible() -> None:
    first = run("--json", "--trials", "12", "--aa-trials", "16", "--seed", "3", "--no-grid")
    assert first.returncode in (0, 1), first.stderr  # 12 trials: the error-rate check may go either way
    figures = json.loads(first.stdout)
    assert json.loads(run("--json", "--trials", "12", "--aa-trials", "16", "--seed", "3", "--no-grid").stdout) == figures
    designs = {f"{kind}_d{i}" for kind in ("fpr", "fpr_flat", "power") for i in range(1, 6)}
    covered = {f"{kind}_d{i}" for kind in ("coverage", "median_coverage", "median_flat_cover")
               for i in range(3, 6)}  # one start a side shows no interval of the shift, none over starts
    families = {f"family_{kind}_k{k}" for kind in ("fpr", "power") for k in (1, 2, 6, 10)}
    intervals = {f"coverage_at_{n}" for n in range(2, 11)}
    outliers = {f"outlier_marked_n{n}" for n in (5, 6, 8, 10, 20)}
    singles = {"fpr_5v5", "power_3", "power_5", "power_10", "family_power_6runs_k10"}
    counts = {"trials": 12, "aa_trials": 16}  # the A/A rates of the designs over --aa-trials
    assert {key: figures.pop(key) for key in counts} == counts
    assert figures.pop("aa_standard_error") == (0.05 * 0.95 / 16) ** 0.5
    assert set(figures) == designs | covered | families | intervals | outliers | singles | {
        "spread_direction", "real_change_equivalent"}
    assert all(0.0 <= value <= 1.0 for value in figures.values())
    assert all(16 * figures[f"fpr_d{i}"] == round(16 * figures[f"fpr_d{i}"]) for i in range(1, 6))
    # One start a side is never declared, whatever the between-start variance.
    assert figures["fpr_d1"] == figures["fpr_d2"] == figures["power_d1"] == 0.0


def test_table_output_names_each_scenario_and_the_grid() -> None:
    result = run("--trials", "3", "--aa-trials", "3", "--grid-trials", "2")
    assert result.returncode in (0, 1), result.stderr
    assert "1 start(s) x 5 reps, between 2.0%, within 0.5%" in result.stdout
    assert "Holm families" in result.stdout and "10 comparisons, 6 starts each" in result.stdout
    assert "grid (1.5% total sd)" in result.stdout and result.stdout.count("\n 0.9 ") == 4
    assert "outlier marked in a clean normal sample" in result.stdout
    assert "median interval coverage, over starts / pooled order statistics: d3 " in result.stdout
    assert "(3 for the designs' A/A rates: standard error 0.1258 at 0.05)" in result.stdout
