"""Classes of claim misreading found on the fourth pair of held-out batches, each probed with sentences of our own.

A CPU-serving project of its own: the stock build (the reference) outputs 100 tok/s with a
resident memory of 20.0 GB, a memory bandwidth of 100 GB/s and a goodput of 4.00 req/s;
pinned threads 140 tok/s (15.0 GB, 150 GB/s, 10.0 req/s); huge pages 110 tok/s (10.0 GB,
101 GB/s, 4.40 req/s); prefetching 101 tok/s with starts so spread that the ledger cannot
tell it from the stock build; NUMA interleave 150 tok/s, compared with pinned threads. Runs dated 2026-11-02 to 2026-11-05.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from tests.lint.conftest import facts_from, measured, spread

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_CLAIM, Finding

CONFIG = """\
[metrics.out_tok_s]
label = "Output throughput"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.rss_gb]
label = "Resident memory"
unit = "GB"
direction = "lower"
digits = 1

[metrics.bw_gbs]
label = "Memory bandwidth"
unit = "GB/s"
direction = "higher"
digits = 0

[metrics.goodput_rps]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 2

[experiments.stock]
label = "Stock build"
aliases = ["stock"]
role = "reference"

[experiments.pinned]
label = "Pinned threads"
aliases = ["pinned"]
compare_to = "stock"

[experiments.hugepages]
label = "Huge pages"
aliases = ["huge pages"]
compare_to = "stock"

[experiments.prefetch]
label = "Prefetching"
aliases = ["prefetch"]
compare_to = "stock"

[experiments.interleave]
label = "NUMA interleave"
aliases = ["interleave"]
compare_to = "pinned"
"""

T0 = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
METRICS = ("out_tok_s", "rss_gb", "bw_gbs", "goodput_rps")
# name: (day, figures in the order of METRICS, relative spread of the starts)
RUNS = (
    ("stock", 0, (100.0, 20.0, 100.0, 4.00), 0.001),
    ("pinned", 1, (140.0, 15.0, 150.0, 10.0), 0.001),
    ("hugepages", 2, (110.0, 10.0, 101.0, 4.40), 0.001),
    ("prefetch", 3, (101.0, 20.0, 100.0, 4.00), 0.04),
    ("interleave", 3, (150.0, 15.0, 160.0, 10.5), 0.001),
)


@pytest.fixture(scope="module")
def cpu(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    runs = [measured(name, T0 + timedelta(days=day), {m: spread(c, width) for m, c in zip(METRICS, figures)}, "cpu-a")
            for name, day, figures, width in RUNS]
    return facts_from(tmp_path_factory.mktemp("cpu"), CONFIG, runs)


def claims(facts: LintFacts, text: str) -> list[Finding]:
    return [f for f in lint_text(facts, text + "\n", "log.md") if f.kind == STALE_CLAIM]


def test_the_project_s_prefetching_is_inconclusive_against_stock(cpu: LintFacts) -> None:
    delta = cpu.experiments["prefetch"].metrics["out_tok_s"].comparison
    assert delta is not None and delta.ci_low is not None and delta.ci_high is not None
    assert delta.ci_low < 0 < delta.ci_high


@pytest.mark.parametrize("interval", [
    "with an interval from {lo} to {hi}",
    "its confidence interval running from {lo} to {hi}",
    "and a CI between {lo} and {hi}",
    "the interval spans {lo} to {hi}",
    "the interval reaching from {lo} to {hi}",
    "CI {lo} … {hi}",
])
def test_an_interval_spelled_out_in_words_is_no_claim_of_its_own(cpu: LintFacts, interval: str) -> None:
    delta = cpu.experiments["prefetch"].metrics["out_tok_s"].comparison
    assert delta is not None and delta.ci_low is not None and delta.ci_high is not None
    lo, hi = f"{delta.ci_low:+.1f}%", f"{delta.ci_high:+.1f}%"
    words = interval.format(lo=lo, hi=hi)
    assert claims(cpu, f"Prefetching against stock is inconclusive ({delta.delta_pct:+.1f}%, {words}).") == []
    # must stay: a claim beside an interval in words is still read; the interval's ends are not ("+9%", "+11%").
    (stale,) = claims(cpu, "Huge pages is 30% faster than stock, with an interval from +9% to +11%.")
    assert stale.text.startswith("30% faster")
    assert claims(cpu, "Huge pages is 10% faster than stock, with an interval from +9% to +11%.") == []


def test_a_metric_named_whole_is_not_another_s_by_a_shared_word(cpu: LintFacts) -> None:
    # "resident memory" is Resident memory (-25% for pinned), not Memory bandwidth (+50%) by its word "memory".
    assert claims(cpu, "Pinned threads' resident memory is 15.0 GB, 25% lower than stock's.") == []
    (stale,) = claims(cpu, "Pinned threads' resident memory is 15.0 GB, 60% lower than stock's.")
    assert "Resident memory" in stale.message and "Memory bandwidth" not in stale.message
    # must stay: "memory bandwidth" is still Memory bandwidth.
    assert claims(cpu, "Pinned threads' memory bandwidth is 150 GB/s, 50% higher than stock's.") == []


def test_the_baseline_by_its_role_is_the_reference_the_subject_is_compared_with(cpu: LintFacts) -> None:
    # Pinned threads' goodput against stock, the reference and its compare_to: 10.0 against 4.00 req/s, 2.5x.
    assert claims(cpu, "Pinned threads' goodput is 2.5x the baseline's.") == []
    (stale,) = claims(cpu, "Pinned threads' goodput is 4x the baseline's.")
    assert stale.text == "4x the baseline's" and "pinned.goodput_rps" in stale.fix and "Stock build" in stale.fix
    (stale,) = claims(cpu, "Pinned threads is 10% faster than our baseline.")
    assert "40.0% faster than Stock build" in stale.fix
    # must stay: compared with pinned threads, not the reference, interleave's "baseline" may be either.
    assert claims(cpu, "NUMA interleave is 50% faster than the baseline.") == []
    # must stay: the baseline's own setting is no claim ("2x the baseline's batch size").
    assert claims(cpu, "Pinned threads runs 2x the baseline's batch size.") == []


def test_the_for_x_than_for_y_form_names_both_sides(cpu: LintFacts) -> None:
    # Pinned threads against stock: resident memory -25%, output throughput +40%.
    assert claims(cpu, "Resident memory is 25% lower for pinned threads than for stock.") == []
    (stale,) = claims(cpu, "Resident memory is 50% lower for pinned threads than for stock.")
    assert "pinned.rss_gb" in stale.fix and "Stock build" in stale.fix
    (stale,) = claims(cpu, "Output throughput is 10% higher for pinned threads than for the stock build.")
    assert "40.0% faster than Stock build" in stale.fix
    # must stay: what follows "than for" is no experiment of the ledger (a kind of request), so no target.
    assert claims(cpu, "Pinned threads is 10% faster for long prompts than for short ones.") == []


def test_the_words_of_the_name_before_in_another_order_are_its_subject(cpu: LintFacts) -> None:
    before = "Huge pages is 10% faster than stock.\n"
    # Huge pages' output throughput is 1.1x stock's; the subject is inferred, so no fix.
    assert claims(cpu, before + "Pages (huge) deliver 1.1x the output throughput of stock.") == []
    (stale,) = claims(cpu, before + "Pages (huge) deliver 2x the output throughput of stock.")
    assert stale.experiment == "hugepages" and stale.fix.startswith("no fix proposed")
    # must stay: other words, or a word of the name alone, are another subject the ledger does not know.
    assert claims(cpu, before + "Small pages deliver 2x the output throughput of stock.") == []
    assert claims(cpu, before + "Pages deliver 2x the output throughput of stock.") == []
    assert claims(cpu, before + "Pages (huge) with the fans on deliver 2x the output throughput of stock.") == []


def test_what_an_experiment_needs_of_another_s_quantity_is_what_it_uses(cpu: LintFacts) -> None:
    # Huge pages' resident memory is half of stock's (10.0 against 20.0 GB); pinned threads' is -25%.
    assert claims(cpu, "Huge pages needs half the resident memory of stock.") == []
    (stale,) = claims(cpu, "Pinned threads needs half the resident memory of stock.")
    assert "pinned.rss_gb" in stale.fix
    (stale,) = claims(cpu, "Pinned threads requires 60% less resident memory than stock.")
    assert "pinned.rss_gb" in stale.fix
    # must stay: a requirement is a plan, not a result ("needs to be", a purpose after it, no experiment as subject).
    assert claims(cpu, "Pinned threads needs to be 60% faster than stock.") == []
    assert claims(cpu, "Pinned threads needs 60% more throughput than stock to meet the SLO.") == []
    assert claims(cpu, "We need 60% more throughput than stock.") == []


def test_a_share_in_words_before_the_quantity_of_another_is_a_factor(cpu: LintFacts) -> None:
    # Pinned threads' resident memory is three quarters of stock's (15.0 against 20.0 GB); huge pages', half.
    assert claims(cpu, "Pinned threads uses three quarters of the resident memory of stock.") == []
    assert claims(cpu, "Pinned threads' resident memory is three quarters of stock's.") == []
    assert claims(cpu, "Huge pages uses half of the resident memory of stock.") == []
    (stale,) = claims(cpu, "Huge pages uses a quarter of the resident memory of stock.")
    assert "hugepages.rss_gb" in stale.fix
    (stale,) = claims(cpu, "Pinned threads' resident memory is a third of stock's.")
    assert "pinned.rss_gb" in stale.fix
    # must stay: a share of something the ledger does not measure ("of the requests") is no claim about a metric.
    assert claims(cpu, "Pinned threads handles a third of the requests of stock.") == []


def test_a_possessive_target_after_a_figure_keeps_the_metric_named_before(cpu: LintFacts) -> None:
    # "than stock's" leaves out the noun named before it: stock's resident memory (huge pages: -50%).
    assert claims(cpu, "Huge pages' resident memory is 10.0 GB, 50% lower than stock's.") == []
    (stale,) = claims(cpu, "Huge pages' resident memory is 10.0 GB, 80% lower than stock's.")
    assert "hugepages.rss_gb" in stale.fix
    # must stay: with no possessive the claim may be a fact of its own about the primary metric: no fix.
    (unsure,) = claims(cpu, "Huge pages' resident memory is 10.0 GB, 80% lower than stock.")
    assert unsure.fix.startswith("no fix proposed")
