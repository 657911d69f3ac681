"""benchdoc.lint.stale_claims: relative claims the ledger contradicts, and those it lets stand.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.lint.conftest import kinds

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.claim_truth import Delta, calls_it_noise, unsupported
from benchdoc.lint.findings import STALE_CLAIM


@pytest.mark.parametrize(
    "sentence",
    [
        "EAGLE-3 is 3.8% faster than baseline.",
        "EAGLE-3 is 4% faster than the baseline.",  # within the display precision of "4%"
        "EAGLE-3 is about 4% faster than baseline.",
        "EAGLE-3 is over 3% faster than baseline.",
        "EAGLE-3 beats the baseline by 3.8%.",
        "EAGLE-3 (96.1 tok/s, +3.8% vs baseline).",
        "EAGLE-3 is 1.04x faster than baseline.",
        "The baseline is 3.6% slower than EAGLE-3.",  # read from the other side
        "EAGLE-3 is 77.6% faster than EAGLE-3 2-step on CUDA 12.8.",  # before/after of the same line
    ],
)
def test_true_relative_claims_stand(story_facts: LintFacts, sentence: str) -> None:
    assert kinds(story_facts, sentence + "\n") == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("EAGLE-3 is 40% slower than baseline.", "the ledger says +3.8%"),
        ("EAGLE-3 is 10% faster than baseline.", "the ledger says +3.8%"),
        ("EAGLE-3 is 1.5x faster than baseline.", "the ledger says +3.8%"),
        ("EAGLE-3 (+12.0% vs baseline).", "the ledger says +3.8%"),
        ("EAGLE-3 beats the baseline by 40%.", "the ledger says +3.8%"),  # the target's name between verb and number
        ("With EAGLE-3 the output is 40% lower than with the baseline.", "the ledger says +3.8%"),
    ],
)
def test_contradicted_relative_claims_are_reported(story_facts: LintFacts, sentence: str, expected: str) -> None:
    (finding,) = lint_text(story_facts, sentence + "\n")
    assert finding.kind == STALE_CLAIM and expected in finding.message
    assert "show=verdict" in finding.fix and "3.8% faster than Baseline (no spec)" in finding.fix


def test_an_old_claim_names_the_comparison_it_quotes(story_facts: LintFacts) -> None:
    (finding,) = lint_text(story_facts, "EAGLE-3 is 40% slower than baseline.\n")
    assert "it quotes the comparison of run #2 of 2026-11-02 against run #1 of 2026-11-02 (54.1 against 89.5)" in finding.message
    assert "(3.8% faster; run #4 of 2026-11-05 against run #3 of 2026-11-05)" in finding.message  # what it compares against
    assert kinds(story_facts, "On CUDA 12.8 EAGLE-3 was 40% slower than baseline.\n") == []  # true then


def test_claims_about_unknown_targets_or_quantities_are_left_alone(story_facts: LintFacts) -> None:
    text = (
        "EAGLE-3 is 40% slower than the old kernel.\n\n"
        "EAGLE-3 has a 30% higher acceptance rate with three draft steps.\n\n"
        "If EAGLE-3 were 40% slower than baseline we would drop it.\n"
    )
    assert kinds(story_facts, text) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "EAGLE-3 is 40% slower than baseline.",  # a significant comparison
        "EAGLE-3 went from 54.1 tok/s to 96.1 tok/s, +20.0% over EAGLE-3 2-step.",  # before/after: show=change
    ],
)
def test_a_claim_fix_holds_what_sync_renders_there(tmp_path: Path, sentence: str) -> None:
    from tests.lint.conftest import record_story, story_config

    from benchdoc.docs.render import Renderer
    from benchdoc.docs.sync import plan_text
    from benchdoc.ledger.store import Ledger
    from benchdoc.lint import facts_from_results
    from benchdoc.results import LazyResults, build_results

    config = story_config(tmp_path)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        results = build_results(config, ledger)
    (finding,) = lint_text(facts_from_results(results), sentence + "\n")
    marker = finding.fix[finding.fix.index("<!--") :]
    plan = plan_text(marker + "\n", Renderer(config, LazyResults.of(results), tmp_path / "log.md"))
    (region,) = plan.regions
    assert not plan.errors and region.new_content == region.region.content  # sync leaves the suggested text as it is


def test_a_direction_the_ledger_cannot_tell_is_unsupported(spec_facts: LintFacts) -> None:
    # N-gram against the baseline: -10.6% [-47.5%, +52.2%], inconclusive. The claim
    # matches the point estimate and lies inside the interval, yet states a direction.
    (finding,) = lint_text(spec_facts, "N-gram speculation is 10.6% slower than baseline.\n")
    assert finding.kind == STALE_CLAIM and finding.text == "10.6% slower than baseline"
    assert "the ledger cannot tell N-gram speculation from Baseline: -10.6% [-47.5%, +52.2%], inconclusive" \
        in finding.message
    assert "(run #4 of 2026-11-02 against run #1 of 2026-11-02)" in finding.message
    assert "inconclusive against Baseline" in finding.fix and "show=verdict" in finding.fix
    (cell,) = lint_text(spec_facts, "| Config | vs Baseline |\n|---|---|\n| N-gram speculation | -10.6% |\n")
    assert cell.kind == STALE_CLAIM and "cannot tell" in cell.message


@pytest.mark.parametrize(
    "sentence",
    [
        "N-gram speculation makes no significant difference against baseline.",
        "N-gram speculation is 10.6% slower than baseline, i.e. noise.",  # the sentence itself says so
        "N-gram speculation is 10.6% slower than baseline, which is not significant.",
        "Speculative decoding with 3 draft steps is 65.8% faster than baseline.",  # a significant comparison
    ],
)
def test_claims_that_do_not_outrun_the_data_stand(spec_facts: LintFacts, sentence: str) -> None:
    assert kinds(spec_facts, sentence + "\n") == []


@pytest.mark.parametrize(
    ("verdict", "told"),
    [("better", True), ("worse", True), ("same", False), ("equivalent", False), ("insufficient", False), ("undecided", False)],
)
def test_a_direction_stands_only_on_a_significant_verdict(verdict: str, told: bool) -> None:
    delta = Delta(-10.6, -33.1, 89.2, "X against Y", "comparison", verdict)
    assert unsupported([(-10.65, -10.55)], delta) is not told
    assert not unsupported([(-0.05, 0.05)], delta)  # "no change" gives no direction


def test_a_sentence_that_calls_its_difference_noise_claims_no_direction() -> None:
    for text in ("0.1% slower, i.e. no difference", "2% faster, within noise", "1% slower (not significant)"):
        assert calls_it_noise(text), text
    assert not calls_it_noise("2% faster than the baseline")


@pytest.mark.parametrize("written", ["EAGLE-3's TTFT p50 is 2.00x faster than Baseline (no spec).",
                                     "EAGLE-3's TTFT p50 is 20% lower than Baseline (no spec)."])
def test_a_latency_claim_s_fix_is_in_the_rendered_words_and_holds_once_written(story_facts: LintFacts, written: str) -> None:
    """TTFT p50 went from 41.0 to 43.5 ms: the fix says '1.06x slower' (never '-6.1% faster'),
    exactly what a show=verdict region renders, and the sentence with it is not flagged again."""
    (finding,) = lint_text(story_facts, written, "log.md")
    assert finding.kind == STALE_CLAIM
    assert finding.fix is not None and finding.fix.startswith('write "1.06x slower than Baseline (no spec)"')
    assert "show=verdict -->1.06x slower than Baseline (no spec)<!-- benchdoc:end -->" in finding.fix
    fixed = written.replace(finding.text, "1.06x slower than Baseline (no spec)")
    assert lint_text(story_facts, fixed, "log.md") == []
