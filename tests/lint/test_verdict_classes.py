"""Classes of verdict misreading found on held-out logs, each probed with sentences of our own.

A collective-algorithm project of its own: Ring (the reference) decodes 1000 tok/s in 20 GB;
Tree 995 tok/s in 20 GB (equivalent within its 3% margin); Pinned 900 tok/s in 14 GB (slower,
30% less memory); Low-bit ran once and then failed; Fused never ran.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from tests.lint.conftest import facts_from, failed, measured, spread

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT

CONFIG = """\
[metrics.decode_tok_s]
label = "Decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
equivalence_margin = "3%"
primary = true

[metrics.memory_gb]
label = "Peak memory"
unit = "GB"
direction = "lower"
digits = 1

[experiments.ring]
label = "Ring"
role = "reference"

[experiments.tree]
label = "Tree"
compare_to = "ring"

[experiments.pinned]
label = "Pinned"
compare_to = "ring"

[experiments.lowbit]
label = "Low-bit"
compare_to = "ring"

[experiments.fused]
label = "Fused"
compare_to = "ring"
"""

T0 = datetime(2026, 10, 5, 9, tzinfo=timezone.utc)
# name: (hour, decode tok/s, memory GB, spread of the samples in per mille); None: a failed run
RUNS = (("ring", 0, 1000.0, 20.0, 1), ("tree", 1, 995.0, 20.0, 8), ("pinned", 2, 900.0, 14.0, 1),
        ("lowbit", 3, 1150.0, 12.0, 1), ("lowbit", 4, None, None, 1))


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    runs = [measured(name, T0 + timedelta(hours=hour),
                     {"decode_tok_s": spread(decode, width / 1000), "memory_gb": spread(memory, width / 1000)})
            if decode is not None and memory is not None
            else failed(name, T0 + timedelta(hours=hour), "kernel launch failed")
            for name, hour, decode, memory, width in RUNS]
    return facts_from(tmp_path_factory.mktemp("verdicts"), CONFIG, runs)


def kinds(facts: LintFacts, text: str) -> list[str]:
    return [f.kind for f in lint_text(facts, text + "\n", "log.md")]


def test_a_verdict_s_metric_is_its_own_clause_s_not_a_coordinated_verb_s(facts: LintFacts) -> None:
    # "and needs 30% less memory" is a clause of its own: "faster" is still judged on decode speed.
    assert kinds(facts, "Pinned is faster than Ring and needs 30% less memory.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned is slower than Ring and needs 30% less memory.") == []
    # Memory named in the verdict's own clause is what it is judged on.
    assert kinds(facts, "Pinned is better than Ring on peak memory.") == []


def test_a_sentence_that_says_same_throughput_means_its_better_of_something_else(facts: LintFacts) -> None:
    assert kinds(facts, "Tree is the better pick for small pods: same throughput, one hop fewer.") == []
    assert kinds(facts, "Tree is the better pick for small pods.") == [STALE_VERDICT]
    # "same memory" says nothing of the decode speed "better" is judged on.
    assert kinds(facts, "Tree is the better pick for small pods: same memory, one hop fewer.") == [STALE_VERDICT]


def test_faster_to_do_something_is_not_a_verdict_on_the_result(facts: LintFacts) -> None:
    assert kinds(facts, "Pinned is faster to deploy, which is all it has going for it.") == []
    assert kinds(facts, "Pinned is quicker to set up and faster to roll back.") == []
    assert kinds(facts, "Pinned is faster, so it is the default.") == [STALE_VERDICT]


def test_a_verdict_verb_sized_by_a_claim_is_that_one_claim(facts: LintFacts) -> None:
    # "improves decode speed by 20% over Ring": one statement, checked with its size.
    assert kinds(facts, "Pinned improves decode speed by 20% over Ring.") == [STALE_CLAIM]
    assert kinds(facts, "Pinned lowers peak memory by 30% relative to Ring.") == []


def test_a_figure_and_a_verdict_about_a_failed_experiment_are_two_statements(facts: LintFacts) -> None:
    # That it works and what it gives: two claims the ledger cannot back.
    assert sorted(kinds(facts, "Low-bit works fine on small cards, and Low-bit gives 1,150 tok/s.")) == [
        STALE_VALUE, STALE_VERDICT]
    assert sorted(kinds(facts, "Low-bit works and delivers 1,150 tok/s.")) == [STALE_VALUE, STALE_VERDICT]
    # A superlative ranks it among all: a statement of its own beside the figure.
    assert sorted(kinds(facts, "- Low-bit: 1,150 tok/s, our fastest build yet.")) == [STALE_VALUE, STALE_VERDICT]
    # "ahead of Ring" only compares the figure it follows: the figure's finding says it all.
    assert kinds(facts, "Low-bit gives 1,150 tok/s, ahead of Ring.") == [STALE_VALUE]
    # The head of a line names the subject of a verdict after its figure.
    assert kinds(facts, "- Pinned: 900 tok/s, the fastest option we have.") == [STALE_VERDICT]
    assert kinds(facts, "- Pinned: 900 tok/s, the slowest option we have.") == []


def test_a_verdict_against_what_it_is_not_compared_with_is_judged_by_the_pair(facts: LintFacts) -> None:
    # Pinned and Tree are each compared with Ring; the pair's own comparison says Pinned is 9.5% slower.
    findings = lint_text(facts, "Pinned is equivalent to Tree on decode speed.\n", "log.md")
    assert [f.kind for f in findings] == [STALE_VERDICT]
    assert "outside the compare_to family" in findings[0].message and "Tree" in findings[0].message
    assert kinds(facts, "Pinned is faster than Tree.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned is slower than Tree.") == []
    assert kinds(facts, "Tree is faster than Pinned.") == []
    # Within its own comparison the status still speaks.
    assert kinds(facts, "Pinned is equivalent to Ring on decode speed.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned is on par with Ring.") == [STALE_VERDICT]


def test_a_verdict_under_a_condition_named_after_it_is_not_a_result(facts: LintFacts) -> None:
    assert kinds(facts, "Pinned is faster only if your batch is tiny, which ours never is.") == []
    assert kinds(facts, "Pinned is net-positive unless the cache is cold.") == []
    # The same verdict without its condition is a result the ledger contradicts.
    assert kinds(facts, "Pinned is faster for this pod.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned is net-positive, whatever the cache.") == [STALE_VERDICT]


def test_a_verdict_noun_that_points_back_is_not_a_new_claim(facts: LintFacts) -> None:
    # "that speed-up" names a claim made before; judged there, not again on the metric this clause names.
    assert kinds(facts, "Pinned buys that speed-up with 14 GB of peak memory.") == []
    assert kinds(facts, "Pinned is a speed-up over Ring.") == [STALE_VERDICT]


def test_a_lower_case_works_in_a_status_column_is_the_plain_word(facts: LintFacts) -> None:
    table = "| Setup | Decode tok/s | Status |\n|---|---|---|\n| Ring | 1000 | ref |\n| Tree | 995 | {word} |\n"
    # Tree runs and makes no difference: "works" in plain words is true of it.
    assert kinds(facts, table.format(word="works")) == []
    # "Works", as the status column spells the ledger's word, says it is better; the ledger says no difference.
    assert kinds(facts, table.format(word="Works")) == [STALE_VERDICT]
    # Low-bit fails: neither spelling stands.
    assert kinds(facts, table.replace("Tree | 995", "Low-bit | 1150").format(word="works")) == [STALE_VALUE, STALE_VERDICT]


def test_a_verdict_whose_target_the_ledger_does_not_name_is_left_alone(facts: LintFacts) -> None:
    # Pinned is slower than Ring; what "the old kernel" or "before" was, the ledger does not say.
    assert kinds(facts, "Pinned beats the old kernel.") == []
    assert kinds(facts, "Pinned is faster than before.") == []
    # Named, or the baseline the ledger compares it with, the target is judged.
    assert kinds(facts, "Pinned beats Ring.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned is faster than the baseline.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned beats Ring on decode speed.") == [STALE_VERDICT]


def test_beats_takes_its_target_directly(facts: LintFacts) -> None:
    # Tree against Pinned is a pair outside the compare_to family: Tree is 10.6% faster, so "beats" holds.
    assert kinds(facts, "Tree beats Pinned.") == []
    assert kinds(facts, "Pinned beats Tree.") == [STALE_VERDICT]
    assert kinds(facts, "Pinned lags behind Tree.") == []


def test_a_verdict_under_a_setting_named_after_it_is_a_condition(facts: LintFacts) -> None:
    assert kinds(facts, "Pinned is faster with max_batch = 512.") == []
    assert kinds(facts, "Pinned is faster when the cache is warm.") == []
    assert kinds(facts, "Pinned is faster with the new driver.") == [STALE_VERDICT]


def test_a_plural_subject_s_work_with_the_words_that_make_it_a_verdict(facts: LintFacts) -> None:
    # Low-bit now fails: "work again" of its builds is a verdict the ledger contradicts.
    assert kinds(facts, "Low-bit builds work again.") == [STALE_VERDICT]
    assert kinds(facts, "Low-bit kernels work and are ready to ship.") == [STALE_VERDICT]
    # "work" as a noun, or a plan of work, is none.
    assert kinds(facts, "Low-bit work and the tests are on hold.") == []
    assert kinds(facts, "Low-bit needs more work before the next release.") == []


def test_first_that_orders_a_plan_is_not_the_past(facts: LintFacts) -> None:
    assert kinds(facts, "Pinned is faster and needs a canary first.") == [STALE_VERDICT]
    assert kinds(facts, "First, Pinned is faster.") == [STALE_VERDICT]
    # The first run is the past.
    assert kinds(facts, "Pinned was faster on its first run.") == []
