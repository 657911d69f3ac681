"""Checks a parsed benchdoc.toml key by key and builds the `Config`; errors name file:line:key."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from benchdoc.config.model import (
    CORRECTIONS,
    DEFAULT_LEDGER_URL,
    DIRECTIONS,
    EXPERIMENT_NAME,
    EXPERIMENT_NAME_RULE,
    LEDGER_URL_ENV,
    ROLES,
    Config,
    DocumentsConfig,
    ExperimentConfig,
    MetricConfig,
    StatsConfig,
    did_you_mean,
    is_speed_unit,
    resolve_ledger_url,
)
from benchdoc.errors import ConfigError
from benchdoc.pooling import PoolingError, parse_pooling
from benchdoc.sweeps import SweepConfig


class LineLocator:
    """Finds the line of a table or key in the TOML text, for error messages.

    tomllib gives no positions, so we scan headers (`[a.b]`, `[a."b c"]`) and `key =` lines.
    Good enough for the shapes a benchdoc.toml uses; returns None when unsure.
    """

    _header = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")  # [table] and [[array of tables]]
    _key = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")

    def __init__(self, text: str) -> None:
        self.tables: dict[tuple[str, ...], int] = {}
        self.keys: dict[tuple[str, ...], int] = {}
        current: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = self._header.match(line)
            if header:
                current = self._split(header.group(1))
                self.tables.setdefault(current, number)
                continue
            key = self._key.match(line)
            if key:
                self.keys.setdefault(current + self._split(key.group(1)), number)

    @staticmethod
    def _split(dotted: str) -> tuple[str, ...]:
        parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s]+)', dotted)
        return tuple(next(p for p in group if p) if any(group) else "" for group in parts)

    def line(self, *key_path: str) -> int | None:
        for end in range(len(key_path), 0, -1):
            prefix = tuple(key_path[:end])
            if prefix in self.keys:
                return self.keys[prefix]
            if prefix in self.tables:
                return self.tables[prefix]
        return None


class Validator:
    TOP_KEYS = (
        "ledger", "metrics", "experiments", "sweeps", "documents", "stats", "servers", "workloads", "failures", "slurm",
    )
    METRIC_KEYS = (
        "label", "unit", "direction", "digits", "equivalence_margin", "better_word", "worse_word", "primary", "min", "max",
    )
    EXPERIMENT_KEYS = (
        "label", "aliases", "role", "compare_to", "supersedes", "notes",
        "server", "args", "env", "workload", "repetitions", "variables",
    )
    DOCUMENT_KEYS = ("paths", "historical_sections", "outside_project")
    STATS_KEYS = ("alpha", "confidence", "correction", "seed", "pool", "max_error_rate")
    LEDGER_KEYS = ("url", "keep_requests")
    FAILURE_KEYS = ("patterns",)

    def __init__(self, data: dict[str, Any], text: str, path: Path) -> None:
        self.data = data
        self.path = path
        self.locator = LineLocator(text)
        # Lines of tables and keys; expanded sweeps add their experiments' keys here.
        self.key_lines: dict[tuple[str, ...], int] = {**self.locator.tables, **self.locator.keys}

    def error(self, message: str, *key_path: str) -> ConfigError:
        dotted = ".".join(key_path)
        where = f"{dotted}: " if dotted else ""
        line = next((self.key_lines[key_path[:end]] for end in range(len(key_path), 0, -1)
                     if key_path[:end] in self.key_lines), None)
        return ConfigError(f"{where}{message}", self.path, line)

    def check_keys(self, table: Any, allowed: tuple[str, ...], *key_path: str) -> dict[str, Any]:
        if isinstance(table, list) and key_path:
            raise self.error(f"expected a table [{'.'.join(key_path)}], not an array of tables [[{'.'.join(key_path)}]]", *key_path)
        if not isinstance(table, dict):
            raise self.error(f"expected a table, got {type(table).__name__}", *key_path)
        for key in table:
            if key not in allowed:
                raise self.error(f"unknown key '{key}'{did_you_mean(key, allowed)}", *key_path, key)
        return table

    def typed(self, value: Any, kinds: type | tuple[type, ...], what: str, *key_path: str) -> Any:
        # bool is an int in Python; a `digits = true` is still a mistake.
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            raise self.error(f"expected {what}, got a boolean", *key_path)
        if not isinstance(value, kinds):
            raise self.error(f"expected {what}, got {value!r}", *key_path)
        return value

    def string_list(self, value: Any, *key_path: str) -> tuple[str, ...]:
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error("expected a list of strings", *key_path)
        return tuple(value)

    def build(self) -> Config:
        self.check_keys(self.data, self.TOP_KEYS)
        ledger_url = self.ledger_url()
        metrics, primary = self.metrics()
        experiments = self.experiments()
        sweeps: dict[str, SweepConfig] = {}
        experiments.update(self.sweeps(experiments, sweeps))
        self.check_references(experiments)
        return Config(
            path=self.path.resolve(),
            ledger_url=ledger_url,
            metrics=metrics,
            experiments=experiments,
            documents=self.documents(),
            stats=self.stats(),
            primary_metric=primary,
            servers=self.raw_tables("servers"),
            workloads=self.raw_tables("workloads"),
            failure_patterns=self.failure_patterns(),
            sweeps=sweeps,
            slurm=dict(self.check_keys(self.data.get("slurm", {}), tuple(self.data.get("slurm", {})), "slurm")),
            keep_requests=self.typed(self.data.get("ledger", {}).get("keep_requests", True), bool, "true or false",
                                     "ledger", "keep_requests"),
            key_lines=self.key_lines,
        )

    def ledger_url(self) -> str:
        table = self.check_keys(self.data.get("ledger", {}), self.LEDGER_KEYS, "ledger")
        url = os.environ.get(LEDGER_URL_ENV) or table.get("url", DEFAULT_LEDGER_URL)
        self.typed(url, str, "a database URL string", "ledger", "url")
        return resolve_ledger_url(url, self.path.resolve().parent)

    def metrics(self) -> tuple[dict[str, MetricConfig], str | None]:
        tables = self.check_keys(self.data.get("metrics", {}), tuple(self.data.get("metrics", {})), "metrics")
        metrics: dict[str, MetricConfig] = {}
        primary: str | None = None
        for name, table in tables.items():
            where = ("metrics", name)
            self.check_keys(table, self.METRIC_KEYS, *where)
            direction = table.get("direction", "higher")
            if direction not in DIRECTIONS:
                raise self.error(
                    f"direction must be \"higher\" or \"lower\" (which way is better), got {direction!r}",
                    *where, "direction",
                )
            digits = self.typed(table.get("digits", 1), int, "a whole number of digits", *where, "digits")
            if not 0 <= digits <= 9:
                raise self.error(f"digits must be between 0 and 9, got {digits}", *where, "digits")
            margin = table.get("equivalence_margin")
            if margin is not None:
                margin = self.fraction(margin, *where, "equivalence_margin")
            if self.typed(table.get("primary", False), bool, "true or false", *where, "primary"):
                primary = name
            low, high = (self.bound(table, key, *where) for key in ("min", "max"))
            if low is not None and high is not None and low >= high:
                raise self.error(f"min ({low:g}) must be below max ({high:g})", *where, "min")
            unit = self.typed(table.get("unit", ""), str, "a string", *where, "unit")
            better, worse = ("faster", "slower") if is_speed_unit(unit) else ("better", "worse")
            metrics[name] = MetricConfig(
                name=name,
                label=self.typed(table.get("label", name), str, "a string", *where, "label"),
                unit=unit,
                direction=direction,
                digits=digits,
                equivalence_margin=margin,
                better_word=self.typed(table.get("better_word", better), str, "a string", *where, "better_word"),
                worse_word=self.typed(table.get("worse_word", worse), str, "a string", *where, "worse_word"),
                minimum=low,
                maximum=high,
            )
        if primary is None and metrics:
            primary = next(iter(metrics))
        return metrics, primary

    def bound(self, table: dict[str, Any], key: str, *where: str) -> float | None:
        value = table.get(key)
        if value is None:
            return None
        value = self.typed(value, (int, float), "a number", *where, key)
        if not math.isfinite(value):
            raise self.error(f"expected a finite number, got {value!r}", *where, key)
        return float(value)

    def fraction(self, value: Any, *key_path: str) -> float:
        """Accept 0.01 or "1%" for one percent; either way strictly between 0 and 1."""
        if isinstance(value, str):
            match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*%\s*", value)
            if not match:
                raise self.error(f"expected a fraction like 0.01 or a percentage like \"1%\", got {value!r}", *key_path)
            value = float(match.group(1)) / 100.0
            if not 0 < value < 1:
                raise self.error(f"expected a percentage between 0% and 100%, got {match.group(0).strip()!r}", *key_path)
            return value
        value = self.typed(value, (int, float), "a fraction like 0.01 or a percentage like \"1%\"", *key_path)
        if not 0 < value < 1:
            raise self.error(f"expected a fraction between 0 and 1, got {value!r}", *key_path)
        return float(value)

    def experiments(self) -> dict[str, ExperimentConfig]:
        tables = self.data.get("experiments", {})
        if not isinstance(tables, dict):
            raise self.error(
                "expected tables like [experiments.NAME], not an array of tables [[experiments]]"
                if isinstance(tables, list) else "expected a table of experiments",
                "experiments",
            )
        experiments: dict[str, ExperimentConfig] = {}
        for name, table in tables.items():
            where = ("experiments", name)
            if not EXPERIMENT_NAME.fullmatch(name):
                raise self.error(
                    f"{name!r} is not a valid experiment name: {EXPERIMENT_NAME_RULE} (put free text in label)", *where
                )
            self.check_keys(table, self.EXPERIMENT_KEYS, *where)
            role = table.get("role")
            if role is not None and role not in ROLES:
                raise self.error(f"role must be \"reference\" or absent, got {role!r}", *where, "role")
            repetitions = table.get("repetitions")
            if repetitions is not None:
                self.typed(repetitions, int, "a whole number", *where, "repetitions")
                if repetitions < 1:
                    raise self.error(f"repetitions must be at least 1, got {repetitions}", *where, "repetitions")
            env = table.get("env", {})
            if not isinstance(env, dict):
                raise self.error("expected a table of environment variables", *where, "env")
            variables = table.get("variables", {})
            if not isinstance(variables, dict):
                raise self.error("expected a table of variables", *where, "variables")
            experiments[name] = ExperimentConfig(
                name=name,
                label=self.typed(table.get("label", name), str, "a string", *where, "label"),
                aliases=self.string_list(table.get("aliases", []), *where, "aliases"),
                role=role,
                compare_to=self.optional_str(table, "compare_to", *where),
                supersedes=self.optional_str(table, "supersedes", *where),
                notes=self.typed(table.get("notes", ""), str, "a string", *where, "notes"),
                server=self.optional_str(table, "server", *where),
                args=self.string_list(table.get("args", []), *where, "args"),
                env={str(k): str(v) for k, v in env.items()},
                workload=self.optional_str(table, "workload", *where),
                repetitions=repetitions,
                variables=dict(variables),
                line=self.locator.line(*where),
            )
        return experiments

    def sweeps(self, declared: dict[str, ExperimentConfig], found: dict[str, SweepConfig]) -> dict[str, ExperimentConfig]:
        """Every ``[sweeps.NAME]`` expanded into ordinary experiments (after the declared ones);
        ``found`` receives each sweep's description.

        An expanded experiment's keys are located at its sweep's keys in ``key_lines``, so
        an error found later (an unknown server, a bad placeholder) still names a real line.
        """
        from benchdoc.limits import MAX_SWEEP_EXPERIMENTS
        from benchdoc.sweeps import RUN_PLACEHOLDERS, SWEEP_KEYS, expand, matrix_of

        key_lines = self.key_lines
        tables = self.data.get("sweeps", {})
        if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
            raise self.error("expected tables like [sweeps.NAME]", "sweeps")
        expanded: dict[str, ExperimentConfig] = {}
        taken = {a.lower(): e.name for e in declared.values() for a in (e.name, *e.aliases)}
        for sweep, table in tables.items():
            where = ("sweeps", sweep)
            self.check_keys(table, SWEEP_KEYS, *where)
            base = self.sweep_base(table, declared, *where)
            run_names = (*RUN_PLACEHOLDERS, *(base.variables if base else {}))
            combinations = expand(sweep, table, run_names, self.error)
            if len(expanded) + len(combinations) > MAX_SWEEP_EXPERIMENTS:
                raise self.error(
                    f"the sweeps expand to over {MAX_SWEEP_EXPERIMENTS:,} experiments together "
                    f"({len(expanded) + len(combinations):,} with this one), more than one project holds", *where,
                )
            found[sweep] = SweepConfig(
                name=sweep,
                base=base.name if base else None,
                matrix={k: tuple(v) for k, v in matrix_of(table, self.error, *where).items()},
                members=tuple(c.name for c in combinations),
                line=self.locator.line(*where),
            )
            for combination in combinations:
                if not EXPERIMENT_NAME.fullmatch(combination.name):
                    raise self.error(f"{combination.name!r} is not a valid experiment name: {EXPERIMENT_NAME_RULE}", *where, "name")
                owner = taken.get(combination.name.lower())
                if owner is not None:
                    whose = f"from sweep '{expanded[owner].sweep}'" if owner in expanded else f"[experiments.{owner}]"
                    raise self.error(f"'{combination.name}' is already an experiment ({whose})", *where, "name")
                taken[combination.name.lower()] = combination.name
                repetitions = table.get("repetitions", base.repetitions if base else None)
                if repetitions is not None:
                    self.typed(repetitions, int, "a whole number", *where, "repetitions")
                    if repetitions < 1:
                        raise self.error(f"repetitions must be at least 1, got {repetitions}", *where, "repetitions")
                default_label = f"{base.label if base else sweep}, {combination.describe_values()}"
                expanded[combination.name] = ExperimentConfig(
                    name=combination.name,
                    label=combination.label or default_label,
                    compare_to=self.optional_str(table, "compare_to", *where) or (base.compare_to if base else None),
                    notes=combination.notes or "",
                    server=self.optional_str(table, "server", *where) or (base.server if base else None),
                    args=(*(base.args if base else ()), *combination.args),
                    env={**(base.env if base else {}), **combination.env},
                    workload=self.optional_str(table, "workload", *where) or (base.workload if base else None),
                    repetitions=repetitions,
                    variables={**(base.variables if base else {}), **combination.values},
                    line=self.locator.line(*where),
                    sweep=sweep,
                )
                for key in ("", *SWEEP_KEYS, "variables"):
                    # A member's variables are the matrix's values.
                    line = self.locator.line(*where, *{"": (), "variables": ("matrix",)}.get(key, (key,)))
                    if line is not None:
                        key_lines[("experiments", combination.name, *((key,) if key else ()))] = line
        return expanded

    def sweep_base(self, table: dict[str, Any], declared: dict[str, ExperimentConfig], *where: str) -> ExperimentConfig | None:
        name = self.optional_str(table, "base", *where)
        if name is None:
            return None
        if name not in declared:
            raise self.error(f"unknown experiment '{name}'{did_you_mean(name, declared)}", *where, "base")
        return declared[name]

    def optional_str(self, table: dict[str, Any], key: str, *where: str) -> str | None:
        value = table.get(key)
        return None if value is None else self.typed(value, str, "a string", *where, key)

    def check_aliases(self, experiments: dict[str, ExperimentConfig]) -> None:
        """Every name and alias picks one experiment (case-insensitively): two experiments
        sharing an alias, or an alias equal to another experiment's name, is refused."""
        owner: dict[str, str] = {name.lower(): name for name in experiments}
        for exp in experiments.values():
            for alias in exp.aliases:
                taken = owner.get(alias.lower())
                if taken is not None and taken != exp.name:
                    what = "the name of experiment" if taken.lower() == alias.lower() and taken in experiments else (
                        "already an alias of")
                    raise self.error(f"alias {alias!r} is {what} '{taken}': a name must pick one experiment",
                                     "experiments", exp.name, "aliases")
                owner[alias.lower()] = exp.name

    def check_references(self, experiments: dict[str, ExperimentConfig]) -> None:
        self.check_aliases(experiments)
        for exp in experiments.values():
            for key in ("compare_to", "supersedes"):
                target = getattr(exp, key)
                if target is None:
                    continue
                if target not in experiments:
                    raise self.error(
                        f"unknown experiment '{target}'{did_you_mean(target, experiments)}",
                        "experiments", exp.name, key,
                    )
                if target == exp.name:
                    raise self.error(f"an experiment cannot {key.replace('_', ' ')} itself", "experiments", exp.name, key)
        # A supersedes chain must end: a -> b -> a would make "the current result" undefined.
        for start in experiments.values():
            seen = [start.name]
            current = start.supersedes
            while current is not None:
                if current in seen:
                    cycle = " -> ".join([*seen[seen.index(current):], current])
                    raise self.error(f"'supersedes' forms a cycle: {cycle}", "experiments", start.name, "supersedes")
                seen.append(current)
                current = experiments[current].supersedes
        replaced_by: dict[str, str] = {}
        for exp in experiments.values():
            if exp.supersedes is None:
                continue
            if exp.supersedes in replaced_by:
                raise self.error(
                    f"'{exp.supersedes}' is already superseded by '{replaced_by[exp.supersedes]}'",
                    "experiments", exp.name, "supersedes",
                )
            replaced_by[exp.supersedes] = exp.name

    def documents(self) -> DocumentsConfig:
        table = self.check_keys(self.data.get("documents", {}), self.DOCUMENT_KEYS, "documents")
        paths = self.string_list(table.get("paths", []), "documents", "paths")
        sections = self.string_list(
            table.get("historical_sections", list(DocumentsConfig.historical_sections)),
            "documents", "historical_sections",
        )
        outside = self.typed(table.get("outside_project", False), bool, "true or false", "documents", "outside_project")
        root = self.path.resolve().parent
        return DocumentsConfig(paths=tuple(root / p for p in paths), historical_sections=sections,
                               outside_project=outside)

    def stats(self) -> StatsConfig:
        table = self.check_keys(self.data.get("stats", {}), self.STATS_KEYS, "stats")
        alpha = self.typed(table.get("alpha", 0.05), (int, float), "a number", "stats", "alpha")
        if not 0 < alpha < 0.5:
            raise self.error(f"alpha must be between 0 and 0.5, got {alpha}", "stats", "alpha")
        confidence = self.typed(table.get("confidence", 0.95), (int, float), "a number", "stats", "confidence")
        if not 0.5 < confidence < 1:
            raise self.error(f"confidence must be between 0.5 and 1, got {confidence}", "stats", "confidence")
        correction = table.get("correction", "holm")
        if correction not in CORRECTIONS:
            raise self.error(
                f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}"
                f"{did_you_mean(str(correction), CORRECTIONS)}",
                "stats", "correction",
            )
        seed = self.typed(table.get("seed", 0), int, "a whole number", "stats", "seed")
        try:
            pool = parse_pooling(table.get("pool", "latest"))
        except PoolingError as err:
            raise self.error(str(err), "stats", "pool") from None
        limit = self.typed(table.get("max_error_rate", 0.05), (int, float), "a number", "stats", "max_error_rate")
        if not 0 <= limit < 1:
            raise self.error(f"max_error_rate must be at least 0 and below 1, got {limit}", "stats", "max_error_rate")
        return StatsConfig(
            alpha=float(alpha), confidence=float(confidence), correction=correction, seed=seed, pool=pool,
            max_error_rate=float(limit),
        )

    def raw_tables(self, key: str) -> dict[str, dict[str, Any]]:
        tables = self.data.get(key, {})
        if not isinstance(tables, dict) or not all(isinstance(v, dict) for v in tables.values()):
            raise self.error(f"expected tables like [{key}.NAME]", key)
        return {name: dict(table) for name, table in tables.items()}

    def failure_patterns(self) -> tuple[dict[str, str], ...]:
        table = self.check_keys(self.data.get("failures", {}), self.FAILURE_KEYS, "failures")
        patterns = table.get("patterns", [])
        if not isinstance(patterns, list):
            raise self.error("expected a list of {pattern, reason} tables", "failures", "patterns")
        result = []
        for item in patterns:
            if not isinstance(item, dict) or not isinstance(item.get("pattern"), str) or not isinstance(item.get("reason"), str):
                raise self.error("each entry needs a 'pattern' (regular expression) and a 'reason'", "failures", "patterns")
            try:
                re.compile(item["pattern"])
            except re.error as exc:
                raise self.error(f"invalid regular expression {item['pattern']!r}: {exc}", "failures", "patterns") from exc
            result.append({"pattern": item["pattern"], "reason": item["reason"]})
        return tuple(result)
