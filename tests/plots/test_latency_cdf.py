"""The latency distribution chart (CDF of TTFT and TPOT per request), from requests a real
`bench --record` kept against the simulator: its medians are the run's own p50s, an
experiment without kept requests is named and not drawn, and its text never overlaps."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG, Project
from tests.plots.test_layout_in_browser import LAYOUT, _overlap
from tests.report.browser import devtools_page

from benchdoc.config import load_config, parse_config
from benchdoc.errors import UsageError
from benchdoc.ledger import Ledger, NewRun, RequestRow, Sample, ServedBy
from benchdoc.plots import chart_data
from benchdoc.plots.latency_cdf import LatencyCdfChart, cdf_steps
from benchdoc.results import build_results
from benchdoc.sim import SimConfig, start_in_thread


@pytest.fixture(scope="module")
def sims() -> Iterator[tuple[str, str]]:
    """A plain server and one with speculative decoding, on loopback."""
    with start_in_thread(SimConfig(ttft_ms=6.0, step_ms=1.5)) as plain, \
            start_in_thread(SimConfig(ttft_ms=6.0, step_ms=1.5, draft_steps=2, accept_prob=0.7)) as spec:
        yield plain.url, spec.url


def _bench(project: Project, url: str, experiment: str) -> None:
    res = project.run("bench", "--url", url, "--requests", "24", "--concurrency", "3", "--output-tokens", "12",
                      "--input-tokens", "8", "--record", experiment)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.fixture
def recorded(project: Project, sims: tuple[str, str]) -> Project:
    _bench(project, sims[0], "baseline")
    _bench(project, sims[1], "eagle3-cuda13")
    # Measured elsewhere: a summary, no requests.
    assert project.run("record", "nccl-tree", "--metric", "output_tok_s=80.1,80.3,80.2").returncode == 0
    return project


def _recorded_p50(project: Project, experiment: str, metric: str) -> float:
    (run,) = json.loads(project.run("history", experiment, "--json").stdout)
    return next(s["value"] for s in run["samples"] if s["metric"] == metric)


@pytest.mark.timeout(120)
def test_each_curve_s_median_is_the_run_s_recorded_p50(recorded: Project) -> None:
    config = load_config(recorded.root / "benchdoc.toml")
    with Ledger.open(recorded.ledger_url) as ledger:
        results = build_results(config, ledger)
        chart = chart_data("latency-cdf", results, None, ["baseline", "eagle3-cuda13", "nccl-tree"])
    assert isinstance(chart, LatencyCdfChart)
    assert [s.experiment for s in chart.series] == ["baseline", "eagle3-cuda13"]
    for series in chart.series:
        assert series.requests == 24 and series.failed == 0
        for metric in ("ttft_ms", "tpot_ms"):
            assert series.p50[metric] == pytest.approx(_recorded_p50(recorded, series.experiment, f"{metric}_p50"), rel=1e-9)
            steps = series.steps[metric]
            assert len(steps) == 24 and steps[-1][1] == 1.0
            assert [x for x, _ in steps] == sorted(x for x, _ in steps)
            # Half the requests at or below the median, as a CDF reads it.
            assert sum(x <= series.p50[metric] for x, _ in steps) in (12, 13)
    assert chart.without_records == ("NCCL Tree",)
    assert "Without per-request records (not drawn): NCCL Tree." in chart.caption
    assert "Simulated" in chart.caption and "Baseline (no spec) (24 requests: TTFT p50" in chart.describe()


@pytest.mark.timeout(120)
def test_plot_writes_the_chart_and_its_text_never_overlaps(recorded: Project, tmp_path: Path) -> None:
    res = recorded.run("plot", "--kind", "latency-cdf", "-o", "cdf.svg")
    assert res.returncode == 0, res.stderr
    assert "wrote cdf.svg" in res.stdout and "simulator" in res.stdout
    svg = recorded.root / "cdf.svg"
    text = svg.read_text()
    assert "TTFT per request (CDF)" in text and "TPOT per request (CDF)" in text and "NCCL Tree" in text

    async def read() -> dict:
        async with devtools_page(svg, tmp_path / "profile") as page:
            return await page.evaluate(LAYOUT)

    texts = asyncio.run(read())["texts"]
    assert len(texts) > 10
    clashes = [(a["text"], b["text"]) for i, a in enumerate(texts) for b in texts[i + 1:]
               if a["group"] != b["group"] and _overlap(a["box"], b["box"])]
    assert not clashes

    one = recorded.run("plot", "--kind", "latency-cdf", "--metric", "tpot_ms", "-o", "tpot.svg")
    assert one.returncode == 0 and "TTFT per request" not in (recorded.root / "tpot.svg").read_text()
    bad = recorded.run("plot", "--kind", "latency-cdf", "--metric", "e2e", "-o", "x.svg")
    assert bad.returncode == 2 and "draws ttft_ms or tpot_ms" in bad.stderr and "Traceback" not in bad.stderr
    none = recorded.run("plot", "--kind", "latency-cdf", "nccl-tree", "-o", "x.svg")
    assert none.returncode == 2 and "no per-request records for NCCL Tree" in none.stderr
    assert not (recorded.root / "x.svg").exists()


@pytest.mark.timeout(120)
def test_a_chart_region_and_the_report_draw_it(recorded: Project) -> None:
    log = recorded.root / "log.md"
    log.write_text('# Latency\n\n<!-- benchdoc:chart kind=latency-cdf experiments="baseline eagle3-cuda13 nccl-tree" '
                   "file=charts/cdf.svg -->\n<!-- benchdoc:end -->\n", encoding="utf-8")
    written = recorded.run("sync", "--write", "log.md")
    assert written.returncode == 0, written.stdout + written.stderr
    assert (recorded.root / "charts" / "cdf.svg").read_bytes().startswith(b"<?xml")
    assert "![Cumulative distribution of TTFT and TPOT per request" in log.read_text()
    assert recorded.run("sync", "--check", "log.md").returncode == 0
    report = recorded.run("report", "-o", "report.html")
    assert report.returncode == 0, report.stderr
    assert 'alt="Cumulative distribution of TTFT and TPOT per request' in (recorded.root / "report.html").read_text()


def test_a_large_sample_is_drawn_through_evenly_spaced_quantiles() -> None:
    values = [float(v) for v in range(10_000)]
    steps = cdf_steps(values, limit=400)
    assert len(steps) == 400 and steps[-1] == (9999.0, 1.0) and steps[199] == (4999.0, 0.5)
    assert cdf_steps([3.0, 5.0]) == ((3.0, 0.5), (5.0, 1.0))


def test_a_project_without_kept_requests_has_no_distribution_in_its_report(project: Project) -> None:
    assert project.run("record", "baseline", "--metric", "output_tok_s=92.6,92.4,92.9").returncode == 0
    assert project.run("report", "-o", "r.html").returncode == 0
    assert "Cumulative distribution" not in (project.root / "r.html").read_text()
    config = load_config(project.root / "benchdoc.toml")
    with Ledger.open(project.ledger_url) as ledger:
        results = build_results(config, ledger)
        with pytest.raises(UsageError, match="no per-request records for Baseline"):
            chart_data("latency-cdf", results)


def test_kept_requests_without_a_latency_to_draw_are_named_as_such(tmp_path: Path) -> None:
    """One-token outputs have no TPOT: the experiment is named for it, not as one without records."""
    config = parse_config(STORY_CONFIG, tmp_path / "benchdoc.toml")

    def kept(tokens: int) -> list[RequestRow]:
        return [RequestRow(0, i, True, None, 20.0 + i, 40.0 + 3 * i, tokens, {}) for i in range(5)]

    with Ledger.open(f"sqlite:///{tmp_path / 'l.db'}") as ledger:
        ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 90.0)], requests=kept(8)))
        ledger.record_run(NewRun("eagle3-cuda13", samples=[Sample("output_tok_s", 95.0)], requests=kept(1)))
        results = build_results(config, ledger)
        both = chart_data("latency-cdf", results, None, ["baseline", "eagle3-cuda13"])
        tpot = chart_data("latency-cdf", results, "tpot_ms", ["baseline", "eagle3-cuda13"])
        with pytest.raises(UsageError, match="no kept request of EAGLE-3 2-step \\(CUDA 13 \\+ fusion\\) has a TPOT"):
            chart_data("latency-cdf", results, "TPOT", ["eagle3-cuda13"])
    assert isinstance(both, LatencyCdfChart) and isinstance(tpot, LatencyCdfChart)
    assert [s.experiment for s in both.series] == ["baseline", "eagle3-cuda13"]
    assert "tpot_ms" not in both.series[1].steps and both.series[0].steps["tpot_ms"][-1] == (4.0, 1.0)  # (40 + 12 - 24) / 7
    assert [s.experiment for s in tpot.series] == ["baseline"] and tpot.without_records == ()
    assert "Kept requests, none with a TPOT to draw (not drawn): EAGLE-3 2-step (CUDA 13 + fusion)." in tpot.caption


def test_a_distribution_of_different_servers_says_so_on_each_curve(tmp_path: Path) -> None:
    """A llama.cpp server's requests and the simulator's on one axis: each curve names its
    server and the caption says the axis mixes them; one server alone is not remarked on."""
    from benchdoc.ledger import RunMetadata

    config = parse_config(STORY_CONFIG, tmp_path / "benchdoc.toml")
    rows = [RequestRow(0, i, True, None, 20.0 + i, 40.0 + 3 * i, 8, {}) for i in range(5)]
    llama = RunMetadata(server=ServedBy(url="http://127.0.0.1:8080/v1", owned_by=("llamacpp",), model="qwen2-0.5b"))
    with Ledger.open(f"sqlite:///{tmp_path / 'l.db'}") as ledger:
        ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 90.0)], requests=rows, metadata=llama))
        ledger.record_run(NewRun("eagle3-cuda13", samples=[Sample("output_tok_s", 95.0)], requests=rows,
                                 metadata=RunMetadata(simulator=True)))
        results = build_results(config, ledger)
        mixed = chart_data("latency-cdf", results, None, ["baseline", "eagle3-cuda13"])
        alone = chart_data("latency-cdf", results, None, ["baseline"])
    assert isinstance(mixed, LatencyCdfChart) and isinstance(alone, LatencyCdfChart)
    assert [s.label for s in mixed.series] == ["Baseline (no spec) (llamacpp qwen2-0.5b)",
                                               "EAGLE-3 2-step (CUDA 13 + fusion) (simulator)"]
    assert "Different servers on one axis (llamacpp qwen2-0.5b, simulator)" in mixed.caption
    assert [s.label for s in alone.series] == ["Baseline (no spec)"] and "Different servers" not in alone.caption
