"""benchdoc.lint.stale_values: numbers the ledger contradicts, and those it lets stand.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from dataclasses import replace

from tests.lint.conftest import kinds

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_VALUE


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


def test_a_superseded_experiment_named_by_its_own_label_keeps_its_own_figures(story_facts: LintFacts) -> None:
    old = replace(story_facts.experiments["eagle3"], label="EAGLE-3 on CUDA 12.8")
    facts = replace(story_facts, experiments={**story_facts.experiments, "eagle3": old})
    assert kinds(facts, "EAGLE-3 on CUDA 12.8 reaches 54.1 tok/s.\n") == []
    # The alias names the line of experiments, whose result today is the successor's.
    assert kinds(facts, "EAGLE-3 reaches 54.1 tok/s.\n") == [(1, STALE_VALUE, "54.1 tok/s")]
