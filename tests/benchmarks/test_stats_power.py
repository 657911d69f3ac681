"""benchmarks/stats_power.py: the simulation runs, is seeded, and reports the four figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "stats_power.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_json_figures_are_seeded_and_sensible() -> None:
    first = run("--json", "--trials", "100", "--seed", "3")
    assert first.returncode == 0, first.stderr
    figures = json.loads(first.stdout)
    assert set(figures) == {"fpr_5v5", "power_3", "power_5", "power_10"}
    assert all(0.0 <= value <= 1.0 for value in figures.values())
    assert figures["power_3"] == 0.0  # 3 vs 3 runs can never reach p <= 0.05
    assert figures["fpr_5v5"] <= 0.05
    assert figures["power_5"] < figures["power_10"]
    again = run("--json", "--trials", "100", "--seed", "3")
    assert json.loads(again.stdout) == figures


def test_table_output_names_each_scenario() -> None:
    result = run("--trials", "50")
    assert result.returncode == 0, result.stderr
    assert "false positives (A/A)" in result.stdout
    assert result.stdout.count("power to detect +3.8%") == 3
