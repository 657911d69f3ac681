"""Region rendering: tables, values and lists from results computed in the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.conftest import STORY_CONFIG
from tests.test_results import BASE, NEW, Runs

from benchdoc.config import parse_config
from benchdoc.docs import parse_text
from benchdoc.docs.render import Renderer
from benchdoc.errors import DocumentError
from benchdoc.results import LazyResults, compute_results


@pytest.fixture
def renderer() -> Renderer:
    config = parse_config(STORY_CONFIG, Path("benchdoc.toml"))
    runs = Runs()
    runs.add("eagle3", [54.1])
    runs.add("baseline", BASE, day=1)
    runs.add("eagle3-cuda13", NEW, day=1)
    runs.add("nccl-tree", failed="CUDA graph incompatible", day=1)
    results = compute_results(config, runs.runs)
    return Renderer(config, LazyResults.of(results), Path("log.md"))


def render(renderer: Renderer, marker: str) -> str:
    text = f"x {marker}old<!-- benchdoc:end -->\n" if "value" in marker else f"{marker}\n<!-- benchdoc:end -->\n"
    (region,) = parse_text(text, "log.md").regions
    return renderer(region)


def test_numpy_scalars_format_as_numbers() -> None:
    assert Renderer.number(np.float64(96.1), 1) == "96.1"
    assert Renderer.number(np.float32(54.1), 1) == "54.1"


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("<!-- benchdoc:value eagle3-cuda13.output_tok_s -->", "96.1"),
        ("<!-- benchdoc:value eagle3-cuda13.output_tok_s digits=2 -->", "96.10"),
        ("<!-- benchdoc:value eagle3-cuda13 show=n -->", "5"),
        # Five samples give no 95% interval: said, never the bare median where one was asked for.
        ("<!-- benchdoc:value eagle3-cuda13 show=interval -->",
         "96.1 (no interval: need &gt;= 6 samples for a 95% interval)"),
        ("<!-- benchdoc:value eagle3-cuda13 show=delta -->", "+3.8%"),
        ("<!-- benchdoc:value eagle3-cuda13 show=verdict -->", "3.8% faster than Baseline (no spec)"),
        ("<!-- benchdoc:value eagle3-cuda13 show=status -->", "Works"),
        ("<!-- benchdoc:value eagle3-cuda13 show=change -->", "+77.6%"),
        ("<!-- benchdoc:value eagle3-cuda13 show=before -->", "54.1"),
        ("<!-- benchdoc:value nccl-tree show=reason -->", "CUDA graph incompatible"),
        ("<!-- benchdoc:value nccl-tree.output_tok_s -->", "—"),
        ("<!-- benchdoc:value EAGLE-3 show=status -->", "Superseded"),  # by alias
    ],
)
def test_value_regions(renderer: Renderer, marker: str, expected: str) -> None:
    assert render(renderer, marker) == expected


def test_table_keeps_pattern_order_and_chosen_columns(renderer: Renderer) -> None:
    table = render(renderer, '<!-- benchdoc:table experiments="nccl-* baseline" columns="label status value notes" bold=false -->')
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0] == "| Config | Status | tok/s | Notes |"
    assert rows[1] == "| NCCL Tree | Failed | — | CUDA graph incompatible |"
    assert rows[2] == "| NCCL fewer channels | Untested | — | OOM (wrong mem-fraction, could retry) |"
    assert rows[3] == "| Baseline (no spec) | Reference | 92.6 |  |"


def test_list_of_failed_and_untested(renderer: Renderer) -> None:
    listing = render(renderer, "<!-- benchdoc:list -->")
    assert "- **NCCL Tree** — Failed: CUDA graph incompatible" in listing
    assert "- **NCCL fewer channels** — Untested: OOM (wrong mem-fraction, could retry)" in listing
    assert "Baseline" not in listing


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('<!-- benchdoc:table experimnts="x" -->', "unknown attribute 'experimnts' for a table region (did you mean 'experiments'?)"),
        ('<!-- benchdoc:table columns="label speed" -->', "unknown column 'speed'"),
        ("<!-- benchdoc:value eagle3-cuda13 show=speed -->", "show='speed': expected one of"),
        ('<!-- benchdoc:list status="broken" -->', "unknown status 'broken'"),
        ("<!-- benchdoc:graph -->", "unknown region kind 'graph'"),
        ("<!-- benchdoc:value basline.output_tok_s -->", "unknown experiment 'basline' (did you mean 'baseline'?)"),
        ("<!-- benchdoc:table bold=maybe -->", "bold='maybe': expected true or false"),
    ],
)
def test_render_errors_are_clear(renderer: Renderer, marker: str, message: str) -> None:
    with pytest.raises(DocumentError) as info:
        render(renderer, marker)
    assert message in str(info.value)


def test_a_metric_is_named_by_its_label_as_tables_show_it(renderer: Renderer) -> None:
    """metric=tok/s is the same table as metric=output_tok_s; a label may hold a space."""
    by_name = render(renderer, '<!-- benchdoc:table experiments="baseline eagle3-cuda13" metric=output_tok_s -->')
    assert render(renderer, '<!-- benchdoc:table experiments="baseline eagle3-cuda13" metric=tok/s -->') == by_name
    value = render(renderer, "<!-- benchdoc:value eagle3-cuda13.tok/s -->")
    assert value == render(renderer, "<!-- benchdoc:value eagle3-cuda13.output_tok_s -->") == "96.1"
    spaced = render(renderer, '<!-- benchdoc:table experiments="baseline" metric="TTFT p50" -->')
    assert "TTFT p50" in spaced.splitlines()[0]
    with pytest.raises(DocumentError, match="unknown metric 'tok/'"):
        render(renderer, "<!-- benchdoc:table metric=tok/ -->")


def test_raw_html_in_labels_and_reasons_is_escaped_in_every_region() -> None:
    hostile = STORY_CONFIG.replace('label = "NCCL Tree"', 'label = "NCCL <img src=x onerror=alert(1)> | Tree"')
    config = parse_config(hostile, Path("benchdoc.toml"))
    runs = Runs()
    runs.add("baseline", BASE, day=1)
    runs.add("nccl-tree", failed="<script>alert(2)</script> in the log", day=1)
    renderer = Renderer(config, LazyResults.of(compute_results(config, runs.runs)), Path("log.md"))
    outputs = [
        render(renderer, '<!-- benchdoc:table experiments="baseline nccl-tree" metric=output_tok_s -->'),
        render(renderer, "<!-- benchdoc:value nccl-tree show=reason -->"),
        render(renderer, '<!-- benchdoc:list experiments="nccl-tree" -->'),
    ]
    for text in outputs:
        assert "<img" not in text and "<script" not in text, text
    assert "NCCL &lt;img src=x onerror=alert(1)&gt; \\| Tree" in outputs[0]
    assert outputs[1] == "&lt;script&gt;alert(2)&lt;/script&gt; in the log"
    assert "**NCCL &lt;img src=x onerror=alert(1)&gt; | Tree**" in outputs[2]


def _ttft_renderer(candidate: list[float], *, log_line: str | None = None) -> Renderer:
    import dataclasses

    config = parse_config(STORY_CONFIG, Path("benchdoc.toml"))
    runs = Runs()
    runs.add("baseline", [100.0, 99.5, 100.2, 99.8, 100.1], metric="ttft_ms_p50", day=1)
    runs.add("eagle3-cuda13", candidate, metric="ttft_ms_p50", day=1)
    runs.add("nccl-fewer-channels", [100.3, 99.9, 100.4, 100.0, 99.7], metric="ttft_ms_p50", day=1)
    runs.add("nccl-tree", failed="CUDA graph incompatible", day=1)
    runs.runs[-1] = dataclasses.replace(runs.runs[-1], failure_log_line=log_line)
    return Renderer(config, LazyResults.of(compute_results(config, runs.runs)), Path("log.md"))


TTFT_TABLE = '<!-- benchdoc:table experiments="baseline nccl-fewer-channels eagle3-cuda13" metric=ttft_ms_p50 -->'


def test_a_halved_latency_reads_as_times_faster_and_only_its_winner_is_bold() -> None:
    """Lower is better: the row reads '2.03x faster', never '-50.8% faster'; bold marks the best
    value among rows significantly better than their compare_to, so neither the reference
    nor the row that is noise is bold; the header is the short name."""
    table = render(_ttft_renderer([49.0, 49.5, 49.2, 48.8, 49.1]), TTFT_TABLE)
    lines = table.splitlines()
    assert lines[0] == "| Config | Status | TTFT p50 (ms) | n | vs baseline | Notes |"
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines[2:5]}
    assert "| **49.1** | 5 |" in rows["EAGLE-3 2-step (CUDA 13 + fusion)"]
    assert "| 2.03x faster (p=" in rows["EAGLE-3 2-step (CUDA 13 + fusion)"]
    assert "**" not in rows["Baseline (no spec)"] and "**" not in rows["NCCL fewer channels"]
    assert "inconclusive" in rows["NCCL fewer channels"]
    assert "-50" not in table and "faster" in table
    assert "bold: the best median among rows significantly better" in lines[-1]


def test_nothing_is_bold_when_no_row_is_significantly_better() -> None:
    table = render(_ttft_renderer([100.1, 99.6, 100.3, 99.9, 100.0]), TTFT_TABLE)
    assert "**" not in table and "bold:" not in table
    worse = render(_ttft_renderer([130.0, 131.0, 129.5, 130.5, 130.2]), TTFT_TABLE)
    assert "**" not in worse and "1.30x slower (p=" in worse


def test_a_cut_log_line_ends_with_an_ellipsis() -> None:
    long_line = "RuntimeError: CUDA error: an illegal memory access was encountered " + "x" * 300
    listing = render(_ttft_renderer([49.0], log_line=long_line), '<!-- benchdoc:list experiments="nccl-tree" -->')
    logged = next(line for line in listing.splitlines() if "Log:" in line)
    assert logged.endswith("…`") and len(logged.split("`")[1]) == 160
    short = render(_ttft_renderer([49.0], log_line="CUDA graph capture failed"), '<!-- benchdoc:list experiments="nccl-tree" -->')
    assert "Log: `CUDA graph capture failed`" in short


def test_a_lopsided_interval_is_printed_as_itself_as_show_prints_it() -> None:
    from benchdoc.results.words import interval_text

    renderer = _ttft_renderer([40.0, 41.0, 39.0, 40.0, 42.0, 40.0, 60.0])
    table = render(renderer, TTFT_TABLE)
    row = next(line for line in table.splitlines() if line.startswith("| EAGLE-3 2-step (CUDA 13 + fusion) |"))
    summary = renderer.results["eagle3-cuda13"].summaries["ttft_ms_p50"]
    shown = interval_text(summary)
    assert shown is not None and shown.startswith("[") and "±" not in row, row
    assert f"| **40.0** {shown} |" in row, row
    assert "[low, high] that interval itself where its two sides differ" in table
