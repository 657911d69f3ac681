"""docs.charts: a chart region renders an image link with alt text and the chart file's bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Project
from tests.plots.story import record_story, story_results

from benchdoc.docs.charts import render_chart_region
from benchdoc.errors import DocumentError
from benchdoc.ledger.store import Ledger


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return story_results(tmp_path_factory.mktemp("story"))


def test_bar_region_links_the_chart_and_returns_its_bytes(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "logs" / "eagle.md"
    attrs = {"kind": "bar", "metric": "output_tok_s", "experiments": "baseline eagle3-* nccl-*", "file": "charts/throughput.svg"}
    content, files = render_chart_region(attrs, results, doc)
    assert list(files) == [tmp_path / "logs" / "charts" / "throughput.svg"]
    svg = files[tmp_path / "logs" / "charts" / "throughput.svg"]
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    assert content.startswith("![Bar chart of tok/s: medians of the pooled runs with 95% intervals")
    assert content.endswith("](charts/throughput.svg)")
    assert "NCCL Tree: Failed: CUDA graph incompatible" in content and "\n" not in content
    # Nothing is written by the renderer itself; the same region renders the same bytes.
    assert not (tmp_path / "logs").exists()
    assert render_chart_region(attrs, results, doc) == (content, files)


def test_png_history_and_before_after_regions(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "log.md"
    content, files = render_chart_region({"kind": "history", "experiments": "baseline", "file": "h.png"}, results, doc)
    assert files[tmp_path / "h.png"].startswith(b"\x89PNG") and content.startswith("![History of Baseline")
    content, files = render_chart_region({"kind": "before-after", "file": "img/before after.svg"}, results, doc)
    assert content.endswith("](img/before%20after.svg)") and "+77.7%" in content
    assert list(files) == [tmp_path / "img" / "before after.svg"]


def test_alt_text_is_escaped_markdown(tmp_path: Path) -> None:
    extra = '\n[experiments.odd]\nlabel = "odd [x] <b>*bold*</b>"\n'
    results = story_results(tmp_path, extra_config=extra)
    content, _ = render_chart_region({"experiments": "baseline odd", "file": "c.svg"}, results, tmp_path / "d.md")
    assert "odd \\[x\\] \\<b\\>\\*bold\\*\\</b\\>: Untested" in content


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"kind": "pie", "file": "c.svg"}, "unknown chart kind 'pie'"),
        ({"kind": "bar", "metric": "tok_s", "file": "c.svg"}, "unknown metric 'tok_s'"),
        ({"experiments": "basline", "file": "c.svg"}, "unknown experiment 'basline' (did you mean 'baseline'?)"),
        ({"experiments": "vllm-*", "file": "c.svg"}, "no experiment matches 'vllm-*'"),
        ({"kind": "bar"}, "chart region needs file=PATH"),
        ({"file": "/charts/c.svg"}, "must be a path relative to the document"),
        ({"file": "../c.svg"}, "must stay inside the document's folder"),
        ({"file": "c.svg", "format": "png"}, "should end in .png"),
        ({"file": "c.jpg"}, "unknown chart format 'jpg'"),
        ({"file": "chart"}, "needs an extension"),
        ({"file": "c.svg", "colour": "red"}, "unknown attribute 'colour' for a chart region"),
        ({"kind": "history", "experiments": "baseline eagle3", "file": "c.svg"}, "exactly one experiment"),
    ],
)
def test_bad_regions_are_document_errors(results, tmp_path: Path, attrs: dict[str, str], message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DocumentError) as caught:
        render_chart_region(attrs, results, tmp_path / "d.md")
    assert message in str(caught.value)
    assert caught.value.exit_code == 3


CHART_LOG = """\
# Log

<!-- benchdoc:chart kind=bar metric=output_tok_s experiments="baseline eagle3-cuda13 nccl-*" file=charts/throughput.svg -->
<!-- benchdoc:end -->
"""


def test_sync_writes_the_chart_and_check_stays_quiet(project: Project) -> None:
    (project.root / ".benchdoc").mkdir()
    with Ledger.open(project.ledger_url) as ledger:
        record_story(ledger)
    log = project.root / "log.md"
    log.write_text(CHART_LOG, encoding="utf-8")
    written = project.run("sync", "--write", "log.md")
    assert written.returncode == 0, written.stderr
    chart = project.root / "charts" / "throughput.svg"
    first = chart.read_bytes()
    assert b"Failed: CUDA graph incompatible" in first
    assert "](charts/throughput.svg)\n<!-- benchdoc:end" in log.read_text(encoding="utf-8")
    again = project.run("sync", "--check", "log.md")
    assert again.returncode == 0, again.stdout + again.stderr
    chart.write_bytes(first.replace(b"Untested", b"Tested"))  # the chart file alone goes stale
    assert project.run("sync", "--check", "log.md").returncode == 1
