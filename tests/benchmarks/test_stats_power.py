"""benchmarks/stats_power.py: the simulation runs, is seeded, and reports every figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "stats_power.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_json_figures_are_seeded_and_sensible() -> None:
    first = run("--json", "--trials", "30", "--seed", "3")
    assert first.returncode == 0, first.stderr
    figures = json.loads(first.stdout)
    families = {f"family_{kind}_k{k}" for kind in ("fpr", "power", "needs_more") for k in (1, 2, 6, 10)}
    intervals = {f"widest_coverage_at_{n}" for n in (2, 3)} | {f"coverage_at_{n}" for n in range(4, 11)}
    expected = {"fpr_5v5", "power_3", "power_5", "power_10", "family_power_6runs_k10"} | families | intervals
    assert set(figures) == expected
    assert all(0.0 <= value <= 1.0 for value in figures.values())
    assert figures["power_3"] == 0.0  # 3 vs 3 runs can never reach p <= 0.05
    # Ten comparisons of 5 runs: Holm leaves the first alpha/10 = 0.005, below the 5 vs 5
    # floor of 2/252, so every verdict asks for more runs and none is "no difference".
    assert figures["family_needs_more_k10"] == 1.0 and figures["family_power_k10"] == 0.0
    assert figures["family_needs_more_k6"] == 0.0
    assert figures["family_power_6runs_k10"] > 0.0
    again = run("--json", "--trials", "30", "--seed", "3")
    assert json.loads(again.stdout) == figures


def test_table_output_names_each_scenario() -> None:
    result = run("--trials", "20")
    assert result.returncode == 0, result.stderr
    assert "false positives (A/A)" in result.stdout
    assert result.stdout.count("power to detect +3.8%") == 3
    assert "10 comparison(s)" in result.stdout and "10 comparisons, 6 runs each" in result.stdout
    assert result.stdout.count("(none shown: the widest possible)") == 2
    assert "10 vs 10" in result.stdout
