"""Prompt datasets from local files: ShareGPT JSON, JSONL with a prompt, a plain text corpus.

Three layouts, chosen by ``format`` or by the file's extension:

- ``sharegpt`` (``.json``): a list of objects whose ``conversations`` list holds turns
  ``{"from": ..., "value": ...}``, the layout SGLang's and vLLM's benchmarks read. The
  first turn is the prompt; the second, when there is one, is the reference answer whose
  length becomes the request's output length. Records with fewer than two turns are
  skipped, as those tools skip them.
- ``jsonl`` (``.jsonl``): one JSON object per line with a ``prompt`` string and an
  optional ``output_len`` (a whole number of tokens).
- ``text`` (anything else): a plain text corpus, sliced into prompts of the requested
  length at seeded offsets.

Nothing is fetched: the caller names a file. Every problem is a :class:`UsageError`
naming the file (and the line, where there is one). The dataset's size and SHA-256 go
with the run, so a result says exactly which prompts produced it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchdoc.errors import UsageError

FORMATS: tuple[str, ...] = ("sharegpt", "jsonl", "text")
_BY_SUFFIX = {".json": "sharegpt", ".jsonl": "jsonl"}


@dataclass(frozen=True)
class DatasetEntry:
    """One prompt of a dataset and, when the dataset gives one, its reference answer's
    length or text."""

    prompt: str
    output_len: int | None = None  # JSONL's output_len
    answer: str | None = None  # ShareGPT's second turn, measured by the caller
    # ShareGPT: every (user turn, reference answer) pair of the conversation, in order, for
    # multi-turn runs (the first pair is prompt and answer).
    turns: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: its entries (or its corpus, for ``text``) and where it came from."""

    path: str
    format: str
    size_bytes: int
    sha256: str
    entries: tuple[DatasetEntry, ...] = ()
    corpus: str | None = None

    def provenance(self) -> dict[str, Any]:
        """What the run records about the dataset: path, layout, size, digest, count."""
        data: dict[str, Any] = {
            "path": self.path,
            "format": self.format,
            "size_bytes": self.size_bytes,
            "sha256": self.sha256,
        }
        if self.format == "text":
            data["words"] = len((self.corpus or "").split())
        else:
            data["entries"] = len(self.entries)
        return data


def guess_format(path: str | Path) -> str:
    """The layout a file's extension suggests: sharegpt for .json, jsonl, else text."""
    return _BY_SUFFIX.get(Path(path).suffix.lower(), "text")


def load_dataset(path: str | Path, format: str | None = None) -> Dataset:
    """Read and check a dataset file; raise :class:`UsageError` naming what is wrong."""
    fmt = format or guess_format(path)
    if fmt not in FORMATS:
        raise UsageError(f"unknown dataset format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    where = str(path)
    from benchdoc.limits import MAX_DATASET_BYTES, bounded_read, json_limit_message

    try:
        raw = bounded_read(path, MAX_DATASET_BYTES, "the dataset")
    except FileNotFoundError:
        raise UsageError("dataset file not found", where) from None
    except IsADirectoryError:
        raise UsageError("expected a dataset file, found a folder", where) from None
    except OSError as err:
        raise UsageError(f"cannot read the dataset: {err.strerror or err}", where) from None
    except ValueError as err:  # a device such as /dev/zero, a FIFO, a file over the size limit
        raise UsageError(str(err), where) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UsageError(f"not UTF-8 text (byte {err.start})", where) from None
    if not text.strip():
        raise UsageError("the dataset is empty", where)
    digest = hashlib.sha256(raw).hexdigest()
    if fmt == "text":
        return Dataset(where, fmt, len(raw), digest, corpus=text)
    try:
        entries = _sharegpt(text, where) if fmt == "sharegpt" else _jsonl(text, where)
    except (RecursionError, ValueError) as exc:
        message = json_limit_message(exc)
        if message is None:
            raise
        raise UsageError(message, where) from None
    return Dataset(where, fmt, len(raw), digest, entries=tuple(entries))


def _sharegpt(text: str, where: str) -> list[DatasetEntry]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(f"not valid JSON: {err.msg} (column {err.colno})", where, err.lineno) from None
    if not isinstance(data, list):
        hint = " (a JSONL file? name it .jsonl or give the format jsonl)" if isinstance(data, dict) else ""
        raise UsageError(
            "expected a JSON list of records with a 'conversations' list (the ShareGPT layout), "
            f"found {_kind(data)}{hint}",
            where,
        )
    entries: list[DatasetEntry] = []
    for position, record in enumerate(data):
        turns = record.get("conversations", record.get("conversation")) if isinstance(record, dict) else None
        if not isinstance(turns, list):
            raise UsageError(
                f"record {position}: expected an object with a 'conversations' list of "
                f"{{\"from\": ..., \"value\": ...}} turns, found {_kind(record)}",
                where,
            )
        if len(turns) < 2:
            continue
        values = []
        for turn_index, turn in enumerate(turns[:2]):
            value = turn.get("value") if isinstance(turn, dict) else None
            if not isinstance(value, str):
                raise UsageError(
                    f"record {position}, turn {turn_index}: expected an object with a string 'value'", where
                )
            values.append(value)
        if values[0].strip():
            entries.append(DatasetEntry(prompt=values[0], answer=values[1], turns=_pairs(turns)))
    if not entries:
        raise UsageError(
            f"no usable conversation among {len(data)} records (each needs a non-empty first turn and a second turn)",
            where,
        )
    return entries


def _pairs(turns: list[Any]) -> tuple[tuple[str, str], ...]:
    """The conversation's (user, answer) pairs, up to the first turn that is not a string or
    is empty on the user's side."""
    pairs: list[tuple[str, str]] = []
    for user, answer in zip(turns[0::2], turns[1::2]):
        texts = [t.get("value") if isinstance(t, dict) else None for t in (user, answer)]
        if not all(isinstance(t, str) for t in texts) or not str(texts[0]).strip():
            break
        pairs.append((str(texts[0]), str(texts[1])))
    return tuple(pairs)


def _jsonl(text: str, where: str) -> list[DatasetEntry]:
    entries: list[DatasetEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise UsageError(f"not valid JSON: {err.msg} (column {err.colno})", where, number) from None
        if not isinstance(record, dict):
            raise UsageError(f"expected a JSON object with a 'prompt', found {_kind(record)}", where, number)
        prompt = record.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise UsageError("expected a non-empty string 'prompt'", where, number)
        output_len = record.get("output_len")
        if output_len is not None and (isinstance(output_len, bool) or not isinstance(output_len, int) or output_len < 1):
            raise UsageError(f"'output_len' must be a whole number >= 1 (got {output_len!r})", where, number)
        entries.append(DatasetEntry(prompt=prompt, output_len=output_len))
    return entries


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"
