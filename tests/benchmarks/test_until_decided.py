"""benchmarks/until_decided.py: optional stopping under --until-decided keeps the
false-positive rate at or below alpha, where naive peeking does not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "until_decided.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False)


def test_false_positives_stay_at_or_below_alpha_and_the_figures_are_seeded() -> None:
    first = run("--json", "--trials", "3000", "--cross-check", "15", "--seed", "7")
    assert first.returncode == 0, first.stderr
    figures = json.loads(first.stdout)
    assert figures["fpr_until_decided"] <= figures["alpha"] == 0.05
    assert figures["fpr_naive"] > 0.05 > figures["fpr_until_decided"]  # peeking inflates, spending does not
    assert figures["cross_check_disagreements"] == 0 and figures["cross_checked_trials"] == 15
    assert figures["alpha_per_look"] * len(figures["looks"]) <= 0.05
    assert figures["power_until_decided"] > 0.5
    again = run("--json", "--trials", "3000", "--cross-check", "15", "--seed", "7")
    assert json.loads(again.stdout) == figures


def test_table_names_each_rule() -> None:
    result = run("--trials", "500", "--cross-check", "5", "--baseline-runs", "10")
    assert result.returncode == 0, result.stderr
    for text in ("until decided (Bonferroni alpha spending)", "naive: alpha at every repetition",
                 "fixed: one test after 5 repetitions", "0 disagreements"):
        assert text in result.stdout
