"""The checks benchdoc.docs.sync makes before it writes: the spliced text must parse back
into the same regions holding exactly what was planned, and a region whose hand edit is
refused is never spliced into the text (or the diff) shown."""

from __future__ import annotations

import dataclasses

from tests.docs.test_sync import LOG, NEW, OLD

from benchdoc.docs.markers import content_checksum
from benchdoc.docs.sync import RegionStatus, _structure_errors, plan_text


def _synced() -> str:
    plan = plan_text(LOG, OLD)
    assert plan.ok
    return plan.new_text


def test_the_self_check_compares_each_written_region_s_content() -> None:
    plan = plan_text(_synced(), NEW)
    assert plan.ok and plan.changed
    assert _structure_errors(plan.source, plan.new_text, plan.regions) == []
    # The text parses into the same regions, but one holds other content than planned.
    plans = list(plan.regions)
    table_at = next(i for i, p in enumerate(plans) if p.region.kind == "table")
    plans[table_at] = dataclasses.replace(plans[table_at], new_content="| other |\n")
    (error,) = _structure_errors(plan.source, plan.new_text, plans)
    assert error.line == plans[table_at].region.line
    assert "table region" in error.message and "nothing was written" in error.message
    # A region that is not written is not held to its planned content.
    plans[table_at] = dataclasses.replace(plans[table_at], written=False)
    assert _structure_errors(plan.source, plan.new_text, plans) == []


def test_a_lost_region_fails_the_self_check() -> None:
    plan = plan_text(_synced(), NEW)
    assert _structure_errors(plan.source, plan.new_text, plan.regions[:-1])


def test_a_refused_hand_edit_is_never_spliced_into_the_diff() -> None:
    edited = _synced().replace("| eagle3 | **54.1** |", "| eagle3 | **60.0** |")
    plan = plan_text(edited, NEW)
    table = next(p for p in plan.regions if p.region.kind == "table")
    assert table.status is RegionStatus.HAND_EDITED and not table.written and not plan.ok
    assert "| eagle3 | **60.0** |" in plan.new_text
    assert "**96.1** |" not in plan.new_text and "**96.1** |" not in plan.diff
    assert "<!-- benchdoc:end checksum=" + content_checksum(table.new_content or "") not in plan.new_text
    # The value regions, not refused, are in it.
    assert "+EAGLE-3 reaches <!-- benchdoc:value eagle3 -->96.1" in plan.diff


def test_a_self_check_failure_with_no_written_region_names_the_file() -> None:
    """Had no region been written, the error can name no region: it names the document."""
    plan = plan_text(_synced(), OLD)
    assert plan.ok and not plan.changed
    unwritten = [dataclasses.replace(p, written=False) for p in plan.regions][:-1]
    (error,) = _structure_errors(plan.source, plan.new_text, unwritten)
    assert error.line is None and error.file == plan.path
    assert error.message.startswith("the rendered content would change the document's structure")
