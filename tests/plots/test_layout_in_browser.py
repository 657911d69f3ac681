"""Charts as a browser lays them out: no text overlaps other text, a failed experiment's
reason stays inside its box, and a reference line never strikes through a value.

The SVG keeps its text as text, so its boxes are those Chromium computes with the same
font metrics a reader's browser uses; the checks read them back over the DevTools protocol.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from tests.plots.story import record_story, story_config
from tests.report.browser import devtools_page

from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.plots import bar_chart_data, before_after_data, render
from benchdoc.results import build_results

LONG_REASON = ("CUDA error: an illegal memory access was encountered while capturing the CUDA graph of the "
               "all-reduce fusion kernel at batch size 128; compile with TORCH_USE_CUDA_DSA to enable device-side assertions")
EXTRA = '''
[experiments.close-to-reference]
label = "Speculative decoding with EAGLE-3, 4 draft steps, top-k 8, on the new CUDA stack"
compare_to = "baseline"

[experiments.cuda-graph-fusion]
label = "All-reduce fusion with CUDA graphs"
compare_to = "baseline"
'''

# Every text element's box, and for each gap label the box of its band (SVG groups by gid).
LAYOUT = """(() => {
  const svg = document.querySelector('svg');
  const box = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim())
    .map(t => ({text: t.textContent.trim(), box: box(t), group: (t.closest('g[id]') || {}).id || ''}));
  const gaps = Array.from(svg.querySelectorAll('g[id^="gap-band-"]')).map(band => {
    const label = svg.querySelector('g[id="gap-' + band.id.slice('gap-band-'.length) + '"]');
    return {band: box(band), label: label ? box(label) : null};
  });
  const order = Array.from(svg.querySelectorAll('g[id]')).map(g => g.id);
  const refs = Array.from(svg.querySelectorAll('g[id^="reference-"]')).map(g => ({id: g.id, box: box(g)}));
  const values = Array.from(svg.querySelectorAll('g[id^="value-"]')).map(g => ({id: g.id, box: box(g)}));
  return {texts, gaps, order, refs, values};
})()"""


def _chart_files(folder: Path) -> list[Path]:
    config = story_config(EXTRA, folder / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{folder}/l.db") as ledger:
        record_story(ledger)
        start = datetime(2026, 11, 4, tzinfo=timezone.utc)
        # A bar whose value label sits right on the reference line.
        ledger.record_run(NewRun(experiment="close-to-reference", started_at=start, finished_at=start + timedelta(minutes=5),
                                 samples=[Sample("output_tok_s", v, i) for i, v in enumerate([91.9, 92.2, 92.0])]))
        ledger.record_run(NewRun(experiment="cuda-graph-fusion", outcome="failed", failure_reason=LONG_REASON,
                                 started_at=start, finished_at=start + timedelta(minutes=1)))
        results = build_results(config, ledger)
    files = []
    for name, chart in (("bar", bar_chart_data(results)), ("before-after", before_after_data(results))):
        path = folder / f"{name}.svg"
        path.write_bytes(render(chart, "svg"))
        files.append(path)
    return files


def _overlap(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _inside(inner: list[float], outer: list[float], slack: float = 1.0) -> bool:
    return inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack


@pytest.mark.timeout(120)
def test_chart_text_never_overlaps_and_gap_reasons_stay_in_their_boxes(tmp_path: Path) -> None:
    for svg in _chart_files(tmp_path):
        async def read(svg: Path = svg) -> dict:
            async with devtools_page(svg, tmp_path / f"profile-{svg.stem}") as page:
                return await page.evaluate(LAYOUT)

        layout = asyncio.run(read())
        texts = layout["texts"]
        assert texts, svg.name
        clashes = [(a["text"], b["text"]) for i, a in enumerate(texts) for b in texts[i + 1:]
                   if a["group"] != b["group"] and _overlap(a["box"], b["box"])]
        assert not clashes, (svg.name, clashes)
        for gap in layout["gaps"]:
            assert gap["label"] is not None and _inside(gap["label"], gap["band"]), (svg.name, gap)
        # A value label that a reference line crosses is painted after it (over it, on white).
        for ref in layout["refs"]:
            for value in layout["values"]:
                if _overlap(ref["box"], value["box"], slack=0):
                    assert layout["order"].index(value["id"]) > layout["order"].index(ref["id"]), (svg.name, value, ref)
    bar = (tmp_path / "bar.svg").read_text()
    assert "Speculative decoding with EAGLE-3, 4 draft steps, top-k 8" in bar.replace("\n", " ")
