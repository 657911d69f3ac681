"""benchdoc.lint.changed: every place naming an experiment whose result changed."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from benchdoc.docs import parse_text
from benchdoc.errors import UsageError
from benchdoc.lint import LintFacts
from benchdoc.lint.changed import Since, changed_experiments, changed_places, parse_since
from benchdoc.lint.text import document_units


def test_parse_since() -> None:
    assert parse_since("12") == Since(after_run=12)
    assert parse_since("#7") == Since(after_run=7)
    assert parse_since("run:3") == Since(after_run=3)
    assert parse_since("2026-11-03") == Since(moment=datetime(2026, 11, 3, tzinfo=timezone.utc))
    assert parse_since("2026-11-03T14:30").moment == datetime(2026, 11, 3, 14, 30, tzinfo=timezone.utc)
    with pytest.raises(UsageError, match="expected a run id"):
        parse_since("last tuesday")


def test_changed_experiments_follow_supersedes_and_comparisons(story_facts: LintFacts) -> None:
    changed = changed_experiments(story_facts, parse_since("2026-11-04"))
    assert set(changed) == {"baseline", "eagle3-cuda13", "nccl-tree", "eagle3", "nccl-fewer-channels"}
    assert changed["eagle3"].why == "superseded by EAGLE-3 2-step (CUDA 13 + fusion), which has new runs"
    assert changed["nccl-fewer-channels"].why == "compared with Baseline (no spec), which has new runs"
    assert changed["nccl-tree"].why.startswith("1 new run since 2026-11-04 00:00 UTC, 1 failed; the latest #5")
    assert changed_experiments(story_facts, Since(after_run=5)) == {}
    assert set(changed_experiments(story_facts, Since(after_run=4))) == {"nccl-tree"}


def test_places_list_every_sentence_and_row_naming_them(story_facts: LintFacts) -> None:
    text = (
        "# Log\n\nEAGLE-3 is 40% slower than baseline. Nothing else here.\n\n"
        "| Config | tok/s |\n|---|---|\n| EAGLE-3 2-step | 54.1 |\n| Other | 1 |\n\n"
        "<!-- benchdoc:ignore -->\nThe baseline quoted.\n\n## History\n\n- EAGLE-3 reached 54.1 tok/s.\n"
    )
    document = document_units(parse_text(text, "log.md"), story_facts.historical_sections)
    changed = changed_experiments(story_facts, parse_since("2026-11-04"))
    places = changed_places(story_facts, [document], changed)
    assert [(p.line, p.column, p.experiments, p.historical, p.ignored) for p in places] == [
        (3, 1, ("eagle3", "baseline"), False, False),
        (7, 3, ("eagle3",), False, False),
        (11, 1, ("baseline",), False, True),
        (15, 3, ("eagle3",), True, False),
    ]
    assert places[1].text == "EAGLE-3 2-step | 54.1"
    assert places[0].section == "Log" and places[0].to_json()["experiments"] == ["eagle3", "baseline"]


def test_the_project_order_survives_the_cache_levels_by_load(story_facts: LintFacts) -> None:
    """The cache writes its JSON keys sorted; the facts read back keep the project's order, so
    `lint --changed` lists a sweep's levels by load (128 before 1024), not as text."""
    import dataclasses
    import json

    base = story_facts.experiments["baseline"]
    names = ["baseline", *(f"baseline@concurrency={n}" for n in (1, 128, 1024, 131072))]
    facts = dataclasses.replace(story_facts, experiments={n: dataclasses.replace(base, name=n) for n in names})
    back = LintFacts.from_json(json.loads(json.dumps(facts.to_json(), sort_keys=True)))
    assert list(back.experiments) == names
    assert list(changed_experiments(back, parse_since("2026-11-04"))) == names
