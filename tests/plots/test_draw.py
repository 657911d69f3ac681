"""plots.draw: the SVG says what the data says (bars, intervals, gaps, units) and is byte-stable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.plots.story import BASELINE, EAGLE3_NEW, EAGLE3_OLD, story_results

from benchdoc.errors import UsageError
from benchdoc.plots import bar_chart, bar_chart_data, before_after_chart, history_chart, render

SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return story_results(tmp_path_factory.mktemp("story"))


class Svg:
    """The parts of a chart's SVG that tests look at, by the ids benchdoc gives them."""

    def __init__(self, data: bytes) -> None:
        self.text = data.decode("utf-8")
        self.root = ET.fromstring(data)
        self.by_id = {el.get("id"): el for el in self.root.iter() if el.get("id")}

    def ids(self, pattern: str) -> list[str]:
        return sorted(i for i in self.by_id if re.fullmatch(pattern, i))

    def words(self, element_id: str) -> str:
        return " ".join("".join(t.itertext()) for t in self.by_id[element_id].iter(f"{SVG}text"))

    def all_words(self) -> str:
        return " ".join("".join(t.itertext()) for t in self.root.iter(f"{SVG}text"))

    def y_extent(self, element_id: str) -> float:
        """The vertical size of the first path in an element (a bar, an error bar)."""
        path = next(self.by_id[element_id].iter(f"{SVG}path"))
        ys = [float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", path.get("d", ""))]
        return max(ys) - min(ys)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def test_bar_chart_draws_bars_intervals_reference_and_labelled_gaps(results) -> None:  # type: ignore[no-untyped-def]
    svg = Svg(bar_chart(results))
    assert svg.ids(r"bar-\d+") == ["bar-0", "bar-1"]  # baseline and EAGLE-3; failed/untested are no bars
    assert svg.ids(r"errorbar-\d+") == ["errorbar-0", "errorbar-1"]
    assert svg.ids(r"gap-\d+") == ["gap-2", "gap-3"]
    assert svg.words("gap-2") == "Failed: CUDA graph incompatible"
    assert svg.words("gap-3") == "Untested"
    assert svg.ids(r"reference-\d+") == ["reference-0"]
    # Bar heights are the medians, on a zero-based axis.
    ratio = svg.y_extent("bar-1") / svg.y_extent("bar-0")
    assert ratio == pytest.approx(median(EAGLE3_NEW) / median(BASELINE), rel=1e-3)
    words = svg.all_words()
    for expected in ("tok/s, higher is better", "Baseline (no", "NCCL Tree", "92.7", "96.2", "+3.8%", "n=6",
                     "Reference: Baseline (no spec)", "median of each experiment's pooled runs", "95% interval of the median"):
        assert expected in words, expected
    assert svg.words("value-1").split() == ["96.2", "+3.8%", "n=6"]


def test_error_bars_span_the_interval(results) -> None:  # type: ignore[no-untyped-def]
    data = bar_chart_data(results)
    svg = Svg(render(data))
    bar = data.bars[0]
    assert bar.ci_low is not None and bar.ci_high is not None and bar.median is not None
    expected = (bar.ci_high - bar.ci_low) / bar.median
    assert svg.y_extent("errorbar-0") / svg.y_extent("bar-0") == pytest.approx(expected, rel=1e-2)


def test_axis_label_carries_the_unit_and_direction(results) -> None:  # type: ignore[no-untyped-def]
    words = Svg(bar_chart(results, "ttft_ms_p50", ["baseline", "eagle3-cuda13"])).all_words()
    assert "TTFT p50 (ms), lower is better" in words


def test_before_after_chart_pairs_bars_and_shows_the_change(results) -> None:  # type: ignore[no-untyped-def]
    svg = Svg(before_after_chart(results))
    assert svg.ids(r"bar-.*") == ["bar-after-0", "bar-before-0"]
    assert svg.ids(r"errorbar-(before|after)-\d+") == ["errorbar-after-0", "errorbar-before-0"]
    ratio = svg.y_extent("bar-after-0") / svg.y_extent("bar-before-0")
    assert ratio == pytest.approx(median(EAGLE3_NEW) / median(EAGLE3_OLD), rel=1e-3)
    assert svg.words("change-0") == "+77.7%"
    words = svg.all_words()
    assert "Before (superseded)" in words and "After" in words and "EAGLE-3 2-step →" in words


def test_history_chart_marks_runs_pooled_or_not_and_failures(results) -> None:  # type: ignore[no-untyped-def]
    svg = Svg(history_chart(results, None, "baseline"))
    assert svg.ids(r"point-\d+") == ["point-0", "point-1"]
    assert svg.ids(r"errorbar-\d+") == ["errorbar-0", "errorbar-1"]
    assert "current" in svg.by_id
    words = svg.all_words()
    assert "#1" in words and "2026-11-02" in words and "Current result 92.7" in words and "tok/s, higher is better" in words
    failed = Svg(history_chart(results, None, "nccl-tree"))
    assert failed.words("gap-0") == "Failed: CUDA graph incompatible"
    assert failed.ids(r"point-\d+") == []


def test_same_results_same_bytes_and_no_timestamp(results) -> None:  # type: ignore[no-untyped-def]
    for draw in (lambda: bar_chart(results), lambda: before_after_chart(results), lambda: history_chart(results, None, "baseline")):
        first, second = draw(), draw()
        assert first == second
        assert b"<dc:date>" not in first and b"Matplotlib v" not in first
    assert bar_chart(results, fmt="png") == bar_chart(results, fmt="png")
    assert bar_chart(results, fmt="png").startswith(b"\x89PNG\r\n\x1a\n")


def test_same_bytes_in_another_process(tmp_path: Path, results) -> None:  # type: ignore[no-untyped-def]
    """Hash randomisation and a fresh matplotlib must not change a byte."""
    script = (
        "import sys; from pathlib import Path; from tests.plots.story import story_results; from benchdoc.plots import bar_chart; "
        "sys.stdout.buffer.write(bar_chart(story_results(Path(sys.argv[1]))))"
    )
    other = tmp_path / "other"
    other.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", script, str(other)], capture_output=True, env=env, timeout=60, check=True)
    assert proc.stdout == bar_chart(results)


def test_labels_are_text_not_markup_or_math(tmp_path: Path) -> None:
    extra = '\n[experiments.evil]\nlabel = "<script>alert(1)</script> $x$"\ncompare_to = "baseline"\n'
    results = story_results(tmp_path, extra_config=extra)
    data = bar_chart(results, None, ["baseline", "evil"])
    assert b"<script" not in data
    svg = Svg(data)
    words = svg.all_words()  # the label is wrapped onto two lines
    assert "<script>alert(1)" in words and "</script> $x$" in words


def test_unknown_format_is_refused(results) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="unknown chart format 'jpg'"):
        render(bar_chart_data(results), "jpg")
