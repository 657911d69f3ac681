"""How a sweep is submitted to Slurm: the ``[slurm]`` table of benchdoc.toml, overridden
by the command line, validated before anything is written or submitted."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from benchdoc.config import Config
from benchdoc.errors import UsageError
from benchdoc.naming import did_you_mean
from benchdoc.redact import redact_argv, redact_free_text

SLURM_KEYS = (
    "partition", "gres", "time", "account", "qos", "exclusive", "requeue", "retries", "max_parallel", "sbatch_args", "setup",
)
# Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
_TIME = re.compile(r"\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+(:\d{1,2}){0,2}")
# Values go into "#SBATCH --key=value" lines: no line breaks, nothing a shell would read.
_SAFE = re.compile(r"[A-Za-z0-9_.:,=+%@/-]+")


@dataclass(frozen=True)
class SlurmOptions:
    """sbatch settings of one submission. ``exclusive`` is on by default: a benchmark
    needs the node to itself. ``setup`` lines run before benchdoc in every task
    (``module load cuda``, activating an environment)."""

    partition: str | None = None
    gres: str | None = None
    time: str | None = None
    account: str | None = None
    qos: str | None = None
    exclusive: bool = True
    requeue: bool | None = None  # None: the cluster's JobRequeue decides
    retries: int | None = None  # at most this many requeues per task (implies requeue)
    max_parallel: int | None = None
    sbatch_args: tuple[str, ...] = ()
    setup: tuple[str, ...] = field(default=())

    def directives(self) -> list[str]:
        """The ``--key=value`` options of the sbatch script, in a fixed order."""
        found = []
        for key in ("partition", "gres", "time", "account", "qos"):
            value = getattr(self, key)
            if value:
                found.append(f"--{key}={value}")
        if self.exclusive:
            found.append("--exclusive")
        requeue = True if self.retries and self.requeue is None else self.requeue
        if requeue is not None:
            found.append("--requeue" if requeue else "--no-requeue")
        found.extend(self.sbatch_args)
        return found


def slurm_options(config: Config, overrides: Mapping[str, Any], experiment: str | None = None) -> SlurmOptions:
    """The project's ``[slurm]`` table, then (for ``experiment``) each of its
    ``[slurm.experiments."GLOB"]`` tables whose glob matches the name, in file order, then
    the command line's ``overrides`` (None = not given) on top. A bad value in the file is
    a ConfigError at its key; on the command line, a UsageError."""
    table = config.slurm
    for key in table:
        if key not in (*SLURM_KEYS, "experiments"):
            raise config.error(f"unknown key '{key}'{did_you_mean(key, SLURM_KEYS)}", "slurm", key)
    options = _from_table(config, SlurmOptions(), table, ("slurm",))
    for glob, part in _per_experiment(config).items():
        if experiment is not None and fnmatch.fnmatchcase(experiment, glob):
            options = _from_table(config, options, part, ("slurm", "experiments", glob))
    for key, value in overrides.items():
        if value is None or (key == "sbatch_args" and not value):
            continue
        if key == "sbatch_args":
            value = (*options.sbatch_args, *value)
        options = _set(options, key, value, lambda message, k=key: UsageError(f"--{k.replace('_', '-')}: {message}"))
    return options


def _per_experiment(config: Config) -> dict[str, dict[str, Any]]:
    """``[slurm.experiments."GLOB"]`` tables, checked: GLOB -> its settings."""
    found = config.slurm.get("experiments", {})
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise config.error('expected tables like [slurm.experiments."llama-70b-*"]', "slurm", "experiments")
    for glob, part in found.items():
        for key in part:
            if key not in SLURM_KEYS or key == "max_parallel":
                raise config.error(f"unknown key '{key}' for one experiment's resources (max_parallel is the array's)",
                                   "slurm", "experiments", glob, key)
    return found


def _from_table(config: Config, options: SlurmOptions, table: Mapping[str, Any], where: tuple[str, ...]) -> SlurmOptions:
    for key in SLURM_KEYS:
        if key in table:
            options = _set(options, key, table[key], lambda message, k=key: config.error(message, *where, k))
    return options


def options_by_experiment(config: Config, names: Sequence[str], overrides: Mapping[str, Any]) -> list[tuple[SlurmOptions, list[str]]]:
    """``names`` grouped by the sbatch settings each gets, in order of first appearance:
    one job array per group."""
    groups: dict[SlurmOptions, list[str]] = {}
    for name in names:
        groups.setdefault(slurm_options(config, overrides, name), []).append(name)
    return list(groups.items())


def _refuse_secrets(items: Sequence[str], error: Any) -> None:
    """A secret in a setup line or an sbatch option would be written to the job script and
    submission.json in clear: refused, with what to do instead."""
    for item in items:
        words = item.split()
        if redact_argv(words) != words or redact_free_text(item) != item:
            raise error(
                f"{redact_free_text(' '.join(redact_argv(words)))!r} holds a secret, which would be written to the job "
                "script and submission.json: export it in the shell that submits (sbatch passes the environment on)"
            )


def _set(options: SlurmOptions, key: str, value: Any, error: Any) -> SlurmOptions:
    if key in ("exclusive", "requeue"):
        if not isinstance(value, bool):
            raise error(f"expected true or false, got {value!r}")
        flag: dict[str, Any] = {key: value}
        return replace(options, **flag)
    if key in ("max_parallel", "retries"):
        least = 1 if key == "max_parallel" else 0
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise error(f"expected a whole number of at least {least}, got {value!r}")
        number: dict[str, Any] = {key: value}
        return replace(options, **number)
    if key in ("sbatch_args", "setup"):
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
            raise error("expected a list of strings")
        if any("\n" in v or "\r" in v for v in items):
            raise error("a line break cannot go into the job script")
        _refuse_secrets(items, error)
        if key == "sbatch_args":
            for item in items:
                if not item.startswith("-") or not _SAFE.fullmatch(item.replace(" ", "")):
                    raise error(f"expected sbatch options like --mem=64G, got {item!r}")
        changes: dict[str, Any] = {key: tuple(items)}
        return replace(options, **changes)
    if not isinstance(value, str) or not value:
        raise error(f"expected a string, got {value!r}")
    if not _SAFE.fullmatch(value):
        raise error(f"{value!r} holds characters sbatch options cannot hold")
    if key == "time" and not _TIME.fullmatch(value):
        raise error(f"expected a Slurm time like 30, 02:00:00 or 1-00:00:00, got {value!r}")
    setting: dict[str, Any] = {key: value}
    return replace(options, **setting)
