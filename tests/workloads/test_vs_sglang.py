"""The SGLang comparison's arithmetic and its way into the ledger (benchmarks/vs_sglang.py,
benchmarks/record.py): ratios within a repeat, their median and range, the routing of
each cell's figures to its experiment. SGLang itself is never needed here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(autouse=True)
def _benchmarks_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))


def test_ratios_are_taken_within_a_repeat_and_kept_with_their_range() -> None:
    import vs_sglang
    from vs_sglang import Outcome, Sample

    samples = []
    # benchdoc 3x, 2x, 4x SGLang in three repeats of one cell; the bare loop at benchdoc's figure.
    for repeat, (ours, theirs) in enumerate([(300.0, 100.0), (200.0, 100.0), (400.0, 100.0)]):
        samples.append(Sample("benchdoc", "paced", 64, repeat, int(ours), 1.0, 3.0, 0, 1.5, repeat == 2, "v", 1.0 + repeat))
        samples.append(Sample("sglang", "paced", 64, repeat, int(theirs), 1.0, 3.0, 0, 9.0, None, None, 0.5))
        samples.append(Sample("bare", "paced", 64, repeat, int(ours), 1.0, 3.0, 0))
    figures = vs_sglang.figures(Outcome(samples=samples))
    tail = "_vs_sglang_paced_64"
    assert figures["over_sglang" + tail] == 3.0
    assert (figures["over_sglang_low" + tail], figures["over_sglang_high" + tail]) == (2.0, 4.0)
    assert figures["chunks_per_cpu_s" + tail] == 300.0 and figures["sglang_chunks_per_cpu_s" + tail] == 100.0
    assert figures["over_bare" + tail] == 1.0
    assert figures["ttft_error_ms" + tail] == 1.5 and figures["sglang_ttft_error_ms" + tail] == 9.0
    assert figures["client_bound_runs" + tail] == 1.0 and figures["load_avg_1m" + tail] == 3.0
    assert "over_sglang_vs_sglang_zero_1" not in figures  # a cell not measured gives no ratio
    assert "paced 64" in vs_sglang.table(Outcome(samples=samples))


def test_each_cells_figures_go_to_its_own_experiment() -> None:
    import record

    default, suffixes = record.BENCHMARKS["client_capacity.py"]
    split = record.split_figures({"over_sglang_vs_sglang_paced_64": 2.5, "chunks_per_cpu_s_vs_sglang_zero_256": 9.0,
                                  "lean_over_bare_paced_64": 1.0, "sglang_version": "0.5.23"},  # type: ignore[dict-item]
                                 default, suffixes)
    assert split == {"client-vs-sglang-paced-64": {"over_sglang": 2.5},
                     "client-vs-sglang-zero-256": {"chunks_per_cpu_s": 9.0},
                     "client-paced-64": {"lean_over_bare": 1.0}}


def test_the_ledger_records_no_path_of_this_machine() -> None:
    import argparse

    import record

    given, shown = record._extra_arguments(argparse.Namespace(sglang_python="/somewhere/venv/bin/python", repeats=5))
    assert given == ["--sglang-python", "/somewhere/venv/bin/python", "--repeats", "5"]
    assert shown == ["--sglang-python", "SGLANG_PYTHON", "--repeats", "5"]
    assert sys.executable not in " ".join(shown)
