"""benchdoc.lint.checker: which statements the ledger contradicts, and which it lets stand.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT


def kinds(facts: LintFacts, text: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.kind, f.text) for f in lint_text(facts, text, "log.md")]


def test_a_stale_value_says_which_result_it_quotes(story_facts: LintFacts) -> None:
    (finding,) = lint_text(story_facts, "# Log\n\n## Abstract\n\nEAGLE-3 reaches 54.1 tok/s.\n", "log.md")
    assert (finding.file, finding.line, finding.column) == ("log.md", 5, 17)
    assert finding.kind == STALE_VALUE and finding.text == "54.1 tok/s" and finding.section == "Log > Abstract"
    assert "result of 2026-11-02 (54.1 tok/s); now 96.1 tok/s" in finding.message
    assert "EAGLE-3 2-step (CUDA 13 + fusion), which supersedes EAGLE-3 2-step" in finding.message
    assert finding.fix == "<!-- benchdoc:value eagle3-cuda13.output_tok_s -->96.1<!-- benchdoc:end --> tok/s"
    assert finding.experiment == "eagle3-cuda13"


def test_current_values_and_what_a_sentence_may_fairly_quote(story_facts: LintFacts) -> None:
    text = (
        "EAGLE-3 reaches 96.1 tok/s against 92.6 tok/s for the baseline.\n\n"
        "EAGLE-3 reaches about 96 tok/s, over 90 tok/s, and between 95.8 and 96.4 tok/s over its runs.\n\n"
        "EAGLE-3 went from 54.1 to 96.1 tok/s.\n\n"
        "On CUDA 12.8 EAGLE-3 reached 54.1 tok/s.\n\n"
        "The baseline was 89.5 tok/s.\n\n"
        "If EAGLE-3 reached 120 tok/s we would ship it; we expect EAGLE-3 to reach 100 tok/s next month.\n\n"
        "Medusa reaches 54.1 tok/s.\n"  # not an experiment of this project
    )
    assert kinds(story_facts, text) == []


def test_a_wrong_number_is_reported_only_when_its_owner_is_certain(story_facts: LintFacts) -> None:
    (finding,) = lint_text(story_facts, "EAGLE-3 reaches 61.0 tok/s.\n")
    assert finding.kind == STALE_VALUE and "now 96.1 tok/s" in finding.message and "quotes" not in finding.message
    # Two experiments named: 61.0 could be either's, and is neither's older result either.
    assert kinds(story_facts, "EAGLE-3 and the baseline: 61.0 tok/s.\n") == []
    # But a number both name-able and an older result is reported even then.
    assert kinds(story_facts, "EAGLE-3 and the baseline: 89.5 tok/s.\n") == [(1, STALE_VALUE, "89.5 tok/s")]


def test_history_sections_ignore_directives_and_code_are_quiet(story_facts: LintFacts) -> None:
    text = (
        "<!-- benchdoc:ignore -->\nEAGLE-3 is 40% slower than baseline (54.1 tok/s).\n\n"
        "Quoted: EAGLE-3 reaches 54.1 tok/s. <!-- benchdoc:ignore -->\n\n"
        "`EAGLE-3 reaches 54.1 tok/s`\n\n```\nEAGLE-3 reaches 54.1 tok/s\n```\n\n"
        "## Changelog\n\n- EAGLE-3 reaches 54.1 tok/s, 40% slower than baseline.\n"
    )
    assert kinds(story_facts, text) == []


def test_a_superseded_experiment_named_by_its_own_label_keeps_its_own_figures(story_facts: LintFacts) -> None:
    old = replace(story_facts.experiments["eagle3"], label="EAGLE-3 on CUDA 12.8")
    facts = replace(story_facts, experiments={**story_facts.experiments, "eagle3": old})
    assert kinds(facts, "EAGLE-3 on CUDA 12.8 reaches 54.1 tok/s.\n") == []
    # The alias names the line of experiments, whose result today is the successor's.
    assert kinds(facts, "EAGLE-3 reaches 54.1 tok/s.\n") == [(1, STALE_VALUE, "54.1 tok/s")]


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
    ],
)
def test_contradicted_relative_claims_are_reported(story_facts: LintFacts, sentence: str, expected: str) -> None:
    (finding,) = lint_text(story_facts, sentence + "\n")
    assert finding.kind == STALE_CLAIM and expected in finding.message
    assert "show=verdict" in finding.fix and "3.8% faster than Baseline (no spec)" in finding.fix


def test_an_old_claim_names_the_comparison_it_quotes(story_facts: LintFacts) -> None:
    (finding,) = lint_text(story_facts, "EAGLE-3 is 40% slower than baseline.\n")
    assert "it quotes the comparison of 2026-11-02 (54.1 against 89.5)" in finding.message
    assert kinds(story_facts, "On CUDA 12.8 EAGLE-3 was 40% slower than baseline.\n") == []  # true then


def test_claims_about_unknown_targets_or_quantities_are_left_alone(story_facts: LintFacts) -> None:
    text = (
        "EAGLE-3 is 40% slower than the old kernel.\n\n"
        "EAGLE-3 has a 30% higher acceptance rate with three draft steps.\n\n"
        "If EAGLE-3 were 40% slower than baseline we would drop it.\n"
    )
    assert kinds(story_facts, text) == []


def test_verdicts_against_the_computed_status(story_facts: LintFacts) -> None:
    assert kinds(story_facts, "EAGLE-3 is net-negative, so keep it off.\n") == [(1, STALE_VERDICT, "net-negative")]
    assert kinds(story_facts, "NCCL Tree works with CUDA graphs.\n") == [(1, STALE_VERDICT, "works")]
    (finding,) = lint_text(story_facts, "EAGLE-3 doesn't work on this stack.\n")
    assert "EAGLE-3 2-step (CUDA 13 + fusion) now works (+3.8% vs Baseline (no spec))" in finding.message
    assert "show=status" in finding.fix


def test_verdicts_that_agree_or_are_negated_hedged_or_far_away_stand(story_facts: LintFacts) -> None:
    text = (
        "NCCL Tree fails: CUDA graph incompatible.\n\n"
        "EAGLE-3 is no longer slower than the baseline.\n\n"
        "EAGLE-3 works and is faster than the baseline.\n\n"
        "If NCCL Tree works after the fix, retry it.\n\n"
        "Before the upgrade EAGLE-3 was slower.\n\n"
        "EAGLE-3 is on; the old kernel was slower.\n"
    )
    assert kinds(story_facts, text) == []


def test_hand_kept_tables(story_facts: LintFacts) -> None:
    text = (
        "| Config | Status | tok/s | vs baseline | Notes |\n|---|---|---|---|---|\n"
        "| Baseline (no spec) | Reference | 92.6 | — | |\n"
        "| EAGLE-3 2-step | Slower | **54.1** | -39.6% | 40% slower than baseline |\n"
        "| EAGLE-3 2-step (CUDA 13 + fusion) | Works | 96.1 | +3.8% | |\n"
        "| NCCL Tree | FAILED | — | — | CUDA graph incompatible |\n"
    )
    found = kinds(story_facts, text)
    assert found == [
        (4, STALE_VERDICT, "Slower"), (4, STALE_VALUE, "54.1"), (4, STALE_CLAIM, "-39.6%"),
        (4, STALE_CLAIM, "40% slower than baseline"),
    ]


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
    from benchdoc.results import build_results

    config = story_config(tmp_path)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        results = build_results(config, ledger)
    (finding,) = lint_text(facts_from_results(results), sentence + "\n")
    marker = finding.fix[finding.fix.index("<!--") :]
    plan = plan_text(marker + "\n", Renderer(config, lambda: results, tmp_path / "log.md"))
    (region,) = plan.regions
    assert not plan.errors and region.new_content == region.region.content  # sync leaves the suggested text as it is
