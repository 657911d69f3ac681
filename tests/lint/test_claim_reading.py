"""benchdoc.lint.claim_reading: comparative claims read by their parts, in phrasings the corpus lacks.

A project of its own (not the story): an eager reference at 1000.0 tok/s, TTFT p95 300 ms,
goodput 3.00 req/s under a 4 req/s open loop with a 500 ms TTFT SLO; CUDA graphs 1200.0
(superseding CUDA graphs on torch 2.7 at 1100.0, alias "old graphs"); torch.compile 1500.0
tok/s but TTFT p95 360 ms; chunked prefill 1050.0 tok/s and TTFT p95 240 ms; piecewise
graphs only ever failed; Inductor max-autotune never ran.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdoc.config import parse_config
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT
from benchdoc.results import build_results

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

[workloads.open-4]
rate = 4.0
requests = 400
input_tokens = 1024
output_tokens = 128
slo = "ttft_ms:500"

[experiments.eager]
label = "Eager mode"
aliases = ["eager path", "eager"]
role = "reference"
workload = "open-4"

[experiments.graphs-old]
label = "CUDA graphs (torch 2.7)"
aliases = ["old graphs"]
compare_to = "eager"
workload = "open-4"

[experiments.graphs]
label = "CUDA graphs"
aliases = ["graphs"]
compare_to = "eager"
supersedes = "graphs-old"
workload = "open-4"

[experiments.compiled]
label = "torch.compile"
aliases = ["compile"]
compare_to = "eager"
workload = "open-4"

[experiments.chunked]
label = "Chunked prefill"
compare_to = "eager"
workload = "open-4"

[experiments.flaky]
label = "Preemptive batching"
compare_to = "eager"
workload = "open-4"

[experiments.spec-decode]
label = "Speculative decoding"
compare_to = "eager"
workload = "open-4"

[experiments.piecewise]
label = "Piecewise graphs"
compare_to = "eager"
workload = "open-4"

[experiments.max-autotune]
label = "Inductor max-autotune"
aliases = ["max-autotune"]
compare_to = "eager"
workload = "open-4"
"""

T0 = datetime(2026, 10, 1, 9, tzinfo=timezone.utc)


def spread(centre: float, step: float) -> list[float]:
    return [centre, centre - 2 * step, centre + 2 * step, centre - step, centre + step]


RUNS = {
    "graphs-old": (1100.0, 290.0, 3.10),
    "eager": (1000.0, 300.0, 3.00),
    "graphs": (1200.0, 270.0, 3.30),
    "compiled": (1500.0, 360.0, 3.60),
    "chunked": (1050.0, 240.0, 3.15),
    "flaky": (1400.0, 250.0, 3.40),  # a result with 20 of 100 requests cut short: unreliable
}


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("claims")
    config = parse_config(CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for day, (name, (tok_s, ttft, goodput)) in enumerate(RUNS.items()):
            at = T0 + timedelta(days=day)
            samples = [
                Sample(metric, value, i, i)
                for metric, values in (("output_tok_s", spread(tok_s, 1.0)), ("ttft_ms_p95", spread(ttft, 1.0)),
                                       ("goodput_req_s", spread(goodput, 0.01)))
                for i, value in enumerate(values)
            ]
            metadata = RunMetadata(requests=100, cut_short=20, failures={"stream cut": 20}) if name == "flaky" else None
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a",
                                     **({"metadata": metadata} if metadata else {})))
        at = T0 + timedelta(days=8)
        (retracted,) = ledger.record_runs([NewRun(
            experiment="spec-decode", samples=[Sample("output_tok_s", v, i, i) for i, v in enumerate(spread(1800.0, 1.0))],
            started_at=at, finished_at=at + timedelta(minutes=5), host="gpu-a")])
        ledger.retract(retracted, "the draft model leaked the answers")
        at = T0 + timedelta(days=9)
        ledger.record_run(NewRun(experiment="piecewise", outcome="failed", started_at=at,
                                 finished_at=at + timedelta(minutes=1), failure_reason="graph capture: dynamic shape"))
        return facts_from_results(build_results(config, ledger))


def found(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint_text(facts, text, "log.md")]


@pytest.mark.parametrize(
    ("true", "stale"),
    [
        # "over" after a signed change, with the metric between ("+10% goodput over").
        ("CUDA graphs: +20% over the eager path.", "CUDA graphs: +35% over the eager path."),
        ("CUDA graphs give +10% goodput over eager.", "CUDA graphs give +25% goodput over eager."),
        # A bare ratio, with "≈" and the metric after the target.
        ("torch.compile ≈ 1.5x eager on tok/s.", "torch.compile ≈ 2.1x eager on tok/s."),
        ("torch.compile runs at 1.5x the eager path.", "torch.compile runs at 2.5x the eager path."),
        # A possessive target.
        ("torch.compile TTFT p95 is 1.2x eager's.", "torch.compile TTFT p95 is 1.6x the eager path's."),
        # A qualifier between the claim word and its link.
        ("Chunked prefill = 5% gain e2e vs eager.", "Chunked prefill = 15% gain e2e vs eager."),
        # The subject between the claim word and "than without".
        ("TTFT p95 is 20% lower with chunked prefill than without.",
         "TTFT p95 is 35% lower with chunked prefill than without."),
        ("TTFT p95 is 25% lower with CUDA graphs than with torch.compile.",
         "TTFT p95 is 5% lower with CUDA graphs than with torch.compile."),
        # The target named first: "Relative to X, ...", "Compared to X, ...".
        ("Relative to CUDA graphs, torch.compile is 25% faster.", "Relative to CUDA graphs, torch.compile is 60% faster."),
        ("Compared to eager, CUDA graphs cut TTFT p95 by 10%.", "Compared to eager, CUDA graphs cut TTFT p95 by 30%."),
        # A factor in words, and a ratio written as a slash of two names.
        ("torch.compile is 1.5x as fast as eager.", "torch.compile is twice as fast as eager."),
        ("CUDA graphs reach 1.2x the throughput of eager.", "CUDA graphs reach twice the throughput of eager."),
        ("torch.compile/eager = 1.5 on tok/s.", "torch.compile/eager ≈ 1.9 on tok/s."),
        ("CUDA graphs/eager TTFT p95 ratio: 0.9", "CUDA graphs/eager TTFT p95 ratio: 0.7"),
        # A parenthesis annotates the figure before it: its metric is that figure's.
        ("CUDA graphs: TTFT p95 270 ms (-10%).", "CUDA graphs: TTFT p95 270 ms (-30%)."),
        ("CUDA graphs cut TTFT p95 to 270 ms (10% lower than eager).",
         "CUDA graphs cut TTFT p95 to 270 ms (25% lower than eager)."),
        # An unsigned rise "over" a target, and a target carried over to the claim after it.
        ("Chunked prefill is 5% over eager.", "Chunked prefill is 15% over eager."),
        ("compile is 25% faster than graphs on throughput, 33% slower on TTFT p95.",
         "compile is 25% faster than graphs on throughput, 10% slower on TTFT p95."),
        # The target of one claim is not the subject of the next; an aside in parentheses is not the subject.
        ("- compile: 1.5x eager tok/s, 1.2x eager TTFT p95", "- compile: 1.5x eager tok/s, 1.4x eager TTFT p95"),
        ("torch.compile is faster still (1,500.0 tok/s, 1.25x CUDA graphs) but its TTFT p95 of 360 ms is 20% above eager's.",
         "torch.compile is faster still (1,500.0 tok/s) but its TTFT p95 of 360 ms is 40% above eager's."),
        # A range: true when the ledger's figure is inside it.
        ("CUDA graphs are 15-20% faster than eager.", "CUDA graphs are 25–30% faster than eager."),
        ("CUDA graphs are 1.1-1.3x faster than eager.", "CUDA graphs are 1.3-1.5x faster than eager."),
        # "up/down N%": the direction before the number, the target after "on"/"vs".
        ("CUDA graphs: TTFT p95 down 10%.", "CUDA graphs: TTFT p95 down 25%."),
        ("torch.compile: TTFT p95 is up 20% on eager.", "torch.compile: TTFT p95 is up 45% on eager."),
        # Possessive subject and target.
        ("torch.compile's throughput is 25% higher than CUDA graphs'.",
         "torch.compile's throughput is 50% higher than CUDA graphs'."),
        # "above", "ahead of": the word itself links to the target.
        ("torch.compile lands 50% above eager.", "torch.compile lands 20% above eager."),
        ("CUDA graphs are now 9% ahead of old graphs.", "CUDA graphs are now 30% ahead of old graphs."),
    ],
)
def test_phrasings_are_read_true_and_stale(facts: LintFacts, true: str, stale: str) -> None:
    assert found(facts, true + "\n") == []
    findings = lint_text(facts, stale + "\n", "log.md")
    assert [f.kind for f in findings] == [STALE_CLAIM], findings


def test_a_slash_ratio_is_fixed_by_its_number_not_a_region(facts: LintFacts) -> None:
    (stale,) = lint_text(facts, "CUDA graphs/eager TTFT p95 ratio: 0.7\n", "log.md")
    assert stale.text == "CUDA graphs/eager TTFT p95 ratio: 0.7" and "write the ratio as 0.90" in stale.fix
    assert "benchdoc:value" not in stale.fix
    assert found(facts, "compile/eager: 1500 tok/s, 2 runs each.\n") == []  # a value and a count, no ratio


def test_a_vs_prefix_and_a_heading_imply_the_comparison(facts: LintFacts) -> None:
    text = "Chunked prefill at 4 req/s.\nvs eager: +5% tok/s, TTFT p95 -20%.\n"
    assert found(facts, text) == []
    (stale,) = lint_text(facts, "Chunked prefill at 4 req/s.\nvs eager: +5% tok/s, TTFT p95 -31%.\n", "log.md")
    assert (stale.kind, stale.text) == (STALE_CLAIM, "-31%")
    assert "-20.0%" in stale.message and stale.fix.startswith("no fix proposed")  # the subject is inferred
    # A subject the ledger does not name is nobody's to infer: "Paged attention" is no experiment here.
    assert found(facts, "CUDA graphs ship today.\nPaged attention regresses TTFT p95 by 40% relative to eager.\n") == []
    under = "## Chunked prefill\n\nrate=4: +5% tok/s, TTFT p95 -20%.\n\nAcceptance is 30% higher here.\n"
    assert found(facts, under) == []  # the second names no metric: not read as throughput
    (inferred,) = lint_text(facts, "## Chunked prefill\n\nrate=4: +15% tok/s.\n", "log.md")
    assert inferred.text == "+15%" and inferred.fix.startswith("no fix proposed: which experiment")
    section = "## torch.compile vs eager\n\nrate=4: +50% tok/s.\n\nrate=4: +20% goodput.\n"
    assert found(facts, section) == []
    (wrong,) = lint_text(facts, "## torch.compile vs eager\n\nrate=4: +70% tok/s.\n", "log.md")
    assert wrong.kind == STALE_CLAIM and wrong.fix.startswith("no fix proposed")


def test_a_true_notebook_in_many_styles_is_left_alone(facts: LintFacts) -> None:
    notebook = """# Compile notes

Load: open loop at 4 req/s, 1024 in / 128 out, TTFT SLO 500 ms.

## 2026-10-02

Eager baseline: 1000.0 tok/s, TTFT p95 300 ms, goodput 3.00 req/s (of 4 req/s offered).

## 2026-10-03

CUDA graphs: 1200.0 tok/s (+20%), TTFT p95 270 ms (-10%).
Graphs vs eager: +20% tok/s; goodput +10%.
Old graphs on torch 2.7 gave 1100.0 tok/s.
CUDA graphs now beat old graphs by ~9%.

## 2026-10-04

torch.compile: 1.5k tok/s, i.e. 1.5x eager, but TTFT p95 360 ms (+20%).
compile is 25% faster than graphs on throughput, 33% slower on TTFT p95.
At 4 req/s, compile keeps 3.60 req/s goodput; eager keeps 3.00 req/s.
Everything stays under the 500 ms SLO.

## torch.compile vs CUDA graphs

+25% tok/s; TTFT p95 +33%.

## Chunked prefill

1050.0 tok/s, 5% over eager; TTFT p95 20% lower than without it.
It trades little throughput for latency: TTFT p95 240 ms vs 300 ms.

## Failures

Piecewise graphs failed: graph capture on dynamic shapes.
max-autotune: not run yet; we expect it to beat compile by 5-10%.

| config | tok/s | TTFT p95 (ms) | vs eager |
|---|---|---|---|
| CUDA graphs | 1200.0 | 270 | +20% |
| torch.compile | 1500.0 | 360 | +50% |
| Chunked prefill | 1050.0 | 240 | +5% |
"""
    assert found(facts, notebook) == []


def test_a_true_pr_description_and_slides_are_left_alone(facts: LintFacts) -> None:
    text = """## Turn on CUDA graphs by default

This PR enables CUDA graphs for decode. On the open-4 workload (4 req/s, 1,024 input / 128 output tokens)
CUDA graphs serve 1,200.0 tok/s, a 20% gain over the eager path, and cut TTFT p95 from 300 ms to 270 ms.

- Its goodput, 3.30 req/s, is 10% higher than eager's 3.00 req/s.
- Piecewise graphs would be the natural next step, but graph capture fails on dynamic shapes.
- Inductor max-autotune has not been run.

|  | Eager | CUDA graphs | torch.compile |
|---|---|---|---|
| Output throughput (tok/s) | 1,000.0 | 1,200.0 | 1,500.0 |
| TTFT p95 (ms) | 300 | 270 | 360 |
| Goodput (req/s) | 3.00 | 3.30 | 3.60 |

## Slide: results

- Eager → CUDA graphs: +20% tok/s, -10% TTFT p95
- chunked prefill: TTFT p95 -20% (240 ms), tok/s +5%
- graphs over old graphs: +9%

Notes: the 500 ms SLO holds for all; at 4 req/s nothing saturates.
"""
    assert found(facts, text) == []


def test_k_suffixed_numbers_are_values(facts: LintFacts) -> None:
    assert found(facts, "CUDA graphs reach ~1.2k tok/s.\n") == []
    assert found(facts, "CUDA graphs reach 1.2k tok/s and torch.compile 1.5k tok/s.\n") == []
    (stale,) = lint_text(facts, "CUDA graphs reach ~1.6k tok/s.\n", "log.md")
    assert (stale.kind, stale.text) == (STALE_VALUE, "1.6k tok/s")
    assert "graphs.output_tok_s" in stale.fix and "1200.0" in stale.fix
    table = "| config | tok/s |\n|---|---|\n| CUDA graphs | 1.2k |\n| torch.compile | ~1.5k |\n| eager | 1.3k |\n"
    (cell,) = lint_text(facts, table, "log.md")
    assert (cell.line, cell.kind, cell.text) == (5, STALE_VALUE, "1.3k") and "1000.0" in cell.fix


def test_the_sentence_names_its_own_metric(facts: LintFacts) -> None:
    # torch.compile is faster on throughput but slower on TTFT: the claim is about TTFT.
    assert found(facts, "torch.compile is 1.2x slower than eager on TTFT p95 (360 vs 300 ms).\n") == []
    (stale,) = lint_text(facts, "torch.compile is 1.5x slower than eager on TTFT p95.\n", "log.md")
    assert stale.kind == STALE_CLAIM and ".ttft_ms_p95" in stale.fix and "TTFT" not in stale.text
    assert "+20.0%" in stale.message


def test_a_claim_whose_metric_is_unclear_is_reported_without_a_fix(facts: LintFacts) -> None:
    # Goodput and TTFT both named, the claim tied to either: true of neither, reported without a fix.
    (stale,) = lint_text(facts, "torch.compile improves goodput and TTFT p95 by 90% over eager.\n", "log.md")
    assert stale.fix.startswith("no fix proposed: which metric")
    assert "on Goodput" in stale.message and "on TTFT p95" in stale.message
    (joined,) = lint_text(facts, "torch.compile: goodput and TTFT p95 are 90% better than eager.\n", "log.md")
    assert joined.fix.startswith("no fix proposed: which metric")
    # True of one of them (+20% goodput): left alone.
    assert found(facts, "torch.compile improves goodput and TTFT p95 by 20% over eager.\n") == []


def test_workload_settings_are_not_results(facts: LintFacts) -> None:
    for sentence in (
        "At 4 req/s offered, torch.compile keeps 3.60 req/s of goodput.",
        "At 4 req/s torch.compile saturates while CUDA graphs hold 3.30 req/s.",
        "Every configuration stays under the 500 ms SLO, torch.compile included.",
        "torch.compile goodput at a rate of 4 req/s is 3.60 req/s.",
    ):
        assert found(facts, sentence + "\n") == [], sentence
    (stale,) = lint_text(facts, "At 4 req/s offered, torch.compile goodput is 4.20 req/s.\n", "log.md")
    assert (stale.kind, stale.text) == (STALE_VALUE, "4.20 req/s")
    assert "compiled.goodput_req_s" in stale.fix and "3.60" in stale.fix


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("Piecewise graphs are 12% faster than eager.", STALE_CLAIM),
        ("Piecewise graphs are 3% slower than CUDA graphs.", STALE_CLAIM),
        ("Inductor max-autotune is 8% faster than CUDA graphs.", STALE_CLAIM),
        ("CUDA graphs are 8% faster than max-autotune.", STALE_CLAIM),
        ("Piecewise graphs are faster than CUDA graphs.", STALE_VERDICT),
        ("max-autotune is faster than eager.", STALE_VERDICT),
        ("Piecewise graphs: 1,450.0 tok/s.", STALE_VALUE),
        ("max-autotune reaches 1.9k tok/s.", STALE_VALUE),
        ("Speculative decoding is 80% faster than eager.", STALE_CLAIM),  # its only run was retracted
    ],
)
def test_claims_about_experiments_without_a_result_are_flagged(facts: LintFacts, sentence: str, kind: str) -> None:
    (finding,) = lint_text(facts, sentence + "\n", "log.md")
    assert finding.kind == kind
    assert "Piecewise graphs now fails: graph capture: dynamic shape" in finding.ledger or finding.ledger in (
        "Inductor max-autotune has no counted run (never run, or every run retracted)",
        "Speculative decoding has no counted run (never run, or every run retracted)",
    )
    assert finding.fix.startswith("no fix proposed")


@pytest.mark.parametrize(
    "sentence",
    [
        "max-autotune should beat CUDA graphs by 10%.",  # a plan
        "Piecewise graphs reached 1,450.0 tok/s before the capture bug.",  # the past
        "Piecewise graphs crash: graph capture fails on dynamic shapes.",  # what the ledger says
        "Inductor max-autotune is untested.",
        "Piecewise graphs crashed after 300 ms of capture.",  # a time, not its TTFT
        "Against eager, CUDA graphs give up about 8% of TTFT p95 headroom.",  # "give up": a verb, not "up 8%"
    ],
)
def test_plans_history_and_true_statements_about_them_stand(facts: LintFacts, sentence: str) -> None:
    assert found(facts, sentence + "\n") == []


def test_an_alias_of_a_superseded_experiment_pins_it(facts: LintFacts) -> None:
    assert found(facts, "CUDA graphs beat old graphs by 9% (1200.0 vs 1100.0 tok/s).\n") == []
    findings = lint_text(facts, "CUDA graphs beat old graphs by 30% (1200.0 vs 1100.0 tok/s).\n", "log.md")
    assert [f.kind for f in findings] == [STALE_CLAIM]  # 1100.0 is old graphs' own figure, not a stale one
    assert "+9.1%" in findings[0].message and "graphs-old" in findings[0].fix


def test_a_comparison_with_any_experiment_goes_through_the_pair_comparison(facts: LintFacts) -> None:
    # torch.compile's compare_to is eager; against CUDA graphs it is the query layer's uncorrected pair.
    assert found(facts, "torch.compile is 25% faster than CUDA graphs.\n") == []
    (stale,) = lint_text(facts, "torch.compile is 10% faster than CUDA graphs.\n", "log.md")
    assert stale.kind == STALE_CLAIM and "+25.0% [" in stale.message
    assert "outside the corrected family" in stale.ledger and "vs=graphs" in stale.fix
    pair = facts.pair("compiled", "graphs", "output_tok_s")
    assert pair is not None and pair.verdict == "better" and pair.ci_low is not None


def test_claims_about_an_unreliable_result_are_flagged(facts: LintFacts) -> None:
    assert facts.experiments["flaky"].unreliable is not None
    for sentence, kind in (
        ("Preemptive batching is 40% faster than eager.", STALE_CLAIM),  # the (unreliable) figures agree
        ("Preemptive batching reaches 1400.0 tok/s.", STALE_VALUE),
        ("Preemptive batching is faster than eager.", STALE_VERDICT),
    ):
        (finding,) = lint_text(facts, sentence + "\n", "log.md")
        assert finding.kind == kind, sentence
        assert "unreliable: 20.0% of its requests failed" in finding.ledger and finding.fix.startswith("no fix")


def test_a_figure_s_annotation_and_a_label_name_the_metric_for_certain(facts: LintFacts) -> None:
    """'TTFT p95 360 ms (+35% vs eager)' and 'TTFT p95: +35% vs eager' are about TTFT p95
    beyond doubt: reported with the fix; 'ttft worse: 360ms (1.5x eager)' only probably."""
    for sentence in ("torch.compile: TTFT p95 360 ms (+35% vs eager).\n", "torch.compile TTFT p95: +35% vs eager.\n"):
        (stale,) = lint_text(facts, sentence, "log.md")
        assert stale.kind == STALE_CLAIM and stale.fix.startswith('write "1.20x slower than Eager mode"'), stale.fix
        assert found(facts, sentence.replace("+35%", "+20%")) == []
    (unsure,) = lint_text(facts, "torch.compile ttft worse: 360ms (1.5x eager).\n", "log.md")
    assert unsure.fix.startswith("no fix proposed: which metric")


def test_a_slash_ratio_is_approximate_only_with_its_sign(facts: LintFacts) -> None:
    """'≈ 1.6' allows for rounding a ratio of 1.50 to one digit's neighbour; '= 1.52' does not."""
    assert found(facts, "torch.compile/eager ≈ 1.6\n") == []
    assert found(facts, "torch.compile/eager ~ 1.6\n") == []
    assert found(facts, "torch.compile/eager = 1.52\n") == [(STALE_CLAIM, "torch.compile/eager = 1.52")]
