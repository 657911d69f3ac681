"""status.py: an experiment's status follows what its primary metric measures, not how it is worded."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.test_results import BASE, Runs

from benchdoc.config import parse_config
from benchdoc.results import Status, compute_results

WORSE_VALUES = [80.1, 80.3, 80.0, 80.2, 80.4]


@pytest.mark.parametrize(
    ("metric_table", "expected"),
    [
        ('unit = "tok/s"', Status.SLOWER),
        ('unit = "tok/s"\nworse_word = "behind"', Status.SLOWER),  # a speed, whatever word it is shown with
        ('unit = "%"\nworse_word = "slower"', Status.WORSE),  # the word alone does not make it a speed
        ('unit = "ms"\ndirection = "lower"', Status.WORKS),  # lower is better: the smaller values win
    ],
)
def test_a_losing_experiment_is_slower_only_when_its_metric_is_a_speed(metric_table: str, expected: Status) -> None:
    config = parse_config(
        f"[metrics.m]\nprimary = true\n{metric_table}\n\n"
        '[experiments.base]\nrole = "reference"\n\n[experiments.new]\ncompare_to = "base"\n',
        Path("benchdoc.toml"),
    )
    runs = Runs()
    runs.add("base", BASE, metric="m")
    runs.add("new", WORSE_VALUES, metric="m")
    results = compute_results(config, runs.runs)
    assert results["new"].status is expected
    assert results["base"].status is Status.REFERENCE
