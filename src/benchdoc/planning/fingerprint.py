"""Which results are current: a fingerprint of each experiment's effective configuration.

The fingerprint hashes what a run actually does: the server's argv after every
placeholder is filled (the port left as ``{port}``: it is picked at start), the
environment benchdoc adds, the working directory relative to the project, and the
workload's settings. A run records the fingerprint of the configuration it ran; when
benchdoc.toml changes what an experiment does, its older runs no longer match and are
shown as "config changed since", and ``--missing`` selects the experiment again.

Labels, notes, timeouts and the repetition count do not change what is measured, so
they are not part of it. Runs recorded without a fingerprint (``record``, ``import``, or
by an older benchdoc) cannot be told apart and count as current.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from benchdoc.config import Config
from benchdoc.errors import BenchdocError
from benchdoc.ledger.models import Outcome
from benchdoc.naming import split_level_experiment
from benchdoc.planning.plan import check_setups, describe_workload, level_setups, plan_launch
from benchdoc.redact import redact_argv, redact_env

if TYPE_CHECKING:
    from benchdoc.ledger.models import RunRecord
    from benchdoc.ledger.store import Ledger


def experiment_fingerprint(config: Config, name: str) -> str | None:
    """The fingerprint of ``name``'s current configuration; None when it has no server or
    its configuration does not validate (nothing can run it as it is)."""
    level = None
    if name not in config.experiments and (parts := split_level_experiment(name)) is not None:
        name, level = parts  # a level of a sweep: its experiment's configuration at that level
    exp = config.experiments.get(name)
    if exp is None or not exp.server:
        return None
    # The API key's value is not configuration: any value stands in for it.
    keys = {table["api_key_env"]: "set" for table in config.workloads.values() if isinstance(table.get("api_key_env"), str)}
    try:
        (setup,) = check_setups(config, [name])
        if level is not None:
            setup = replace(setup, level=level, swept=name)
        launch = plan_launch(config, setup, setup.server.port)
        described = describe_workload(config, setup, launch, environ=keys)
    except BenchdocError:
        return None
    workload = {key: value for key, value in described.items() if key != "name"}
    try:
        cwd = str(launch.cwd.relative_to(config.root))
    except ValueError:
        cwd = str(launch.cwd)
    argv, env = list(redact_argv(launch.argv)), redact_env(launch.env)
    effective = {"argv": argv, "env": env, "cwd": cwd, "workload": workload}
    digest = hashlib.sha256(json.dumps(effective, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return f"sha256:{digest[:16]}"


def config_fingerprints(config: Config, names: Iterable[str] | None = None) -> dict[str, str]:
    """The current fingerprint of every runnable experiment (of ``names``, when given)."""
    chosen = config.experiments if names is None else names
    found = {name: experiment_fingerprint(config, name) for name in chosen}
    return {name: fingerprint for name, fingerprint in found.items() if fingerprint is not None}


def recorded_fingerprint(run: RunRecord) -> str | None:
    return run.metadata.config_fingerprint


def ran_current_config(run: RunRecord, current: str | None) -> bool:
    """Whether ``run`` ran the configuration whose fingerprint is ``current``."""
    recorded = recorded_fingerprint(run)
    return current is None or recorded is None or recorded == current


def recorded_as(config: Config, names: Sequence[str]) -> dict[str, list[str]]:
    """The experiments each of ``names`` records its runs under: itself, or each level of
    its load sweep (``EXP@rate=1``...)."""
    found: dict[str, list[str]] = {}
    for name in names:
        try:
            (setup,) = check_setups(config, [name])
        except BenchdocError:
            found[name] = [name]
            continue
        found[name] = [level.name for level in level_setups(config, setup)]
    return found


def missing_experiments(config: Config, names: Sequence[str], runs: Iterable[RunRecord]) -> list[str]:
    """Those of ``names`` without a successful run of their current configuration (a load
    sweep: at every level): what is left to do of a half-failed sweep (or one whose
    configuration changed). ``runs`` are those of every name ``recorded_as`` gives."""
    return _missing(config, names, recorded_as(config, names), runs)


def missing_in_ledger(config: Config, names: Sequence[str], ledger: Ledger) -> list[str]:
    """:func:`missing_experiments`, reading the runs it needs from ``ledger``."""
    recorded = recorded_as(config, names)
    runs = ledger.runs([n for levels in recorded.values() for n in levels], with_samples=False)
    return _missing(config, names, recorded, runs)


def _missing(config: Config, names: Sequence[str], recorded: dict[str, list[str]], runs: Iterable[RunRecord]) -> list[str]:
    current = config_fingerprints(config, [n for levels in recorded.values() for n in levels])
    done = {
        run.experiment for run in runs if run.outcome == Outcome.OK and ran_current_config(run, current.get(run.experiment))
    }
    return [name for name in names if not all(level in done for level in recorded[name])]
