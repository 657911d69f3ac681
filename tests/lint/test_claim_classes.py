"""Classes of sentences the claim reader gets right in general, each true and stale in words of our own.

The project of tests/lint/test_claim_reading.py (eager 1000.0 tok/s, CUDA graphs 1200.0 and TTFT p95
270 ms, torch.compile 1500.0, piecewise graphs only failed, Inductor max-autotune never ran), with an
accuracy metric in % beside them (every experiment at 71.0%).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from tests.lint.test_claim_reading import CONFIG, RUNS, T0, spread

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT, Finding
from benchdoc.results import build_results

ACCURACY = """
[metrics.accuracy_pct]
label = "Task accuracy"
unit = "%"
direction = "higher"
digits = 1
"""


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("classes")
    config = parse_config(CONFIG.replace("[workloads.open-4]", ACCURACY + "\n[workloads.open-4]"), root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for day, (name, (tok_s, ttft, goodput)) in enumerate(RUNS.items()):
            at = T0 + timedelta(days=day)
            samples = [
                Sample(metric, value, i, i)
                for metric, values in (("output_tok_s", spread(tok_s, 1.0)), ("ttft_ms_p95", spread(ttft, 1.0)),
                                       ("goodput_req_s", spread(goodput, 0.01)), ("accuracy_pct", spread(71.0, 0.1)))
                for i, value in enumerate(values)
            ]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a"))
        at = T0 + timedelta(days=9)
        ledger.record_run(NewRun(experiment="piecewise", outcome="failed", started_at=at,
                                 finished_at=at + timedelta(minutes=1), failure_reason="graph capture: dynamic shape"))
        return facts_from_results(build_results(config, ledger))


def lint(facts: LintFacts, text: str) -> list[Finding]:
    return lint_text(facts, text + "\n", "log.md")


def kinds(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint(facts, text)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Is torch.compile worth it?",
        "Is CUDA graphs really 50% faster than eager?",
        "**Q: does torch.compile still beat eager by 90%?**",
        "torch.compile is 80% faster than eager according to the upstream blog.",
        "Inductor max-autotune is 30% faster than eager in the original paper; we have not run it.",
        "The authors report 2,400.0 tok/s for Inductor max-autotune.",
    ],
)
def test_a_question_or_someone_else_s_figure_claims_nothing(facts: LintFacts, sentence: str) -> None:
    assert kinds(facts, sentence) == []


def test_the_same_words_as_a_statement_of_ours_are_read(facts: LintFacts) -> None:
    assert kinds(facts, "CUDA graphs are 50% faster than eager.") == [(STALE_CLAIM, "50% faster than eager")]
    assert [f.kind for f in lint(facts, "Inductor max-autotune is 30% faster than eager.")] == [STALE_CLAIM]


def test_a_speed_word_is_about_a_speed_never_another_metric_of_its_clause(facts: LintFacts) -> None:
    assert kinds(facts, "torch.compile is 50% faster than eager with no accuracy loss.") == []
    (finding,) = lint(facts, "torch.compile is 90% faster than eager with no accuracy loss.")
    assert finding.kind == STALE_CLAIM and "+50.0%" in finding.message
    assert "benchdoc:value compiled show=verdict -->50.0% faster than Eager mode<" in finding.fix
    # Where the clause names a speed, that one: TTFT p95 is 20% above eager's, i.e. slower.
    assert kinds(facts, "torch.compile is 20% slower than eager on TTFT p95 with no accuracy loss.") == []


def test_a_label_before_a_colon_names_the_metric_of_the_figure_after_it(facts: LintFacts) -> None:
    assert kinds(facts, "- CUDA graphs TTFT p95: 270 ms") == []
    (finding,) = lint(facts, "- CUDA graphs TTFT p95: 310 ms")
    assert finding.kind == STALE_VALUE and "benchdoc:value graphs.ttft_ms_p95 -->270<" in finding.fix
    # A colon after several names leaves the owner open.
    assert kinds(facts, "CUDA graphs and torch.compile TTFT p95: 310 ms") == []


def test_the_head_of_a_list_line_owns_the_figure_right_after_it(facts: LintFacts) -> None:
    assert kinds(facts, "- torch.compile: 1.5k tok/s with CUDA graphs off the table") == []
    (stale,) = lint(facts, "- torch.compile: 1.9k tok/s, ahead of CUDA graphs")
    assert stale.kind == STALE_VALUE and "benchdoc:value compiled.output_tok_s -->1500.0<" in stale.fix
    (never,) = lint(facts, "- max-autotune: 1.6k tok/s with CUDA graphs")
    assert never.kind == STALE_VALUE and never.fix.startswith("no fix proposed")


def test_a_figure_before_a_comparison_is_its_subject_s(facts: LintFacts) -> None:
    assert kinds(facts, "torch.compile reaches 1,500.0 tok/s, 50% above eager.") == []
    (finding,) = lint(facts, "torch.compile reaches 1,900.0 tok/s, 50% above eager.")
    assert finding.kind == STALE_VALUE and "benchdoc:value compiled.output_tok_s -->1500.0<" in finding.fix


def test_a_figure_under_a_change_of_setup_the_ledger_does_not_name_is_left_alone(facts: LintFacts) -> None:
    for sentence in ("Without the fused kernels, torch.compile drops to 1,100.0 tok/s.",
                     "With prefix caching turned off torch.compile drops to 1,100.0 tok/s.",
                     "torch.compile w/o fused kernels: 1,100.0 tok/s."):
        assert kinds(facts, sentence) == [], sentence
    assert kinds(facts, "torch.compile drops to 1,100.0 tok/s.") == [(STALE_VALUE, "1,100.0 tok/s")]


def test_an_approximate_ratio_is_held_to_a_ratio_s_precision(facts: LintFacts) -> None:
    # torch.compile is 1.50x eager.
    for true in ("torch.compile ≈ 1.5x eager.", "torch.compile ≈ 1.52x eager.", "torch.compile is about 1.48x eager."):
        assert kinds(facts, true) == [], true
    for stale in ("torch.compile ≈ 1.58x eager.", "torch.compile ≈ 1.7x eager.", "torch.compile is about 1.35x eager."):
        assert [f.kind for f in lint(facts, stale)] == [STALE_CLAIM], stale


def test_a_vs_line_keeps_the_subject_of_the_line_before_it(facts: LintFacts) -> None:
    notebook = "Reran CUDA graphs: 1,200.0 tok/s. vs eager: +20% tok/s. vs eager: TTFT p95 -10%."
    assert kinds(facts, notebook) == []
    findings = lint(facts, "Reran CUDA graphs: 1,200.0 tok/s. vs eager: +20% tok/s. vs eager: TTFT p95 -40%.")
    assert [(f.kind, f.text) for f in findings] == [(STALE_CLAIM, "-40%")]
    assert findings[0].fix.startswith("no fix proposed")  # the subject is inferred from the sentence before


def test_a_past_figure_of_an_experiment_that_never_ran_is_no_history(facts: LintFacts) -> None:
    (value,) = lint(facts, "Inductor max-autotune reached 1,650.0 tok/s last month.")
    assert value.kind == STALE_VALUE and "no counted run" in value.message
    assert [f.kind for f in lint(facts, "Inductor max-autotune was 10% faster than eager last month.")] == [STALE_CLAIM]
    # One that ran and failed may have worked before its failures were recorded.
    assert kinds(facts, "Piecewise graphs reached 1,450.0 tok/s before the capture bug.") == []
    assert [f.kind for f in lint(facts, "Inductor max-autotune was faster than eager last month.")] == [STALE_VERDICT]


@pytest.mark.parametrize(
    ("true", "stale"),
    [
        # Verbs of overtaking, with a name holding a dot or a figure in parentheses before "by".
        ("CUDA graphs outpace eager by 20%.", "CUDA graphs outpace eager by 45%."),
        ("Eager trails torch.compile by 33%.", "Eager trails torch.compile by 60%."),
        ("CUDA graphs (1,200.0 tok/s) beat eager (1,000.0 tok/s) by 20%.",
         "CUDA graphs (1,200.0 tok/s) beat eager (1,000.0 tok/s) by 45%."),
        # A change verb without "by": its subject names the metric.
        ("TTFT p95 drops 10% with CUDA graphs vs eager.", "TTFT p95 drops 40% with CUDA graphs vs eager."),
        ("Goodput rises 10% with CUDA graphs relative to eager.", "Goodput rises 30% with CUDA graphs relative to eager."),
        # A change as a noun, the metric between the number and the noun.
        ("CUDA graphs deliver a 20% throughput improvement over eager.",
         "CUDA graphs deliver a 40% throughput improvement over eager."),
    ],
)
def test_verbs_and_nouns_of_change_are_read(facts: LintFacts, true: str, stale: str) -> None:
    assert kinds(facts, true) == [], true
    assert [f.kind for f in lint(facts, stale)] == [STALE_CLAIM], stale


@pytest.mark.parametrize(
    "sentence",
    [
        "Memory drops 40% with CUDA graphs vs eager.",  # a quantity the ledger does not hold
        "With CUDA graphs, the error rate dropped 40%.",
        "Requests rose 40% this week with CUDA graphs.",
        "CUDA graphs saw a 40% latency reduction in the profiler.",  # "latency" names no one metric
        "CUDA graphs speed up decoding by 40% relative to eager.",  # "decoding" is no metric of ours
    ],
)
def test_a_change_of_something_the_ledger_does_not_hold_is_left_alone(facts: LintFacts, sentence: str) -> None:
    assert kinds(facts, sentence) == []
