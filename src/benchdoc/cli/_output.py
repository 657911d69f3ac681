"""The one place where everything benchdoc prints is redacted and made safe for a terminal.

`main` wraps standard output and standard error in :class:`RedactingWriter` for the
whole command: every line any command, library message or traceback puts on the screen
passes through :func:`benchdoc.redact.redact_text` first, so no call site has to
remember to redact, and through :func:`benchdoc.untrusted.terminal_safe`, so an escape
sequence in a note or a server's text never reaches the terminal (on a terminal, only
the colour and progress-line sequences of benchdoc's own display pass). Binary output
(`plot -o -`) goes to the underlying buffer untouched.
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
        try:
            self._tty = stream.isatty()
        except (AttributeError, ValueError):
            self._tty = False

    def _clean(self, text: str) -> str:
        from benchdoc.redact import redact_text
        from benchdoc.untrusted import terminal_safe

        return terminal_safe(redact_text(text), self._tty)

    def write(self, text: str) -> int:
        self._pending += text
        head, newline, tail = self._pending.rpartition("\n")
        if newline:
            self._stream.write(self._clean(head + newline))
            self._pending = tail
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._clean(self._pending))
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
