"""`benchdoc record --started/--finished`: a run measured elsewhere spans the time it was
measured; without them it is dated when recorded; a period that cannot be is refused."""

from __future__ import annotations

from datetime import datetime, timezone

from benchdoc.ledger.store import Ledger


def _runs(project):  # type: ignore[no-untyped-def]
    with Ledger.open(project.ledger_url) as ledger:
        return ledger.runs()


def test_a_recorded_run_spans_the_period_stated(project) -> None:  # type: ignore[no-untyped-def]
    result = project.run("record", "baseline", "-m", "output_tok_s=92.6,93.1",
                         "--started", "2026-12-01T10:00:00Z", "--finished", "2026-12-01T10:20:30")
    assert result.returncode == 0, result.stderr
    (run,) = _runs(project)
    assert run.started_at == datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
    assert run.finished_at == datetime(2026, 12, 1, 10, 20, 30, tzinfo=timezone.utc)


def test_without_a_period_the_run_is_dated_when_recorded(project) -> None:  # type: ignore[no-untyped-def]
    before = datetime.now(timezone.utc)
    assert project.run("record", "baseline", "-m", "output_tok_s=92.6").returncode == 0
    (run,) = _runs(project)
    assert before <= run.started_at == run.finished_at <= datetime.now(timezone.utc)


def test_a_period_that_cannot_be_is_one_line_and_nothing_recorded(project) -> None:  # type: ignore[no-untyped-def]
    backwards = project.run("record", "baseline", "-m", "output_tok_s=92.6",
                            "--started", "2026-12-01T11:00:00Z", "--finished", "2026-12-01T10:00:00Z")
    assert backwards.returncode != 0 and "before it starts" in backwards.stderr
    assert len(backwards.stderr.strip().splitlines()) == 1 and "Traceback" not in backwards.stderr
    future = project.run("record", "baseline", "-m", "output_tok_s=92.6", "--finished", "2999-01-01T00:00:00Z")
    assert future.returncode != 0 and "in the future" in future.stderr
    garbled = project.run("record", "baseline", "-m", "output_tok_s=92.6", "--started", "yesterday")
    assert garbled.returncode == 2 and "is not a date and time" in garbled.stderr
    assert not (project.root / ".benchdoc" / "ledger.db").exists() or _runs(project) == []
