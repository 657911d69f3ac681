"""Records whose every key is declared once: name, type and meaning, on the field itself.

A field made with :func:`key` carries its meaning (and, where it differs from the field's
name, its JSON name). From that one declaration come the record's JSON form
(:func:`to_json`), the reading of any JSON form back (:func:`from_json`: values of the
wrong type are left out, never fatal), and the description of its type for the docs
(:func:`type_text`). The types understood are those run metadata uses: ``bool``, ``int``,
``float``, ``str``, ``Any``, ``X | None``, ``tuple[X, ...]``, ``dict[str, X]`` and other
declared records.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_MISSING = object()


def key(
    meaning: str, default: Any = None, *, json: str | None = None, factory: Any = None, keep: bool = False,
    open_because: str | None = None,
) -> Any:
    """A declared field: ``meaning`` as the docs say it; ``json`` its name in the JSON form when
    not the field's; ``keep`` writes it even when empty (a 0 that means "the first");
    ``open_because``: why a value of no declared shape (``Any``, a map of ``Any``) is left open."""
    meta = {"meaning": meaning, "json": json, "keep": keep, "open": open_because}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class Declared:
    """One declared key of a record: its JSON name, the field it fills, its type, its meaning."""

    json: str
    field: str
    type: Any
    meaning: str
    keep: bool
    open_because: str | None = None


@functools.cache
def declared(cls: Any) -> tuple[Declared, ...]:
    """The declared keys of ``cls``, in field order."""
    hints = typing.get_type_hints(cls)
    return tuple(
        Declared(f.metadata.get("json") or f.name, f.name, hints[f.name], f.metadata["meaning"], f.metadata["keep"],
                 f.metadata.get("open"))
        for f in dataclasses.fields(cls) if "meaning" in f.metadata
    )


def is_record(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind) and bool(declared(kind))


def _empty(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, (list, dict)) and not value)


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_json() if hasattr(value, "to_json") else to_json(value)
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _encode(v) for k, v in value.items()}
    return value


def to_json(record: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``record``'s JSON form, keys in declaration order. A key says nothing, and is left out,
    when its value is None, false, an empty list or map, or a nested record whose own values
    all say nothing (but keys declared ``keep`` are written). ``extra`` (keys read that no
    declaration names) is written after, as found."""
    data: dict[str, Any] = {}
    kind: Any = type(record)
    for item in declared(kind):
        value = _encode(getattr(record, item.field))
        hollow = isinstance(value, dict) and is_record(_inner(item.type)) and all(_empty(v) for v in value.values())
        if value is None or (not item.keep and (_empty(value) or hollow)):
            continue
        data[item.json] = value
    return {**data, **{k: v for k, v in (extra or {}).items() if k not in data}}


def from_json(cls: Any, data: Mapping[str, Any], **fixed: Any) -> Any:
    """A ``cls`` read from its JSON form: each declared key of the right type, others left
    at their defaults; ``fixed`` fields are given, not read."""
    found: dict[str, Any] = dict(fixed)
    for item in declared(cls):
        if item.field in found or item.json not in data:
            continue
        value = decode(item.type, data[item.json])
        if value is not _MISSING:
            found[item.field] = value
    return cls(**found)


def unknown(cls: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that no declaration of ``cls`` names, as found."""
    names = {item.json for item in declared(cls)}
    return {k: v for k, v in data.items() if k not in names}


def _inner(kind: Any) -> Any:
    """``X`` of ``X | None``; ``kind`` itself otherwise."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if _is_union(kind) and len(args) == 1:
        return args[0]
    return kind


def _is_union(kind: Any) -> bool:
    return typing.get_origin(kind) in (typing.Union, types.UnionType)


def decode(kind: Any, value: Any) -> Any:  # noqa: C901 - one branch per type a declaration may have
    """``value`` read as ``kind``; _MISSING when it is not one."""
    if _is_union(kind):
        if value is None:
            return None
        kinds = [a for a in typing.get_args(kind) if a is not type(None)]
        for option in kinds:
            found = decode(option, value)
            if found is not _MISSING:
                return found
        return _MISSING
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if kind is bool:
        return bool(value)
    if isinstance(value, bool):
        return _MISSING  # a bool is no number and no text
    if kind is float:
        return value if isinstance(value, (int, float)) else _MISSING
    if kind in (int, str):
        return value if isinstance(value, kind) else _MISSING
    if origin is tuple:
        if not isinstance(value, list):
            return _MISSING
        items = [decode(args[0], v) for v in value]
        return tuple(v for v in items if v is not _MISSING)
    if origin is dict:
        if not isinstance(value, Mapping):
            return _MISSING
        mapped = {str(k): decode(args[1], v) for k, v in value.items()}
        return {k: v for k, v in mapped.items() if v is not _MISSING}
    if is_record(kind):
        return kind.from_json(value) if isinstance(value, Mapping) else _MISSING
    raise TypeError(f"no reading for {kind!r}")


def is_open(kind: Any) -> bool:
    """``kind`` holds a value of no declared shape: ``Any`` itself, or inside a map, list or union."""
    return kind is Any or any(is_open(arg) for arg in typing.get_args(kind))


def type_text(kind: Any) -> str:  # noqa: C901 - one branch per type a declaration may have
    """How the docs write ``kind``: ``int``, ``[str]``, ``{str: int}``, ``{of: str, value: float}``."""
    if _is_union(kind):
        return " or ".join(type_text(a) for a in typing.get_args(kind) if a is not type(None))
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return "object"
    if origin is tuple:
        return f"[{type_text(args[0])}]"
    if origin is dict:
        return "object" if args[1] is Any else f"{{str: {type_text(args[1])}}}"
    if is_record(kind):
        return "object"  # its own table says its keys
    return str(getattr(kind, "__name__", kind))
