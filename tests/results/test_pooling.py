"""Which runs a result pools: the project's [stats] pool, overridden by a view when asked."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG
from tests.test_results import T0, Runs

from benchdoc.config import Config, parse_config
from benchdoc.ledger.models import Retraction
from benchdoc.pooling import Pooling, PoolingError, parse_pooling
from benchdoc.results import compute_results, effective_pooling, pooled_run_ids


def story_with_pool(pool: str) -> Config:
    return parse_config(STORY_CONFIG + f'\n[stats]\npool = "{pool}"\n', Path("benchdoc.toml"))


def three_baseline_runs() -> Runs:
    runs = Runs()
    runs.add("baseline", [90.0], day=0)
    runs.add("baseline", [91.0], day=1)
    runs.add("baseline", [92.0, 93.0], day=2)
    return runs


@pytest.mark.parametrize(
    ("pool", "values"),
    [("latest", [92.0, 93.0]), ("runs:2", [92.0, 93.0, 91.0]), ("all", [92.0, 93.0, 91.0, 90.0]),
     ("since:2026-11-03", [92.0, 93.0, 91.0])],
)
def test_the_project_setting_decides_what_a_result_pools(pool: str, values: list[float]) -> None:
    config = story_with_pool(pool)
    results = compute_results(config, three_baseline_runs().runs)
    assert results.pooling == config.stats.pool
    assert results["baseline"].values("output_tok_s") == values
    assert results["baseline"].summaries["output_tok_s"].n == len(values)


def test_a_view_that_asks_for_another_pooling_gets_it() -> None:
    config = story_with_pool("all")
    override = Pooling("runs", count=1)
    assert effective_pooling(config) == Pooling("all")
    assert effective_pooling(config, override) is override
    results = compute_results(config, three_baseline_runs().runs, pooling=override)
    assert results["baseline"].values("output_tok_s") == [92.0, 93.0]


def test_the_runs_marked_pooled_are_the_runs_the_result_pools() -> None:
    runs = three_baseline_runs()
    runs.add("baseline", failed="OOM", day=3)
    retracted = runs.runs[1]
    runs.runs[1] = replace(retracted, retraction=Retraction("wrong model", T0 + timedelta(days=4)))
    for pool in ("latest", "runs:2", "all"):
        config = story_with_pool(pool)
        results = compute_results(config, runs.runs)
        assert pooled_run_ids(config, runs.runs) == {r.id for r in results["baseline"].pooled}
    assert pooled_run_ids(story_with_pool("all"), runs.runs) == {1, 3}


@pytest.mark.parametrize("text", ["latest", "all", "runs:3", "since:2026-11-01", "since:2026-11-01T09:15"])
def test_a_pooling_reads_back_from_its_spelling(text: str) -> None:
    assert parse_pooling(text).spelling == text
    assert parse_pooling(parse_pooling(text).spelling) == parse_pooling(text)


def test_since_is_taken_in_utc() -> None:
    assert parse_pooling("since:2026-11-02T12:00").since == T0
    assert parse_pooling("since:2026-11-02T13:00+01:00").since == T0


@pytest.mark.parametrize("text", ["", "runs:", "runs:-1", "since:", "every", "all:3"])
def test_a_pooling_written_wrongly_names_the_accepted_forms(text: str) -> None:
    with pytest.raises(PoolingError, match=r'"latest", "all", "runs:N"'):
        parse_pooling(text)
