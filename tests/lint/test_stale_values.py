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
    assert "result of run #2 of 2026-11-02 (54.1 tok/s); now 96.1 tok/s from run #4 of 2026-11-05" in finding.message
    assert finding.ledger == "EAGLE-3 2-step (CUDA 13 + fusion): 96.1 tok/s, run #4 of 2026-11-05"
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


SPEC_SENTENCE = "Speculative decoding with 3 draft steps is 87% faster than baseline ({} tok/s vs {} tok/s).\n"


def test_each_number_of_a_pair_is_bound_to_its_own_experiment(spec_facts: LintFacts) -> None:
    # 1583.6 is the speculative experiment's older result, by place and by value: never the baseline's.
    values = [f for f in lint_text(spec_facts, SPEC_SENTENCE.format("1583.6", "845.7")) if f.kind == STALE_VALUE]
    (finding,) = values
    assert finding.text == "1583.6 tok/s" and finding.experiment == "spec3"
    assert finding.fix == "<!-- benchdoc:value spec3.output_tok_s -->1402.5<!-- benchdoc:end --> tok/s"
    assert "result of run #2 of 2026-11-02 (1583.6 tok/s); now 1402.5 tok/s from run #3" in finding.message
    # A number no run ever gave is bound by its place alone, when the pair leaves no doubt.
    (placed,) = [f for f in lint_text(spec_facts, SPEC_SENTENCE.format("1590.2", "845.7")) if f.kind == STALE_VALUE]
    assert placed.text == "1590.2 tok/s" and "benchdoc:value spec3.output_tok_s" in placed.fix


def test_a_number_whose_owner_the_ledger_does_not_name_is_never_bound_to_another(spec_facts: LintFacts) -> None:
    for sentence in (
        "Spec decoding is 87% faster than baseline (1583.6 tok/s vs 845.7 tok/s).\n",
        "Spec decoding is 87% faster than baseline (1590.2 tok/s vs 845.7 tok/s).\n",
        "Spec decoding reaches 1590.2 tok/s, 87% faster than baseline.\n",
    ):
        assert [f for f in lint_text(spec_facts, sentence) if f.kind == STALE_VALUE] == [], sentence


def test_when_place_and_value_disagree_the_finding_says_so_and_binds_nothing(spec_facts: LintFacts) -> None:
    # The pair is written the other way round: 1583.6 stands where the baseline's figure goes.
    (finding,) = lint_text(spec_facts, SPEC_SENTENCE.format("845.7", "1583.6").replace("87% faster", "faster"))
    assert finding.kind == STALE_VALUE and finding.text == "1583.6 tok/s"
    assert "Speculative decoding (3 draft steps)'s result of run #2 of 2026-11-02" in finding.message
    assert "it stands where Baseline's figure goes: which experiment it is about is unclear" in finding.message
    assert "benchdoc:value" not in finding.fix and finding.fix.startswith("no fix proposed")
