"""`benchdoc plot`: the real command writes the same chart bytes the library draws."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Project
from tests.plots.story import record_story

from benchdoc.config import load_config
from benchdoc.ledger.store import Ledger
from benchdoc.plots import bar_chart
from benchdoc.results import build_results


@pytest.fixture
def story(project: Project) -> Project:
    (project.root / ".benchdoc").mkdir()
    with Ledger.open(project.ledger_url) as ledger:
        record_story(ledger)
    return project


def test_bar_chart_to_svg_matches_the_library(story: Project) -> None:
    res = story.run("plot", "baseline", "eagle3-*", "nccl-*", "-o", "throughput.svg")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("wrote throughput.svg (") and res.stdout.rstrip().endswith("tok/s by experiment")
    written = (story.root / "throughput.svg").read_bytes()
    config = load_config(story.root / "benchdoc.toml")
    with Ledger.open(story.ledger_url) as ledger:
        expected = bar_chart(build_results(config, ledger), None, ["baseline", "eagle3-*", "nccl-*"])
    assert written == expected
    assert b"Failed: CUDA graph incompatible" in written and b"Untested" in written


def test_history_png_and_before_after_to_stdout(story: Project) -> None:
    res = story.run("plot", "--kind", "history", "--metric", "output_tok_s", "baseline", "-o", "history.png")
    assert res.returncode == 0, res.stderr
    assert (story.root / "history.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    res = story.run("plot", "--kind", "before-after", "-o", "-")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("<?xml") and "+77.7%" in res.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["basline", "-o", "c.svg"], "unknown experiment 'basline' (did you mean 'baseline'?)"),
        (["--kind", "history", "baseline", "eagle3", "-o", "c.svg"], "exactly one experiment"),
        (["-o", "c.jpg"], "cannot tell the chart format from 'c.jpg'"),
        (["-o", "missing/c.svg"], "no such folder missing"),
    ],
)
def test_bad_requests_exit_2_with_one_line(story: Project, argv: list[str], message: str) -> None:
    res = story.run("plot", *argv)
    assert res.returncode == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("benchdoc: error: ") and message in line
    assert "Traceback" not in res.stderr
    assert not list(Path(story.root).glob("c.*"))
