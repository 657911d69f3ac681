"""Classes of claim misreading found on the second pair of held-out batches, each probed with
sentences of our own (none is a corpus sentence).

A batching project of its own: the baseline (the reference) decodes 1000 tok/s (TTFT p95 300 ms,
goodput 4.00 req/s, all-reduce bus bandwidth 200 GB/s); fused batching 1250 tok/s (240 ms, 5.00
req/s, 300 GB/s) against the baseline; tuned batching against fused, too noisy on decode speed to
tell from it (about +1%), 306 GB/s; a paged kernel never ran. Fused batching supersedes its first
version ("old fused", 1100 tok/s, KV footprint 32.0 GB against 30.0 GB now and 40.0 GB for the baseline).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.claims import find_claims
from benchdoc.lint.findings import STALE_CLAIM, Finding
from benchdoc.results import build_results

CONFIG = """\
[metrics.decode_tok_s]
label = "Decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.ttft_ms_p95]
label = "TTFT p95"
unit = "ms"
direction = "lower"
digits = 0

[metrics.goodput_req_s]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 2

[metrics.kv_gb]
label = "KV footprint"
unit = "GB"
direction = "lower"
digits = 1

[metrics.bus_gb_s]
label = "all-reduce bus bandwidth"
unit = "GB/s"
direction = "higher"
digits = 0

[workloads.open-4]
rate = 4.0
requests = 400

[experiments.base]
label = "Baseline batching"
aliases = ["baseline"]
role = "reference"
workload = "open-4"

[experiments.fused-old]
label = "Fused batching v0"
aliases = ["old fused"]
compare_to = "base"
workload = "open-4"

[experiments.fused]
label = "Fused batching"
aliases = ["fused", "fused decode"]
compare_to = "base"
supersedes = "fused-old"
workload = "open-4"

[experiments.tuned]
label = "Tuned batching"
aliases = ["tuned"]
compare_to = "fused"
workload = "open-4"

[experiments.paged]
label = "Paged kernel"
aliases = ["paged"]
compare_to = "base"
workload = "open-4"
"""

T0 = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
# name: (day, {metric: samples})
RUNS = (
    ("base", 0, {"decode_tok_s": [1000, 999, 1001, 998, 1002], "ttft_ms_p95": [300, 299, 301, 298, 302],
                 "goodput_req_s": [4.0, 3.99, 4.01, 3.98, 4.02], "bus_gb_s": [200, 199, 201, 198, 202],
                 "kv_gb": [40.0, 40.0, 40.0, 40.0, 40.0]}),
    ("fused-old", 0, {"decode_tok_s": [1100, 1099, 1101, 1098, 1102], "kv_gb": [32.0, 32.1, 31.9, 32.0, 32.0]}),
    ("fused", 1, {"decode_tok_s": [1250, 1200, 1300, 1230, 1270], "ttft_ms_p95": [240, 239, 241, 238, 242],
                  "goodput_req_s": [5.0, 4.99, 5.01, 4.98, 5.02], "bus_gb_s": [300, 299, 301, 298, 302],
                  "kv_gb": [30.0, 30.1, 29.9, 30.0, 30.0]}),
    ("tuned", 2, {"decode_tok_s": [1262, 1190, 1330, 1220, 1310], "ttft_ms_p95": [238, 237, 239, 236, 240],
                  "goodput_req_s": [5.05, 5.04, 5.06, 5.03, 5.07], "bus_gb_s": [306, 305, 307, 304, 308]}),
)


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("claim-classes")
    config = parse_config(CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for name, day, metrics in RUNS:
            at = T0 + timedelta(days=day)
            samples = [Sample(metric, float(value), i, i) for metric, values in metrics.items()
                       for i, value in enumerate(values)]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a", environment={}))
        return facts_from_results(build_results(config, ledger))


def lint(facts: LintFacts, text: str) -> list[Finding]:
    return lint_text(facts, text + "\n", "log.md")


def kinds(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint(facts, text)]


def test_the_ledger_story(facts: LintFacts) -> None:
    assert facts.experiments["tuned"].metrics["decode_tok_s"].comparison is not None
    assert kinds(facts, "Fused batching is 25% faster than the baseline.") == []
    assert kinds(facts, "Tuned batching cannot be told apart from fused: +0.9%.") == []


def test_the_ends_of_a_quoted_interval_are_no_claims() -> None:
    for text in ("fused is +25.0% over the baseline (interval +24.1% to +25.9%)",
                 "fused is +25.0% over the baseline, CI [+24.1%, +25.9%]",
                 "fused: +25.0% [+24.1%, +25.9%] against the baseline"):
        assert [c.value for c in find_claims(text)] == [25.0], text
    # Two changes in a list are two claims.
    assert [c.value for c in find_claims("fused: +25% decode, -20% TTFT p95")] == [25.0, 20.0]


def test_a_quoted_interval_is_not_checked_as_claims(facts: LintFacts) -> None:
    assert kinds(facts, "Fused batching is +25.0% over the baseline, with an interval of [+24.0%, +26.0%].") == []
    (claim,) = lint(facts, "Fused batching is +15.0% over the baseline, with an interval of [+14.0%, +16.0%].")
    assert claim.kind == STALE_CLAIM and claim.text.startswith("+15.0%")


def test_an_undecided_comparison_quoted_as_undecided_holds_at_the_ledger_s_estimate(facts: LintFacts) -> None:
    estimate = facts.experiments["tuned"].metrics["decode_tok_s"].comparison
    assert estimate is not None and estimate.verdict == "same"
    written = f"{estimate.delta_pct:+.1f}%"
    for text in (f"On decode speed we cannot tell tuned from fused yet: {written}, so it is inconclusive.",
                 f"Tuned batching cannot be told apart from fused: {written}.",
                 f"Against fused, tuned batching is {written} on decode speed, inconclusive."):
        assert kinds(facts, text) == [], text
    # The estimate must be the ledger's: "+6.0%, inconclusive" quotes another one.
    (claim,) = lint(facts, "Tuned batching cannot be told apart from fused: +6.0%, inconclusive.")
    assert claim.kind == STALE_CLAIM
    # Without the words of an undecided comparison, a direction the ledger cannot support is flagged.
    assert [f.kind for f in lint(facts, f"Tuned batching is {written} over fused.")] == [STALE_CLAIM]
    assert [f.kind for f in lint(facts, "Tuned batching is 5% faster than fused, inconclusive.")] == [STALE_CLAIM]


def test_a_metric_with_a_figure_of_its_own_in_a_list_may_not_be_the_claim_s(facts: LintFacts) -> None:
    # Fused against the baseline: decode +25%, bus bandwidth +50%.
    assert kinds(facts, "Fused batching: all-reduce bus bandwidth 300 GB/s, 25% faster than the baseline.") == []
    (claim,) = lint(facts, "Fused batching: all-reduce bus bandwidth 300 GB/s, 10% faster than the baseline.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")
    # With no figure between them, the metric is the claim's own.
    (claim,) = lint(facts, "Fused batching's all-reduce bus bandwidth is 25% higher than the baseline's.")
    assert claim.kind == STALE_CLAIM and "bus_gb_s" in claim.fix


def test_a_metric_of_an_earlier_clause_is_a_candidate_of_a_claim_that_names_none(facts: LintFacts) -> None:
    assert kinds(facts, "Fused batching's all-reduce bus bandwidth is 300 GB/s against 200 GB/s for the baseline, "
                        "so it is 1.5x faster.") == []
    (claim,) = lint(facts, "Fused batching's all-reduce bus bandwidth is 300 GB/s against 200 GB/s for the baseline, "
                           "so it is 3x faster.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")
    # A clause with a subject of its own draws no conclusion from the one before: the primary metric's.
    (claim,) = lint(facts, "Fused batching's all-reduce bus bandwidth is 300 GB/s, and fused batching is 1.5x faster "
                           "than the baseline.")
    assert claim.kind == STALE_CLAIM and "show=verdict" in claim.fix
    # A sentence that names no other metric: the primary one, with its fix.
    (claim,) = lint(facts, "Fused batching is ready, so it is 1.5x faster than the baseline.")
    assert claim.kind == STALE_CLAIM and "show=verdict" in claim.fix


def test_a_second_claim_of_a_list_may_be_of_the_first_one_s_metric(facts: LintFacts) -> None:
    # Tuned against the baseline: bus bandwidth +53%; fused against the baseline: +50%; decode +25% / +26%.
    assert kinds(facts, "Tuned batching's all-reduce bus bandwidth is 306 GB/s, 1.5x the baseline's, "
                        "and 2% above fused's.") == []
    (claim,) = lint(facts, "Tuned batching's all-reduce bus bandwidth is 306 GB/s, 1.5x the baseline's, and 9% above fused's.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")
    # A later claim that names its own metric keeps it: decode +25% against the baseline.
    (claim,) = lint(facts, "Fused batching's all-reduce bus bandwidth is 300 GB/s, 1.5x the baseline's, "
                           "and its decode speed is 50% above the baseline's.")
    assert claim.kind == STALE_CLAIM and "show=verdict" in claim.fix


def test_a_label_before_a_colon_that_names_several_metrics_makes_each_a_candidate(facts: LintFacts) -> None:
    # Fused against the baseline: goodput +25%, bus bandwidth +50%, decode +25%.
    assert kinds(facts, "Goodput and all-reduce bus bandwidth: fused batching is 50% faster than the baseline.") == []
    (claim,) = lint(facts, "Goodput and all-reduce bus bandwidth: fused batching is 80% faster than the baseline.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")


def test_a_figure_after_a_verb_of_result_and_at_is_the_result_not_the_load(facts: LintFacts) -> None:
    # Fused against the baseline: bus bandwidth +50%, decode +25%.
    assert kinds(facts, "Fused batching runs at 300 GB/s, 50% faster than the baseline.") == []
    assert kinds(facts, "Fused batching sits at 300 GB/s, i.e. 50% higher than the baseline.") == []
    # "at 4 req/s" after a claim is the load it is made under: the claim is of decode speed.
    (claim,) = lint(facts, "Fused batching is 50% faster than the baseline at 4 req/s.")
    assert claim.kind == STALE_CLAIM and "show=verdict" in claim.fix and "goodput" not in claim.fix


def test_a_name_between_a_claim_and_its_link_names_no_metric(facts: LintFacts) -> None:
    # "fused decode" is an alias of fused batching; "decode" in it is no metric. Bus bandwidth +50%, decode +25%.
    assert kinds(facts, "The all-reduce bus bandwidth is 50% higher with fused decode than with the baseline.") == []
    (claim,) = lint(facts, "The all-reduce bus bandwidth is 25% higher with fused decode than with the baseline.")
    assert claim.kind == STALE_CLAIM and "bus_gb_s" in claim.fix
    # The metric's own word after the claim still names it.
    assert kinds(facts, "Fused batching is 25% higher in decode speed than the baseline.") == []


def test_a_whole_factor_is_about_that_factor_not_anything_it_rounds_from(facts: LintFacts) -> None:
    from benchdoc.lint.claim_truth import claimed_intervals

    decode = facts.metrics["decode_tok_s"]

    def ratios(text: str) -> tuple[float, float]:
        (claim,) = find_claims(text)
        ((low, high),) = claimed_intervals(claim, decode) or []
        return round(1 + low / 100, 2), round(1 + high / 100, 2)

    assert ratios("A is 2x faster than B") == (1.8, 2.2)
    assert ratios("A is ≈ 2x faster than B") == (1.6, 2.4)
    assert ratios("A is 10x faster than B") == (9.5, 10.5)  # a tenth of ten: the rounding itself
    assert ratios("A is 1.3x faster than B") == (1.25, 1.35)
    # Fused against the baseline: decode 1.25x, bus bandwidth 1.5x.
    (claim,) = lint(facts, "Fused batching ≈ 2x the baseline on decode speed.")
    assert claim.kind == STALE_CLAIM
    assert kinds(facts, "Fused batching ≈ 1.25x the baseline on decode speed.") == []
    assert kinds(facts, "Fused batching ≈ 1.5x the baseline on all-reduce bus bandwidth.") == []


def test_a_speaker_s_tag_in_a_transcript_is_no_subject(facts: LintFacts) -> None:
    # Under a heading naming fused batching: decode +25% against the baseline.
    (claim,) = lint(facts, "## Fused batching\n\n**Ana:** vs the baseline: decode speed +60%.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")
    (claim,) = lint(facts, "## Fused batching\n\n**Ana Ruiz**: vs the baseline: decode speed +60%.")
    assert claim.kind == STALE_CLAIM
    assert kinds(facts, "## Fused batching\n\n**Ana:** vs the baseline: decode speed +25%.") == []
    # A word that is no speaker's tag may be a subject the ledger does not know: left alone.
    assert kinds(facts, "## Fused batching\n\nPrefetch: vs the baseline: decode speed +60%.") == []


def test_a_ratio_written_as_a_plain_number_keeps_its_rounding(facts: LintFacts) -> None:
    from benchdoc.lint.claim_truth import claimed_intervals
    from benchdoc.lint.claims import UP, Claim

    ratio = Claim(start=0, end=9, text_end=9, value=2.0, decimals=0, factor=True, polarity=UP, sign=1.0, bound="exact",
                  object_at=None, object_search_start=None, noun="", word="/")
    metric = facts.metrics["decode_tok_s"]
    assert claimed_intervals(ratio, metric) == [(50.0, 150.0)]  # "A/B = 2": 1.5 to 2.5, as written


def test_a_unit_spelled_in_a_metric_s_key_names_no_metric(facts: LintFacts) -> None:
    # "bus_gb_s" holds "gbs", not "gb"; add a metric keyed "bus_gb_s" in words: "5.3 GB" is no bandwidth.
    # Fused against the baseline: KV footprint -25% (30.0 GB against 40.0 GB), bus bandwidth +50%.
    assert kinds(facts, "Fused batching's KV footprint shrinks (30.0 GB, 25% lower than the baseline's).") == []
    (claim,) = lint(facts, "Fused batching's KV footprint shrinks (30.0 GB, 5% lower than the baseline's).")
    assert claim.kind == STALE_CLAIM and "kv_gb" in claim.fix


def test_a_name_after_told_apart_from_is_what_the_subject_is_compared_with(facts: LintFacts) -> None:
    estimate = facts.experiments["tuned"].metrics["decode_tok_s"].comparison
    assert estimate is not None
    written = f"{estimate.delta_pct:+.1f}%"
    text = "Tuned batching ran again today. Its decode speed cannot be told apart from fused's: the difference is {}."
    assert kinds(facts, text.format(written)) == []
    (claim,) = lint(facts, text.format("+6.0%"))
    assert claim.kind == STALE_CLAIM and "vs=" not in claim.fix and "tuned" in claim.fix


def test_a_name_after_equivalent_to_is_a_target_not_the_subject_of_a_later_change(facts: LintFacts) -> None:
    # Fused against the baseline: goodput +25%; tuned against fused: goodput +1%.
    assert kinds(facts, "Prefetch build: decode speed equivalent to fused, goodput up 40%.") == []
    assert kinds(facts, "Prefetch build: decode speed on par with fused, goodput up 40%.") == []
    (claim,) = lint(facts, "Tuned batching: decode speed equivalent to fused, goodput up 40%.")
    assert claim.kind == STALE_CLAIM and "tuned" in claim.fix and "vs=" not in claim.fix
    # Without such words the name before the change is its subject.
    (claim,) = lint(facts, "Fused batching: goodput up 40%.")
    assert claim.kind == STALE_CLAIM and "fused" in claim.fix


def test_a_bare_change_after_a_superseded_experiment_s_figure_may_be_the_change_to_its_successor(
        facts: LintFacts) -> None:
    # Fused against old fused: KV footprint -6.3%; old fused against the baseline: -20%.
    assert kinds(facts, "Old fused's KV footprint was 32.0 GB, so the new kernel shaved a little memory (-6.3%).") == []
    (claim,) = lint(facts, "Old fused's KV footprint was 32.0 GB, so the new kernel shaved a little memory (-15.0%).")
    assert claim.kind == STALE_CLAIM
