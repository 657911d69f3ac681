"""What goes inside each managed region: tables, inline values and lists, from the results.

Values are kept typed until here and formatted once, with the metric's digits (never
through repr, so a NumPy scalar reads 96.1, not np.float64(96.1)).

Region kinds:

``table``  ``<!-- benchdoc:table experiments="baseline eagle3-*" metric=output_tok_s compare=baseline -->``
    attributes: experiments (names and glob patterns, in order; default all), metric (or
    ``metrics="a b"``; default the primary metric), compare (the experiment the "vs"
    column is against; default each experiment's compare_to), columns (any of
    label status value n vs change notes; default all that apply), digits, bold (true:
    in each metric's column, the best median among the rows significantly better than
    what they are compared with; nothing when none is).

``value``  ``<!-- benchdoc:value eagle3-cuda13.output_tok_s -->96.1<!-- benchdoc:end -->``
    one positional ``EXPERIMENT[.METRIC]``; ``show=`` value (default), interval, n,
    delta, verdict, status, change, before, reason; ``vs=`` the other experiment for
    delta and verdict (default its compare_to).

``list``   ``<!-- benchdoc:list status="failed untested" -->``
    a bullet list of the experiments with those statuses and their reasons (what to retry).

``chart``  rendered by :mod:`benchdoc.docs.charts` (an image link plus the chart file).

A table, value or chart region may pool other runs than the project's ``[stats] pool``:
``runs=5``, or ``pool=all|latest|runs:N|since:DATE`` (:mod:`benchdoc.docs.pooled`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import DocumentError, UsageError
from benchdoc.mdtable import escape_cell
from benchdoc.naming import did_you_mean
from benchdoc.results.pairs import TEST_NAME
from benchdoc.results.status import STATUSES, Status
from benchdoc.results.words import (
    DASH,
    against_unreliable_note,
    delta_text,
    unreliable_note,
    verdict_sentence,
    vs_cell,
)
from benchdoc.untrusted import clean_text, one_line

if TYPE_CHECKING:
    from benchdoc.cache import DerivedCache
    from benchdoc.config import Config, MetricConfig
    from benchdoc.docs.document import Region
    from benchdoc.pooling import Pooling
    from benchdoc.results import Comparison, ExperimentResult, LazyResults, ResultSet

KINDS = ("table", "value", "list", "chart")
TABLE_COLUMNS = ("label", "status", "value", "n", "vs", "change", "notes")
LOG_LINE_CHARS = 160  # of a failure's log line quoted under a list item
VALUE_SHOWS = ("value", "interval", "n", "delta", "verdict", "status", "change", "before", "reason")


@contextmanager
def _in_document() -> Iterator[None]:
    """A name or metric the results cannot resolve is a fault of the document's marker."""
    try:
        yield
    except UsageError as err:
        raise DocumentError(err.message) from None


def _attr_bool(value: str | None, default: bool, name: str) -> bool:
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise DocumentError(f"{name}={value!r}: expected true or false")


def _text(text: str) -> str:
    """Text from users, logs or servers, safe in Markdown: no raw HTML (``<img onerror=...>``
    stays text; GitHub sanitizes HTML, other renderers run it), no control characters."""
    return clean_text(text).replace("<", "&lt;").replace(">", "&gt;")


def _inline(text: str) -> str:
    """Untrusted text (a failure reason, a note) as one escaped Markdown line: no line break,
    heading, link, image, emphasis, code span, pipe or raw HTML; it cannot break the value
    region, list item or table cell it lands in."""
    escaped = escape_cell(one_line(text))
    return "\\" + escaped if escaped.startswith(("#", "!", "+", "-", ">", "=")) else escaped


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, a cut one ending with "…"."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: no raw HTML, pipes escaped, one line."""
    return " ".join(_text(text).replace("|", "\\|").split())


@dataclass
class Renderer:
    """Renders regions of one document; collects chart files to write.

    ``lazy`` computes the results only when a region needs them: with a warm ``cache``,
    `benchdoc check` never computes statistics.
    """

    config: Config
    lazy: LazyResults
    document: Path
    cache: DerivedCache | None = None
    files: dict[Path, bytes] = field(default_factory=dict)
    chart_claims: dict[str, str] = field(default_factory=dict)  # chart file -> region that writes it
    _pooling: Pooling | None = field(default=None, init=False, repr=False)  # the region's own (runs=5)

    @property
    def results(self) -> ResultSet:
        """The results the region being rendered reads: pooled as it asks, else as the rest."""
        return self.lazy.pooled(self._pooling)

    def __call__(self, region: Region) -> str:
        if region.kind == "chart":
            self._claim_chart_file(region)
        if self.cache is None:
            return self.render(region)
        from benchdoc.cache import file_digest, region_key

        key = region_key(self.document, region.kind, region.args, region.attrs)
        cached = self.cache.get("regions", key)
        if isinstance(cached, dict) and isinstance(cached.get("content"), str):
            # A chart is only as fresh as its files: reuse it while they hold what was rendered.
            files = cached.get("files") or {}
            if all(file_digest(Path(path)) == digest for path, digest in files.items()):
                return str(cached["content"])
        before = set(self.files)
        content = self.render(region)
        rendered = {str(path): file_digest(data=data) for path, data in self.files.items() if path not in before}
        self.cache.put("regions", key, {"content": content, "files": rendered})
        return content

    def _claim_chart_file(self, region: Region) -> None:
        """Refuse a chart file another chart region already writes (it would hold only one chart)."""
        raw = dict(region.attrs).get("file")
        if not raw:
            return
        key = os.path.normpath(os.path.join(os.path.abspath(self.document.parent), raw.replace("\\", "/")))
        other = self.chart_claims.setdefault(key, region.location)
        if other != region.location:
            raise DocumentError(
                f"chart file '{raw}' is also written by the chart region at {other}; "
                "give each chart region its own file"
            )

    def render(self, region: Region) -> str:
        from benchdoc.docs.pooled import region_pooling

        if region.kind not in KINDS:
            raise DocumentError(f"unknown region kind '{region.kind}' (expected one of {', '.join(KINDS)})")
        self._pooling = region_pooling(region.attrs) if region.kind != "list" else None
        try:
            return self._render(region)
        finally:
            self._pooling = None

    def _render(self, region: Region) -> str:
        allowed = {
            "table": ("experiments", "metric", "metrics", "compare", "columns", "digits", "bold", "runs", "pool"),
            "value": ("show", "vs", "metric", "digits", "runs", "pool"),
            "list": ("status", "experiments"),
        }
        if region.kind == "chart":
            from benchdoc.docs.charts import render_chart_region

            content, files = render_chart_region(dict(region.attrs), self.results, self.document)
            self.files.update(files)
            return content
        for key in region.attrs:
            if key not in allowed[region.kind]:
                raise DocumentError(
                    f"unknown attribute '{key}' for a {region.kind} region{did_you_mean(key, allowed[region.kind])}"
                )
        if region.kind == "table":
            return self.table(region)
        if region.kind == "value":
            return _text(self.value(region))
        return self.list(region)

    # -- shared lookups ----------------------------------------------------------------

    def select(self, spec: str | None) -> list[ExperimentResult]:
        """Experiments by names, aliases and glob patterns, in the order given (default: those declared)."""
        if not spec:
            return [r for r in self.results if r.name in self.config.experiments]
        with _in_document():
            return self.results.select(spec.split())

    def experiment(self, name: str) -> ExperimentResult:
        with _in_document():
            return self.results[name]

    def metric(self, name: str | None) -> MetricConfig:
        """The metric a marker names, by name or label (default: the primary metric)."""
        if not name and not self.config.primary_metric:
            raise DocumentError("no metric given and benchdoc.toml declares none")
        with _in_document():
            return self.results.metric(name or None)

    def _names_metric(self, text: str) -> bool:
        try:
            self.results.metric(text)
        except UsageError:
            return False
        return True

    def digits(self, region: Region, metric: MetricConfig) -> int:
        raw = region.attrs.get("digits")
        if raw is None:
            return metric.digits
        if not raw.isdigit() or int(raw) > 9:
            raise DocumentError(f"digits={raw!r}: expected a whole number from 0 to 9")
        return int(raw)

    def comparison(self, result: ExperimentResult, metric: str, against: str | None) -> Comparison | None:
        """The comparison of ``result`` against ``against`` (default: its compare_to), or None."""
        target = against or result.compare_to
        if not target or target == result.name:
            return None
        from benchdoc.results import NoComparison

        try:
            return self.results.compare(result.name, target, metric).comparison
        except NoComparison:
            return None

    # -- formatting --------------------------------------------------------------------

    @staticmethod
    def number(value: float, digits: int) -> str:
        return f"{float(value):.{digits}f}"

    def notes(self, result: ExperimentResult) -> str:
        parts: list[str] = []
        if result.status is Status.FAILED and result.reason:
            parts.append(result.reason)
        elif result.status is Status.SUPERSEDED and result.reason:
            parts.append(f"{Status.SUPERSEDED} {result.reason}")
        elif result.status in (Status.MEASURED, Status.INCONCLUSIVE) and result.reason:
            parts.append(result.reason)
        if result.setup_error is not None:
            parts.append(f"setup error: {result.setup_error}")
        if result.unreliable and result.reliability is not None:
            parts.append(unreliable_note(result.reliability))
        target = self.results.experiments.get(result.compare_to or "")
        if target is not None and target.unreliable and target.reliability is not None and result.comparisons:
            parts.append(against_unreliable_note(target.label, target.reliability))
        if result.config.notes and result.config.notes not in parts:
            parts.append(result.config.notes)
        if result.config_changed:
            parts.append("config changed since this result")
        if result.mixed_workloads is not None:
            parts.append(f"pools different workloads ({result.mixed_workloads.short()})")
        return "; ".join(parts)

    # -- region kinds ------------------------------------------------------------------

    def table(self, region: Region) -> str:
        attrs = region.attrs
        # metrics="a b" lists names; metric= is one name or label, which may hold spaces ("TTFT p50").
        names: list[str | None] = list(attrs["metrics"].split()) if attrs.get("metrics") else [attrs.get("metric")]
        metrics = [self.metric(n) for n in names]
        experiments = self.select(attrs.get("experiments"))
        against = attrs.get("compare")
        if against:
            against = self.experiment(against).name
        columns = self.table_columns(attrs.get("columns"), experiments, against)
        bold: dict[str, set[str]] = {}
        if _attr_bool(attrs.get("bold"), True, "bold") and "value" in columns:
            bold = {m.name: self.best_winners(experiments, m, against) for m in metrics}
        headers = self.table_headers(columns, metrics, experiments, against)
        lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        for result in experiments:
            cells = self.table_row(region, result, columns, metrics, against, bold)
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
        mixed = "vs" in columns and self.vs_target(experiments, against) is None
        lines.append(self.table_caption(metrics, against, any(bold.values()), mixed))
        return "\n".join(lines) + "\n"

    def vs_target(self, experiments: list[ExperimentResult], against: str | None) -> str | None:
        """The one experiment the "vs" column compares with (its name), or None when rows differ."""
        if against:
            return self.experiment(against).name
        targets = {r.compare_to for r in experiments if r.compare_to}
        return self.experiment(targets.pop()).name if len(targets) == 1 else None

    def is_reference_row(self, result: ExperimentResult, against: str | None) -> bool:
        """A row the "vs" column calls the reference: the experiment compared against, or a declared reference."""
        return result.name == (against or result.compare_to) or (not against and result.config.is_reference)

    def best_winners(self, experiments: list[ExperimentResult], metric: MetricConfig, against: str | None) -> set[str]:
        """The rows whose value is bold: the best median, by the metric's direction, among the rows
        significantly better than what they are compared with (none when no row is)."""
        winners: list[tuple[float, str]] = []
        for result in experiments:
            summary = result.summaries.get(metric.name)
            if summary is None or self.is_reference_row(result, against):
                continue
            comparison = self.comparison(result, metric.name, against)
            if comparison is not None and comparison.verdict == "better":
                winners.append((float(summary.median), result.name))
        if not winners:
            return set()
        pick = max if metric.direction == "higher" else min
        best = pick(value for value, _ in winners)
        return {name for value, name in winners if value == best}

    @staticmethod
    def table_columns(given: str | None, experiments: list[ExperimentResult], against: str | None) -> list[str]:
        """The columns asked for, else every one that applies to these experiments."""
        if given is not None:
            columns = given.split()
            for column in columns:
                if column not in TABLE_COLUMNS:
                    raise DocumentError(f"unknown column '{column}'{did_you_mean(column, TABLE_COLUMNS)}")
            return columns
        columns = ["label", "status", "value", "n"]
        if against or any(r.compare_to for r in experiments):
            columns.append("vs")
        if any(r.changes for r in experiments):
            columns.append("change")
        return [*columns, "notes"]

    def table_headers(
        self, columns: list[str], metrics: list[MetricConfig], experiments: list[ExperimentResult], against: str | None
    ) -> list[str]:
        per_metric = len(metrics) > 1
        headers: list[str] = []
        for column in columns:
            if column in ("label", "status", "n", "notes"):
                headers.append({"label": "Config", "status": "Status", "n": "n", "notes": "Notes"}[column])
            elif column == "value":
                headers.extend(m.label + (f" ({m.unit})" if m.unit and m.unit != m.label else "") for m in metrics)
            elif column == "vs":
                # Short: the experiment's name ("vs baseline"); its label is in its own row. With
                # rows against different experiments, a bare "vs" (the caption says against what).
                target = self.vs_target(experiments, against)
                head = f"vs {target}" if target else "vs"
                headers.extend(head + (f" ({m.label})" if per_metric else "") for m in metrics)
            elif column == "change":
                headers.extend("Before → after" + (f" ({m.label})" if per_metric else "") for m in metrics)
        return headers

    def table_row(
        self, region: Region, result: ExperimentResult, columns: list[str], metrics: list[MetricConfig],
        against: str | None, bold: dict[str, set[str]],
    ) -> list[str]:
        cells: list[str] = []
        for column in columns:
            if column == "label":
                cells.append(result.label)
            elif column == "status":
                cells.append(str(result.status))
            elif column == "value":
                cells.extend(
                    self.value_cell(result, m, self.digits(region, m), result.name in bold.get(m.name, ()))
                    for m in metrics
                )
            elif column == "n":
                first = next((result.summaries[m.name] for m in metrics if m.name in result.summaries), None)
                cells.append(str(first.n) if first else DASH)
            elif column == "vs":
                for m in metrics:
                    if self.is_reference_row(result, against):
                        cells.append("reference" if result.summaries else DASH)
                        continue
                    c = self.comparison(result, m.name, against)
                    cells.append(vs_cell(c, m) if c else DASH)
            elif column == "change":
                for m in metrics:
                    ch = result.changes.get(m.name)
                    digits = self.digits(region, m)
                    cells.append(
                        f"{self.number(ch.old, digits)} → {self.number(ch.new, digits)} ({ch.delta_pct:+.1f}%)" if ch else DASH
                    )
            elif column == "notes":
                cells.append(self.notes(result) or "")
        return cells

    def value_cell(self, result: ExperimentResult, metric: MetricConfig, digits: int, bold: bool) -> str:
        """'**96.1** ± 0.4%' or '40.0 [-2.5%, +50.0%]': the median (bold when ``bold``) and its
        interval, as `show` gives it (results.words.interval_text)."""
        from benchdoc.results.words import interval_text

        summary = result.summaries.get(metric.name)
        if summary is None:
            return DASH
        text = self.number(summary.median, digits)
        text = f"**{text}**" if bold else text
        interval = interval_text(summary)
        return f"{text} {interval}" if interval is not None else text

    def table_caption(self, metrics: list[MetricConfig], against: str | None, bolded: bool, mixed: bool) -> str:
        """What the table's numbers are; ``mixed``: a bare "vs" column, each row against its own compare_to."""
        from benchdoc.docs.pooled import pooling_note

        note = pooling_note(self.config, self.results.pooling)
        pooling = self.results.pooling.describe() + (f" ({note})" if note else "")
        level = int(round(self.config.stats.confidence * 100))
        parts = [f"Median of {pooling}; ± is the half-width of its {level}% interval (shown from 6 samples), "
                 "[low, high] that interval itself where its two sides differ"]
        parts.append("n = samples")
        if bolded:
            parts.append("bold: the best median among rows significantly better than what they are compared with")
        notes = [self.results.correction_note(m.name) for m in metrics]
        test = f"each row against its compare_to, {TEST_NAME}" if mixed else TEST_NAME
        if against:
            parts.append(f"vs: {test}, uncorrected")
        elif any(notes):
            parts.append(f"vs: {test}, {next(n for n in notes if n)}")
        else:
            parts.append(f"vs: {test}")
        return "<sub>" + "; ".join(parts) + ".</sub>"

    def value(self, region: Region) -> str:
        name, metric_name = self._value_target(region)
        result = self.experiment(name)
        metric = self.metric(metric_name)
        digits = self.digits(region, metric)
        show = region.attrs.get("show", "value")
        if show not in VALUE_SHOWS:
            raise DocumentError(f"show={show!r}: expected one of {', '.join(VALUE_SHOWS)}{did_you_mean(show, VALUE_SHOWS)}")
        if show in ("status", "reason", "value", "interval", "n", "change", "before"):
            return self._own_value(result, metric, show, digits)
        against = region.attrs.get("vs")
        if against:
            against = self.experiment(against).name
        comparison = self.comparison(result, metric.name, against)
        if comparison is None:
            return DASH
        if show == "delta":
            return delta_text(comparison) if comparison.verdict == "undecided" else f"{comparison.delta_pct:+.1f}%"
        other = self.experiment(against or result.compare_to or "").label
        return verdict_sentence(
            comparison.verdict, comparison.delta_pct, other,
            metric=metric, margin=comparison.equivalence_margin,
            sequential=comparison.sequential,
        )

    def _value_target(self, region: Region) -> tuple[str, str | None]:
        """The experiment and metric a value region names (``EXP.METRIC`` or ``metric=``)."""
        if len(region.args) != 1:
            raise DocumentError("a value region names one EXPERIMENT or EXPERIMENT.METRIC, e.g. eagle3.output_tok_s")
        target = region.args[0]
        metric_name = region.attrs.get("metric")
        if metric_name is None and "." in target:
            head, _, tail = target.rpartition(".")
            if self._names_metric(tail):
                return head, tail
        return target, metric_name

    def _own_value(self, result: ExperimentResult, metric: MetricConfig, show: str, digits: int) -> str:
        """What a value region shows of the experiment's own result."""
        if show == "status":
            return result.status
        if show == "reason":
            return _inline(result.reason) if result.reason else DASH
        if show in ("change", "before"):
            ch = result.changes.get(metric.name)
            if ch is None:
                return DASH
            return f"{ch.delta_pct:+.1f}%" if show == "change" else self.number(ch.old, digits)
        summary = result.summaries.get(metric.name)
        if summary is None:
            return DASH
        if show == "n":
            return str(summary.n)
        text = self.number(summary.median, digits)
        if show == "interval" and summary.ci_low is not None and summary.ci_high is not None:
            text += f" [{self.number(summary.ci_low, digits)}, {self.number(summary.ci_high, digits)}]"
        elif show == "interval":  # never the bare median where an interval was asked for
            text += f" (no interval: {summary.ci_reason or 'too few samples'})"
        return text

    def list(self, region: Region) -> str:
        wanted = [s.lower() for s in region.attrs.get("status", "failed untested").split()]
        known = {s.lower() for s in STATUSES}
        for status in wanted:
            if status not in known:
                raise DocumentError(f"unknown status '{status}' (expected some of: {', '.join(s.lower() for s in STATUSES)})")
        lines = []
        for result in self.select(region.attrs.get("experiments")):
            if result.status.lower() not in wanted:
                continue
            detail = self.notes(result) or "no reason recorded"
            when = ""
            if result.latest_run is not None:
                when = f" (last run {result.latest_run.started_at:%Y-%m-%d})"
            line = f"- **{_text(result.label)}** — {result.status}: {_inline(detail)}{when}"
            if result.failure_log_line:
                snippet = _clip(" ".join(result.failure_log_line.split()), LOG_LINE_CHARS).replace("`", "'")
                line += f"\n  Log: `{snippet}`"
            lines.append(line)
        if not lines:
            return f"_No {' or '.join(wanted)} experiments._\n"
        return "\n".join(lines) + "\n"

