"""The ledger: every run and its samples, append-only, in SQLite or PostgreSQL."""

from benchdoc.ledger.models import OUTCOMES, NewRun, Outcome, RunRecord, Sample

__all__ = ["OUTCOMES", "NewRun", "Outcome", "RunRecord", "Sample"]
