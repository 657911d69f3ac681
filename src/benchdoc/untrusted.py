"""Text benchdoc did not write (notes, server log lines, HTTP bodies, model ids) made safe to show.

Such text may carry terminal escape sequences (``ESC[2J`` clears the screen, an OSC
sequence retitles the window or plants a link), bare carriage returns that split a CSV
row, or several lines where one is expected. Every sink cleans it here:

* :func:`clean_text` drops escape sequences and control characters, keeping tabs and
  line breaks (a CR or CRLF becomes LF);
* :func:`one_line` also folds every line break and run of spaces into one space, for a
  failure reason or a log line that must stay one line;
* :func:`terminal_safe` is what reaches a terminal: on a terminal, only the colour and
  line-redraw sequences benchdoc's own display uses survive; elsewhere none do.
"""

from __future__ import annotations

import re
from typing import Any

# ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (to BEL or
# ESC \\, or the end of the text), and two-character escapes.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]?"  # other escapes (and a lone ESC)
    r"|[\x90\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c)?"  # the C1 forms of DCS, OSC, PM, APC
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # the C1 form of CSI
)
# Control characters other than tab and LF (CR is handled first), DEL and the C1 range.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_FOLD = re.compile(r"[ \t]*\n\s*")
# What benchdoc's own terminal display writes: colours (SGR) and redrawing a progress
# line (erase in line, cursor up/down/column, hide/show the cursor).
_OWN_SEQUENCE = re.compile(r"\x1b\[[0-9;]*[mKABG]|\x1b\[\?25[lh]")


def clean_text(text: str) -> str:
    """``text`` without escape sequences or control characters; tabs and line breaks (as LF) stay."""
    if not text or (text.isprintable() and "\x1b" not in text):
        return text
    text = _BREAKS.sub("\n", text)
    text = _ESCAPE.sub("", text)
    return _CONTROL.sub("", text)


def one_line(text: str) -> str:
    """``text`` cleaned and folded into one line: each line break (with the spaces around it) becomes one space."""
    return _FOLD.sub(" ", clean_text(text)).strip()


def terminal_safe(text: str, tty: bool) -> str:
    """What may reach a terminal: on a terminal (``tty``) the sequences of benchdoc's own
    display survive and every other escape or control character goes; elsewhere every
    escape goes. Line breaks, CR (a progress line redrawn) and tabs stay."""
    if text.isprintable() and "\x1b" not in text:
        return text
    kept: list[str] = []
    position = 0
    if tty:
        for match in _OWN_SEQUENCE.finditer(text):
            kept.append(_clean_keeping_cr(text[position : match.start()]))
            kept.append(match.group(0))
            position = match.end()
    kept.append(_clean_keeping_cr(text[position:]))
    return "".join(kept)


def _clean_keeping_cr(text: str) -> str:
    text = _ESCAPE.sub("", text)
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", "", text)


def safe_line(text: str) -> str:
    """A line from outside (failure reason, log line, HTTP body) as benchdoc keeps it: one
    line, no control characters, secrets redacted by name, by shape and by randomness."""
    from benchdoc.redact import redact_free_text

    return redact_free_text(one_line(text))


def safe_text(text: str) -> str:
    """Like :func:`safe_line` for a text that may have several lines (a note)."""
    from benchdoc.redact import redact_free_text

    return redact_free_text(clean_text(text))


def clean_obj(obj: Any) -> Any:
    """JSON-like data with every string (keys included) passed through :func:`clean_text`."""
    if isinstance(obj, str):
        return clean_text(obj)
    if isinstance(obj, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_obj(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_obj(item) for item in obj]
    return obj


def safe_obj(obj: Any) -> Any:
    """JSON-like data from outside as benchdoc keeps it: strings cleaned (:func:`clean_text`),
    then redacted by name (:func:`benchdoc.redact.redact_obj`) and by randomness."""
    from benchdoc.redact import redact_free_text, redact_obj

    def strings(value: Any) -> Any:
        if isinstance(value, str):
            return redact_free_text(value)
        if isinstance(value, dict):
            return {k: strings(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strings(item) for item in value]
        return value

    return strings(redact_obj(clean_obj(obj)))
