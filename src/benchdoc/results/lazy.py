"""The project's results computed at most once, and only when something asks for them.

`sync` and `check` read results through this: the documents' regions and the prose lint
share one computation, and with a warm cache neither asks, so no statistic is computed.
A region that pools other runs than the rest (``runs=5``) asks for its own pooling, which
is computed once too and shared by every region that asks for the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from benchdoc.results.compute import build_results, compute_results, effective_pooling

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.pooling import Pooling
    from benchdoc.results.model import ResultSet


class LazyResults:
    """A ResultSet computed on first ``get()`` and kept for every later one; other poolings
    of the same runs on demand (:meth:`pooled`)."""

    def __init__(self, compute: Callable[[], ResultSet], repool: Callable[[Pooling], ResultSet] | None = None) -> None:
        self._compute = compute
        self._repool = repool
        self._results: ResultSet | None = None
        self._others: dict[Pooling, ResultSet] = {}

    @classmethod
    def from_ledger(cls, config: Config, ledger: Ledger, pooling: Pooling | None = None) -> LazyResults:
        """The results of every run in ``ledger``, pooled as ``pooling`` (default: as the project
        says) and compared as the project says."""
        return cls(lambda: build_results(config, ledger, pooling=pooling),
                   lambda other: build_results(config, ledger, pooling=other))

    @classmethod
    def of(cls, results: ResultSet) -> LazyResults:
        """Results already computed."""
        lazy = cls(lambda: results)
        lazy._results = results
        return lazy

    @property
    def computed(self) -> bool:
        return self._results is not None

    @property
    def pooling(self) -> Pooling | None:
        """The pooling of :meth:`get`'s results, once they are computed."""
        return self._results.pooling if self._results is not None else None

    def get(self) -> ResultSet:
        if self._results is None:
            self._results = self._compute()
        return self._results

    def pooled(self, pooling: Pooling | None) -> ResultSet:
        """The same runs pooled as ``pooling`` (None: as :meth:`get`)."""
        base = self.get()
        if pooling is None or effective_pooling(base.config, pooling) == base.pooling:
            return base
        if pooling not in self._others:
            if self._repool is not None:
                self._others[pooling] = self._repool(pooling)
            else:  # every run a result can pool is among each experiment's runs
                runs = [run for result in base for run in result.runs]
                repooled = compute_results(base.config, runs, pooling=pooling)
                self._others[pooling] = dataclasses.replace(repooled, read_requests=base.read_requests)
        return self._others[pooling]
