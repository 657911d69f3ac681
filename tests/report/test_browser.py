"""The report in a real browser (headless Chromium): visible, sortable by a click, filterable, and inert.

One Chromium run takes a screenshot with its own --screenshot flag; another is driven
over the DevTools protocol (aiohttp's websocket client) to click headers and checkboxes
and read the page back.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from tests.plots.story import story_results
from tests.report.browser import devtools_page, screenshot

from benchdoc.report import build_report

EVIL = "<script>window.__xss=1</script>"
EVIL_CONFIG = f'\n[experiments.evil]\nlabel = "{EVIL}"\ncompare_to = "baseline"\n'
BLUE, GREEN = (0x00, 0x72, 0xB2), (0x00, 0x9E, 0x73)  # the reference and "works" bars of the charts


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    results = story_results(folder, extra_config=EVIL_CONFIG)
    page = folder / "report.html"
    page.write_text(build_report(results, source="sqlite:///.benchdoc/ledger.db"), encoding="utf-8")
    return page


def _count_near(image: object, colour: tuple[int, int, int], tolerance: int = 12) -> int:
    import numpy as np

    pixels = np.asarray(image.convert("RGB"), dtype=np.int16)  # type: ignore[attr-defined]
    return int((np.abs(pixels - np.array(colour, dtype=np.int16)) <= tolerance).all(axis=-1).sum())


@pytest.mark.timeout(60)
def test_screenshot_shows_the_table_and_the_charts(report: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "report.png"
    screenshot(report, shot, tmp_path / "profile")
    assert shot.read_bytes().startswith(b"\x89PNG")
    with Image.open(shot) as image:
        assert image.size == (1400, 2400)
        # The status badges of the table and the bars of the first chart are painted.
        assert _count_near(image, BLUE) > 2000
        assert _count_near(image, GREEN) > 2000
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 22) or ()) > 50


ROW_ORDER = "Array.from(document.querySelectorAll('#results tbody tr')).map(r => r.dataset.experiment)"
VISIBLE_ROWS = "Array.from(document.querySelectorAll('#results tbody tr')).filter(r => r.offsetParent !== null).map(r => r.dataset.experiment)"


async def _drive(report: Path, profile: Path) -> dict[str, object]:
    seen: dict[str, object] = {}
    async with devtools_page(report, profile) as page:
        seen["table"] = await page.evaluate(
            "(() => { const t = document.getElementById('results'); const r = t.getBoundingClientRect();"
            " return {width: r.width, height: r.height, rows: t.tBodies[0].rows.length,"
            " visibility: getComputedStyle(t).visibility}; })()"
        )
        seen["charts"] = await page.evaluate(
            "Array.from(document.querySelectorAll('figure.chart img')).map(i =>"
            " ({complete: i.complete, natural: i.naturalWidth, shown: i.getBoundingClientRect().width}))"
        )
        seen["count_at_load"] = await page.evaluate("document.getElementById('row-count').textContent")
        seen["order_at_load"] = await page.evaluate(ROW_ORDER)
        await page.click("#results thead th:nth-child(3) button")  # tok/s
        seen["ascending"] = await page.evaluate(ROW_ORDER)
        seen["aria"] = await page.evaluate("document.querySelector('#results thead th:nth-child(3)').getAttribute('aria-sort')")
        await page.click("#results thead th:nth-child(3) button")
        seen["descending"] = await page.evaluate(ROW_ORDER)
        await page.click("#results thead th:nth-child(1) button")  # by name, to check text sorting
        seen["by_label"] = await page.evaluate(ROW_ORDER)
        await page.click('#status-filter input[value="Untested"]')
        seen["filtered"] = await page.evaluate(VISIBLE_ROWS)
        seen["count_filtered"] = await page.evaluate("document.getElementById('row-count').textContent")
        seen["evil_text"] = await page.evaluate(
            "document.querySelector('#results tr[data-experiment=\"evil\"] td a').textContent"
        )
        seen["xss"] = await page.evaluate("typeof window.__xss")
        seen["scripts"] = await page.evaluate("document.scripts.length")
        seen["events"] = [e for e in page.events if e.get("method") in ("Runtime.exceptionThrown", "Log.entryAdded")]
    return seen


@pytest.mark.timeout(60)
def test_sorting_filtering_and_no_script_run_in_chromium(report: Path, tmp_path: Path) -> None:
    seen = asyncio.run(_drive(report, tmp_path / "profile"))
    table = seen["table"]
    assert isinstance(table, dict) and table["width"] > 600 and table["height"] > 100 and table["rows"] == 6
    assert table["visibility"] == "visible"
    charts = seen["charts"]
    assert isinstance(charts, list) and len(charts) >= 3
    assert all(c["complete"] and c["natural"] > 300 and c["shown"] > 300 for c in charts), charts
    # benchdoc's own script ran under the page's policy...
    assert seen["count_at_load"] == "showing 6 of 6"
    initial = ["baseline", "eagle3", "eagle3-cuda13", "nccl-tree", "nccl-fewer-channels", "evil"]
    assert seen["order_at_load"] == initial
    # ...sorting by tok/s with a click (54.1 < 92.7 < 96.2; rows without a value stay last)...
    missing = ["nccl-tree", "nccl-fewer-channels", "evil"]
    assert seen["ascending"] == ["eagle3", "baseline", "eagle3-cuda13", *missing]
    assert seen["aria"] == "ascending"
    assert seen["descending"] == ["eagle3-cuda13", "baseline", "eagle3", *missing]
    assert seen["by_label"] == ["evil", "baseline", "eagle3", "eagle3-cuda13", "nccl-fewer-channels", "nccl-tree"]
    # ...filtering by status...
    assert seen["filtered"] == ["baseline", "eagle3", "eagle3-cuda13", "nccl-tree"]
    assert seen["count_filtered"] == "showing 4 of 6"
    # ...and the experiment named like a script is text, never run.
    assert seen["evil_text"] == EVIL
    assert seen["xss"] == "undefined"
    assert seen["scripts"] == 1
    assert seen["events"] == [], json.dumps(seen["events"])[:2000]


LAYOUT_AT_WIDTH = """(() => ({
  page: document.documentElement.scrollWidth, view: window.innerWidth,
  charts: Array.from(document.querySelectorAll('#charts figure')).map(f => { const r = f.getBoundingClientRect(); return [r.left, r.top, r.width]; }),
  table: document.querySelector('#results').getBoundingClientRect().width,
  headers: Array.from(document.querySelectorAll('#results thead th')).map(th => th.textContent.trim()),
}))()"""


@pytest.mark.timeout(90)
@pytest.mark.parametrize("width", [1400, 390])
def test_report_fits_a_wide_screen_and_a_phone(report: Path, tmp_path: Path, width: int) -> None:
    from PIL import Image

    async def read() -> dict:
        async with devtools_page(report, tmp_path / "profile", size=(width, 1200)) as page:
            await page.send("Emulation.setDeviceMetricsOverride", width=width, height=1200, deviceScaleFactor=1,
                            mobile=width < 700)
            layout = await page.evaluate(LAYOUT_AT_WIDTH)
            (tmp_path / "shot.png").write_bytes(await page.screenshot())
            return layout

    layout = asyncio.run(read())
    # The page never scrolls sideways: a wide table scrolls inside its own box.
    assert layout["page"] <= layout["view"], layout
    assert "vs compare_to (tok/s)" in layout["headers"]
    charts = layout["charts"]
    assert len(charts) >= 3
    rows = {round(top) for _, top, _ in charts}
    if width >= 1200:
        assert len(rows) < len(charts), charts  # a grid: several charts share a row
    else:
        assert len(rows) == len(charts), charts  # one chart per row on a phone
        assert all(w <= width for _, _, w in charts)
    with Image.open(tmp_path / "shot.png") as shot:
        assert shot.size[0] == width
