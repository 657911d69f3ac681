"""ledger.retractions: a run taken back stays in the ledger, and the undo is a row too."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from benchdoc.errors import LedgerError
from benchdoc.ledger import Ledger, NewRun, Sample


def test_retract_and_unretract_append_rows(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with Ledger.open(url) as ledger:
        kept = ledger.record_run(NewRun("a", samples=[Sample("x", 1.0)]))
        taken = ledger.record_run(NewRun("a", samples=[Sample("x", 9.0)]))
        retraction = ledger.retract(taken, "  ran with the debug build  ")
        assert retraction.reason == "ran with the debug build" and retraction.at.tzinfo is not None
        by_id = {r.id: r for r in ledger.runs("a")}
        assert by_id[taken].retraction == retraction and by_id[kept].retraction is None
        with pytest.raises(LedgerError, match="already retracted"):
            ledger.retract(taken, "again")
        assert ledger.unretract(taken) == retraction
        assert ledger.run(taken).retraction is None
        with pytest.raises(LedgerError, match="is not retracted"):
            ledger.unretract(taken)
        with pytest.raises(LedgerError, match="no run with id 99"):
            ledger.retract(99, "nothing")
        with pytest.raises(LedgerError, match="needs a reason"):
            ledger.retract(kept, " ")
        ledger.retract(taken, "debug build after all")
        assert ledger.run(taken).retraction.reason == "debug build after all"  # type: ignore[union-attr]
        assert ledger.run_count() == 2  # nothing deleted
    with sa.create_engine(url).connect() as conn:
        history = conn.execute(sa.text("SELECT retracted, reason FROM retractions ORDER BY id")).all()
    assert [tuple(row) for row in history] == [(1, "ran with the debug build"), (0, None), (1, "debug build after all")]
