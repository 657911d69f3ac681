"""Classes of claim misreading found on the fifth round of held-out batches, each probed with sentences of our own.

The CPU-serving project of :mod:`tests.lint.test_claim_classes_d`, with a cost per million tokens
(pinned threads 25% cheaper than stock, huge pages 10%) and one more experiment, turbo boost
(compared with the stock build), whose only run failed: it has no result to compare.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.lint.conftest import facts_from, failed, measured, spread
from tests.lint.test_claim_classes_d import CONFIG, METRICS, RUNS, T0

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_CLAIM, Finding

COST = """
[metrics.cost_usd_mtok]
label = "Cost per million tokens"
unit = "USD/Mtok"
direction = "lower"
digits = 2
"""
# Cost per million tokens of each experiment: pinned threads 25% cheaper than stock, huge pages 10%.
COSTS = {"stock": 2.00, "pinned": 1.50, "hugepages": 1.80, "prefetch": 2.00, "interleave": 1.40}
TURBO = """
[experiments.turbo]
label = "Turbo boost"
aliases = ["turbo"]
compare_to = "stock"
"""


@pytest.fixture(scope="module")
def cpu(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    runs = [measured(name, T0 + timedelta(days=day),
                     {**{m: spread(c, width) for m, c in zip(METRICS, figures)}, "cost_usd_mtok": spread(COSTS[name], 0.001)},
                     "cpu-a")
            for name, day, figures, width in RUNS]
    runs.append(failed("turbo", T0 + timedelta(days=4), "OOM", "cpu-a"))
    return facts_from(tmp_path_factory.mktemp("cpu-e"), CONFIG + COST + TURBO, runs)


def claims(facts: LintFacts, text: str) -> list[Finding]:
    return [f for f in lint_text(facts, text + "\n", "log.md") if f.kind == STALE_CLAIM]


def table(delta_header: str, turbo_cell: str, pinned_cell: str = "40.0% faster") -> str:
    return (f"| Experiment | Output tok/s | {delta_header} |\n|---|---|---|\n| Stock build | 100 | — |\n"
            f"| Pinned threads | 140 | {pinned_cell} |\n| Turbo boost | — | {turbo_cell} |")


@pytest.mark.parametrize("cell", ["30.0% faster", "+30.0%", "1.3x faster"])
def test_a_delta_cell_of_an_experiment_without_a_result_is_a_claim_the_ledger_cannot_back(
        cpu: LintFacts, cell: str) -> None:
    (stale,) = claims(cpu, table("vs stock", cell))
    assert stale.line == 5 and "no successful result" in stale.message and "Turbo boost" in stale.message
    assert stale.fix.startswith("no fix proposed")
    (stale,) = claims(cpu, table("vs stock (Output throughput)", cell))
    assert stale.line == 5


def test_a_delta_cell_without_a_result_must_stay_quiet_when_it_claims_nothing_or_plans(cpu: LintFacts) -> None:
    # must stay: no figure, or a plan's figure ("target: +30%", "expected 1.3x faster"), is no claim of a result.
    assert claims(cpu, table("vs stock", "failed, not measured")) == []
    assert claims(cpu, table("vs stock", "—")) == []
    assert claims(cpu, table("vs stock", "target: +30%")) == []
    assert claims(cpu, table("vs stock", "expected 1.3x faster")) == []
    # must stay: a measured row's true delta in the same table; a false one is still read against the ledger.
    assert claims(cpu, table("vs stock", "—", pinned_cell="+40.0%")) == []
    (stale,) = claims(cpu, table("vs stock", "—", pinned_cell="+10.0%"))
    assert stale.line == 4 and "40.0% faster than Stock build" in stale.fix


def test_a_journal_s_lines_are_each_their_own_sentence(cpu: LintFacts) -> None:
    # A "respectively" or a plan on another line of a journal's paragraph belongs to that line alone.
    for before in ("– pinned and huge pages: goodput 10.0 and 4.40 req/s respectively\n",
                   "· rerun huge pages if the box frees up\n"):
        (stale,) = claims(cpu, before + "– huge pages 30% faster than pinned\n")
        assert stale.line == 2 and "21.4% slower than Pinned threads" in stale.fix
        assert claims(cpu, before + "– huge pages 21% slower than pinned\n") == []
    # must stay: in one sentence wrapped over lines the "respectively" or the plan is the claim's own.
    assert claims(cpu, "Pinned threads and huge pages are 80% and 70% faster than\nstock respectively.") == []
    assert claims(cpu, "If the box frees up, huge pages\nmight be 30% faster than pinned.") == []


def test_ahead_of_or_behind_another_by_a_figure_is_a_claim_against_it(cpu: LintFacts) -> None:
    # Pinned threads' goodput is 2.5x stock's (+150%); huge pages is 21.4% slower than pinned threads.
    assert claims(cpu, "Pinned threads' goodput is ahead of stock by 150%.") == []
    (stale,) = claims(cpu, "Pinned threads' goodput is ahead of stock by 10%.")
    assert stale.text == "ahead of stock by 10%" and "pinned.goodput_rps" in stale.fix
    assert claims(cpu, "Huge pages is behind pinned by 21%.") == []
    (stale,) = claims(cpu, "Huge pages falls behind pinned by 50%.")
    assert "21.4% slower than Pinned threads" in stale.fix
    # must stay: ahead of a date or a plan, not of an experiment, is no comparison the ledger holds.
    assert claims(cpu, "Pinned threads is ahead of schedule by 10%.") == []
    assert claims(cpu, "Pinned threads landed ahead of the release by two weeks.") == []


def test_a_word_of_price_is_about_the_cost_metric(cpu: LintFacts) -> None:
    # Pinned threads' cost per million tokens is 25% below stock's; its throughput 40% above.
    assert claims(cpu, "Pinned threads is 25% cheaper than stock.") == []
    assert claims(cpu, "Stock is 33% more expensive than pinned threads per million tokens.") == []
    (stale,) = claims(cpu, "Pinned threads is 12% cheaper than stock.")
    assert "pinned.cost_usd_mtok" in stale.fix
    (stale,) = claims(cpu, "Huge pages is 30% cheaper than the stock build.")
    assert "hugepages.cost_usd_mtok" in stale.fix
    assert claims(cpu, "Pinned threads saves 25% on cost per million tokens versus stock.") == []
    (stale,) = claims(cpu, "Pinned threads saves 9% on cost per million tokens versus stock.")
    assert "pinned.cost_usd_mtok" in stale.fix
    # must stay: a saving of what no metric names, or of nothing named, is no claim; a cheaper thing is no result.
    assert claims(cpu, "Pinned threads saves 9% versus stock.") == []
    assert claims(cpu, "Pinned threads saves 9% of the operator's time versus stock.") == []
    assert claims(cpu, "On a 30% cheaper GPU, pinned threads is 40% faster than stock.") == []


def test_an_interval_of_a_named_pair_is_no_claim_of_its_own(cpu: LintFacts) -> None:
    # "the interval against X runs from A to B": the pair named between "interval" and its ends.
    for words in ("the interval against stock runs from -2.0% to +5.1%",
                  "the interval versus the stock build ranges from -2.0% to +5.1%",
                  "the CI against stock is -2.0% to +5.1%"):
        assert claims(cpu, f"Prefetching is inconclusive: {words}.") == []
    # must stay: a claim after such an interval is still read, and "against X runs N% faster" is a claim.
    (stale,) = claims(cpu, "The interval against stock runs from -2.0% to +5.1%, and huge pages is 30% faster than stock.")
    assert stale.text == "30% faster than stock"
    (stale,) = claims(cpu, "Pinned threads against stock runs 80% faster.")
    assert "40.0% faster than Stock build" in stale.fix


@pytest.mark.parametrize("source", ["in the vendor's tests", "in the upstream runs", "per the vendor's evaluation",
                                    "from the official testing"])
def test_a_figure_of_another_s_tests_is_not_ours(cpu: LintFacts, source: str) -> None:
    # Huge pages is 10% faster than stock in our ledger; a figure from someone else's tests is theirs.
    assert claims(cpu, f"Huge pages is 2x faster than stock {source}.") == []


def test_a_figure_beside_another_s_tests_is_still_ours(cpu: LintFacts) -> None:
    # must stay: tests named as no source of the figure ("after", "as ... found") leave the claim ours.
    (stale,) = claims(cpu, "After the vendor's tests, huge pages is 2x faster than stock.")
    assert "10.0% faster than Stock build" in stale.fix
    (stale,) = claims(cpu, "Huge pages is 2x faster than stock; see the vendor's tests for theirs.")
    assert "10.0% faster than Stock build" in stale.fix


def test_lifts_and_shortens_by_a_figure_are_changes_of_the_metric_named(cpu: LintFacts) -> None:
    # Pinned threads' goodput is +150% over stock; its resident memory -25%.
    assert claims(cpu, "Pinned threads lifts goodput by 150% over stock.") == []
    (stale,) = claims(cpu, "Pinned threads lifts goodput by 20% over stock.")
    assert "pinned.goodput_rps" in stale.fix
    assert claims(cpu, "Pinned threads shortens resident memory by 25% against stock.") == []
    (stale,) = claims(cpu, "Pinned threads shortens resident memory by 60% against stock.")
    assert "pinned.rss_gb" in stale.fix
    # must stay: what is lifted or shortened is no metric of ours.
    assert claims(cpu, "Pinned threads lifts the box off the rack by 20%.") == []
    assert claims(cpu, "Pinned threads shortens the queue by 60% against stock.") == []
