"""Phrasings of a relative claim read since the 2026-12-07 batch, each with a twin that must stay.

The project is the graph-capture one of :mod:`tests.lint.test_reading_classes`: against eager,
torch.compile decodes +30%, prefills +2.5%, TTFT p50 -15%, TTFT p99 -10%, goodput +12%;
CUDA graphs decodes +20% (1,200 against torch.compile's 1,300 tok/s: -7.7%; prefill -1.2%).
"""

from __future__ import annotations

from tests.lint.test_reading_classes import facts, kinds, lint  # noqa: F401  (the fixture)

from benchdoc.lint import LintFacts
from benchdoc.lint.claims import DOWN, UP, find_claims
from benchdoc.lint.findings import STALE_CLAIM


def stale(facts: LintFacts, text: str) -> str:  # noqa: F811
    """The fix of the one stale-claim finding a sentence must give."""
    found = lint(facts, text)
    assert [f.kind for f in found] == [STALE_CLAIM], (text, [(f.kind, f.message) for f in found])
    return found[0].fix


def test_a_factor_as_a_verb_is_read(facts: LintFacts) -> None:  # noqa: F811
    (halves,) = find_claims("The new kernel halves ITL p50 relative to the old one.")
    assert (halves.value, halves.factor, halves.polarity, halves.worded) == (2.0, True, DOWN, True)
    (doubles,) = find_claims("Batching doubled goodput over the baseline.")
    assert (doubles.value, doubles.polarity) == (2.0, UP)
    # TTFT p50 is 15% lower with torch.compile, not half; decode is 30% up, not double.
    assert "compile.ttft_ms_p50" in stale(facts, "torch.compile halves TTFT p50 relative to eager.")
    assert "compile.ttft_ms_p50" in stale(facts, "TTFT p50 halves with torch.compile compared with eager.")
    assert "compile.goodput_req_s" in stale(facts, "torch.compile doubles goodput over eager.")
    # Twins: what is halved is no metric of ours, or nothing is compared.
    assert kinds(facts, "torch.compile halves the batch size relative to eager.") == []
    assert kinds(facts, "Doubling the batch size is next on the list for torch.compile.") == []


def test_a_share_in_words_or_a_factor_after_by_up_or_down_is_read(facts: LintFacts) -> None:  # noqa: F811
    # CUDA graphs' TTFT p99 is 20% lower than eager's, a fifth; torch.compile's TTFT p50 -15% is down 1.18x.
    assert kinds(facts, "CUDA graphs' TTFT p99 is down by a fifth vs eager.") == []
    assert kinds(facts, "torch.compile's TTFT p50 is down 1.18x vs eager.") == []
    assert kinds(facts, "TTFT p50 is reduced by 1.18x with torch.compile relative to eager.") == []
    assert "graphs.ttft_ms_p99" in stale(facts, "CUDA graphs' TTFT p99 is down by a third vs eager.")
    assert "graphs.ttft_ms_p99" in stale(facts, "CUDA graphs' TTFT p99 is up by a third vs eager.")
    assert "compile.ttft_ms_p50" in stale(facts, "torch.compile's TTFT p50 is down 2.5x vs eager.")
    assert "compile.ttft_ms_p50" in stale(facts, "TTFT p50 is reduced by 3x with torch.compile relative to eager.")
    assert "compile.ttft_ms_p50" in stale(facts, "torch.compile cuts TTFT p50 by half vs eager.")
    # A share of something the ledger does not hold stays unread.
    assert kinds(facts, "torch.compile cuts compile-time memory by half vs eager.") == []
    # "up" after a verb that moves a setting is no change of a result.
    for setting in ("torch.compile sped up by half vs eager.", "torch.compile scales up by 2x vs eager.",
                    "torch.compile's batch was bumped up by a third vs eager."):
        assert kinds(facts, setting) == [], setting


def test_a_cost_with_only_before_it_and_throughput_for_the_primary_rate(facts: LintFacts) -> None:  # noqa: F811
    # CUDA graphs' goodput is 1.8% below torch.compile's.
    assert kinds(facts, "CUDA graphs costs only 2% of goodput relative to torch.compile.") == []
    assert "graphs.goodput_req_s" in stale(facts, "CUDA graphs costs only 8% of goodput relative to torch.compile.")
    # "Throughput" names no label: the primary rate, and prefill speed in the same unit. True of prefill
    # (-1.2%): left alone; false of both: reported, with no fix.
    assert kinds(facts, "CUDA graphs costs only 1% of throughput relative to torch.compile.") == []
    assert stale(facts, "CUDA graphs costs 20% of throughput relative to torch.compile.").startswith("no fix proposed")


def test_a_factor_of_what_the_target_does(facts: LintFacts) -> None:  # noqa: F811
    assert kinds(facts, "torch.compile serves 1.3x what eager does.") == []
    assert "show=verdict" in stale(facts, "torch.compile serves 2x what eager does.")
    assert kinds(facts, "torch.compile serves 2x what it did last quarter.") == []


def test_a_conjunction_ends_the_words_of_a_claim(facts: LintFacts) -> None:  # noqa: F811
    # The metric after "and" is the next claim's, not this one's.
    assert kinds(facts, "Against eager, torch.compile's TTFT p50 is 15% lower and TTFT p99 is 10% lower.") == []
    assert "compile.ttft_ms_p50" in stale(
        facts, "Against eager, torch.compile's TTFT p50 is 40% lower and TTFT p99 is 10% lower.")


def test_a_level_reached_is_no_change_and_a_project_s_own_docs_are_not_ours(facts: LintFacts) -> None:  # noqa: F811
    assert kinds(facts, "torch.compile raises GPU utilization from 60% to 90% over eager.") == []
    assert "show=verdict" in stale(facts, "torch.compile gains 90% over eager.")
    assert kinds(facts, "torch.compile's own docs quote 3x faster decode than eager.") == []
    assert "show=verdict" in stale(facts, "torch.compile decodes 3x faster than eager.")


def test_a_claim_true_of_an_older_comparison_on_a_named_day_is_that_day_s(facts: LintFacts) -> None:  # noqa: F811
    # The engine 1.2 torch.compile decoded 10% faster than eager on 2026-11-03.
    assert kinds(facts, "On 2026-11-03 torch.compile beat eager by 10%.") == []
    assert "show=verdict" in stale(facts, "torch.compile beats eager by 10%.")


def test_no_fix_of_these_phrasings_binds_another_metric_experiment_or_load(facts: LintFacts) -> None:  # noqa: F811
    from tests.lint.fixcheck import fix_problems

    sentences = [
        "torch.compile halves TTFT p50 relative to eager.",
        "TTFT p50 halves with torch.compile compared with eager.",
        "torch.compile doubles goodput over eager.",
        "CUDA graphs' TTFT p99 is down by a third vs eager.",
        "torch.compile's TTFT p50 is down 2.5x vs eager.",
        "TTFT p50 is reduced by 3x with torch.compile relative to eager.",
        "torch.compile cuts TTFT p50 by half vs eager.",
        "CUDA graphs costs only 8% of goodput relative to torch.compile.",
        "CUDA graphs costs 20% of throughput relative to torch.compile.",
        "torch.compile serves 2x what eager does.",
        "Against eager, torch.compile's TTFT p50 is 40% lower and TTFT p99 is 10% lower.",
    ]
    findings = [f for sentence in sentences for f in lint(facts, sentence)]
    problems, checked = fix_problems(facts, findings)
    assert problems == [] and checked >= 5


def test_an_approximate_ratio_is_held_to_the_ledger_s_figure_not_widened_twice(facts: LintFacts) -> None:  # noqa: F811
    # torch.compile against CUDA graphs: +8.3% [+8.1%, +8.6%]. "≈ 1.119x" allows 1.085x to 1.153x: its own range
    # misses 1.083x, and only the comparison's interval would reach it.
    assert "vs=graphs" in stale(facts, "torch.compile ≈ 1.119x CUDA graphs.")
    for true in ("torch.compile ≈ 1.08x CUDA graphs.", "torch.compile ≈ 1.11x CUDA graphs.",
                 "torch.compile is 1.085x CUDA graphs."):
        assert kinds(facts, true) == [], true


def test_a_day_named_after_the_current_result_is_no_history(facts: LintFacts) -> None:  # noqa: F811
    # torch.compile's current result is of 2026-11-05: a sentence of a later day speaks of it.
    assert "show=verdict" in stale(facts, "As of 2026-11-20 torch.compile beats eager by 10%.")
