"""The validated project file as data: metrics, experiments, documents, statistics settings.

Nothing here reads a file; `benchdoc.config` loads and `benchdoc.config.validate` checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchdoc.errors import ConfigError
from benchdoc.naming import (
    SelectionError,
    did_you_mean,
    experiment_name,
    known_experiments,
    level_experiment,
    split_level_experiment,
)
from benchdoc.pooling import Pooling
from benchdoc.sweeps import SweepConfig

CONFIG_NAME = "benchdoc.toml"
DEFAULT_LEDGER_URL = "sqlite:///.benchdoc/ledger.db"
LEDGER_URL_ENV = "BENCHDOC_LEDGER_URL"
DIRECTIONS = ("higher", "lower")
ROLES = ("reference",)
# Experiment names (declared, expanded from a sweep, or new on import) are words a command
# line, a marker attribute and a glob carry as they are: no spaces, quotes, glob characters,
# '=' or ','. A dot is allowed (a sweep's "mem0.85"): "EXP.METRIC" splits at the last dot
# only when what follows is a declared metric.
EXPERIMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
EXPERIMENT_NAME_RULE = "a letter or digit, then letters, digits, '.', '_' or '-' (no spaces; at most 100 characters)"
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


@dataclass(frozen=True)
class MetricConfig:
    """How one metric is read and shown: which way is better, its unit and precision."""

    name: str
    label: str
    unit: str = ""
    direction: str = "higher"
    digits: int = 1
    equivalence_margin: float | None = None  # a fraction: 0.01 means ±1%
    better_word: str = "better"
    worse_word: str = "worse"
    minimum: float | None = None  # declared `min`: the lowest value a run may record
    maximum: float | None = None  # declared `max`

    def value_problem(self, value: float) -> str | None:
        """Why ``value`` cannot be a value of this metric (by its meaning or its min/max), or None."""
        from benchdoc.metricbounds import value_problem

        return value_problem(self.name, value, unit=self.unit, minimum=self.minimum, maximum=self.maximum)

    @property
    def measures_speed(self) -> bool:
        """A throughput or a latency: its losses are "slower", whatever words it is shown with."""
        return is_speed_unit(self.unit)


@dataclass(frozen=True)
class ExperimentConfig:
    """One configuration under test, as declared; its results live in the ledger."""

    name: str
    label: str
    aliases: tuple[str, ...] = ()
    role: str | None = None
    compare_to: str | None = None
    supersedes: str | None = None
    notes: str = ""
    server: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    workload: str | None = None
    repetitions: int | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    line: int | None = None  # where its table starts in the config file
    sweep: str | None = None  # the [sweeps.NAME] it was expanded from

    @property
    def is_reference(self) -> bool:
        return self.role == "reference"


@dataclass(frozen=True)
class StatsConfig:
    """Statistical settings shared by every comparison."""

    alpha: float = 0.05
    confidence: float = 0.95
    correction: str = "holm"
    seed: int = 0
    pool: Pooling = Pooling()  # which runs every view pools into a result, unless told otherwise
    # A result whose requests failed (or were cut short) more often than this is unreliable.
    max_error_rate: float = 0.05


@dataclass(frozen=True)
class DocumentsConfig:
    paths: tuple[Path, ...] = ()
    historical_sections: tuple[str, ...] = ("History", "Changelog")
    outside_project: bool = False  # documents (and their charts) may resolve outside the project folder


@dataclass(frozen=True)
class Config:
    """A loaded, validated benchdoc.toml."""

    path: Path
    ledger_url: str
    metrics: dict[str, MetricConfig]
    experiments: dict[str, ExperimentConfig]
    documents: DocumentsConfig
    stats: StatsConfig
    primary_metric: str | None
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    workloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    failure_patterns: tuple[dict[str, str], ...] = ()
    sweeps: dict[str, SweepConfig] = field(default_factory=dict)
    slurm: dict[str, Any] = field(default_factory=dict)  # [slurm]: submission settings (benchdoc.cluster)
    keep_requests: bool = True  # [ledger] keep_requests: runs keep each request's record in the ledger
    key_lines: dict[tuple[str, ...], int] = field(default_factory=dict, repr=False, compare=False)

    def line_of(self, *key_path: str) -> int | None:
        """The line of a key (or its nearest enclosing table) in benchdoc.toml, for error messages."""
        for end in range(len(key_path), 0, -1):
            line = self.key_lines.get(tuple(key_path[:end]))
            if line is not None:
                return line
        return None

    def error(self, message: str, *key_path: str) -> ConfigError:
        """A ConfigError located at a key of this file: 'benchdoc.toml:12: servers.sglang.ready_url: ...'."""
        dotted = ".".join(key_path)
        return ConfigError(f"{dotted}: {message}" if dotted else message, self.path, self.line_of(*key_path))

    @property
    def root(self) -> Path:
        """The folder holding benchdoc.toml; relative paths in it are relative to this."""
        return self.path.parent

    def experiment(self, name: str) -> ExperimentConfig:
        """The experiment called ``name`` (or having it as an alias), or a UsageError with a suggestion.

        A name the user typed that the project does not declare is a usage error (exit 2),
        the same in every command; a bad name inside benchdoc.toml is a ConfigError.
        """
        try:
            return self.experiments[experiment_name(name, known_experiments(self.experiments.values()))]
        except SelectionError:
            level = self.level_experiment(name)
            if level is None:
                raise
            return level

    def level_experiment(self, name: str) -> ExperimentConfig | None:
        """``EXP@rate=4``: one load level of a sweep of a declared experiment (or alias),
        labelled after it and compared with the same level of what EXP compares to; None
        when ``name`` is no level or its EXP is not declared."""
        parts = split_level_experiment(name)
        if parts is None:
            return None
        base_name, level = parts
        try:
            base = self.experiments[experiment_name(base_name, known_experiments(self.experiments.values()))]
        except SelectionError:
            return None
        return replace(
            base,
            name=level_experiment(base.name, level),
            label=f"{base.label} @ {level.describe()}",
            aliases=(),
            supersedes=None,
            compare_to=level_experiment(base.compare_to, level) if base.compare_to else None,
        )

    def metric(self, name: str) -> MetricConfig:
        if name in self.metrics:
            return self.metrics[name]
        raise ConfigError(f"unknown metric '{name}'{did_you_mean(name, self.metrics)}", self.path)

    def metric_or_default(self, name: str) -> MetricConfig:
        """A declared metric, or a neutral description of an undeclared one seen in the ledger."""
        return self.metrics.get(name) or MetricConfig(name=name, label=name)

    def superseded_by(self) -> dict[str, str]:
        """Map each superseded experiment to the experiment that replaces it."""
        return {e.supersedes: e.name for e in self.experiments.values() if e.supersedes}


TIME_UNITS = ("ms", "s", "us", "µs", "μs", "ns", "sec", "seconds", "milliseconds")


def is_speed_unit(unit: str) -> bool:
    """Throughput (per second) and latency (time) metrics read as faster/slower."""
    unit = unit.strip().lower()
    return unit.endswith("/s") or unit in TIME_UNITS


def is_time_unit(unit: str) -> bool:
    """A latency or a duration: its changes read as times faster or slower ("2.03x faster")."""
    return unit.strip().lower() in TIME_UNITS


def resolve_ledger_url(url: str, root: Path) -> str:
    """Make a relative SQLite path relative to the config folder, not the working directory."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and url != "sqlite:///:memory:":
        relative = url[len(prefix):]
        return prefix + str((root / relative).resolve())
    return url
