"""What a long-lived server keeps between calls: the parsed config and the computed results,
each valid while what it was made from is unchanged.

A command computes the results once and exits; the server answers many calls. Parsing a
2,000-experiment benchdoc.toml and computing every result take seconds, so the server keeps
both and checks, on every call, that they still hold: the config while its file's bytes are the
same, the results while the ledger's state (:func:`benchdoc.cache.fingerprint`: benchdoc's
version, the config's bytes, the ledger's change token) is. A run recorded or retracted by
anyone, through this server or not, changes the state, and the next call computes afresh.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.results import LazyResults, ResultSet


class Memo:
    """The config and results of one project, recomputed only when their sources changed."""

    def __init__(self) -> None:
        self._config_lock = threading.Lock()
        self._results_lock = threading.Lock()
        self._config: tuple[bytes, Config] | None = None
        self._results: tuple[str, ResultSet] | None = None
        self._derived_lock = threading.Lock()
        self._derived: tuple[str, dict[Hashable, Any]] = ("", {})

    def config(self, path: Path) -> Config:
        from benchdoc.config import load_config, parse_config

        try:
            data = path.read_bytes()
        except OSError:
            return load_config(path)  # its one line about the file
        with self._config_lock:
            if self._config is not None and self._config[0] == data:
                return self._config[1]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return load_config(path)  # its one line, with the byte and its line
        config = parse_config(text, path)
        with self._config_lock:
            self._config = (data, config)
        return config

    def results(self, config: Config, ledger: Ledger) -> ResultSet:
        """Every experiment's result, pooled and compared as the project says, for the ledger as it is now."""
        return self.current(config, ledger)[1]

    def current(self, config: Config, ledger: Ledger) -> tuple[str, ResultSet]:
        """The ledger's state and :meth:`results` for it (one reading of the state, so the two agree)."""
        from benchdoc.cache import fingerprint
        from benchdoc.results import build_results

        state = fingerprint(config, ledger)
        with self._results_lock:  # one computation at a time: a second caller waits for the first's answer
            if self._results is None or self._results[0] != state:
                self._results = (state, build_results(config, ledger))
            results = self._results[1]
        # Requests are read from the ledger of this call, open now.
        return state, dataclasses.replace(results, read_requests=ledger.request_timings)

    def derived(self, state: str, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``, remembered while the ledger's state is ``state`` (what :meth:`results` was made for)."""
        with self._derived_lock:
            if self._derived[0] != state:
                self._derived = (state, {})
            known = self._derived[1]
        if key not in known:
            known[key] = compute()
        return known[key]

    def lazy(self, config: Config, ledger: Ledger) -> LazyResults:
        """:meth:`results` computed only if asked for (a warm derived cache may not need them)."""
        from benchdoc.results import LazyResults, build_results

        return LazyResults(lambda: self.results(config, ledger), lambda other: build_results(config, ledger, pooling=other))
