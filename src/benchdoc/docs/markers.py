"""The marker syntax: what one ``<!-- benchdoc:... -->`` comment says.

    <!-- benchdoc:KIND positional name=value name="quoted value" -->   opens a region
    <!-- benchdoc:end sum=0123456789 -->                                closes it
    <!-- benchdoc:ignore ... -->                                        a directive, not a region

This module reads and writes single comments only; where comments are real (not in
code) and how they pair into regions is `benchdoc.docs.document`'s job.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

END = "end"
IGNORE = "ignore"
CHECKSUM_ATTR = "sum"
CHECKSUM_LENGTH = 10

# A comment is meant for benchdoc when its first word is "benchdoc" (or "/benchdoc"):
# a misspelt marker is then reported instead of silently ignored. A comment that
# merely mentions "benchdoc.toml" is the author's business.
_ADDRESSED = re.compile(r"\s*(?:/\s*)?benchdoc(?![\w.])", re.IGNORECASE)
_HEAD = re.compile(r"\s*benchdoc\s*:\s*(?P<kind>[A-Za-z][A-Za-z0-9_-]*)(?=\s|$)", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_BARE = re.compile(r"[^\s\"'=]+")
_CHECKSUM = re.compile(rf"[0-9a-f]{{{CHECKSUM_LENGTH}}}")
COMMENT_RE = re.compile(r"<!--(?P<body>.*?)-->", re.DOTALL)


class MarkerSyntaxError(ValueError):
    """A comment addressed to benchdoc that does not parse; the caller adds file:line."""


@dataclass(frozen=True)
class Marker:
    """One parsed benchdoc comment."""

    kind: str  # "end", "ignore", or a region kind such as "table" or "value"
    args: tuple[str, ...] = ()
    attrs: dict[str, str] = field(default_factory=dict)

    @property
    def is_end(self) -> bool:
        return self.kind == END

    @property
    def is_directive(self) -> bool:
        """A standalone directive (not opening or closing a region)."""
        return self.kind == IGNORE

    @property
    def checksum(self) -> str | None:
        """The checksum an end marker records, if any."""
        return self.attrs.get(CHECKSUM_ATTR) if self.is_end else None


def is_addressed_to_benchdoc(body: str) -> bool:
    """Whether a comment's text is meant as a benchdoc marker (well formed or not)."""
    return _ADDRESSED.match(body) is not None


def parse_marker(body: str) -> Marker:
    """Parse the text between ``<!--`` and ``-->`` of a comment addressed to benchdoc."""
    head = _HEAD.match(body)
    if head is None:
        raise MarkerSyntaxError(
            f"unknown directive shape <!--{_shorten(body)}-->: expected "
            "<!-- benchdoc:KIND ... --> to open a region or <!-- benchdoc:end --> to close one"
        )
    kind = head.group("kind").lower()
    args, attrs = parse_attributes(body[head.end() :])
    if kind == END:
        unexpected = [f"{name}=" for name in attrs if name != CHECKSUM_ATTR] + list(args)
        if unexpected:
            raise MarkerSyntaxError(
                f"unknown directive shape: an end marker takes only {CHECKSUM_ATTR}=..., "
                f"not {' '.join(unexpected)}"
            )
        checksum = attrs.get(CHECKSUM_ATTR)
        if checksum is not None and not _CHECKSUM.fullmatch(checksum):
            raise MarkerSyntaxError(
                f"malformed attribute {CHECKSUM_ATTR}={checksum!r}: expected "
                f"{CHECKSUM_LENGTH} lowercase hex digits (delete it to let benchdoc refill the region)"
            )
    return Marker(kind=kind, args=args, attrs=attrs)


def parse_attributes(text: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """Split ``a b=c d="e f" g='h'`` into positional args and named attributes."""
    args: list[str] = []
    attrs: dict[str, str] = {}
    pos = 0
    length = len(text)
    while True:
        while pos < length and text[pos].isspace():
            pos += 1
        if pos >= length:
            break
        if text[pos] in "\"'":
            value, pos = _quoted(text, pos)
            args.append(value)
            continue
        if text[pos] == "=":
            raise MarkerSyntaxError(f"malformed attribute at {_shorten(text[pos:])!r}: '=' without a name")
        bare = _BARE.match(text, pos)
        assert bare is not None  # the character at pos is neither space, quote nor '='
        word = bare.group()
        pos = bare.end()
        if pos < length and text[pos] == "=":
            if not _NAME.fullmatch(word):
                raise MarkerSyntaxError(f"malformed attribute name {word!r}")
            pos += 1
            if pos >= length or text[pos].isspace():
                raise MarkerSyntaxError(
                    f"malformed attribute {word}=: missing value (write {word}=VALUE or {word}=\"...\")"
                )
            if text[pos] in "\"'":
                value, pos = _quoted(text, pos)
            elif text[pos] == "=":
                raise MarkerSyntaxError(f"malformed attribute {word}==: quote a value containing '='")
            else:
                match = _BARE.match(text, pos)
                assert match is not None
                value, pos = match.group(), match.end()
                if pos < length and text[pos] in "\"'=":
                    raise MarkerSyntaxError(
                        f"malformed attribute {word}={value}{text[pos]}...: quote the whole value"
                    )
            if word in attrs:
                raise MarkerSyntaxError(f"malformed attribute: {word}= is given twice")
            attrs[word] = value
        else:
            if pos < length and text[pos] in "\"'":
                raise MarkerSyntaxError(f"malformed attribute {word}{text[pos]}...: missing '=' before the quote")
            args.append(word)
    return tuple(args), attrs


def _quoted(text: str, pos: int) -> tuple[str, int]:
    quote = text[pos]
    close = text.find(quote, pos + 1)
    if close < 0:
        raise MarkerSyntaxError(f"malformed attribute: unbalanced {quote} in {_shorten(text[pos:])!r}")
    after = close + 1
    if after < len(text) and not text[after].isspace():
        raise MarkerSyntaxError(
            f"malformed attribute: a space must follow the closing {quote} in {_shorten(text[pos:])!r}"
        )
    return text[pos + 1 : close], after


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def content_checksum(content: str) -> str:
    """A short checksum of region content as written (LF line endings)."""
    normalised = content.replace("\r\n", "\n")
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:CHECKSUM_LENGTH]


def format_end_marker(checksum: str | None) -> str:
    """The end marker benchdoc writes, recording what it wrote."""
    if checksum is None:
        return "<!-- benchdoc:end -->"
    return f"<!-- benchdoc:end {CHECKSUM_ATTR}={checksum} -->"


def format_open_marker(kind: str, args: tuple[str, ...] = (), attrs: dict[str, str] | None = None) -> str:
    """An opening marker in canonical spelling (values quoted only when they need it)."""
    parts = [f"benchdoc:{kind}"]
    parts.extend(_quote_if_needed(arg) for arg in args)
    parts.extend(f"{name}={_quote_if_needed(value)}" for name, value in (attrs or {}).items())
    return "<!-- " + " ".join(parts) + " -->"


def _quote_if_needed(value: str) -> str:
    if value and _BARE.fullmatch(value):
        return value
    if '"' in value:
        return f"'{value}'"
    return f'"{value}"'
