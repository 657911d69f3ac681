"""Which experiments exist: those declared in benchdoc.toml and those only in the ledger.

An experiment recorded with `import --allow-new` (or declared once and removed since) has
runs but no table in benchdoc.toml; it is still an experiment, named like any other.
Commands that list runs without computing statistics (`history`, `export`) select here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from benchdoc.naming import known_experiments, select

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger


def experiment_catalog(config: Config, recorded: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each experiment's name and aliases: declared ones in config order, then recorded-only ones."""
    catalog = known_experiments(config.experiments.values())
    for name in recorded:
        catalog.setdefault(name, ())
    return catalog


def select_recorded(config: Config, ledger: Ledger, patterns: Sequence[str]) -> list[str]:
    """Experiments named by names, aliases or globs, declared or only recorded, in the order given."""
    return select(patterns, experiment_catalog(config, ledger.experiment_names()))
