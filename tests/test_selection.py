"""selection.py: one matcher for experiment names, aliases and globs, and one metric lookup."""

from __future__ import annotations

import pytest

from benchdoc.config import MetricConfig
from benchdoc.errors import UsageError
from benchdoc.naming import SelectionError, experiment_name, is_glob, select
from benchdoc.selection import find_metric

KNOWN = {
    "baseline": (),
    "eagle3": ("EAGLE-3",),
    "eagle3-cuda13": (),
    "nccl-tree": ("tree",),
    "imported-only": (),
}
METRICS = {
    "output_tok_s": MetricConfig("output_tok_s", "tok/s", unit="tok/s"),
    "ttft_ms_p50": MetricConfig("ttft_ms_p50", "TTFT p50", unit="ms", direction="lower"),
}


def test_names_aliases_and_globs_in_the_order_given_each_once() -> None:
    assert select(["nccl-*", "eagle-3", "baseline", "eagle3*"], KNOWN) == ["nccl-tree", "eagle3", "baseline", "eagle3-cuda13"]
    assert select(["TREE"], KNOWN) == ["nccl-tree"]  # aliases in any case
    assert select(["*"], KNOWN) == list(KNOWN)  # a glob's matches in the catalogue's order
    assert select(["imported-*"], KNOWN) == ["imported-only"]
    assert select([], KNOWN) == []


def test_a_name_or_glob_naming_nothing_is_an_error_not_dropped() -> None:
    with pytest.raises(SelectionError, match=r"unknown experiment 'basline' \(did you mean 'baseline'\?\)"):
        select(["baseline", "basline"], KNOWN)
    with pytest.raises(SelectionError, match=r"no experiment matches 'vllm-\*'"):
        select(["vllm-*"], KNOWN)
    with pytest.raises(UsageError):  # exit code 2, like any usage error
        experiment_name("Baseline", KNOWN)  # names are exact; only aliases ignore case


def test_glob_characters() -> None:
    assert [is_glob(p) for p in ("a*", "a?", "a[12]", "a-b")] == [True, True, True, False]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("output_tok_s", "output_tok_s"),
        ("tok/s", "output_tok_s"),
        ("TTFT p50", "ttft_ms_p50"),
        ("ttft P50", "ttft_ms_p50"),
        (None, "ttft_ms_p50"),  # the primary metric
    ],
)
def test_a_metric_by_name_or_label(name: str | None, expected: str) -> None:
    assert find_metric(name, METRICS, primary="ttft_ms_p50").name == expected


def test_a_measured_metric_that_is_not_declared_gets_neutral_words() -> None:
    spec = find_metric("error_rate", METRICS, measured=["error_rate"])
    assert (spec.name, spec.label, spec.better_word, spec.worse_word) == ("error_rate", "error_rate", "better", "worse")


def test_metric_errors() -> None:
    with pytest.raises(SelectionError, match=r"unknown metric 'tok' \(did you mean 'tok/s'\?\)"):
        find_metric("tok", METRICS)
    with pytest.raises(SelectionError, match="name the metric"):
        find_metric(None, METRICS)
    twins = {"a": MetricConfig("a", "tok/s"), "b": MetricConfig("b", "tok/s")}
    with pytest.raises(SelectionError, match="metric label 'tok/s' is ambiguous: a, b"):
        find_metric("tok/s", twins)
    assert find_metric(None, {}, measured=["only"]).name == "only"
