"""Classes of misreading found on a held-out batch, each probed with sentences of our own.

A graph-capture project of its own: eager mode (the reference) decodes 1000 tok/s (prefill
8000 tok/s, TTFT p50 200 ms, TTFT p99 500 ms, goodput 5.00 req/s); CUDA graphs 1200 tok/s
(8100, 180 ms, 400 ms, 5.50); torch.compile 1300 tok/s (8200, 170 ms, 450 ms, 5.60) on engine
1.3.0, superseding torch.compile on engine 1.2.0 at 1100 tok/s (measured 2026-11-03, alias
"old compile"); a split-KV kernel never ran. The runs are dated 2026-11-02 to 2026-11-05.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.claim_truth import calls_it_noise
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT, Finding
from benchdoc.results import build_results

CONFIG = """\
[metrics.decode_tok_s]
label = "Decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.prefill_tok_s]
label = "Prefill speed"
unit = "tok/s"
direction = "higher"
digits = 0

[metrics.ttft_ms_p50]
label = "TTFT p50"
unit = "ms"
direction = "lower"
digits = 0

[metrics.ttft_ms_p99]
label = "TTFT p99"
unit = "ms"
direction = "lower"
digits = 0

[metrics.goodput_req_s]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 2

[workloads.open-6]
rate = 6.0
requests = 600
slo = "ttft_ms:1000"

[experiments.eager]
label = "Eager mode"
aliases = ["eager"]
role = "reference"
workload = "open-6"

[experiments.graphs]
label = "CUDA graphs"
aliases = ["graphs"]
compare_to = "eager"
workload = "open-6"

[experiments.compile-old]
label = "torch.compile (engine 1.2)"
aliases = ["old compile"]
compare_to = "eager"
workload = "open-6"

[experiments.compile]
label = "torch.compile"
aliases = ["compile"]
compare_to = "eager"
supersedes = "compile-old"
workload = "open-6"

[experiments.split]
label = "Split-KV kernel"
aliases = ["split-KV"]
compare_to = "eager"
workload = "open-6"
"""

T0 = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
OLD = {"packages": {"engine": "1.2.0"}}
NEW = {"packages": {"engine": "1.3.0"}}
METRICS = ("decode_tok_s", "prefill_tok_s", "ttft_ms_p50", "ttft_ms_p99", "goodput_req_s")
# name: (day, figures in the order of METRICS, environment)
RUNS = (
    ("eager", 0, (1000.0, 8000.0, 200.0, 500.0, 5.00), NEW),
    ("compile-old", 1, (1100.0, 8050.0, 190.0, 480.0, 5.20), OLD),
    ("graphs", 2, (1200.0, 8100.0, 180.0, 400.0, 5.50), NEW),
    ("compile", 3, (1300.0, 8200.0, 170.0, 450.0, 5.60), NEW),
)


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("classes")
    config = parse_config(CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for name, day, figures, environment in RUNS:
            at = T0 + timedelta(days=day)
            samples = [
                Sample(metric, centre + offset * max(centre * 0.001, 0.01), i, i)
                for metric, centre in zip(METRICS, figures)
                for i, offset in enumerate((0, -2, 2, -1, 1))
            ]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a", environment=environment))
        return facts_from_results(build_results(config, ledger))


def lint(facts: LintFacts, text: str) -> list[Finding]:
    return lint_text(facts, text + "\n", "log.md")


def kinds(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint(facts, text)]


def test_a_notebook_entry_dated_by_month_and_day_speaks_of_its_day(facts: LintFacts) -> None:
    # 1100 tok/s is the old torch.compile's, measured 11-03; the new one ran 11-05.
    assert kinds(facts, "**11-03.** torch.compile decodes 1,100 tok/s.") == []
    assert kinds(facts, "**11-03.** First try, nothing tuned. torch.compile decodes 1,100 tok/s.") == []
    assert [f.kind for f in lint(facts, "torch.compile decodes 1,100 tok/s.")] == [STALE_VALUE]
    # A range of numbers at the head of a line is no date.
    assert [f.kind for f in lint(facts, "10-12 streams: torch.compile decodes 1,100 tok/s.")] == [STALE_VALUE]


@pytest.mark.parametrize("head", ["Nov 3:", "3 Nov —", "**Tue 11/03.**", "November 3rd,", "2026/11/03"])
def test_a_notebook_entry_dated_in_other_spellings_speaks_of_its_day(facts: LintFacts, head: str) -> None:
    assert kinds(facts, f"{head} torch.compile decodes 1,100 tok/s.") == [], head


def test_a_version_written_as_major_and_minor_names_the_old_setup(facts: LintFacts) -> None:
    assert kinds(facts, "On 1.2, torch.compile decodes 1,100 tok/s.") == []
    # A number that only looks like the version is not one.
    assert [f.kind for f in lint(facts, "torch.compile decodes 1,100 tok/s, 1.2% of it in the sampler.")] == [STALE_VALUE]


def test_a_figure_before_a_comparison_s_target_is_not_the_target_s(facts: LintFacts) -> None:
    # 500 ms is eager's TTFT p99, the unnamed subject's; CUDA graphs is only what it is compared with.
    assert kinds(facts, "TTFT p99 500 ms, a good deal worse than CUDA graphs.") == []
    # The second figure of a pair is the other side's, which the sentence does not name.
    assert kinds(facts, "Keep eager for short prompts (TTFT p99 500 ms vs 400 ms).") == []


def test_a_change_in_parentheses_states_the_comparison_before_it(facts: LintFacts) -> None:
    # torch.compile against CUDA graphs is +8.3%; against eager, its compare_to, +30%.
    assert kinds(facts, "torch.compile is faster than CUDA graphs (+8%).") == []
    (claim,) = lint(facts, "torch.compile is faster than CUDA graphs (+30%).")
    assert claim.kind == STALE_CLAIM and "8.3% faster than CUDA graphs" in claim.fix


def test_a_plain_target_is_the_experiment_without_the_change(facts: LintFacts) -> None:
    # TTFT p50 170 against 180 ms: -5.6%.
    assert kinds(facts, "torch.compile: TTFT p50 170 ms (-6% vs plain CUDA graphs).") == []
    (claim,) = lint(facts, "torch.compile: TTFT p50 170 ms (-20% vs plain CUDA graphs).")
    assert claim.kind == STALE_CLAIM and "vs=graphs" in claim.fix and "ttft_ms_p50" in claim.fix


def test_a_percentile_picks_its_metric_and_a_lone_percentile_keeps_the_stem(facts: LintFacts) -> None:
    # torch.compile against eager: TTFT p50 -15%, TTFT p99 -10%.
    assert kinds(facts, "torch.compile: TTFT p50 170 ms (-15% vs eager), p99 450 ms (-10%).") == []
    stale = lint(facts, "torch.compile: TTFT p50 170 ms (-15% vs eager), p99 450 ms (-30%).")
    assert [(f.kind, f.text) for f in stale] == [(STALE_CLAIM, "-30%")] and "-10.0%" in stale[0].message
    (value,) = lint(facts, "torch.compile: TTFT p50 170 ms, p99 420 ms.")
    assert value.kind == STALE_VALUE and "compile.ttft_ms_p99 -->450<" in value.fix


def test_the_metric_named_after_a_figure_belongs_to_that_figure(facts: LintFacts) -> None:
    assert kinds(facts, "CUDA graphs decodes 1,200 tok/s and 8,100 tok/s of prefill.") == []
    # 1,150 is no figure of CUDA graphs; "prefill" is the second figure's metric, not the first's.
    assert kinds(facts, "CUDA graphs reaches 1,150 tok/s and 8,100 tok/s of prefill.") == []
    (value,) = lint(facts, "CUDA graphs reaches 1,250 tok/s of decode and 8,100 tok/s of prefill.")
    assert value.kind == STALE_VALUE and "graphs -->" not in value.fix and "graphs.decode_tok_s -->1200<" in value.fix


def test_a_clause_of_its_own_names_its_own_metric(facts: LintFacts) -> None:
    # Decode: +30% against eager; goodput: +12%.
    assert kinds(facts, "torch.compile is 30% faster than eager and its goodput is 5.60 req/s.") == []
    (claim,) = lint(facts, "torch.compile is 12% faster than eager and its goodput is 5.60 req/s.")
    assert claim.kind == STALE_CLAIM and "show=verdict" in claim.fix and "goodput" not in claim.fix


def test_words_that_say_the_ledger_cannot_tell_two_apart_call_it_noise() -> None:
    assert calls_it_noise("the ledger cannot tell the two apart on prefill (+0.4%)")
    assert calls_it_noise("the two are indistinguishable on prefill")
    assert not calls_it_noise("we can tell them apart on prefill")


def test_figures_others_report_are_not_ours(facts: LintFacts) -> None:
    assert kinds(facts, "Reports elsewhere put torch.compile 50% ahead of eager; we cannot confirm it.") == []
    assert kinds(facts, "torch.compile is reportedly 50% faster than eager.") == []
    assert [f.kind for f in lint(facts, "torch.compile is 50% faster than eager.")] == [STALE_CLAIM]


def test_a_verdict_waiting_on_a_condition_is_no_verdict(facts: LintFacts) -> None:
    assert kinds(facts, "The split-KV kernel stays off until it has a working run.") == []
    assert [f.kind for f in lint(facts, "The split-KV kernel works.")] == [STALE_VERDICT]


def test_no_difference_of_an_experiment_whose_latest_run_failed_is_stale(tmp_path: Path) -> None:
    from tests.lint.conftest import facts_of

    # The story's NCCL Tree failed: it is on par with nothing.
    facts = facts_of(tmp_path)
    assert [f.kind for f in lint(facts, "NCCL Tree is on par with the baseline.")] == [STALE_VERDICT]
    assert kinds(facts, "NCCL Tree was on par with the baseline until the driver update.") == []


def test_under_a_heading_a_vs_b_an_inferred_subject_may_be_either_side(facts: LintFacts) -> None:
    # CUDA graphs against eager: TTFT p50 -10%; eager against CUDA graphs: +11%.
    assert kinds(facts, "## Eager mode vs CUDA graphs\n\n- TTFT p50: -10% for CUDA graphs.") == []
    assert kinds(facts, "## Eager mode vs CUDA graphs\n\n- TTFT p50: -10%.") == []
    (claim,) = lint(facts, "## Eager mode vs CUDA graphs\n\n- TTFT p50: -40%.")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed")


def test_more_phrasings_of_a_comparative_claim_are_read(facts: LintFacts) -> None:
    # torch.compile against eager: decode +30%, TTFT p50 -15%; against CUDA graphs: decode +8.3%.
    for true, stale in (
        ("torch.compile leads eager by 30%.", "torch.compile leads eager by 12%."),
        ("Turning on torch.compile adds a further 30% over eager.", "Turning on torch.compile adds a further 9%."),
        ("With torch.compile we gain about 30% though.", "With torch.compile we gain about 60% though."),
        ("torch.compile's TTFT p50 is 0.85x eager's.", "torch.compile's TTFT p50 is half of eager's."),
        ("torch.compile shows a TTFT p50 reduction of 15% against eager.",
         "torch.compile shows a TTFT p50 reduction of 40% against eager."),
        ("torch.compile is 8% faster than plain CUDA graphs.", "torch.compile is 30% faster than plain CUDA graphs."),
    ):
        assert kinds(facts, true) == [], true
        assert [f.kind for f in lint(facts, stale)] == [STALE_CLAIM], stale
    # Not a metric of ours, and not a comparison.
    assert kinds(facts, "torch.compile shows a regression of 40% in memory.") == []
    assert kinds(facts, "torch.compile leads to 40% more kernels than eager.") == []
    assert kinds(facts, "Half of eager's requests meet the SLO.") == []


def test_a_column_header_s_percentile_picks_its_metric(facts: LintFacts) -> None:
    table = "| config | TTFT p50 (ms) | TTFT p99 (ms) |\n|---|---|---|\n| CUDA graphs | 180 | {p99} |"
    assert kinds(facts, table.format(p99=400)) == []
    (value,) = lint(facts, table.format(p99=350))
    assert value.kind == STALE_VALUE and "graphs.ttft_ms_p99 -->400<" in value.fix


def test_a_name_at_the_head_of_a_line_is_the_subject_of_the_verdict_after_its_colon(facts: LintFacts) -> None:
    # torch.compile is faster than eager: "no difference" is stale, "faster" is not.
    assert [f.kind for f in lint(facts, "- [x] torch.compile: no difference from eager mode")] == [STALE_VERDICT]
    assert kinds(facts, "- [x] torch.compile: faster than eager mode") == []
    # Only at the head of the line, and only for the one name before the colon.
    assert kinds(facts, "A note on torch.compile: no difference in memory") == []


def test_a_name_with_a_dot_reads_in_the_with_x_than_without_form(facts: LintFacts) -> None:
    # torch.compile against eager: TTFT p50 -15%.
    assert kinds(facts, "TTFT p50 is 15% lower with torch.compile than without.") == []
    (claim,) = lint(facts, "TTFT p50 is 40% lower with torch.compile than without.")
    assert claim.kind == STALE_CLAIM and "compile.ttft_ms_p50 show=verdict" in claim.fix
    # A figure with decimals in parentheses is no part of a name.
    assert kinds(facts, "Moving to torch.compile gives 30% more decode speed (1,300 vs 1,000 tok/s).") == []


def test_a_word_of_a_metric_s_label_names_it_in_its_other_forms(facts: LintFacts) -> None:
    # "decodes" names Decode speed, "prefills" Prefill speed: two metrics in tok/s told apart.
    assert kinds(facts, "torch.compile decodes 1,300 tok/s and prefills 8,200 tok/s.") == []
    (value,) = lint(facts, "torch.compile decodes ~1.8k tok/s.")
    assert value.kind == STALE_VALUE and "compile.decode_tok_s -->1300<" in value.fix
    (value,) = lint(facts, "torch.compile decodes 1,300 tok/s and prefills 8,900 tok/s.")
    assert "compile.prefill_tok_s -->8200<" in value.fix


def test_a_factor_before_a_noun_of_speed_with_its_quantity_between(facts: LintFacts) -> None:
    assert kinds(facts, "torch.compile delivers a 1.3x decode speedup over eager.") == []
    assert [f.kind for f in lint(facts, "torch.compile delivers a 2x decode speedup over eager.")] == [STALE_CLAIM]
    assert kinds(facts, "torch.compile delivers a 2x memory speedup over eager.") == []


def test_a_metric_after_a_comma_belongs_to_the_claim_after_it(facts: LintFacts) -> None:
    # Decode +30% and TTFT p99 -10% against eager: the first claim is not about TTFT p99.
    assert kinds(facts, "torch.compile is 30% faster than eager, with TTFT p99 10% lower.") == []
    (claim,) = lint(facts, "torch.compile is 30% faster than eager, with TTFT p99 25% lower.")
    assert claim.text == "25% lower" and "compile.ttft_ms_p99" in claim.fix


def test_a_target_shared_by_a_list_of_changes(facts: LintFacts) -> None:
    assert kinds(facts, "torch.compile: decode +30%, TTFT p50 −15%, TTFT p99 −10% (all vs eager).") == []
    (claim,) = lint(facts, "torch.compile: decode +30%, TTFT p50 −15%, TTFT p99 −30% (all vs eager).")
    assert claim.kind == STALE_CLAIM and "compile.ttft_ms_p99" in claim.fix


def test_a_vs_column_is_about_the_metric_its_table_holds(facts: LintFacts) -> None:
    # Against eager: TTFT p99 -20% for CUDA graphs, -10% for torch.compile (decode: +20%, +30%).
    table = "| config | TTFT p99 | vs eager |\n|---|---|---|\n| CUDA graphs | 400 ms | −20% |\n| torch.compile | 450 ms | {c} |"
    assert kinds(facts, table.format(c="−10%")) == []
    (claim,) = lint(facts, table.format(c="−30%"))
    assert claim.kind == STALE_CLAIM and "compile.ttft_ms_p99" in claim.fix
    # With several metrics and not the primary one, which the column means is unclear: left alone.
    both = "| config | TTFT p50 | TTFT p99 | vs eager |\n|---|---|---|---|\n| CUDA graphs | 180 ms | 400 ms | −50% |"
    assert kinds(facts, both) == []


def test_a_head_with_a_metric_before_its_colon_owns_the_figure(facts: LintFacts) -> None:
    assert kinds(facts, "torch.compile TTFT p99: 450 ms (eager: 500 ms).") == []
    (value,) = lint(facts, "torch.compile TTFT p99: 420 ms (eager: 500 ms).")
    assert value.kind == STALE_VALUE and "compile.ttft_ms_p99 -->450<" in value.fix


def test_a_before_after_table_s_change_column_is_the_after_column_against_the_before(facts: LintFacts) -> None:
    # Columns of experiments, rows of metrics: torch.compile against eager, goodput +12%, TTFT p50 -15%.
    table = ("| metric | before (eager) | after (torch.compile) | change |\n|---|---|---|---|\n"
             "| Goodput (req/s) | 5.00 | 5.60 | {goodput} |\n| TTFT p50 (ms) | 200 | 170 | −15% |")
    assert kinds(facts, table.format(goodput="+12%")) == []
    (claim,) = lint(facts, table.format(goodput="+30%"))
    assert claim.kind == STALE_CLAIM and "compile.goodput_req_s" in claim.fix and "Eager mode" in claim.fix


def test_a_figure_is_owned_by_the_name_right_after_it_or_by_a_possessive_before_it(facts: LintFacts) -> None:
    # TTFT p99: torch.compile 450 ms, eager 500 ms.
    assert kinds(facts, "TTFT p99 is 450 ms on torch.compile and 500 ms on eager.") == []
    (value,) = lint(facts, "TTFT p99 is 450 ms on torch.compile and 540 ms on eager.")
    assert value.kind == STALE_VALUE and "eager.ttft_ms_p99 -->500<" in value.fix
    (value,) = lint(facts, "TTFT p99 is 470 ms on torch.compile and 500 ms on eager.")
    assert "compile.ttft_ms_p99 -->450<" in value.fix
    assert kinds(facts, "torch.compile's TTFT p99 is 450 ms, against eager's 500 ms.") == []
    (value,) = lint(facts, "torch.compile's TTFT p99 is 450 ms, against eager's 530 ms.")
    assert "eager.ttft_ms_p99 -->500<" in value.fix


def test_thresholds_conditions_and_other_times_are_not_results(facts: LintFacts) -> None:
    for sentence in (
        "We alert when TTFT p99 goes above 800 ms on torch.compile.",
        "The pager fires at 900 ms TTFT p99 for any config, torch.compile included.",
        "Compared with last quarter's 900 tok/s, eager now decodes 1,000 tok/s.",
        # "at 6 req/s" is the load the claim is made under, not its metric (decode +30%, goodput +12%).
        "torch.compile is 30% faster than eager at 6 req/s.",
        # A figure in ms names no metric, but the primary one (decode speed) is not in ms.
        "Eager's 200 ms TTFT p50 is the baseline; torch.compile's 170 ms is 15% better.",
    ):
        assert kinds(facts, sentence) == [], sentence
    assert [f.kind for f in lint(facts, "torch.compile is 12% faster than eager at 6 req/s.")] == [STALE_CLAIM]
    assert [f.kind for f in lint(facts, "Last quarter eager decoded 900 tok/s; now it decodes 950 tok/s.")] == [
        STALE_VALUE]


def test_no_fix_of_these_classes_binds_another_metric_experiment_or_load_setting(facts: LintFacts) -> None:
    from tests.lint.fixcheck import fix_problems

    sentences = [
        "torch.compile decodes 1,100 tok/s.",
        "torch.compile is faster than CUDA graphs (+30%).",
        "torch.compile: TTFT p50 170 ms (-20% vs plain CUDA graphs).",
        "torch.compile: TTFT p50 170 ms, p99 420 ms.",
        "CUDA graphs reaches 1,250 tok/s of decode and 8,100 tok/s of prefill.",
        "torch.compile is 12% faster than eager and its goodput is 5.60 req/s.",
        "torch.compile leads eager by 12%.",
        "torch.compile shows a TTFT p50 reduction of 40% against eager.",
        "torch.compile is 30% faster than plain CUDA graphs.",
        "TTFT p50 is 40% lower with torch.compile than without.",
        "torch.compile decodes 1,300 tok/s and prefills 8,900 tok/s.",
        "torch.compile delivers a 2x decode speedup over eager.",
        "torch.compile is 30% faster than eager, with TTFT p99 25% lower.",
        "torch.compile is 90% faster than eager, which is worth its longer TTFT p99.",
        "torch.compile: decode +30%, TTFT p50 −15%, TTFT p99 −30% (all vs eager).",
        "torch.compile TTFT p99: 420 ms (eager: 500 ms).",
        "TTFT p99 is 450 ms on torch.compile and 540 ms on eager.",
        "torch.compile's TTFT p99 is 450 ms, against eager's 530 ms.",
        "| metric | eager | torch.compile | change |\n|---|---|---|---|\n| Goodput (req/s) | 5.00 | 5.60 | +30% |",
    ]
    findings = [f for sentence in sentences for f in lint(facts, sentence)]
    problems, checked = fix_problems(facts, findings)
    assert problems == [] and checked >= 5
