"""benchdoc.lint.stale_verdicts: verdict words against the computed status.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from tests.lint.conftest import kinds

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_VERDICT


def test_verdicts_against_the_computed_status(story_facts: LintFacts) -> None:
    assert kinds(story_facts, "EAGLE-3 is net-negative, so keep it off.\n") == [(1, STALE_VERDICT, "net-negative")]
    (failed,) = lint_text(story_facts, "NCCL Tree works with CUDA graphs.\n")
    assert (failed.kind, failed.text) == (STALE_VERDICT, "works")
    assert "NCCL Tree now fails (CUDA graph incompatible, run #5 of 2026-11-05)" in failed.message  # the failed run
    (finding,) = lint_text(story_facts, "EAGLE-3 doesn't work on this stack.\n")
    assert "EAGLE-3 2-step (CUDA 13 + fusion) now works (+3.8% vs Baseline (no spec), run #4 of 2026-11-05)" in finding.message
    # A status word in place of "doesn't work" would not read: words to write, no region.
    assert finding.fix.startswith('no fix proposed: reword it, e.g. "EAGLE-3 2-step (CUDA 13 + fusion) now works')
    assert "benchdoc:value" not in finding.fix


def test_a_bare_comparative_takes_the_verdict_sentence_and_a_linked_one_none(story_facts: LintFacts) -> None:
    (bare,) = lint_text(story_facts, "EAGLE-3 is slower.\n")
    assert bare.fix.endswith("<!-- benchdoc:value eagle3-cuda13 show=verdict -->3.8% faster than Baseline (no spec)"
                             "<!-- benchdoc:end -->")
    (linked,) = lint_text(story_facts, "EAGLE-3 is slower than the baseline.\n")
    assert "benchdoc:value" not in linked.fix
    (failed,) = lint_text(story_facts, "NCCL Tree is faster.\n")
    assert "benchdoc:value" not in failed.fix


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
