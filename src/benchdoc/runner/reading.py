"""Reading a command workload's numbers: a JSON path into its output, a pattern over its
stdout, or one of the importers for another tool's results file.

Every problem raises :class:`ResultReadError` with a sentence saying what was expected
where; the runner records such a run as an ``error`` (the workload's setup is wrong, so
the run says nothing about the server).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchdoc.config.tables import ResultReader
from benchdoc.errors import BenchdocError
from benchdoc.ledger.models import Outcome
from benchdoc.naming import did_you_mean
from benchdoc.planning.jsonpath import parse_json_path


class ResultReadError(Exception):
    """The command ran but its results could not be read as configured."""


class ReportedFailure(Exception):
    """The results were read, and they say the measurement failed (e.g. a tool that
    records a failing command): a failure of the configuration, not of the harness."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool):
        raise ResultReadError(f"{what} is a boolean, not a number")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise ResultReadError(f"{what} is {value!r}, not a number") from None
    else:
        raise ResultReadError(f"{what} is {_kind(value)}, not a number")
    if not math.isfinite(number):
        raise ResultReadError(f"{what} is {value!r}, not a finite number")
    return number


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "null" if value is None else repr(value)


def value_at(document: Any, path: str) -> Any:
    """The value at ``path`` in a parsed JSON document, or a ResultReadError naming the
    first segment that is missing."""
    current = document
    walked = ""
    for segment in parse_json_path(path):
        if isinstance(segment, int):
            if not isinstance(current, list) or not -len(current) <= segment < len(current):
                size = f"a list of {len(current)}" if isinstance(current, list) else _kind(current)
                raise ResultReadError(f"no item [{segment}] at {walked or 'the top'} ({size})")
            current = current[segment]
            walked += f"[{segment}]"
        else:
            if not isinstance(current, dict) or segment not in current:
                hint = ""
                if isinstance(current, dict):
                    hint = did_you_mean(segment, current)
                raise ResultReadError(f"no key '{segment}' at {walked or 'the top'}{hint}")
            current = current[segment]
            walked += f".{segment}" if walked else segment
    return current


def read_json_metrics(text: str, fields: Mapping[str, str], source: str) -> dict[str, float]:
    """Each metric's number at its JSON path in ``text`` (the output, from ``source``)."""
    try:
        document = json.loads(text)
    except ValueError as err:
        raise ResultReadError(f"{source} is not JSON: {err}") from None
    metrics: dict[str, float] = {}
    for metric, path in fields.items():
        try:
            metrics[metric] = _number(value_at(document, path), "the value")
        except ResultReadError as err:
            raise ResultReadError(f"{metric} = {path!r}: {err} in {source}") from None
    return metrics


def read_regex_metrics(text: str, fields: Mapping[str, str], source: str) -> dict[str, float]:
    """Each metric's number from the last match of its pattern in ``text``."""
    metrics: dict[str, float] = {}
    for metric, pattern in fields.items():
        matches = list(re.finditer(pattern, text, flags=re.MULTILINE))
        last = matches[-1] if matches else None
        if last is None:
            raise ResultReadError(f"{metric}: the pattern {pattern!r} does not match {source}")
        metrics[metric] = _number(last.group(1), f"{metric}: the match of {pattern!r} in {source}")
    return metrics


def read_results(reader: ResultReader, output: Path, source: str) -> dict[str, float]:
    """The numbers of one run of a command workload, read as ``reader`` says from
    ``output`` (its output file, or its saved stdout)."""
    if reader.kind == "format":
        return _read_with_importer(reader.format or "auto", output)
    try:
        text = output.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ResultReadError(f"{source} does not exist: the command wrote nothing there") from None
    except OSError as err:
        raise ResultReadError(f"cannot read {source}: {err.strerror or err}") from None
    if reader.kind == "json":
        return read_json_metrics(text, reader.fields, source)
    return read_regex_metrics(text, reader.fields, source)


def _read_with_importer(fmt: str, output: Path) -> dict[str, float]:
    from benchdoc.importers import parse_file

    try:
        runs = parse_file(output, fmt)
    except BenchdocError as err:
        raise ResultReadError(str(err)) from None
    if len(runs) != 1:
        labels = ", ".join(sorted({r.label for r in runs}))
        raise ResultReadError(
            f"{output.name} holds {len(runs)} runs ({labels}); a command workload must produce one per repetition"
        )
    if runs[0].outcome != Outcome.OK:
        raise ReportedFailure(runs[0].failure_reason or f"{output.name} records a failed run")
    values = runs[0].metrics()
    # An importer can give several values of one metric (a tool's own repetitions): one
    # repetition of ours takes their median, and the metadata keeps the count.
    result: dict[str, float] = {}
    for metric, items in values.items():
        ordered = sorted(items)
        middle = len(ordered) // 2
        result[metric] = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0
    if not result:
        raise ResultReadError(f"{output.name} holds no numbers")
    return result
