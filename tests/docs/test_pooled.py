"""A region's own pooling: runs=N or pool=..., its caption's note, and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG
from tests.test_results import Runs

from benchdoc.config import parse_config
from benchdoc.docs import parse_text
from benchdoc.docs.pooled import region_pooling
from benchdoc.docs.render import Renderer
from benchdoc.docs.sync import plan_text
from benchdoc.errors import DocumentError
from benchdoc.pooling import Pooling
from benchdoc.results import LazyResults, compute_results

CONFIG = parse_config(STORY_CONFIG, Path("benchdoc.toml"))


def renderer() -> Renderer:
    """baseline: three runs of two samples each (the latest 92.x, then 91.x, then 90.x)."""
    runs = Runs()
    for day, base in enumerate((90.0, 91.0, 92.0)):
        runs.add("baseline", [base, base + 0.5], day=day)
    return Renderer(CONFIG, LazyResults.of(compute_results(CONFIG, runs.runs)), Path("log.md"))


def render(marker: str, inline: bool = False) -> str:
    text = f"x {marker}old<!-- benchdoc:end -->\n" if inline else f"{marker}\n<!-- benchdoc:end -->\n"
    plan = plan_text(text, renderer(), path="log.md")
    plan.raise_for_errors()
    (region,) = plan.regions
    assert region.new_content is not None
    return region.new_content


def test_a_value_region_pools_what_it_asks_for() -> None:
    assert render("<!-- benchdoc:value baseline.output_tok_s show=n -->", inline=True) == "2"
    assert render("<!-- benchdoc:value baseline.output_tok_s show=n runs=2 -->", inline=True) == "4"
    assert render("<!-- benchdoc:value baseline.output_tok_s show=n pool=all -->", inline=True) == "6"
    assert render("<!-- benchdoc:value baseline.output_tok_s pool=since:2026-11-03 -->", inline=True) == "91.8"


def test_a_table_with_its_own_pooling_says_so_and_others_do_not() -> None:
    own = render('<!-- benchdoc:table experiments=baseline columns="label n" runs=3 -->')
    assert "| Baseline (no spec) | 6 |" in own
    assert "Median of the latest 3 successful runs of each experiment (not the project's [stats] pool = \"latest\");" in own
    plain = render('<!-- benchdoc:table experiments=baseline columns="label n" -->')
    assert "| Baseline (no spec) | 2 |" in plain and "not the project's" not in plain


def test_a_region_asking_for_the_project_default_carries_no_note() -> None:
    latest = render('<!-- benchdoc:table experiments=baseline columns="label n" pool=latest -->')
    assert "| Baseline (no spec) | 2 |" in latest and "not the project's" not in latest


@pytest.mark.parametrize(
    ("attrs", "message"),
    [("runs=0", "runs='0': expected a whole number of runs, at least 1"),
     ("runs=many", "runs='many': expected a whole number of runs, at least 1"),
     ("pool=newest", "pool='newest': expected one of latest, all, runs:N (N >= 1) or since:YYYY-MM-DD[THH:MM]"),
     ("pool=since:soon", "pool='since:soon': expected one of"),
     ("runs=2 pool=all", "runs=2 and pool=all: give one of them, not both")],
)
def test_a_bad_pooling_attribute_is_a_located_error(attrs: str, message: str) -> None:
    text = f"# Log\n\n<!-- benchdoc:table experiments=baseline {attrs} -->\n<!-- benchdoc:end -->\n"
    plan = plan_text(text, renderer(), path="log.md")
    (error,) = plan.errors
    assert error.line == 3 and message in str(error) and str(error).startswith("log.md:3: ")


def test_region_pooling_reads_runs_and_pool() -> None:
    assert region_pooling({}) is None
    assert region_pooling({"runs": "5"}) == Pooling("runs", count=5)
    assert region_pooling({"pool": "all"}) == Pooling("all")
    with pytest.raises(DocumentError):
        region_pooling({"pool": ""})


def test_a_list_region_takes_no_pooling() -> None:
    (region,) = parse_text('<!-- benchdoc:list runs=2 -->\n<!-- benchdoc:end -->\n', "log.md").regions
    with pytest.raises(DocumentError, match="unknown attribute 'runs' for a list region"):
        renderer()(region)


def test_a_chart_region_pools_what_it_asks_for() -> None:
    marker = '<!-- benchdoc:chart kind=bar experiments=baseline metric=output_tok_s file=charts/b.svg{} -->'
    latest, everything = render(marker.format("")), render(marker.format(" pool=all"))
    assert "Baseline (no spec) 92.2" in latest and "Baseline (no spec) 91.2" in everything
    assert "Pooled:" not in latest
    assert "Pooled: every successful run of each experiment, not the project's \\[stats\\] pool = \"latest\"." in everything
