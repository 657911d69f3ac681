"""Parameter sweeps: a ``[sweeps.NAME]`` table's matrix expanded into experiment names,
labels, arguments and environment.

One combination of the matrix's values (minus ``exclude``) is one experiment. Templates
use ``{key}`` for a matrix key; ``{{key}}`` stands for a literal ``{key}``. In ``name``
and ``label`` only matrix keys may appear, and every matrix key must appear in ``name``
(so that two combinations can never share a name). In ``args`` and ``env``, a
placeholder that is not a matrix key is left for the run to fill (``{port}``,
``{model}``, a variable of the base experiment); anything else is an error.

Pure: it knows nothing of the rest of the config. ``config`` merges each combination
with the sweep's base experiment.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Scalar = str | int | float | bool

_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_-]*)\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A sweep's names are used on command lines, in globs and in Slurm job scripts.
_BAD_NAME_CHARS = re.compile(r"[\s*?\[\]{}\"'/\\]")
# Filled by the run, not by the sweep.
RUN_PLACEHOLDERS = ("host", "port", "url", "output", "model")

SWEEP_KEYS = (
    "base", "name", "label", "matrix", "exclude", "args", "env",
    "compare_to", "notes", "repetitions", "server", "workload",
)

ErrorAt = Callable[..., Exception]  # error(message, *key_path) -> exception to raise


@dataclass(frozen=True)
class SweepConfig:
    """A declared sweep: its matrix and the experiments it expanded into."""

    name: str
    base: str | None
    matrix: dict[str, tuple[Scalar, ...]]
    members: tuple[str, ...]
    line: int | None = None

    @property
    def combinations(self) -> int:
        """How many combinations the matrix has before ``exclude``."""
        total = 1
        for values in self.matrix.values():
            total *= len(values)
        return total

    def describe(self) -> str:
        """'8 experiments: steps x topk = 4 x 2, 1 excluded, from base eagle3'."""
        keys = " x ".join(self.matrix)
        sizes = " x ".join(str(len(v)) for v in self.matrix.values())
        excluded = self.combinations - len(self.members)
        text_ = f"{len(self.members)} experiment{'s' if len(self.members) != 1 else ''}: {keys} = {sizes}"
        if excluded:
            text_ += f", {excluded} excluded"
        if self.base:
            text_ += f", from base {self.base}"
        return text_


@dataclass(frozen=True)
class Combination:
    """One member of a sweep, its templates filled with one combination of values."""

    name: str
    label: str | None  # None: the caller builds the readable default
    values: dict[str, Scalar]
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    notes: str | None = None

    def describe_values(self) -> str:
        """'steps=2, topk=4'."""
        return ", ".join(f"{key}={text(value)}" for key, value in self.values.items())


def text(value: Scalar) -> str:
    """How a matrix value reads in a name, a label or an argument."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def matrix_of(table: Mapping[str, Any], error: ErrorAt, *where: str) -> dict[str, list[Scalar]]:
    """The sweep's matrix: keys in order, each with its non-empty list of scalar values."""
    matrix = table.get("matrix")
    if matrix is None or (isinstance(matrix, dict) and not matrix):
        raise error("the matrix is empty: give matrix = { key = [values...] }", *where, "matrix")
    if not isinstance(matrix, dict):
        raise error("expected a table like matrix = { steps = [1, 2] }", *where, "matrix")
    result: dict[str, list[Scalar]] = {}
    for key, values in matrix.items():
        if not _KEY.fullmatch(key):
            raise error(f"'{key}' is not a valid matrix key (letters, digits and _)", *where, "matrix")
        if key in RUN_PLACEHOLDERS and key != "model":
            raise error(f"'{key}' is set by benchdoc and cannot be a matrix key", *where, "matrix")
        if not isinstance(values, list) or not values:
            raise error(f"{key}: expected a non-empty list of values", *where, "matrix")
        for value in values:
            if not isinstance(value, (str, int, float, bool)):
                raise error(f"{key}: values must be strings, numbers or booleans, got {value!r}", *where, "matrix")
            if isinstance(value, str) and ("{" in value or "}" in value):
                raise error(f"{key}: a value cannot hold braces: {value!r}", *where, "matrix")
        if len({text(v) for v in values}) != len(values):
            raise error(f"{key}: a value is listed twice", *where, "matrix")
        result[key] = list(values)
    return result


def _excluded(table: Mapping[str, Any], matrix: Mapping[str, list[Scalar]], error: ErrorAt,
              *where: str) -> list[dict[str, Scalar]]:
    rules = table.get("exclude", [])
    if not isinstance(rules, list) or not all(isinstance(rule, dict) and rule for rule in rules):
        raise error("expected a list of tables like exclude = [{ steps = 4, topk = 4 }]", *where, "exclude")
    for rule in rules:
        for key, value in rule.items():
            if key not in matrix:
                raise error(f"'{key}' is not a key of the matrix ({', '.join(matrix)})", *where, "exclude")
            if text(value) not in {text(v) for v in matrix[key]}:
                raise error(f"{key} = {value!r} is not among the matrix's values for {key}", *where, "exclude")
    return rules


def check_template(template: str, keys: Mapping[str, Any], allowed: tuple[str, ...], error: ErrorAt,
                   *where: str) -> set[str]:
    """The matrix keys a template uses; an unknown placeholder is an error at ``where``."""
    used: set[str] = set()
    for match in _PLACEHOLDER.finditer(template):
        name = match.group(2)
        if name is None:
            continue
        if name in keys:
            used.add(name)
        elif name not in allowed:
            known = ", ".join("{" + k + "}" for k in [*keys, *allowed])
            raise error(f"unknown placeholder {{{name}}}; known: {known}", *where)
    return used


def fill(template: str, values: Mapping[str, Scalar]) -> str:
    """Replace matrix keys; leave ``{{literal}}`` and run placeholders for the run."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name is not None and name in values:
            return text(values[name])
        return match.group(0)

    return _PLACEHOLDER.sub(replace, template)


def _product(matrix: Mapping[str, Any]) -> int:
    size = 1
    for values in matrix.values():
        size *= max(1, len(values))
    return size


def expand(sweep: str, table: Mapping[str, Any], run_names: tuple[str, ...], error: ErrorAt) -> list[Combination]:
    """Every combination of the sweep ``[sweeps.<sweep>]``, in matrix order (the last key
    varies fastest). ``run_names`` are placeholders a run fills (its base's variables too)."""
    where = ("sweeps", sweep)
    matrix = matrix_of(table, error, *where)
    template = table.get("name")
    if not isinstance(template, str) or not template.strip():
        raise error("a sweep needs name = \"...\" with every matrix key in braces, e.g. \"x-s{steps}\"", *where, "name")
    used = check_template(template, matrix, (), error, *where, "name")
    missing = [key for key in matrix if key not in used]
    if missing:
        raise error(
            "the name must hold every matrix key, or two experiments would share a name: add "
            + ", ".join("{" + k + "}" for k in missing), *where, "name",
        )
    label = _optional_str(table, "label", error, *where)
    if label is not None:
        check_template(label, matrix, (), error, *where, "label")
    notes = _optional_str(table, "notes", error, *where)
    if notes is not None:
        check_template(notes, matrix, (), error, *where, "notes")
    args = _strings(table.get("args", []), error, *where, "args")
    for arg in args:
        check_template(arg, matrix, run_names, error, *where, "args")
    env = table.get("env", {})
    if not isinstance(env, dict):
        raise error("expected a table of environment variables", *where, "env")
    env = {str(k): text(v) if isinstance(v, (int, float, bool)) else v for k, v in env.items()}
    for key, value in env.items():
        if not isinstance(value, str):
            raise error(f"{key}: expected a string", *where, "env")
        check_template(value, matrix, run_names, error, *where, "env")
    excluded = _excluded(table, matrix, error, *where)
    from benchdoc.limits import MAX_SWEEP_EXPERIMENTS

    size = 1
    for options in matrix.values():
        size *= max(1, len(options))
        if size > MAX_SWEEP_EXPERIMENTS:
            raise error(
                f"the matrix expands to {_product(matrix):,} experiments, over the {MAX_SWEEP_EXPERIMENTS:,} one project "
                "holds; split the sweep or use fewer values", *where,
            )

    combinations: list[Combination] = []
    for chosen in itertools.product(*matrix.values()):
        values = dict(zip(matrix, chosen))
        if any(all(text(values[k]) == text(v) for k, v in rule.items()) for rule in excluded):
            continue
        name = fill(template, values)
        bad = _BAD_NAME_CHARS.search(name)
        if bad:
            raise error(f"the name {name!r} holds {bad.group(0)!r}, which names cannot hold", *where, "name")
        combinations.append(
            Combination(
                name=name,
                label=fill(label, values) if label is not None else None,
                values=values,
                args=tuple(fill(arg, values) for arg in args),
                env={key: fill(value, values) for key, value in env.items()},
                notes=fill(notes, values) if notes is not None else None,
            )
        )
    if not combinations:
        raise error("every combination of the matrix is excluded: the sweep is empty", *where, "exclude")
    return combinations


def _optional_str(table: Mapping[str, Any], key: str, error: ErrorAt, *where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise error(f"expected a string, got {value!r}", *where, key)
    return value


def _strings(value: Any, error: ErrorAt, *where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        raise error("expected a list of strings", *where)
    return tuple(str(v) for v in value)
