"""Probes in the styles engineers write in, read by the lint's general rules (sentences of our own).

A batching project of its own: static batching 800 tok/s of generation (prompt evaluation
5000 tok/s, TTFT p50 600 ms, goodput 6.00 req/s) under an 8 req/s open loop at 64 concurrent
streams with an 800 ms TTFT SLO; continuous batching 1300 tok/s (TTFT p50 450 ms, goodput
7.50), superseding continuous batching on v0.5 at 1100 (alias "old CB"); a token limit of 2048
at 760 tok/s with TTFT p50 380 ms and goodput 7.20; a fused sampler that worked once at
1350 tok/s and then failed; speculative lookahead never ran.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT, Finding
from benchdoc.results import build_results

CONFIG = """\
[metrics.gen_tok_s]
label = "Generation speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.prompt_tok_s]
label = "Prompt evaluation"
unit = "tok/s"
direction = "higher"
digits = 0

[metrics.ttft_ms_p50]
label = "TTFT p50"
unit = "ms"
direction = "lower"
digits = 0

[metrics.goodput_req_s]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 2

[workloads.open-8]
rate = 8.0
concurrency = 64
requests = 800
input_tokens = 2048
output_tokens = 256
slo = "ttft_ms:800"

[experiments.static]
label = "Static batching"
aliases = ["static"]
role = "reference"
workload = "open-8"

[experiments.cb-old]
label = "Continuous batching (v0.5)"
aliases = ["old CB"]
compare_to = "static"
workload = "open-8"

[experiments.cb]
label = "Continuous batching"
aliases = ["CB", "continuous"]
compare_to = "static"
supersedes = "cb-old"
workload = "open-8"

[experiments.limit2k]
label = "Token limit 2048"
aliases = ["2k limit", "limit 2048"]
compare_to = "static"
workload = "open-8"

[experiments.fused]
label = "Fused sampler"
aliases = ["fused"]
compare_to = "cb"
workload = "open-8"

[experiments.lookahead]
label = "Speculative lookahead"
aliases = ["lookahead"]
compare_to = "cb"
workload = "open-8"
"""

T0 = datetime(2026, 9, 1, 9, tzinfo=timezone.utc)
OLD_ENV = {"packages": {"engine": "0.5.1"}}
NEW_ENV = {"packages": {"engine": "0.6.0"}}
# name: (generation tok/s, prompt tok/s, TTFT p50 ms, goodput req/s, environment)
RUNS = (
    ("static", (800.0, 5000.0, 600.0, 6.00), NEW_ENV),
    ("cb-old", (1100.0, 5100.0, 500.0, 7.00), OLD_ENV),
    ("cb", (1300.0, 5200.0, 450.0, 7.50), NEW_ENV),
    ("limit2k", (760.0, 4800.0, 380.0, 7.20), NEW_ENV),
    ("fused", (1350.0, 5200.0, 440.0, 7.60), NEW_ENV),
)


def spread(centre: float, step: float) -> list[float]:
    return [centre, centre - 2 * step, centre + 2 * step, centre - step, centre + step]


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("probes")
    config = parse_config(CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for day, (name, figures, environment) in enumerate(RUNS):
            at = T0 + timedelta(days=day)
            samples = [
                Sample(metric, value, i, i)
                for metric, centre, step in zip(("gen_tok_s", "prompt_tok_s", "ttft_ms_p50", "goodput_req_s"),
                                                figures, (1.0, 1.0, 1.0, 0.01))
                for i, value in enumerate(spread(centre, step))
            ]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a", environment=environment))
        at = T0 + timedelta(days=9)
        ledger.record_run(NewRun(experiment="fused", outcome="failed", started_at=at, environment=NEW_ENV,
                                 finished_at=at + timedelta(minutes=1), failure_reason="illegal memory access"))
        return facts_from_results(build_results(config, ledger))


def lint(facts: LintFacts, text: str) -> list[Finding]:
    return lint_text(facts, text + "\n", "log.md")


def kinds(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint(facts, text)]


def test_a_hedge_word_inside_an_experiment_s_name_hedges_nothing(facts: LintFacts) -> None:
    # "limit" is a word of plans ("must stay under the limit"); in "Token limit 2048" it is a name.
    assert kinds(facts, "Token limit 2048 is 5% slower than static batching.") == []
    (claim,) = lint(facts, "Token limit 2048 is 20% slower than static batching.")
    assert claim.kind == STALE_CLAIM and "5.0% slower than Static batching" in claim.fix
    assert [f.kind for f in lint(facts, "The 2k limit's generation speed is 900 tok/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "The 2k limit is the fastest config here.")] == [STALE_VERDICT]
    # The words themselves still hedge: a limit we would set is a plan.
    assert kinds(facts, "Continuous batching must stay under the limit of 900 tok/s.") == []


def test_a_sentence_s_only_figure_is_its_one_experiment_s_not_its_reference_s(facts: LintFacts) -> None:
    # 800 tok/s is static batching's, the reference of continuous batching, which the sentence does not name.
    (value,) = lint(facts, "Continuous batching's generation speed is 800 tok/s.")
    assert value.kind == STALE_VALUE and "benchdoc:value cb.gen_tok_s -->1300<" in value.fix
    assert [f.kind for f in lint(facts, "2026-09-12: CB generation now ~0.8k tok/s.")] == [STALE_VALUE]
    # With a second party in the words, or a second figure, the reference's figure may be quoted.
    for sentence in ("Continuous batching reaches 1300 tok/s, up from 800 tok/s.",
                     "Continuous batching: 1300 tok/s against the reference's 800 tok/s.",
                     "Continuous batching is well ahead of the 800 tok/s baseline.",
                     "Continuous batching generates 1300 tok/s and static batching 800 tok/s."):
        assert kinds(facts, sentence) == [], sentence


def test_a_noun_of_action_in_a_metric_s_label_is_named_by_its_verb(facts: LintFacts) -> None:
    # Two metrics in tok/s: "generates" names "Generation speed", so the figure is certain.
    assert kinds(facts, "Continuous batching generates 1300 tok/s.") == []
    (value,) = lint(facts, "The 2k limit generates at 900 tok/s.")
    assert value.kind == STALE_VALUE and "benchdoc:value limit2k.gen_tok_s -->760<" in value.fix
    (evaluated,) = lint(facts, "Continuous batching evaluated prompts at 6100 tok/s on v0.6.0.")
    assert "benchdoc:value cb.prompt_tok_s -->5200<" in evaluated.fix
    # With no word of either metric, which one is meant stays open.
    assert kinds(facts, "The 2k limit runs at 900 tok/s.") == []


def test_a_figure_under_a_load_other_than_the_recorded_one_is_left_alone(facts: LintFacts) -> None:
    for sentence in ("Continuous batching generates 800 tok/s on long contexts, where the KV cache fills up.",
                     "- CB @ small batch sizes: generates 2100 tok/s",
                     "Under heavy traffic continuous batching generates only 900 tok/s."):
        assert kinds(facts, sentence) == [], sentence
    assert [f.kind for f in lint(facts, "Continuous batching generates 900 tok/s.")] == [STALE_VALUE]


def test_a_figure_before_a_comparative_verdict_is_its_subject_s(facts: LintFacts) -> None:
    # Chat style: the figure, then "ahead of X" with no number of its own.
    assert kinds(facts, "**sam:** CB generates 1300 tok/s, well ahead of the 2k limit.") == []
    (value,) = lint(facts, "**sam:** CB generates 1500 tok/s, well ahead of the 2k limit.")
    assert value.kind == STALE_VALUE and "benchdoc:value cb.gen_tok_s -->1300<" in value.fix


def test_a_figure_of_an_experiment_with_no_result_is_one_statement(facts: LintFacts) -> None:
    # The fused sampler's latest run failed: its figure is reported, once, and "ahead of" adds no second finding.
    findings = lint(facts, "> fused generates 1350 tok/s, a bit ahead of continuous batching")
    assert [(f.kind, f.text) for f in findings] == [(STALE_VALUE, "1350 tok/s")]
    assert "now fails" in findings[0].message and findings[0].fix.startswith("no fix proposed")
    # Without a figure the verdict is the statement.
    assert [f.kind for f in lint(facts, "The fused sampler is ahead of continuous batching.")] == [STALE_VERDICT]


def test_a_claim_s_subject_is_its_own_clause_s_and_an_open_one_is_checked_against_each(facts: LintFacts) -> None:
    (own,) = lint(facts, "Static batching sits at 800 tok/s, and CB is 30% faster.")
    assert own.kind == STALE_CLAIM and "benchdoc:value cb show=verdict -->62.5% faster than Static batching<" in own.fix
    # Two experiments in one clause, the claim after both: true of either, it stands; false of both, no fix.
    assert kinds(facts, "The 2k limit sits at 760 tok/s, CB is 5% slower.") == []
    assert kinds(facts, "The 2k limit sits at 760 tok/s, CB is 62.5% faster.") == []
    (open_,) = lint(facts, "The 2k limit sits at 760 tok/s, CB is 30% slower.")
    assert open_.kind == STALE_CLAIM and open_.fix.startswith("no fix proposed: which experiment")


def test_a_label_before_a_colon_names_the_metric_of_a_change_after_it(facts: LintFacts) -> None:
    slide = "## CB vs static\n\n- generation: +62.5%\n- TTFT p50: -25%\n- goodput: +25%"
    assert kinds(facts, slide) == []
    (claim,) = lint(facts, slide.replace("-25%", "-40%"))
    assert claim.kind == STALE_CLAIM and "-25.0%" in claim.message  # read on TTFT p50, not on generation speed


@pytest.mark.parametrize("entry", ["## 2026-09-02\n\nCB generates 1100 tok/s.", "2026-09-02: CB generates 1100 tok/s.",
                                   "- **2026-09-02** CB generates 1100 tok/s, +37.5% vs static."])
def test_a_notebook_entry_dated_before_the_result_speaks_of_its_day(facts: LintFacts, entry: str) -> None:
    # Continuous batching's current result is of 2026-09-03; on 2026-09-02 its line stood at 1100 tok/s.
    assert kinds(facts, entry) == []
    later = entry.replace("2026-09-02", "2026-09-05")
    assert STALE_VALUE in [f.kind for f in lint(facts, later)]
    # A title that mentions a date dates no entry.
    assert [f.kind for f in lint(facts, "# Notes, week of 2026-09-01\n\nCB generates 1100 tok/s.")] == [STALE_VALUE]


def test_an_aside_in_parentheses_does_not_hide_the_metric_named_before_it(facts: LintFacts) -> None:
    # Goodput is +25% over static batching; generation speed +62.5%: the claim is about goodput.
    assert kinds(facts, "CB's goodput (7.50 req/s) is 25% above static's.") == []
    (claim,) = lint(facts, "CB's goodput (7.50 req/s) is 45% above static's.")
    assert "benchdoc:value cb.goodput_req_s show=verdict -->25.0% faster than Static batching<" in claim.fix


def test_a_unit_two_metrics_share_makes_each_a_candidate(facts: LintFacts) -> None:
    # Generation +62.5%, prompt evaluation +4%: "+N% tok/s" is true of either, or reported with no fix.
    for true in ("CB ≈ +62% tok/s", "CB ≈ +4% tok/s"):
        assert kinds(facts, true) == [], true
    (claim,) = lint(facts, "CB ≈ +90% tok/s")
    assert claim.kind == STALE_CLAIM and claim.fix.startswith("no fix proposed: which metric")
    # Whichever metric a figure of an experiment with no result is, the ledger holds none.
    (never,) = lint(facts, "- lookahead: 1.5k tok/s")
    assert never.kind == STALE_VALUE and "no counted run" in never.message
    # A sentence that itself says the run failed agrees with the ledger.
    assert kinds(facts, "The fused sampler crashed after 12 s at 1.5k tok/s.") == []


# (true, stale) in the styles engineers write in: notebook lines, PR tables, slide bullets, chat, reports.
STYLES = [
    ("2026-09-14 — CB: 1300 tok/s generation, TTFT p50 450 ms.", "2026-09-14 — CB: 1250 tok/s generation, TTFT p50 450 ms."),
    ("| | before (static) | after (CB) |\n|---|---|---|\n| Generation speed (tok/s) | 800 | 1300 |\n| TTFT p50 (ms) | 600 | 450 |",
     "| | before (static) | after (CB) |\n|---|---|---|\n| Generation speed (tok/s) | 800 | 1250 |\n| TTFT p50 (ms) | 600 | 450 |"),
    ("| config | Generation speed (tok/s) | TTFT p50 (ms) |\n|---|---|---|\n| static | 800 | 600 |\n| CB | 1300 | 450 |",
     "| config | Generation speed (tok/s) | TTFT p50 (ms) |\n|---|---|---|\n| static | 800 | 600 |\n| CB | 1300 | 520 |"),
    ("- CB: +62.5% generation tok/s vs static", "- CB: +80% generation tok/s vs static"),
    ('> "CB is 1.6x static on generation"', '> "CB is 3x static on generation"'),
    ("Continuous batching improves generation speed by 62.5% relative to static batching.",
     "Continuous batching improves generation speed by 40% relative to static batching."),
    ("Continuous batching yields 62.5% higher generation speed than static batching.",
     "Continuous batching yields 80% higher generation speed than static batching."),
    ("CB's TTFT p50 is 25% lower than static's.", "CB's TTFT p50 is 40% lower than static's."),
    ("static's TTFT p50 is 1.33x CB's.", "static's TTFT p50 is 1.6x CB's."),
    ("The 2k limit's goodput is 1.2x static batching's.", "The 2k limit's goodput is 1.5x static batching's."),
    ("CB: ~1.3k tok/s generation", "CB: ~1.6k tok/s generation"),
    ("CB ≈ 1.6x static on generation speed", "CB ≈ 2.2x static on generation speed"),
    ("CB/static ≈ 1.6 on generation", "CB/static ≈ 2.0 on generation"),
    ("CB beats old CB by 18% (1300 vs 1100 tok/s).", "CB beats old CB by 30% (1300 vs 1100 tok/s)."),
    ("2k limit: TTFT p50 -37% vs static, generation -5%", "2k limit: TTFT p50 -20% vs static, generation -5%"),
    ("2k limit: TTFT p50 -37% vs static, generation -5%", "2k limit: TTFT p50 -37% vs static, generation -15%"),
    ("- CB — 1300 tok/s, TTFT p50 450 ms, goodput 7.50 req/s", "- CB — 1300 tok/s, TTFT p50 480 ms, goodput 7.50 req/s"),
    ("CB generation: 1100 → 1300 tok/s after the upgrade.", "CB generation: 1300 → 1250 tok/s after the driver bump."),
    # A factor in words ("2.4 times"), and a speed-up named before its factor.
    ("CB is 1.6 times faster than static.", "CB is 2.4 times faster than static."),
    ("CB delivers 1.6 times the generation speed of static.", "CB delivers 2.4 times the generation speed of static."),
    ("CB's speedup over static is 1.6x.", "CB's speedup over static is 2.4x."),
    ("CB's speedup is ~1.6x.", "CB's speedup is 2.4x."),
    # A change along a supersedes chain, stated with the ledger's before and after figures.
    ("CB generation went from 1100 to 1300 tok/s (+18%).", "CB generation went from 1100 to 1300 tok/s (+30%)."),
    # Each name of a list followed at once by its figure owns it; a superseded experiment's alias pins its figures.
    ("Goodput: CB 7.50 req/s, static 6.00 req/s.", "Goodput: CB 7.50 req/s, static 6.50 req/s."),
    ("CB (7.50 req/s) vs static (6.00 req/s): +25% goodput.", "CB (7.50 req/s) vs static (6.20 req/s): +25% goodput."),
    ("CB beats old CB by 7% on goodput (7.50 vs 7.00 req/s).", "CB beats old CB by 7% on goodput (7.50 vs 7.20 req/s)."),
    # A serving acronym spelled out names its metric.
    ("Relative to static batching, continuous batching reduces median time-to-first-token by 25%.",
     "Relative to static batching, continuous batching reduces median time-to-first-token by 45%."),
    ("CB → +62.5% generation, −25% TTFT p50", "CB → +62.5% generation, −40% TTFT p50"),
    ("We tried CB: 1300 tok/s generation. It is 62.5% faster than static.",
     "We tried CB: 1300 tok/s generation. It is 90% faster than static."),
    # Workload parameters in a result's unit: the rate offered, the concurrency, never read as results.
    ("At 8 req/s offered, CB keeps 7.50 req/s of goodput.", "At 8 req/s, CB keeps 6.9 req/s of goodput."),
    ("At 8 req/s every configuration but static keeps up; static saturates at 6.00 req/s of goodput.",
     "At 8 req/s every configuration but static keeps up; static saturates at 6.50 req/s of goodput."),
    ("Under the 800 ms SLO, CB keeps TTFT p50 at 450 ms.", "Under the 800 ms SLO, CB keeps TTFT p50 at 500 ms."),
    ("With 64 concurrent streams CB generates 1300 tok/s.", "With 64 concurrent streams CB generates 1500 tok/s."),
    ("## Continuous batching\n\nrate=8: +25% goodput", "## Continuous batching\n\nrate=8: +40% goodput"),
    # History: "used to", "before the upgrade", a superseded experiment's own alias.
    ("CB used to do 1100 tok/s before the upgrade.", "CB does 1100 tok/s."),
    ("Before the upgrade CB was 37.5% faster than static.", "CB is 37.5% faster than static."),
    ("old CB is 37.5% faster than static.", "old CB is 62.5% faster than static."),
    # No result: a figure, a claim against any experiment, a verdict.
    ("The fused sampler reached 1350 tok/s before it started crashing.", "The fused sampler is 4% faster than static."),
    ("Speculative lookahead should beat CB once it runs.", "lookahead is 10% faster than CB."),
]


@pytest.mark.parametrize(("true", "stale"), STYLES)
def test_styles_engineers_write_in_are_read(facts: LintFacts, true: str, stale: str) -> None:
    assert kinds(facts, true) == [], true
    assert len(lint(facts, stale)) == 1, stale


def test_no_probe_s_fix_binds_another_metric_experiment_or_load_setting(facts: LintFacts) -> None:
    from tests.lint.fixcheck import fix_problems

    findings = [f for pair in STYLES for text in pair for f in lint(facts, text)]
    problems, checked = fix_problems(facts, findings)
    assert problems == [] and checked >= 20


@pytest.mark.parametrize(
    "sentence",
    [
        # Numbers that are no result of ours: shares, counts, settings, quantities the ledger does not hold.
        "CB uses 64 slots and 2048-token prompts.",
        "CB drops 2% of requests under load.",
        "CB's prefix-cache hit rate is 62% versus 10% for static.",
        "CB uses 25% less memory than static.",
        "CB finished the 800 requests in 450 s.",
        "CB cuts TTFT p50 by 150 ms relative to static.",
        "CB hits 90% of the 8 req/s offered load as goodput.",
        "TTFT p50 is 450 ms for CB, 25% under static and well inside the 800 ms SLO.",
        # Several experiments and their figures in one sentence, true of each.
        "CB and the 2k limit improve goodput by 25% and 20% respectively over static.",
        "CB is 62.5% faster than static, and the 2k limit is 5% slower.",
        "The 2k limit is 42% slower than CB but 16% better on TTFT p50.",
        "TTFT p50 — static 600 ms, CB 450 ms, 2k limit 380 ms.",
        "2026-09-01 static: 800 tok/s. 2026-09-03 CB: 1300 tok/s (+62.5%).",
        # A load or setup other than the recorded one, and figures someone else measured.
        "On long prompts CB is 80% faster than static.",
        "With 2x the batch size, CB is 90% faster than static.",
        "CB is 10% faster than static on the smaller model.",
        "Without prefix caching, CB is 20% slower than static.",
        "CB is 80% faster than static in the upstream benchmark.",
        "Expect CB to be 80% faster once the kernel lands.",
    ],
)
def test_what_is_not_a_claim_about_the_recorded_setup_is_left_alone(facts: LintFacts, sentence: str) -> None:
    assert kinds(facts, sentence) == []


def test_the_same_claim_about_the_recorded_setup_is_read(facts: LintFacts) -> None:
    for sentence in ("CB is 80% faster than static.", "CB is 10% faster than static on this model.",
                     "TTFT p50 is 8% lower with CB than without."):
        assert [f.kind for f in lint(facts, sentence)] == [STALE_CLAIM], sentence


def test_an_entry_dated_before_a_failure_keeps_what_was_true_that_day(facts: LintFacts) -> None:
    # The fused sampler ran at 1350 tok/s on 2026-09-05 and failed on 2026-09-10.
    assert kinds(facts, "2026-09-05: fused sampler works, 1350 tok/s generation.") == []
    assert kinds(facts, "2026-09-10: fused sampler crashes with an illegal memory access.") == []
    later = lint(facts, "## 2026-09-12\n\nThe fused sampler works and generates 1350 tok/s.")
    # Two statements: that it works (it now fails), and its figure (it has no result now).
    assert [(f.kind, f.text) for f in later] == [(STALE_VERDICT, "works"), (STALE_VALUE, "1350 tok/s")]
    assert all("now fails" in f.message for f in later)


def test_a_before_after_the_ledger_does_not_hold_is_told_by_its_figure(facts: LintFacts) -> None:
    # 1000 is no result of continuous batching's line: the figure is reported, the change it implies is not.
    assert kinds(facts, "CB generation went from 1000 to 1300 tok/s (+30%).") == [(STALE_VALUE, "1000")]
