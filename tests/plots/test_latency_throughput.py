"""The latency-against-throughput chart over load sweeps, from a real ledger."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from tests.plots.story import T0, story_config

from benchdoc.errors import UsageError
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.plots import chart_data, render
from benchdoc.plots.latency_throughput import LatencyThroughputChart
from benchdoc.results import build_results

# rate -> (output tok/s, TTFT p50, TTFT p99, TPOT p50, TPOT p99)
BASELINE = {1: (100.0, 40.0, 55.0, 10.0, 11.0), 2: (200.0, 42.0, 60.0, 10.5, 12.0), 4: (390.0, 80.0, 200.0, 14.0, 20.0)}
EAGLE = {1: (110.0, 38.0, 50.0, 6.0, 7.0), 4: (430.0, 60.0, 150.0, 8.0, 11.0)}


def record_sweep(ledger: Ledger, experiment: str, levels: dict[int, tuple[float, ...]], minutes: int) -> None:
    names = ("output_tok_s", "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99")
    for offset, (rate, values) in enumerate(levels.items()):
        start = T0 + timedelta(minutes=minutes + offset)
        samples = [Sample(name, value, 0) for name, value in zip(names, values)]
        ledger.record_run(NewRun(experiment=f"{experiment}@rate={rate}", samples=samples, started_at=start,
                                 finished_at=start + timedelta(minutes=1), metadata=RunMetadata(simulator=True)))


@pytest.fixture
def results(tmp_path: Path):  # type: ignore[no-untyped-def]
    config = story_config(path=tmp_path / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{tmp_path}/l.db") as ledger:
        record_sweep(ledger, "baseline", BASELINE, 0)
        record_sweep(ledger, "eagle3", EAGLE, 10)
        return build_results(config, ledger)


def test_one_line_per_swept_experiment_ordered_by_throughput(results) -> None:  # type: ignore[no-untyped-def]
    chart = chart_data("latency-throughput", results, None, ["baseline", "EAGLE-3"])
    assert isinstance(chart, LatencyThroughputChart)
    assert [s.experiment for s in chart.series] == ["baseline", "eagle3"]
    baseline = chart.series[0]
    assert [p.level for p in baseline.points] == ["rate=1", "rate=2", "rate=4"]
    assert [p.throughput for p in baseline.points] == [100.0, 200.0, 390.0]
    assert baseline.points[2].latencies == {"ttft_ms_p50": 80.0, "ttft_ms_p99": 200.0, "tpot_ms_p50": 14.0,
                                            "tpot_ms_p99": 20.0}
    assert chart.series[1].label == "EAGLE-3 2-step"
    text = chart.describe()
    assert "Baseline (no spec) (rate=1: 100.0 tok/s, TTFT p50 40.0" in text and "Simulated numbers." in text


def test_the_level_experiments_carry_their_sweeps_labels(results) -> None:  # type: ignore[no-untyped-def]
    assert results["eagle3@rate=4"].label == "EAGLE-3 2-step @ 4 req/s"
    assert results["eagle3@rate=4"].compare_to == "baseline@rate=4"
    assert results["eagle3@rate=4"].comparisons  # compared with the baseline at the same rate


def test_all_sweeps_by_default_and_throughput_choice(results) -> None:  # type: ignore[no-untyped-def]
    chart = chart_data("latency-throughput", results)
    assert [s.experiment for s in chart.series] == ["baseline", "eagle3"]
    with pytest.raises(UsageError, match="puts a throughput on x"):
        chart_data("latency-throughput", results, "ttft_ms_p50")
    with pytest.raises(UsageError, match="'nccl-tree' has no recorded sweep levels"):
        chart_data("latency-throughput", results, None, ["nccl-tree"])


def test_drawn_as_svg_the_same_bytes_each_time(results) -> None:  # type: ignore[no-untyped-def]
    chart = chart_data("latency-throughput", results)
    first = render(chart, "svg")
    assert first == render(chart, "svg")
    svg = first.decode()
    assert "line-0-ttft_ms_p50" in svg and "line-1-tpot_ms_p99" in svg
    assert "Latency against throughput" in svg
    assert render(chart, "png").startswith(b"\x89PNG")


def test_the_report_draws_the_sweeps(results) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.report import build_report

    page = build_report(results, source="sqlite:///l.db")
    assert 'alt="Latency (ms, lower is better) against tok/s over load sweeps' in page


def test_a_chart_region_of_this_kind(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.docs.charts import render_chart_region

    content, files = render_chart_region(
        {"kind": "latency-throughput", "experiments": "baseline eagle3", "file": "charts/sweep.svg"},
        results, tmp_path / "log.md",
    )
    assert content.startswith("![Latency (ms, lower is better) against") and content.endswith("(charts/sweep.svg)")
    assert list(files) == [tmp_path / "charts" / "sweep.svg"]


def test_the_levels_follow_their_experiment_in_level_order(results) -> None:  # type: ignore[no-untyped-def]
    names = [r.name for r in results]
    # Recorded rate=1 first and rate=4 last: shown by level, right after the experiment swept.
    start = names.index("baseline")
    assert names[start:start + 4] == ["baseline", "baseline@rate=1", "baseline@rate=2", "baseline@rate=4"]
    assert names[names.index("eagle3") + 1:names.index("eagle3") + 3] == ["eagle3@rate=1", "eagle3@rate=4"]


def test_a_swept_experiment_with_measured_levels_is_not_untested(results) -> None:  # type: ignore[no-untyped-def]
    eagle = results["eagle3"]
    assert str(eagle.status) == "Measured"
    assert eagle.reason == "load sweep: 2 levels measured (rate=1 to 4)"
    assert eagle.levels == ("eagle3@rate=1", "eagle3@rate=4")
    assert results["eagle3@rate=4"].level_of == "eagle3" and eagle.level_of is None
    # The swept experiment and its levels stay together, the levels in numeric order.
    names = list(results.experiments)
    assert names[names.index("baseline") + 1:names.index("baseline") + 4] == [
        "baseline@rate=1", "baseline@rate=2", "baseline@rate=4"]


def test_a_sweep_whose_every_level_failed_is_failed(tmp_path: Path) -> None:
    config = story_config(path=tmp_path / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{tmp_path}/l.db") as ledger:
        for rate in (1, 2):
            ledger.record_run(NewRun(experiment=f"eagle3@rate={rate}", outcome="failed", started_at=T0,
                                     finished_at=T0, failure_reason="CUDA out of memory"))
        results = build_results(config, ledger)
    assert str(results["eagle3"].status) == "Failed"
    assert results["eagle3"].reason == "every level of the load sweep failed (eagle3@rate=1: CUDA out of memory)"


def test_bar_charts_leave_the_levels_out_unless_asked(results) -> None:  # type: ignore[no-untyped-def]
    bars = [bar.experiment for bar in chart_data("bar", results).bars]  # type: ignore[union-attr]
    assert not any("@" in name for name in bars) and "eagle3" not in bars
    with_levels = [bar.experiment for bar in chart_data("bar", results, levels=True).bars]  # type: ignore[union-attr]
    assert "eagle3@rate=4" in with_levels and "baseline@rate=2" in with_levels
    named = [bar.experiment for bar in chart_data("bar", results, None, ["eagle3@*"]).bars]  # type: ignore[union-attr]
    assert named == ["eagle3@rate=1", "eagle3@rate=4"]


def test_the_legend_sits_outside_both_panels(results) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.plots.draw import _draw_latency_throughput

    chart = chart_data("latency-throughput", results)
    assert isinstance(chart, LatencyThroughputChart)
    figure = _draw_latency_throughput(chart)
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)
    (legend,) = figure.legends
    box = legend.get_window_extent(renderer)
    for axes in figure.axes:
        assert not box.overlaps(axes.get_window_extent(renderer)), "the legend covers a panel's data"
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["Baseline (no spec)", "EAGLE-3 2-step", "p50", "p99"]
    assert legend.get_title().get_text() == "Latency against throughput"
    one = chart_data("latency-throughput", results, None, ["eagle3"])
    assert one.title == "Latency against throughput: EAGLE-3 2-step"


def test_a_missing_sweep_is_recorded_by_the_command_that_fits(tmp_path: Path) -> None:
    """An experiment with a server and a workload in benchdoc.toml is swept by `run`; one
    without is measured with `bench --record`."""
    extra = ('\n[servers.sim]\nargv = ["benchdoc", "sim", "--port", "{port}"]\n\n[workloads.load]\nrate = [1, 2]\n'
             'requests = 8\n\n[experiments.served]\nserver = "sim"\nworkload = "load"\n')
    config = story_config(extra, path=tmp_path / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{tmp_path}/l.db") as ledger:
        record_sweep(ledger, "baseline", BASELINE, 0)
        results = build_results(config, ledger)
    with pytest.raises(UsageError, match="run it with benchdoc run served, its workload's rate"):
        chart_data("latency-throughput", results, None, ["served"])
    with pytest.raises(UsageError, match="record one with benchdoc bench --url URL --rate 1,2,4 --record nccl-tree"):
        chart_data("latency-throughput", results, None, ["nccl-tree"])
