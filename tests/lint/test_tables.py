"""benchdoc.lint.tables: hand-kept table rows, each cell read under its header.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from tests.lint.conftest import kinds

from benchdoc.lint import LintFacts
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT


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
