"""The project's results computed at most once, and only when something asks for them.

`sync` and `check` read results through this: the documents' regions and the prose lint
share one computation, and with a warm cache neither asks, so no statistic is computed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from benchdoc.results.compute import build_results

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.results.model import ResultSet


class LazyResults:
    """A ResultSet computed on first ``get()`` and kept for every later one."""

    def __init__(self, compute: Callable[[], ResultSet]) -> None:
        self._compute = compute
        self._results: ResultSet | None = None

    @classmethod
    def from_ledger(cls, config: Config, ledger: Ledger) -> LazyResults:
        """The results of every run in ``ledger``, pooled and compared as the project says."""
        return cls(lambda: build_results(config, ledger))

    @classmethod
    def of(cls, results: ResultSet) -> LazyResults:
        """Results already computed."""
        lazy = cls(lambda: results)
        lazy._results = results
        return lazy

    @property
    def computed(self) -> bool:
        return self._results is not None

    def get(self) -> ResultSet:
        if self._results is None:
            self._results = self._compute()
        return self._results
