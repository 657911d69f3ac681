"""benchdoc.lint.state: where the ledger stood at the last writing sync."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.lint.conftest import story_config

from benchdoc.lint.state import read_sync_point, record_sync, state_path

NOW = datetime(2026, 11, 5, 12, tzinfo=timezone.utc)


def test_each_writing_sync_keeps_the_one_before(tmp_path: Path) -> None:
    config = story_config(tmp_path)
    assert read_sync_point(config) is None
    first = record_sync(config, 5, NOW)
    assert (first.last_run_id, first.previous_run_id, first.synced_at) == (5, 0, "2026-11-05T12:00:00+00:00")
    assert read_sync_point(config) == first
    # A sync with nothing new keeps what the earlier one brought in.
    assert record_sync(config, 5) == first
    second = record_sync(config, 9, NOW)
    assert (second.last_run_id, second.previous_run_id) == (9, 5)
    assert read_sync_point(config) == second


def test_an_unreadable_state_counts_as_none(tmp_path: Path) -> None:
    config = story_config(tmp_path)
    state_path(config).parent.mkdir(parents=True)
    state_path(config).write_text("{not json")
    assert read_sync_point(config) is None
    assert record_sync(config, 3, NOW).previous_run_id == 0
