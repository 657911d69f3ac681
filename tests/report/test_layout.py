"""The report of a 30-experiment project with two load sweeps, in headless Chromium at a
laptop's width (1440 px) and a phone's (390 px): the table fits with every failure's reason
in view, a phone gets a card per experiment, text never overlaps, sweeps are grouped, and
the page's length follows the project's size."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.report.browser import devtools_page
from tests.report.project import FAILED, SWEEPS, project_results

from benchdoc.report import build_report

LAYOUT = """(() => {
  const table = document.querySelector('#results');
  const box = table.closest('.scroll');
  const rows = Array.from(table.tBodies[0].rows);
  const rect = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    view: window.innerWidth, page: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    box: [box.scrollWidth, box.clientWidth],
    head: getComputedStyle(table.tHead).display,
    rows: rows.map(row => ({
      name: row.dataset.experiment, parent: row.dataset.parent || null, row: rect(row), link: rect(row.querySelector('a')),
      cells: Array.from(row.cells).filter(c => getComputedStyle(c).display !== 'none' && c.offsetHeight > 0)
        .map(c => ({label: c.dataset.label || '', text: c.innerText, box: rect(c)})),
    })),
    charts: Array.from(document.querySelectorAll('#charts figure img')).map(i => i.alt),
    details: document.querySelectorAll('details.experiment').length,
  };
})()"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("project")
    path = folder / "report.html"
    path.write_text(build_report(project_results(folder)), encoding="utf-8")
    return path


def _layout(page: Path, profile: Path, width: int) -> dict:
    async def read() -> dict:
        async with devtools_page(page, profile, size=(width, 1000)) as tools:
            await tools.send("Emulation.setDeviceMetricsOverride", width=width, height=1000, deviceScaleFactor=1,
                             mobile=width < 700)
            return await tools.evaluate(LAYOUT)

    return asyncio.run(read())


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


@pytest.mark.timeout(90)
@pytest.mark.parametrize("width", [1440, 390])
def test_the_table_fits_with_every_reason_in_view_and_no_text_overlaps(page: Path, tmp_path: Path, width: int) -> None:
    layout = _layout(page, tmp_path / "profile", width)
    assert layout["page"] <= layout["view"], "the page scrolls sideways"
    assert layout["box"][0] <= layout["box"][1], f"the table scrolls sideways in its box: {layout['box']}"
    rows = {row["name"]: row for row in layout["rows"]}
    assert len(rows) == 30
    for name, (reason, log_line) in FAILED.items():
        notes = next(c for c in rows[name]["cells"] if c["label"] == "Notes")
        assert " ".join(reason.split()) in " ".join(notes["text"].split()), notes
        assert log_line.split(":")[0] in notes["text"]
        assert notes["box"][2] <= width and notes["box"][3] - notes["box"][1] > 10, notes
    for row in layout["rows"]:
        cells = row["cells"]
        assert all(c["box"][2] <= width + 0.5 for c in cells), row
        clashes = [(a["label"], b["label"]) for i, a in enumerate(cells) for b in cells[i + 1:] if _overlap(a["box"], b["box"])]
        assert not clashes, (row["name"], clashes)
    if width < 700:
        # A card per experiment: no header row, each card as wide as the screen allows and
        # stacked, labelled cells (empty ones left out) with the value, verdict and reason.
        assert layout["head"] == "none"
        tops = [row["row"] for row in layout["rows"]]
        assert all(a[3] <= b[1] for a, b in zip(tops, tops[1:])), "cards overlap"
        card = rows["cfg-11"]
        labels = [c["label"] for c in card["cells"]]
        assert labels[:3] == ["", "Status", "tok/s"] and "vs baseline" in labels and "—" not in card["cells"][2]["text"]
        assert "faster" in next(c["text"] for c in card["cells"] if c["label"] == "vs baseline")
        # A load level is a short card under its sweep's: its load, status and figures.
        height = lambda name: rows[name]["row"][3] - rows[name]["row"][1]  # noqa: E731
        assert height("serve-a@rate=1") < height("cfg-11") and rows["serve-a@rate=1"]["row"][0] > rows["serve-a"]["row"][0]
    else:
        assert layout["head"] == "table-header-group"


@pytest.mark.timeout(90)
def test_sweeps_are_grouped_and_the_page_is_proportionate(page: Path, tmp_path: Path) -> None:
    layout = _layout(page, tmp_path / "profile", 1440)
    order = [row["name"] for row in layout["rows"]]
    for sweep in SWEEPS:
        # The parent is not "Untested"; its levels follow it, indented, in numeric order.
        levels = [row["name"] for row in layout["rows"] if row["parent"] == sweep]
        assert levels == [f"{sweep}@rate={r}" for r in (1, 2, 4, 8, 16)]
        at = order.index(sweep)
        assert order[at + 1:at + 6] == levels
        assert "Untested" not in rows_text(layout, sweep)
        assert rows_by_name(layout, levels[0])["link"][0] > rows_by_name(layout, sweep)["link"][0] + 10
    # One latency-throughput chart per sweep, and no bar of a level.
    sweeps = [alt for alt in layout["charts"] if alt.startswith("Latency (ms")]
    assert len(sweeps) == len(SWEEPS)
    bars = [alt for alt in layout["charts"] if alt.startswith("Bar chart")]
    assert bars and not any(" @ " in alt or "@rate" in alt for alt in bars)
    # Histories fold away: 20 top-level blocks and 10 levels inside their sweeps', and the
    # page is about 220 px per experiment at 1440 px, six bar charts included (it was over 860).
    assert layout["details"] == 30
    assert layout["height"] < 30 * 250, layout["height"]


def rows_by_name(layout: dict, name: str) -> dict:
    return next(row for row in layout["rows"] if row["name"] == name)


def rows_text(layout: dict, name: str) -> str:
    return " ".join(c["text"] for c in rows_by_name(layout, name)["cells"])
