"""Reading other tools' result files: JSON documents, JSON Lines and appended JSON values.

Every failure becomes an :class:`ImportFormatError` that names the file, the line (from the
JSON decoder, or the JSON Lines line number) and what was expected, so that a truncated
or foreign file is refused in one clear line before anything is recorded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchdoc.errors import ImportFormatError


@dataclass(frozen=True)
class Where:
    """A place in a results file, for error messages: file, line, JSON path, what belongs there."""

    file: Path
    line: int | None = None
    path: str = ""  # e.g. "benchmarks[1].metrics"; empty for the top of the entry
    expected: str = ""  # e.g. "an SGLang bench_serving result"

    def error(self, message: str) -> ImportFormatError:
        at = f"{self.path}: " if self.path else ""
        hint = f" (expected {self.expected})" if self.expected else ""
        return ImportFormatError(f"{at}{message}{hint}", self.file, self.line)

    def child(self, key: str | int) -> Where:
        if isinstance(key, int):
            return replace(self, path=f"{self.path}[{key}]")
        return replace(self, path=f"{self.path}.{key}" if self.path else key)


# -- files -----------------------------------------------------------------------------


def read_text(path: Path, expected: str) -> str:
    """The file's text; refuses a missing, unreadable, non-UTF-8 or empty file."""
    from benchdoc.limits import MAX_IMPORT_BYTES, bounded_read

    try:
        text = bounded_read(path, MAX_IMPORT_BYTES, "the results file").decode("utf-8")
    except FileNotFoundError:
        raise ImportFormatError("no such file", path) from None
    except IsADirectoryError:
        raise ImportFormatError("is a folder, not a results file", path) from None
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"not a UTF-8 text file (byte {exc.start}); expected {expected}", path) from None
    except OSError as exc:
        raise ImportFormatError(f"cannot read: {exc.strerror or exc}", path) from None
    except ValueError as exc:  # a device, a FIFO, a file over the size limit
        raise ImportFormatError(str(exc), path) from None
    if not text.strip():
        raise ImportFormatError(f"the file is empty; expected {expected}", path)
    return text.removeprefix("\ufeff")


def _decode_message(exc: json.JSONDecodeError, text: str, what: str, *, last: bool = True) -> str:
    """The decoder's complaint, saying "truncated" when the text stops mid-value.

    ``last`` tells whether ``text`` ends where the file ends (a JSON Lines line that is
    not the last one was not cut short, whatever is wrong with it).
    """
    if last and _looks_cut(exc, text):
        return f"{what} ends before the JSON is complete (column {exc.colno}: {exc.msg}); the file looks truncated"
    return f"{what} is not valid JSON (column {exc.colno}: {exc.msg})"


def _looks_cut(exc: json.JSONDecodeError, text: str) -> bool:
    end = text.rstrip()
    if exc.pos >= len(end) or exc.msg.startswith("Unterminated string"):
        return True  # a string can only run unterminated into the end of the text
    # The complaint is on the last line and the text does not close its value there.
    return "\n" not in end[exc.pos :] and not end.endswith(("}", "]"))


def load_json_document(path: Path, expected: str) -> Any:
    """One JSON document (a whole file): decoder errors name the line and column."""
    text = read_text(path, expected)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            message = (
                f"more than one JSON value in the file (column {exc.colno}: the first one ends before this line)"
            )
        else:
            message = _decode_message(exc, text, "the file")
        raise ImportFormatError(f"{message}; expected {expected}", path, exc.lineno) from None


def load_json_lines(path: Path, expected: str) -> list[tuple[int, Any]]:
    """JSON Lines: ``(line number, value)`` for each non-blank line; a bad line is refused by number."""
    text = read_text(path, expected)
    values: list[tuple[int, Any]] = []
    lines = text.splitlines()
    last_line = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            if _is_one_document(text):
                raise ImportFormatError(
                    f"the file is one JSON document written over several lines, not JSON Lines; expected {expected}, "
                    "one JSON object per line",
                    path,
                ) from None
            message = _decode_message(exc, line, "this line", last=number == last_line)
            raise ImportFormatError(f"{message}; expected {expected}, one JSON object per line", path, number) from None
    return values


def _is_one_document(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def load_json_values(path: Path, expected: str) -> list[tuple[int, Any]]:
    """One or more JSON values written one after the other (a file appended to by a tool).

    Returns ``(line where the value starts, value)``. A value that does not decode is
    refused with the decoder's line and column and the line where that value started.
    """
    text = read_text(path, expected)
    decoder = json.JSONDecoder()
    values: list[tuple[int, Any]] = []
    position = 0
    counted_to, start_line = 0, 1  # lines counted up to here, once: a file of many values stays linear
    while True:
        position = _skip_whitespace(text, position)
        if position >= len(text):
            return values
        start_line += text.count("\n", counted_to, position)
        counted_to = position
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            what = "the JSON value" if start_line == exc.lineno else f"the JSON value that starts on line {start_line}"
            message = _decode_message(exc, text, what)
            raise ImportFormatError(f"{message}; expected {expected}", path, exc.lineno) from None
        values.append((start_line, value))


def _skip_whitespace(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


# -- typed access --------------------------------------------------------------------


def as_object(value: Any, where: Where) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error(f"found {_kind(value)} where a JSON object belongs")
    return value


def iter_objects(values: list[tuple[int, Any]], file: Path, expected: str) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Each value of a JSON Lines / appended file as an object, with its place."""
    for line, value in values:
        where = Where(file, line, "", expected)
        yield where, as_object(value, where)


def require(obj: dict[str, Any], keys: tuple[str, ...], where: Where) -> None:
    """Refuse the entry unless every key is present."""
    for key in keys:
        if key not in obj:
            raise where.error(f"missing key '{key}'")


def number(obj: dict[str, Any], key: str, where: Where, *, required: bool = False) -> float | None:
    """The number at ``key``; None when absent, null or not finite (NaN: the tool had no data).

    A value of the wrong type (text where a number belongs) refuses the whole file.
    """
    if key not in obj:
        if required:
            raise where.error(f"missing key '{key}'")
        return None
    value = obj[key]
    if value is None:
        if required:
            raise where.error(f"key '{key}' is null; a number belongs there")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(f"key '{key}' should be a number, found {_kind(value)} {_preview(value)}")
    try:
        result = float(value)
    except OverflowError:  # an integer too large for a float (JSON allows any length)
        raise where.error(f"key '{key}' holds a number too large to be a measurement: {_preview(value)}") from None
    return result if math.isfinite(result) else None


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def sub_object(obj: dict[str, Any], key: str, where: Where, *, required: bool = False) -> dict[str, Any] | None:
    if key not in obj or obj[key] is None:
        if required:
            raise where.error(f"missing key '{key}'")
        return None
    return as_object(obj[key], where.child(key))


def number_list(obj: dict[str, Any], key: str, where: Where) -> list[float] | None:
    """A list of numbers at ``key`` (None when absent); any non-number refuses the file."""
    if key not in obj or obj[key] is None:
        return None
    values = obj[key]
    if not isinstance(values, list):
        raise where.error(f"key '{key}' should be a list of numbers, found {_kind(values)}")
    result: list[float] = []
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise where.child(key).error(f"item {index} should be a finite number, found {_preview(value)}")
        result.append(float(value))
    return result


def scalars(obj: dict[str, Any], skip: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """The entry's keys whose values are plain (text, number, boolean, null) or small containers.

    This is how a source's own settings (backend, request rate, concurrency, model, tool
    version...) travel into a run's metadata. Long lists (per-request details) stay behind.
    """
    kept: dict[str, Any] = {}
    for key, value in obj.items():
        if key in skip:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            kept[key] = str(value)
        elif isinstance(value, (str, int, float, bool)) or value is None or isinstance(value, (list, dict)) and len(value) <= 32:
            kept[key] = value
    return kept


def walk(obj: Any, *keys: str) -> Any:
    """``obj[k1][k2]...`` or None as soon as a level is missing or not an object."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _preview(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


# -- time ------------------------------------------------------------------------------


def utc_from_epoch(seconds: float | None) -> datetime | None:
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        return None
    try:
        return datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def utc_from_text(text: Any, where: Where, key: str, formats: tuple[str, ...] = ()) -> datetime | None:
    """A timestamp written as text (ISO 8601, or one of ``formats``), in UTC.

    Tools write local wall-clock time without a zone; such a time is taken as UTC, since
    the zone of the machine that ran the benchmark is not in the file.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise where.error(f"key '{key}' should be a date and time, found {_kind(text)} {_preview(text)}")
    moment: datetime | None = None
    for fmt in formats:
        try:
            moment = datetime.strptime(text, fmt)
            break
        except ValueError:
            continue
    if moment is None:
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise where.error(f"key '{key}' is not a date and time: {_preview(text)}") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def object_or_empty(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """``obj[key]`` when it is an object, else an empty one (an optional section)."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def list_or_empty(obj: dict[str, Any], key: str) -> list[Any]:
    """``obj[key]`` when it is a list, else an empty one (an optional section)."""
    value = obj.get(key)
    return value if isinstance(value, list) else []
