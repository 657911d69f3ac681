"""The one place where everything benchdoc prints is redacted.

`main` wraps standard output and standard error in :class:`RedactingWriter` for the
whole command: every line any command, library message or traceback puts on the screen
passes through :func:`benchdoc.redact.redact_text` first, so no call site has to
remember to redact. Binary output (`plot -o -`) goes to the underlying buffer untouched.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


class RedactingWriter:
    """A text stream that redacts each complete line (and what is pending at a flush)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        from benchdoc.redact import redact_text

        self._pending += text
        head, newline, tail = self._pending.rpartition("\n")
        if newline:
            self._stream.write(redact_text(head + newline))
            self._pending = tail
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        from benchdoc.redact import redact_text

        if self._pending:
            self._stream.write(redact_text(self._pending))
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer, ...
        return getattr(self._stream, name)


@contextmanager
def redacted_output() -> Iterator[None]:
    """Redact standard output and standard error until the block ends."""
    saved = sys.stdout, sys.stderr
    out, err = RedactingWriter(saved[0]), RedactingWriter(saved[1])
    sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
    try:
        yield
    finally:
        for writer in (out, err):
            try:
                writer.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved
