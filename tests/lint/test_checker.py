"""benchdoc.lint.checker: what a document's walk leaves out (historical sections, ignores, code).

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from tests.lint.conftest import kinds

from benchdoc.lint import LintFacts


def test_history_sections_ignore_directives_and_code_are_quiet(story_facts: LintFacts) -> None:
    text = (
        "<!-- benchdoc:ignore -->\nEAGLE-3 is 40% slower than baseline (54.1 tok/s).\n\n"
        "Quoted: EAGLE-3 reaches 54.1 tok/s. <!-- benchdoc:ignore -->\n\n"
        "`EAGLE-3 reaches 54.1 tok/s`\n\n```\nEAGLE-3 reaches 54.1 tok/s\n```\n\n"
        "## Changelog\n\n- EAGLE-3 reaches 54.1 tok/s, 40% slower than baseline.\n"
    )
    assert kinds(story_facts, text) == []
