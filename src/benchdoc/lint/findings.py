"""One finding of the prose lint, as printed and as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

STALE_VALUE = "stale-value"
STALE_CLAIM = "stale-claim"
STALE_VERDICT = "stale-verdict"
KINDS = (STALE_VALUE, STALE_CLAIM, STALE_VERDICT)


@dataclass(frozen=True)
class Finding:
    """A statement in the prose that the ledger contradicts."""

    file: str
    line: int  # 1-based
    column: int  # 1-based
    kind: str  # stale-value | stale-claim | stale-verdict
    section: str  # heading path, "Results > Latency"
    text: str  # the words quoted from the document
    message: str  # what is wrong, with what the ledger says now, on one line
    ledger: str  # what the ledger says now
    fix: str  # a suggested fix
    experiment: str  # the experiment whose current result decides (after following supersedes)
    sentence: str  # the sentence or table cell the text is in

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
