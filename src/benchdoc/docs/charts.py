"""Managed chart regions: an image link in the document, the chart file next to it.

    <!-- benchdoc:chart kind=bar metric=output_tok_s experiments="baseline eagle3-*" file=charts/throughput.svg -->
    ![Bar chart of tok/s: ...](charts/throughput.svg)
    <!-- benchdoc:end -->

The region holds only the link, with alt text saying what the chart shows (so the
document's diff shows when the numbers move); the chart's bytes are returned for the
caller to compare (check) or write (sync), never written here.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

from benchdoc.errors import BenchdocError, DocumentError

if TYPE_CHECKING:
    from benchdoc.results import ResultSet

CHART_ATTRIBUTES: tuple[str, ...] = ("kind", "metric", "experiments", "file", "format", "runs", "pool")
DEFAULT_KIND = "bar"
ALT_TEXT_LIMIT = 600


def render_chart_region(attrs: dict[str, str], results: ResultSet, document_path: Path) -> tuple[str, dict[Path, bytes]]:
    """The region's Markdown (an image link) and the chart file to write next to the document.

    Raises DocumentError for an unknown attribute, kind, metric, experiment or format, or a
    file that is not a relative path inside the document's folder; the caller adds file:line.
    """
    from benchdoc.naming import did_you_mean
    from benchdoc.plots import CHART_KINDS, FORMATS, chart_data, render

    for key in attrs:
        if key not in CHART_ATTRIBUTES:
            raise DocumentError(
                f"unknown attribute '{key}' for a chart region{did_you_mean(key, CHART_ATTRIBUTES)} "
                f"(expected: {', '.join(CHART_ATTRIBUTES)})"
            )
    kind = attrs.get("kind", DEFAULT_KIND)
    if kind not in CHART_KINDS:
        raise DocumentError(f"unknown chart kind '{kind}'{did_you_mean(kind, CHART_KINDS)} (expected one of: {', '.join(CHART_KINDS)})")
    relative = _chart_file(attrs)
    fmt = _format(attrs, relative, FORMATS)
    experiments = attrs.get("experiments", "").split()
    try:
        chart = chart_data(kind, results, attrs.get("metric") or None, experiments)
        data = render(chart, fmt)
    except DocumentError:
        raise
    except BenchdocError as err:  # unknown metric or experiment, a glob matching nothing, ...
        raise DocumentError(f"chart region: {err.message}") from err
    from benchdoc.docs.pooled import pooling_note

    link = quote(relative.as_posix(), safe="/-_.~")
    note = pooling_note(results.config, results.pooling)  # a region's own runs=, or a call's --runs
    described = chart.describe() + (f" Pooled: {results.pooling.describe()}, {note}." if note else "")
    content = f"![{_alt_text(described)}]({link})"
    return content, {chart_target(document_path, relative.as_posix()): data}


def chart_target(document_path: Path, relative: str) -> Path:
    """Where a chart file goes, refused unless it really stays inside the document's folder.

    The text of the path is checked by the caller; here the file system is asked: the
    file itself must not be a symlink, and every folder on the way must resolve inside
    the document's real folder, so a symlinked folder cannot lead the write elsewhere.
    """
    target = document_path.parent / Path(*PurePosixPath(relative).parts)
    if target.is_symlink():
        raise DocumentError(f"chart file '{relative}' is a symlink; benchdoc never writes through one")
    home = Path(os.path.realpath(document_path.parent))
    real = Path(os.path.realpath(target))
    if real != home and home not in real.parents:
        raise DocumentError(
            f"chart file '{relative}' resolves to {real}, outside the document's folder {home} "
            "(through a symlinked folder); benchdoc writes only inside it"
        )
    return target


def _chart_file(attrs: dict[str, str]) -> PurePosixPath:
    raw = attrs.get("file")
    if not raw:
        raise DocumentError("chart region needs file=PATH: where to write the chart, relative to the document")
    path = PurePosixPath(raw.replace("\\", "/"))
    if path.is_absolute() or raw.startswith(("/", "\\")) or (len(raw) > 1 and raw[1] == ":"):
        raise DocumentError(f"chart file '{raw}' must be a path relative to the document, not an absolute path")
    if ".." in path.parts:
        raise DocumentError(f"chart file '{raw}' must stay inside the document's folder (no '..')")
    return path


def _format(attrs: dict[str, str], path: PurePosixPath, formats: tuple[str, ...]) -> str:
    suffix = path.suffix.lower().lstrip(".")
    if not suffix and "format" not in attrs:
        raise DocumentError(f"chart file '{path}' needs an extension saying its format: .{' or .'.join(formats)}")
    fmt = attrs.get("format", suffix).lower()
    if fmt not in formats:
        raise DocumentError(f"unknown chart format '{fmt}' (expected one of: {', '.join(formats)})")
    if suffix != fmt:
        raise DocumentError(f"chart file '{path}' should end in .{fmt} to hold a {fmt.upper()} chart")
    return fmt


def _alt_text(description: str) -> str:
    """The chart's description as Markdown alt text: one line, brackets escaped, bounded."""
    text = " ".join(description.split())
    if len(text) > ALT_TEXT_LIMIT:
        text = text[: ALT_TEXT_LIMIT - 1].rstrip() + "…"
    for special in ("\\", "[", "]", "<", ">", "`", "*", "_"):
        text = text.replace(special, "\\" + special)
    return text
