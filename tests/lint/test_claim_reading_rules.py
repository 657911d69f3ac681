"""benchdoc.lint.claim_reading rule by rule: each reading rule with a sentence it decides and one it leaves.

A project of its own, recorded in a real SQLite ledger: eager at 1000.0 tok/s, TTFT p95 300 ms,
goodput 3.00 req/s, peak memory 30.0 GB under a 4 req/s open loop with a 500 ms TTFT SLO;
CUDA graphs 1200.0 / 270 / 3.30 / 32.0; torch.compile 1500.0 / 360 / 3.60 / 36.0; chunked
prefill 1050.0 / 240 / 3.15 / 30.0; prefix caching ran (1100.0 tok/s) and then failed.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.claim_reading import ClaimReader, no_result_state
from benchdoc.lint.facts import ExperimentFacts, MetricFacts, MetricInfo, RunStamp, RunValue
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE
from benchdoc.lint.knowledge import Knowledge
from benchdoc.results import build_results
from benchdoc.results.status import Status

CONFIG = """\
[metrics.output_tok_s]
label = "Output throughput"
unit = "tok/s"
direction = "higher"
digits = 1
primary = true

[metrics.ttft_ms_p95]
label = "TTFT p95"
unit = "ms"
direction = "lower"
digits = 0

[metrics.goodput_req_s]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 2

[metrics.peak_mem_gb]
label = "Peak memory"
unit = "GB"
direction = "lower"
digits = 1

[workloads.open-4]
rate = 4.0
requests = 400
slo = "ttft_ms:500"

[experiments.eager]
label = "Eager mode"
aliases = ["eager"]
role = "reference"
workload = "open-4"

[experiments.graphs]
label = "CUDA graphs"
compare_to = "eager"
workload = "open-4"

[experiments.compiled]
label = "torch.compile"
compare_to = "eager"
workload = "open-4"

[experiments.chunked]
label = "Chunked prefill"
compare_to = "eager"
workload = "open-4"

[experiments.prefix]
label = "Prefix caching"
compare_to = "eager"
workload = "open-4"
"""

T0 = datetime(2026, 10, 1, 9, tzinfo=timezone.utc)
RUNS = {  # tok/s, TTFT p95 ms, goodput req/s, peak memory GB
    "eager": (1000.0, 300.0, 3.00, 30.0),
    "graphs": (1200.0, 270.0, 3.30, 32.0),
    "compiled": (1500.0, 360.0, 3.60, 36.0),
    "chunked": (1050.0, 240.0, 3.15, 30.0),
    "prefix": (1100.0, 280.0, 3.20, 31.0),
}
METRICS = ("output_tok_s", "ttft_ms_p95", "goodput_req_s", "peak_mem_gb")


def spread(centre: float, step: float) -> list[float]:
    return [centre, centre - 2 * step, centre + 2 * step, centre - step, centre + step]


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("rules")
    config = parse_config(CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for day, (name, figures) in enumerate(RUNS.items()):
            at = T0 + timedelta(days=day)
            samples = [Sample(metric, value, i, i) for metric, centre in zip(METRICS, figures)
                       for i, value in enumerate(spread(centre, centre / 1000))]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a"))
        at = T0 + timedelta(days=9)
        ledger.record_run(NewRun(experiment="prefix", outcome="failed", started_at=at,
                                 finished_at=at + timedelta(minutes=1), failure_reason="OOM at batch 64"))
        return facts_from_results(build_results(config, ledger))


def found(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint_text(facts, text, "log.md")]


def only(facts: LintFacts, text: str) -> tuple[str, str, str]:
    """(kind, quoted text, fix) of the one finding a text gets."""
    (finding,) = lint_text(facts, text, "log.md")
    return finding.kind, finding.text, finding.fix


UNSURE = "no fix proposed: which metric"


# -- a number in a metric's unit that sets the load --------------------------------------------

LOAD_WORDS_BEFORE = ("offered", "an offered", "arrival rate", "a request rate of", "a load of", "sending",
                     "at a rate of", "a Poisson rate of", "rate=", "@")


@settings(max_examples=40, deadline=None)
@given(word=st.sampled_from(LOAD_WORDS_BEFORE), rate=st.integers(5, 60), first=st.booleans())
def test_a_load_word_before_a_rate_makes_it_a_setting(facts: LintFacts, word: str, rate: int, first: bool) -> None:
    """'offered 6 req/s' is the load (not torch.compile's goodput), also as the text's first words;
    the same rate with no load word before it is read as a result, and is not torch.compile's."""
    setting = f"{word} {rate} req/s"
    head = setting[0].upper() + setting[1:] if first else f"Under {setting}"
    assert found(facts, f"{head}, torch.compile keeps 3.60 req/s of goodput.\n") == []
    assert found(facts, f"At {rate} req/s, torch.compile keeps 3.60 req/s of goodput.\n") == [
        (STALE_VALUE, f"{rate} req/s")]


def test_a_figure_equal_to_a_workload_setting_is_that_setting(facts: LintFacts) -> None:
    """4 req/s is open-4's rate and 500 ms its SLO: not results, whatever words surround them;
    a setting is matched to six places (a figure written to seven is read at six)."""
    for sentence in ("torch.compile saturates at 4 req/s.", "torch.compile saturates at 4.0000004 req/s.",
                     "torch.compile keeps TTFT p95 under 500 ms."):
        assert found(facts, sentence + "\n") == [], sentence
    assert found(facts, "torch.compile saturates at 4.000004 req/s.\n") == [(STALE_VALUE, "4.000004 req/s")]
    assert found(facts, "torch.compile saturates at 5 req/s.\n") == [(STALE_VALUE, "5 req/s")]


def test_a_unit_no_workload_setting_has_is_always_a_result(facts: LintFacts) -> None:
    """No workload setting is in GB: a figure in GB is a result, read against the ledger."""
    assert found(facts, "torch.compile uses 36.0 GB at peak.\n") == []
    kind, text, fix = only(facts, "torch.compile uses 40.0 GB at peak.\n")
    assert (kind, text) == (STALE_VALUE, "40.0 GB") and "compiled.peak_mem_gb" in fix


# -- what the ledger says of an experiment with no result ---------------------------------------


def test_an_experiment_that_failed_after_earlier_successes_says_so(facts: LintFacts) -> None:
    prefix = facts.experiments["prefix"]
    assert prefix.status is Status.FAILED
    state = no_result_state(prefix)
    assert state.startswith("Prefix caching now fails: OOM at batch 64 (run #")
    assert state.endswith(", after earlier successful runs)")
    (finding,) = lint_text(facts, "Prefix caching is 10% faster than eager.\n", "log.md")
    assert finding.kind == STALE_CLAIM and finding.ledger == state and finding.fix.startswith("no fix proposed")


def _experiment(status: Status, reason: str | None = None, runs: int = 1, history: bool = False,
                unreliable: str | None = None) -> ExperimentFacts:
    stamps = tuple(RunStamp(7 - i, f"2026-10-1{i}T09:00:00+00:00", "failed") for i in range(runs))
    past = (RunValue(3, "2026-10-02", 1100.0, ()),) if history else ()
    return ExperimentFacts(
        name="x", label="X", aliases=(), status=status, reason=reason, is_reference=False, compare_to="eager",
        supersedes=None, superseded_by=None, metrics={"output_tok_s": MetricFacts(current=None, history=past)},
        runs=stamps, measured_on="2026-10-02" if unreliable else None, pooled_runs=(3,) if unreliable else (),
        unreliable=unreliable,
    )


@pytest.mark.parametrize(
    ("experiment", "state"),
    [
        (_experiment(Status.FAILED, "OOM"), "X now fails: OOM (run #7 of 2026-10-10)"),
        (_experiment(Status.FAILED), "X now fails (run #7 of 2026-10-10)"),  # no reason recorded
        (_experiment(Status.FAILED, "OOM", runs=0), "X now fails: OOM"),  # no run to cite
        (_experiment(Status.FAILED, "OOM", history=True), "X now fails: OOM (run #7 of 2026-10-10, after earlier successful runs)"),
        (_experiment(Status.FAILED, "OOM", runs=2, history=True),
         "X now fails: OOM (run #7 of 2026-10-10, after earlier successful runs)"),
        (_experiment(Status.UNTESTED, runs=0), "X has no counted run (never run, or every run retracted)"),
        (_experiment(Status.UNTESTED, "retracted", runs=1), "X has no counted run (never run, or every run retracted)"),
        (_experiment(Status.WORKS, "a note", unreliable="20.0% of its requests failed"),
         "X's result is unreliable: 20.0% of its requests failed (run #3 of 2026-10-02)"),
        (_experiment(Status.FAILED, "OOM", unreliable="20.0% of its requests failed"), "X now fails: OOM (run #7 of 2026-10-10)"),
    ],
)
def test_what_the_ledger_says_instead_of_a_result(experiment: ExperimentFacts, state: str) -> None:
    """A failure's reason only for a failure; the earlier successes only when it has some; no run, no citation."""
    assert no_result_state(experiment) == state


# -- which metric a claim is about ---------------------------------------------------------------


def test_a_metric_named_right_after_a_claim_is_its_own(facts: LintFacts) -> None:
    """'1.5x slower than eager on TTFT p95 and 1.5x faster on tok/s': the first claim is about TTFT
    for certain (reported with its fix), though the clause names throughput after the next claim."""
    text = "torch.compile is {} slower than eager on TTFT p95 and 1.5x faster on tok/s.\n"
    assert found(facts, text.format("1.2x")) == []
    kind, quoted, fix = only(facts, text.format("1.5x"))
    assert (kind, quoted) == (STALE_CLAIM, "1.5x slower than eager") and fix.startswith('write "1.20x slower than Eager mode"')


def test_a_metric_the_clause_names_once_is_every_claim_s(facts: LintFacts) -> None:
    """'... and 33% slower than CUDA graphs on TTFT p95': the clause's one metric is the first claim's too."""
    text = "torch.compile is {} slower than eager and 33% slower than CUDA graphs on TTFT p95.\n"
    assert found(facts, text.format("20%")) == []
    kind, quoted, fix = only(facts, text.format("40%"))
    assert (kind, quoted) == (STALE_CLAIM, "40% slower than eager") and fix.startswith('write "1.20x slower than Eager mode"')


def test_two_metrics_the_clause_names_make_two_candidates(facts: LintFacts) -> None:
    """'... on throughput and goodput': the first claim may be of either; true of one (goodput +20%),
    it stands; false of both, it is reported with no fix."""
    text = "torch.compile comes out {} ahead of eager and 25% ahead of CUDA graphs on throughput and goodput.\n"
    assert found(facts, text.format("20%")) == []
    (stale,) = lint_text(facts, text.format("90%"), "log.md")
    assert stale.fix.startswith(UNSURE) and "on Output throughput" in stale.message and "on Goodput" in stale.message


def test_two_metrics_joined_before_a_speed_word_are_unsure_even_when_one_is_a_speed(facts: LintFacts) -> None:
    """'throughput and peak memory are 90% faster': a speed word is about the speed (throughput), but
    the writer joined two metrics: reported without a fix."""
    (stale,) = lint_text(facts, "torch.compile: throughput and peak memory are 90% faster than eager.\n", "log.md")
    assert stale.kind == STALE_CLAIM and stale.fix.startswith(UNSURE), stale.fix
    assert "+50.0%" in stale.message


def test_a_metric_named_inside_a_claim_outranks_one_named_before_it(facts: LintFacts) -> None:
    """'With goodput up, CUDA graphs/eager TTFT p95 ratio: 0.9': the ratio names TTFT itself (0.90),
    though goodput (1.10) is named before it."""
    assert found(facts, "With goodput up, CUDA graphs/eager TTFT p95 ratio: 0.9\n") == []
    assert [kind for kind, _ in found(facts, "With goodput up, CUDA graphs/eager TTFT p95 ratio: 1.1\n")] == [STALE_CLAIM]


def test_of_two_metrics_named_before_a_claim_the_last_one_unless_joined(facts: LintFacts) -> None:
    """'1500.0 tok/s, with TTFT p95 40% higher': TTFT, the last named, for certain (the fix is
    proposed); 'goodput and TTFT p95 are 40% higher': either, reported without a fix."""
    assert found(facts, "torch.compile runs at 1500.0 tok/s, with TTFT p95 20% higher than eager's.\n") == []
    kind, quoted, fix = only(facts, "torch.compile runs at 1500.0 tok/s, with TTFT p95 40% higher than eager's.\n")
    assert (kind, quoted) == (STALE_CLAIM, "40% higher than eager") and fix.startswith('write "1.20x slower than Eager mode"')
    (joined,) = lint_text(facts, "torch.compile: goodput and TTFT p95 are 40% higher than eager's.\n", "log.md")
    assert joined.fix.startswith(UNSURE) and "on Goodput" in joined.message and "on TTFT p95" in joined.message


def test_two_metrics_the_clause_names_before_a_speed_word_stay_unsure(facts: LintFacts) -> None:
    """'90% faster ... on throughput and peak memory': the speed (throughput) is the only candidate
    left, but the clause named two: reported without a fix."""
    text = "torch.compile comes out 90% faster than eager and 25% faster than CUDA graphs on throughput and peak memory.\n"
    (stale,) = lint_text(facts, text, "log.md")
    assert stale.fix.startswith(UNSURE) and "+50.0%" in stale.message


def test_a_unit_names_a_metric_only_when_it_is_that_metric_s_alone_and_not_generic(facts: LintFacts) -> None:
    """tok/s is output throughput's alone and names it; ms and GB are generic units (each is one
    metric's here, yet 'ms' names no metric), so a figure in them names nothing."""
    reader = ClaimReader(Knowledge(facts))
    def named(text: str) -> list[str]:
        return list(dict.fromkeys(m.name for _, m in reader.metrics_in(text)))

    assert named("at 1,200 tok/s") == ["output_tok_s"] and named("at 3.30 req/s") == ["goodput_req_s"]
    assert named("270 ms and 36.0 GB") == []
    assert named("TTFT p95 of 270 ms, peak memory 36.0 GB") == ["ttft_ms_p95", "peak_mem_gb"]


def test_a_lone_percentile_names_the_metric_of_the_stem_named_before_it() -> None:
    """'TTFT p50 151 ms, p99 420 ms': p99 is TTFT p99's; after 'goodput' alone it is nobody's."""
    metrics = {
        "ttft_ms_p50": MetricInfo("ttft_ms_p50", "TTFT p50", "ms", "lower", 0, "faster", "slower"),
        "ttft_ms_p99": MetricInfo("ttft_ms_p99", "TTFT p99", "ms", "lower", 0, "faster", "slower"),
        "goodput_req_s": MetricInfo("goodput_req_s", "Goodput", "req/s", "higher", 2, "higher", "lower"),
    }
    reader = ClaimReader(Knowledge(LintFacts({}, metrics, "goodput_req_s", ())))

    def named(text: str) -> list[str]:
        return list(dict.fromkeys(m.name for _, m in reader.metrics_in(text)))

    assert named("TTFT p99 420 ms") == ["ttft_ms_p99"] and named("TTFT p50 151 ms") == ["ttft_ms_p50"]
    for text in ("TTFT p50 151 ms, p99 420 ms", "TTFT p50 and p99", "TTFT p50 (p99 420 ms)"):
        assert named(text) == ["ttft_ms_p50", "ttft_ms_p99"], text
    assert named("goodput 3.30 req/s, p99 420 ms") == ["goodput_req_s"]


def test_an_aside_in_an_earlier_clause_does_not_name_a_later_claim_s_metric(facts: LintFacts) -> None:
    """'TTFT p95 (first token) falls ..., and torch.compile is +50% vs eager': the aside belongs to the
    first clause; the second names no metric: throughput, the primary one (+50%), not TTFT (+20%)."""
    text = "TTFT p95 (first token) falls with CUDA graphs, and torch.compile is {} vs eager.\n"
    assert found(facts, text.format("+50%")) == []
    kind, quoted, fix = only(facts, text.format("+20%"))
    assert (kind, quoted) == (STALE_CLAIM, "+20% vs eager") and fix.startswith('write "50.0% faster than Eager mode"')


def test_a_metric_of_the_clause_before_is_not_a_later_clause_s(facts: LintFacts) -> None:
    """'Goodput holds ..., while its speed is +50% vs eager': no colon or parenthesis ties the change to
    goodput (+20%): it is throughput's (+50%)."""
    text = "Goodput holds at 3.60 req/s for torch.compile, while its speed is {} vs eager.\n"
    assert found(facts, text.format("+50%")) == []
    kind, quoted, fix = only(facts, text.format("+20%"))
    assert (kind, quoted) == (STALE_CLAIM, "+20% vs eager") and fix.startswith('write "50.0% faster than Eager mode"')


@pytest.mark.parametrize("label", ["TTFT p95 (ms)", "TTFT p95 [ms]", "TTFT p95 (ms, lower is better)", "(our default) TTFT p95"])
def test_a_label_keeps_its_metric_with_a_unit_in_brackets_before_the_colon(facts: LintFacts, label: str) -> None:
    """'CUDA graphs TTFT p95 (ms): -10% vs eager' is about TTFT (-10%, true), not throughput (+20%); an
    aside earlier in the label does not hide it."""
    assert found(facts, f"CUDA graphs {label}: -10% vs eager.\n") == []
    kind, quoted, fix = only(facts, f"CUDA graphs {label}: -30% vs eager.\n")
    assert (kind, quoted) == (STALE_CLAIM, "-30% vs eager") and fix.startswith('write "1.11x faster than Eager mode"')


def test_a_vs_prefix_is_the_target_of_a_verb_s_change_that_names_none(facts: LintFacts) -> None:
    """'vs CUDA graphs: torch.compile improves throughput by 25%' compares with CUDA graphs (+25%), not
    with torch.compile's own reference (eager, +50%); a target between verb and number still wins."""
    assert found(facts, "vs CUDA graphs: torch.compile improves throughput by 25%.\n") == []
    (stale,) = lint_text(facts, "vs CUDA graphs: torch.compile improves throughput by 50%.\n", "log.md")
    assert stale.kind == STALE_CLAIM and stale.fix.startswith('write "25.0% faster than CUDA graphs"')
    assert found(facts, "vs eager: torch.compile beats CUDA graphs by 25%.\n") == []


def test_a_parenthesis_right_after_a_metric_s_name_annotates_it(facts: LintFacts) -> None:
    """'goodput(+30%)', with no space: the change is goodput's for certain, reported with the fix."""
    assert found(facts, "CUDA graphs: goodput(+10%).\n") == []
    kind, quoted, fix = only(facts, "CUDA graphs: goodput(+30%).\n")
    assert (kind, quoted) == (STALE_CLAIM, "+30%") and fix.startswith('write "10.0% faster than Eager mode"')


def test_the_last_metric_named_further_back_is_the_probable_one(facts: LintFacts) -> None:
    """'goodput up, ttft better: 270ms (0.9x eager)': TTFT, named last, is the probable metric (0.9x
    holds of it), not goodput (1.1x)."""
    assert found(facts, "CUDA graphs: goodput up, ttft better: 270ms (0.9x eager).\n") == []
    (stale,) = lint_text(facts, "CUDA graphs: goodput up, ttft better: 270ms (0.5x eager).\n", "log.md")
    assert stale.fix.startswith(UNSURE) and "-10.0%" in stale.message


def test_a_column_header_names_the_metric_of_its_cells(facts: LintFacts) -> None:
    """A 'TTFT p95 vs eager' column holds TTFT changes: -10% holds for CUDA graphs, +60% is stale for
    torch.compile (+20%), reported with the fix as the header names the metric for certain."""
    table = "| config | TTFT p95 vs eager |\n|---|---|\n| CUDA graphs | -10% vs eager |\n| torch.compile | +60% vs eager |\n"
    (stale,) = lint_text(facts, table, "log.md")
    assert (stale.line, stale.kind, stale.text) == (4, STALE_CLAIM, "+60% vs eager")
    assert stale.fix.startswith('write "1.20x slower than Eager mode"')


def test_a_figure_in_one_metric_s_unit_names_the_metric_of_a_claim_that_names_none(facts: LintFacts) -> None:
    """'torch.compile's 360 ms is 40% higher than eager's': no metric named, but a figure in ms, TTFT
    p95's unit alone here: the claim is TTFT p95's (+20%) for certain, reported with the fix."""
    assert found(facts, "torch.compile's 360 ms is 20% higher than eager's.\n") == []
    kind, quoted, fix = only(facts, "torch.compile's 360 ms is 40% higher than eager's.\n")
    assert (kind, quoted) == (STALE_CLAIM, "40% higher than eager") and fix.startswith('write "1.20x slower than Eager mode"')


def test_a_change_naming_no_metric_gets_no_subject_from_its_heading(facts: LintFacts) -> None:
    """Under '## Chunked prefill', 'rate=4: +40% tok/s' is read as chunked prefill's (unsure which
    experiment); 'rate=4: +40%', naming neither metric nor experiment, is not read."""
    assert found(facts, "## Chunked prefill\n\nrate=4: +40%.\n") == []
    (stale,) = lint_text(facts, "## Chunked prefill\n\nrate=4: +40% tok/s.\n", "log.md")
    assert stale.kind == STALE_CLAIM and stale.fix.startswith("no fix proposed: which experiment")


def test_an_earlier_claim_s_words_end_at_its_comma_even_without_a_space(facts: LintFacts) -> None:
    """'1.5x eager tok/s,TTFT p95 1.4x eager': the second claim is TTFT's for certain."""
    assert found(facts, "- torch.compile: 1.5x eager tok/s,TTFT p95 1.2x eager\n") == []
    kind, quoted, fix = only(facts, "- torch.compile: 1.5x eager tok/s,TTFT p95 1.4x eager\n")
    assert (kind, quoted) == (STALE_CLAIM, "1.4x eager") and fix.startswith('write "1.20x slower than Eager mode"')


# -- slash ratios ------------------------------------------------------------------------------------


def test_a_whole_number_ratio_is_held_to_a_whole_number(facts: LintFacts) -> None:
    """CUDA graphs/eager is 1.20: '= 1' rounds it, '= 2' does not; '= 1.0' is held to a tenth."""
    assert found(facts, "CUDA graphs/eager = 1\n") == []
    assert found(facts, "CUDA graphs/eager = 2\n") == [(STALE_CLAIM, "CUDA graphs/eager = 2")]
    assert found(facts, "CUDA graphs/eager = 1.0\n") == [(STALE_CLAIM, "CUDA graphs/eager = 1.0")]


@pytest.mark.parametrize("approx", ["≈ 1.6", "~ 1.6", "is about 1.6", "= about 1.6", ": ~1.6"])
def test_a_hedged_slash_ratio_is_approximate(facts: LintFacts, approx: str) -> None:
    """torch.compile/eager is 1.50: within a tenth of it only with a hedge."""
    assert found(facts, f"torch.compile/eager {approx}\n") == []
    exact = {"≈ 1.6": "= 1.6", "~ 1.6": "= 1.6", "is about 1.6": "is 1.6", "= about 1.6": "= 1.6", ": ~1.6": ": 1.6"}[approx]
    assert [kind for kind, _ in found(facts, f"torch.compile/eager {exact}\n")] == [STALE_CLAIM], exact
