"""The HTML report: one self-contained static page of every result.

`build_report` returns the page's text: the results table (sortable, filterable by
status), the charts, each experiment's history, runs and environments, and the
failures with their reasons and log excerpts. CSS, script and charts are inlined
(charts as data: URIs), and the page's Content-Security-Policy forbids every network
fetch, so it opens the same from a laptop, a CI artifact or a mail attachment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdoc.results import ResultSet

DEFAULT_HISTORY_CHARTS = 60  # per-experiment history charts drawn; each costs a render


def build_report(
    results: ResultSet,
    *,
    source: str | None = None,
    root: Path | None = None,
    max_history_charts: int = DEFAULT_HISTORY_CHARTS,
) -> str:
    """The report page as HTML text.

    ``source`` names where the numbers come from (a ledger URL with any password hidden);
    ``root`` is the folder relative log paths in run metadata are relative to
    (default: the folder of benchdoc.toml).
    """
    from benchdoc.report.assets import SCRIPT, STYLE, content_security_policy
    from benchdoc.report.sections import charts_section, esc, experiments_section, failures_section, header
    from benchdoc.report.table import results_table

    project = results.config.root.name or "benchdoc project"
    body = "\n".join(
        [
            header(results, source),
            "<main>",
            results_table(results),
            charts_section(results),
            failures_section(results, root if root is not None else results.config.root),
            experiments_section(results, max_history_charts),
            "</main>",
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy())}">\n'
        '<meta name="generator" content="benchdoc">\n'
        f"<title>Experiment results: {esc(project)}</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


__all__ = ["DEFAULT_HISTORY_CHARTS", "build_report"]
