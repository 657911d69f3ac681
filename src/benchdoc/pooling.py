"""Which runs of an experiment are pooled into its current result, and how that is written.

One setting answers it for every view: the project's ``[stats] pool`` in benchdoc.toml
(``"latest"``, ``"all"``, ``"runs:5"``, ``"since:2026-11-01"``), which a command line
(``--all-runs``, ``--runs N``, ``--since DATE``) or a managed region (``runs=5``,
``pool=all``) may override. :func:`benchdoc.results.effective_pooling` decides which
applies; this module holds only the value and its spelling, so the config can carry it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Literal

from benchdoc.ledger.models import Outcome

if TYPE_CHECKING:
    from benchdoc.ledger.models import RunRecord

POOL_FORMS = '"latest", "all", "runs:N" (N >= 1) or "since:YYYY-MM-DD[THH:MM]"'


class PoolingError(ValueError):
    """A pooling written wrongly; the message names the accepted forms, the caller where."""


@dataclass(frozen=True)
class Pooling:
    """Which runs of an experiment are pooled into its current result.

    ``latest`` (default): the latest run, all its repetitions. ``runs``: the latest N
    successful runs. ``since``: every successful run started at or after a moment.
    ``all``: every successful run.
    """

    mode: Literal["latest", "runs", "since", "all"] = "latest"
    count: int | None = None
    since: datetime | None = None

    def describe(self) -> str:
        if self.mode == "runs":
            return f"the latest {self.count} successful runs of each experiment"
        if self.mode == "since":
            return f"every successful run since {self.since:%Y-%m-%d %H:%M} UTC" if self.since else "every run"
        if self.mode == "all":
            return "every successful run of each experiment"
        return "the latest run of each experiment (all its repetitions)"

    @property
    def spelling(self) -> str:
        """How benchdoc.toml and markers write it: ``latest``, ``all``, ``runs:5``, ``since:2026-11-01``."""
        if self.mode == "runs":
            return f"runs:{self.count}"
        if self.mode == "since" and self.since is not None:
            moment = self.since.astimezone(timezone.utc)
            return f"since:{moment:%Y-%m-%d}" if (moment.hour, moment.minute) == (0, 0) else f"since:{moment:%Y-%m-%dT%H:%M}"
        return self.mode

    def select(self, runs: Sequence[RunRecord]) -> list[RunRecord]:
        """The runs to pool, from ``runs`` ordered newest first."""
        ok = [r for r in runs if r.outcome == Outcome.OK]
        if self.mode == "latest":
            return [runs[0]] if runs and runs[0].outcome == Outcome.OK else []
        if self.mode == "runs":
            return ok[: self.count or 1]
        if self.mode == "since":
            return [r for r in ok if self.since is None or r.started_at >= self.since]
        return ok


def parse_moment(text: str) -> datetime:
    """``2026-11-02`` or ``2026-11-02T14:30`` as a UTC moment (a time without a zone is UTC);
    PoolingError when it is neither."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise PoolingError(f"{text!r} is not a date like 2026-11-02 or 2026-11-02T14:30") from None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment


def parse_count(text: str) -> int:
    """A number of runs: a whole number of at least 1; PoolingError otherwise."""
    if not text.strip().isdigit() or int(text) < 1:
        raise PoolingError(f"{text!r} is not a number of runs (a whole number, at least 1)")
    return int(text)


def parse_pooling(text: str) -> Pooling:
    """``latest`` | ``all`` | ``runs:N`` | ``since:DATE`` as a Pooling; PoolingError naming the forms."""
    if not isinstance(text, str):
        raise PoolingError(f"expected one of {POOL_FORMS}, got {text!r}")
    word, sep, rest = text.strip().partition(":")
    word = word.lower()
    if not sep and word in ("latest", "all"):
        return Pooling(word)  # type: ignore[arg-type]
    try:
        if sep and word == "runs":
            return Pooling("runs", count=parse_count(rest))
        if sep and word == "since":
            return Pooling("since", since=parse_moment(rest))
    except PoolingError as err:
        raise PoolingError(f"{text!r}: {err}; expected one of {POOL_FORMS}") from None
    raise PoolingError(f"expected one of {POOL_FORMS}, got {text!r}")
