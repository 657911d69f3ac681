"""Bytes in, bytes out: decode a document exactly and write it back atomically.

A document is worked on as LF-normalised text (what the Markdown parser and the
checksums see), but every offset found there maps back to the decoded original, so
edits are spliced into the original text and every byte outside them survives: the
BOM, CRLF or mixed line endings, trailing whitespace, a missing final newline.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass
from pathlib import Path

from benchdoc.errors import DocumentError
from benchdoc.limits import MAX_DOCUMENT_BYTES, bounded_read
from benchdoc.textfile import TEMP_PREFIX, TEMP_SUFFIX, atomic_write_bytes  # noqa: F401 (re-exported)

BOM = "\ufeff"
_UTF8_BOM = BOM.encode("utf-8")
# Universal newlines, as the Markdown parser sees them: CRLF, lone CR, LF.
_NEWLINE = re.compile(r"\r\n?")
# A temporary file staged next to a document while it is written; hidden and not
# ending in ".md", so no glob for documents ever picks one up.


@dataclass(frozen=True)
class DocumentText:
    """A decoded document: its original text and the LF-normalised view of it."""

    path: str
    original: str  # decoded text without the BOM, original line endings kept
    text: str  # the same text with every CRLF and lone CR turned into LF
    bom: bool
    newline: str  # "\n" or "\r\n": the style of the first line ending, used for new lines
    crlf_at: tuple[int, ...]  # offsets in `text` of each LF that was a CRLF, ascending

    def original_offset(self, offset: int) -> int:
        """Map an offset in `text` to the same place in `original`.

        Each CRLF before the offset is one character longer in the original; an
        offset pointing at a CRLF's LF maps to its CR, so a splice there keeps
        the line ending whole.
        """
        return offset + bisect.bisect_left(self.crlf_at, offset)

    def encode(self, original: str) -> bytes:
        """Bytes for a new original-style text, with this document's BOM if it had one."""
        data = original.encode("utf-8")
        return _UTF8_BOM + data if self.bom else data

    @property
    def data(self) -> bytes:
        """The document's bytes as read."""
        return self.encode(self.original)

    def with_original(self, original: str) -> DocumentText:
        """The same document with a new original text (BOM and newline style kept)."""
        text, crlf_at = _normalise_newlines(original)
        return DocumentText(
            path=self.path, original=original, text=text, bom=self.bom, newline=self.newline, crlf_at=crlf_at
        )


def detect_newline(original: str) -> str:
    """The line-ending style of the first line ending (LF when there is none)."""
    first_lf = original.find("\n")
    if first_lf > 0 and original[first_lf - 1] == "\r":
        return "\r\n"
    return "\n"


def decode_text(original: str, path: str | os.PathLike[str] = "<text>") -> DocumentText:
    """Normalise an already-decoded text (a leading BOM character is recognised)."""
    bom = original.startswith(BOM)
    if bom:
        original = original[len(BOM) :]
    text, crlf_at = _normalise_newlines(original)
    return DocumentText(
        path=str(path),
        original=original,
        text=text,
        bom=bom,
        newline=detect_newline(original),
        crlf_at=crlf_at,
    )


def _normalise_newlines(original: str) -> tuple[str, tuple[int, ...]]:
    """The text with universal newlines as LF, and where in it each former CRLF is."""
    if "\r" not in original:
        return original, ()
    pieces: list[str] = []
    crlf_at: list[int] = []
    removed = 0
    last = 0
    for match in _NEWLINE.finditer(original):
        pieces.append(original[last : match.start()])
        pieces.append("\n")
        if match.end() - match.start() == 2:
            crlf_at.append(match.start() - removed)
            removed += 1
        last = match.end()
    pieces.append(original[last:])
    return "".join(pieces), tuple(crlf_at)


def decode_bytes(data: bytes, path: str | os.PathLike[str] = "<bytes>") -> DocumentText:
    """Decode UTF-8 bytes (with or without a BOM); raise DocumentError if they are not UTF-8."""
    bom = data.startswith(_UTF8_BOM)
    body = data[len(_UTF8_BOM) :] if bom else data
    try:
        original = body.decode("utf-8")
    except UnicodeDecodeError as err:
        line = body.count(b"\n", 0, err.start) + 1
        raise DocumentError(
            f"not valid UTF-8: byte 0x{body[err.start]:02x} cannot be decoded "
            "(save the document as UTF-8)",
            file=str(path),
            line=line,
        ) from None
    decoded = decode_text(original, path)
    return DocumentText(
        path=decoded.path,
        original=decoded.original,
        text=decoded.text,
        bom=bom,
        newline=decoded.newline,
        crlf_at=decoded.crlf_at,
    )


def read_document(path: str | os.PathLike[str]) -> DocumentText:
    """Read and decode a document; a missing or unreadable file is a DocumentError."""
    try:
        data = bounded_read(path, MAX_DOCUMENT_BYTES, "the document")
    except FileNotFoundError:
        raise DocumentError("no such document", file=str(path)) from None
    except IsADirectoryError:
        raise DocumentError("is a directory, not a document", file=str(path)) from None
    except OSError as err:
        raise DocumentError(f"cannot read: {err.strerror}", file=str(path)) from None
    except ValueError as err:
        raise DocumentError(str(err), file=str(path)) from None
    return decode_bytes(data, path)


def leftover_temp_files(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files left next to a document by a write that was killed midway."""
    target = Path(os.path.realpath(path))
    pattern = f"{TEMP_PREFIX}{target.name}.*{TEMP_SUFFIX}"
    return sorted(target.parent.glob(pattern))
