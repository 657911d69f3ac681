"""report: the page's content, its escaping, and that it can fetch nothing."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from tests.plots.story import story_results

from benchdoc.ledger import RunMetadata
from benchdoc.report import build_report
from benchdoc.report.assets import SCRIPT, STYLE, csp_hash

EVIL = "<script>window.__xss=1</script>"
EVIL_CONFIG = f'\n[experiments.evil]\nlabel = "{EVIL}"\ncompare_to = "baseline"\nnotes = "<img src=x onerror=alert(1)>"\n'


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("story")
    log = folder / "nccl-tree.log"
    log.write_text("loading weights\nNCCL_ALGO=Tree\nRuntimeError: graph capture failed HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456\n")
    results = story_results(folder, extra_config=EVIL_CONFIG, metadata=RunMetadata(simulator=True), log_path=log)
    return build_report(results, source="sqlite:///.benchdoc/ledger.db")


def test_everything_from_the_ledger_is_escaped(page: str) -> None:
    assert EVIL not in page and "<img src=x" not in page
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # The only script is benchdoc's own, allowed by its hash.
    assert page.count("<script") == 1 and f"<script>{SCRIPT}</script>" in page


def test_page_fetches_nothing(page: str) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    csp = policy.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in csp and "img-src data:" in csp
    assert csp_hash(SCRIPT) in csp and csp_hash(STYLE) in csp
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in STYLE
    images = re.findall(r'<img src="([^"]+)"', page)
    assert images and all(src.startswith("data:image/svg+xml;base64,") for src in images)


def test_charts_are_inlined_with_alt_text(page: str) -> None:
    figures = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]+)"', page)
    alts = [alt for _, alt in figures]
    assert any(alt.startswith("Bar chart of tok/s") for alt in alts)
    assert any(alt.startswith("Bar chart of TTFT p50 (ms)") for alt in alts)
    assert any(alt.startswith("Before/after chart of tok/s") for alt in alts)
    # A history chart needs three runs with a value: the baseline's two are a sparkline in the table.
    assert not [alt for alt in alts if alt.startswith("History of")]
    assert page.count('<svg class="spark"') == 1 and "medians of its runs, oldest first: 89.5, 92.7" in page
    svg = base64.b64decode(figures[0][0])
    assert svg.startswith(b"<?xml") and b"Failed: CUDA graph incompatible" in svg


def test_table_has_a_row_per_experiment_and_sortable_headers(page: str) -> None:
    table = page[page.index('<table id="results">') : page.index("</table>", page.index('<table id="results">'))]
    rows = re.findall(r'<tr data-status="([^"]+)" data-experiment="[^"]+" data-index="(\d+)"', table)
    assert [status for status, _ in rows] == ["Reference", "Superseded", "Works", "Failed", "Untested", "Untested"]
    headers = re.findall(r'<th scope="col" data-type="(\w+)"><button type="button">([^<]+)</button>', table)
    assert [title for _, title in headers][:4] == ["Experiment", "Status", "tok/s", "TTFT p50 (ms)"]
    # The median with its interval as show gives it: '± x%', or the interval itself when lopsided.
    cell = re.search(r'<td class="num metric" data-label="tok/s" data-sort="96.15"><span class="value">96.2</span> '
                     r'<span class="spread"><span class="interval">(± [\d.]+%|\[[-+\d.]+%, [-+\d.]+%\])</span> <span', table)
    assert cell is not None, table
    # The verdict once, with its p; then what it is against and the delta's interval.
    assert re.search(r"3\.8% faster \(p=(?:[\d.]+|&lt;0\.001)\)<br><span class=\"muted\"><span class=\"against\">vs baseline", table), table
    assert "+3.8% vs baseline" not in table
    assert "54.1 → 96.2 (+77.7%)" in table
    for status in ("Reference", "Works", "Failed", "Untested", "Superseded"):
        assert f'<input type="checkbox" value="{status}" checked>' in page


def test_sources_pooling_and_simulation_are_stated(page: str) -> None:
    assert "From the ledger sqlite:///.benchdoc/ledger.db: 5 runs of 6 experiments" in page
    assert "median of the pooled runs (the latest run of each experiment (all its repetitions))" in page
    assert "95% interval of the median" in page
    assert "Simulated numbers.</strong> 4 of 5 runs were measured against the built-in inference-server simulator" in page
    assert page.count('class="sim"') >= 4


def test_failures_environments_and_log_excerpts(page: str) -> None:
    failures = page[page.index('<section id="failures">') : page.index('<section id="experiments">')]
    assert "<strong>Failed:</strong> CUDA graph incompatible" in failures
    assert "RuntimeError: NCCL Tree algorithm is not supported with CUDA graph capture" in failures
    assert "loading weights\nNCCL_ALGO=Tree\nRuntimeError: graph capture failed HF_TOKEN=***" in failures
    assert "hf_abcdef" not in page
    assert "NCCL fewer channels" in failures and "OOM (wrong mem-fraction, could retry)" in failures
    # The comparison's environment difference, and each run's whole environment.
    assert "<li>driver 570.86 → 580.65</li>" not in page  # baseline and eagle3-cuda13 share the driver
    assert "<li>SGLANG_ENABLE_FUSION (none) → 1</li>" in page
    assert "<li>CUDA 13.0.1 → 12.8</li>" in page  # the superseded eagle3 ran on the old stack
    assert "<summary>Environment of run #5</summary>" in page and "<th>env_vars.NCCL_ALGO</th><td>Tree</td>" in page


def test_without_a_log_path_or_simulator(tmp_path: Path) -> None:
    page = build_report(story_results(tmp_path))
    assert "Simulated numbers" not in page and 'class="sim"' not in page
    assert "<details><summary>Last " not in page and "From the ledger:" in page
