"""What a user adds to every request: HTTP headers (``--header K:V``) and fields of the
JSON body (``--extra-body JSON``: sampling parameters, ``chat_template_kwargs``...).

Header values that look like secrets (by the header's name or the value's shape, with the
rules of :mod:`benchdoc.redact`) are recorded as ``***``; the body's fields are recorded
with the same redaction applied to their keys and values.
"""

from __future__ import annotations

import json
import re
from typing import Any

from benchdoc.redact import MARKER, is_secret_name, looks_secret, redact_obj

# RFC 9110 token characters: what a header name may hold.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def parse_header(text: str) -> tuple[str, str]:
    """``Name: value`` (or ``Name:value``) as a pair; ValueError with the reason otherwise."""
    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not colon or not name:
        raise ValueError(f"expected NAME:VALUE, got {text[:60]!r}")
    if not _HEADER_NAME.match(name):
        raise ValueError(f"{name[:60]!r} is not a valid header name")
    if any(c in value for c in "\r\n\0"):
        raise ValueError(f"the value of header {name} holds a line break")
    return name, value


def recorded_headers(headers: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The headers as a run records them: a secret-looking value is ``***``."""
    return {name: MARKER if is_secret_name(name) or looks_secret(value) else value for name, value in headers}


def parse_extra_body(text: str) -> dict[str, Any]:
    """A JSON object of fields to add to every request body; ValueError saying why not."""
    try:
        value = json.loads(text)
    except ValueError as err:
        raise ValueError(f"not JSON: {err}") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


def merge_body(body: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``extra``'s fields: an object merged key by key into an object of the
    same name (``sampling_params``, ``stream_options``), anything else set as given."""
    merged = dict(body)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_body(merged[key], value)
        else:
            merged[key] = value
    return merged


def recorded_body(extra: dict[str, Any]) -> Any:
    """The extra fields as a run records them (secrets redacted)."""
    return redact_obj(extra)
