"""benchmarks/until_decided.py: the verdict shown after --until-decided, the baseline
running alongside in rounds of server starts, keeps the false-positive rate at or below
alpha, alone and in a Holm family, where naive peeking and re-testing do not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "until_decided.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, check=False)


def test_the_verdict_shown_is_the_sequential_one_and_the_figures_are_seeded() -> None:
    first = run("--json", "--trials", "2000", "--shown", "15", "--seed", "7", "--family", "1")
    assert first.returncode == 0, first.stderr
    figures = json.loads(first.stdout)
    assert figures["fpr_until_decided"] <= figures["alpha"] == 0.05
    assert figures["fpr_naive"] > 0.05 > figures["fpr_until_decided"]  # peeking inflates, spending does not
    # Re-testing the runs a trial stopped with at the full alpha reads far more into them.
    assert figures["fpr_reread"] > 3 * figures["fpr_until_decided"]
    assert figures["shown_trials"] == 15 and figures["reps_per_start"] == 3 and figures["max_starts"] == 20
    assert "family_size" not in figures
    assert figures["replay_disagreements"] == 0 and figures["shown_disagreements"] == 0
    assert figures["alpha_per_look"] * len(figures["looks"]) <= 0.05
    assert figures["power_until_decided"] > 0.5
    # After a decided stop the shift shown is near the truth here (most trials stop at the
    # first looks); the repeated interval beside it holds it.
    assert abs(figures["bias_shown_pct"]) < 1.0 and figures["coverage_shown"] >= 0.9
    again = run("--json", "--trials", "2000", "--shown", "15", "--seed", "7", "--family", "1")
    assert json.loads(again.stdout) == figures


def test_table_names_each_rule() -> None:
    result = run("--trials", "300", "--shown", "5", "--reps", "2", "--family", "2")
    assert result.returncode == 0, result.stderr
    for text in ("until decided: the verdict shown (5 trials)", "until decided: the sequential test",
                 "its starts re-tested at the full alpha", "naive: alpha at every round",
                 "fixed: one test after 5 starts", "0 stopped elsewhere, 0 shown otherwise",
                 "the baseline alongside: 5..20 server starts a side of 2 repetitions",
                 "family of 2 (Holm), any false verdict", "... the verdicts shown",
                 "after a decided stop the shift shown is"):
        assert text in result.stdout


def test_a_family_alongside_one_baseline_keeps_the_family_wise_rate() -> None:
    """Three candidates alongside one baseline each decide at the level Holm leaves them
    while the others run (alpha / 3), so the chance of any false verdict stays at alpha."""
    result = run("--json", "--trials", "2000", "--shown", "4", "--seed", "3")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["family_size"] == 3
    assert figures["family_alpha_per_look"] * len(figures["looks"]) <= 0.05 / 3 + 1e-12
    assert figures["family_fpr_until_decided"] <= 0.05 and 0.0 <= figures["family_fpr_shown"] <= 1.0
