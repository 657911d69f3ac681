"""Classes of claim misreading found on the third pair of held-out batches, each probed with sentences of our own.

Two projects of their own, the ones of tests/lint/test_reading_classes.py (graph capture: eager
1000 tok/s, CUDA graphs 1200, torch.compile 1300, TTFT p50 200 / 180 / 170 ms) and of
tests/lint/test_verdict_classes.py (collectives: Ring 1000 tok/s, Tree 995 tok/s, equivalent
within its 3% margin, Pinned 900 tok/s).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from tests.lint import test_reading_classes as graphs_project
from tests.lint import test_verdict_classes as collectives_project

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, Finding
from benchdoc.results import build_results


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("graphs")
    config = parse_config(graphs_project.CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for name, day, figures, environment in graphs_project.RUNS:
            at = graphs_project.T0 + timedelta(days=day)
            samples = [Sample(metric, centre + offset * max(centre * 0.001, 0.01), i, i)
                       for metric, centre in zip(graphs_project.METRICS, figures)
                       for i, offset in enumerate((0, -2, 2, -1, 1))]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a", environment=environment))
        return facts_from_results(build_results(config, ledger))


@pytest.fixture(scope="module")
def collectives(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("collectives")
    config = parse_config(collectives_project.CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for name, hour, decode, memory, spread in collectives_project.RUNS:
            at = collectives_project.T0 + timedelta(hours=hour)
            if decode is None or memory is None:
                ledger.record_run(NewRun(experiment=name, outcome="failed", started_at=at, finished_at=at,
                                         failure_reason="kernel launch failed"))
                continue
            samples = [Sample(metric, centre * (1 + spread * offset / 1000), i, i)
                       for metric, centre in (("decode_tok_s", decode), ("memory_gb", memory))
                       for i, offset in enumerate((0, -2, 2, -1, 1))]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a"))
        return facts_from_results(build_results(config, ledger))


def lint(facts: LintFacts, text: str) -> list[Finding]:
    return lint_text(facts, text + "\n", "log.md")


def claims(facts: LintFacts, text: str) -> list[Finding]:
    return [f for f in lint(facts, text) if f.kind == STALE_CLAIM]


def test_items_between_middle_dots_name_their_own_metric(graphs: LintFacts) -> None:
    # torch.compile against eager: decode +30%, TTFT p50 -15%. A badge line's items are clauses of their own.
    assert claims(graphs, "**torch.compile** · 1,300 tok/s decode · TTFT p50 170 ms · +30% vs eager") == []
    assert claims(graphs, "**torch.compile** · 30% faster than eager · TTFT p50 170 ms") == []  # of decode, not TTFT
    assert claims(graphs, "**torch.compile** • TTFT p50 -15% vs eager • 1,300 tok/s") == []
    # The must-stay twins: each item still read, of its own metric.
    (stale,) = claims(graphs, "**torch.compile** · 1,300 tok/s decode · TTFT p50 170 ms · +15% vs eager")
    assert "ttft" not in stale.fix and "compile show=verdict" in stale.fix
    (stale,) = claims(graphs, "**torch.compile** · TTFT p50 -30% vs eager · 1,300 tok/s")
    assert "compile.ttft_ms_p50" in stale.fix


def test_a_document_of_others_that_says_so_is_not_our_claim(graphs: LintFacts) -> None:
    assert claims(graphs, "The engine's release notes claim torch.compile is 2x faster than eager.") == []
    assert claims(graphs, "A vendor whitepaper says CUDA graphs is 3x faster than eager on their cluster.") == []
    # The twins: release notes that say nothing, and the same claim as our own.
    assert len(claims(graphs, "Since the release notes went out, torch.compile is 2x faster than eager.")) == 1
    assert len(claims(graphs, "torch.compile is 2x faster than eager.")) == 1


def test_an_estimate_called_equivalent_within_a_margin_is_held_to_the_estimate(collectives: LintFacts) -> None:
    # Tree against Ring: -0.5%, equivalent within the 3% margin.
    assert claims(collectives, "Tree vs Ring on decode speed: -0.5%, equivalent within ±3%.") == []
    assert claims(collectives, "Tree is 0.5% slower than Ring, within the margin.") == []
    # The twins: another estimate, and the same figure with no word of equivalence.
    assert len(claims(collectives, "Tree vs Ring on decode speed: -2.5%, equivalent within ±3%.")) == 1
    assert len(claims(collectives, "Tree vs Ring on decode speed: -0.5%.")) == 1


def test_a_vs_column_whose_header_names_a_metric_among_others_of_its_words_is_that_one(graphs: LintFacts) -> None:
    # "Decode speed" and "Prefill speed" share a word; the header holds one whole label. Against eager:
    # decode +30%, TTFT p50 -15% (1.18x faster).
    table = ("| Config | vs eager (Decode speed) | vs eager (TTFT p50) |\n|---|---|---|\n"
             "| torch.compile | {} | 1.18x faster |")
    assert claims(graphs, table.format("30% faster")) == []
    (stale,) = claims(graphs, table.format("50% faster"))
    assert "ttft" not in stale.fix and "prefill" not in stale.fix
    # A header naming only the shared word is unclear: never read as another column's metric.
    assert claims(graphs, table.format("50% faster").replace("(Decode speed)", "(speed)")) == []


def test_a_metric_named_after_a_claim_with_a_figure_of_its_own_is_that_figure_s(graphs: LintFacts) -> None:
    # torch.compile against eager: decode +30%, TTFT p99 -10% (1.11x faster).
    assert claims(graphs, "torch.compile finished at 1,300 tok/s, 30% faster than eager, with TTFT p99 at 450 ms.") == []
    assert claims(graphs, "torch.compile is 30% faster than eager with a 450 ms TTFT p99.") == []
    # The twin: a metric named after the claim with no figure of its own is the claim's.
    (stale,) = claims(graphs, "torch.compile is 30% faster than eager on TTFT p99.")
    assert "compile.ttft_ms_p99" in stale.fix


def test_trims_and_shaves_are_verbs_of_a_cut(graphs: LintFacts) -> None:
    # TTFT p50 against eager: -15%.
    assert claims(graphs, "torch.compile trims TTFT p50 by 15% against eager.") == []
    assert claims(graphs, "torch.compile shaved TTFT p50 by about 15% relative to eager.") == []
    (stale,) = claims(graphs, "torch.compile trims TTFT p50 by 40% against eager.")
    assert "compile.ttft_ms_p50" in stale.fix


def test_comparatives_as_a_translated_text_writes_them(graphs: LintFacts) -> None:
    # Against eager: decode +30%, TTFT p50 -15%; CUDA graphs against torch.compile: decode -7.7%.
    assert claims(graphs, "torch.compile is 30% more fast than eager.") == []
    assert claims(graphs, "CUDA graphs is 8% more slow than torch.compile.") == []
    assert claims(graphs, "The TTFT p50 of torch.compile has reduced of 15% compared with eager.") == []
    assert len(claims(graphs, "torch.compile is 50% more fast than eager.")) == 1
    assert len(claims(graphs, "CUDA graphs is 20% more slow than torch.compile.")) == 1
    (stale,) = claims(graphs, "The TTFT p50 of torch.compile has reduced of 40% compared with eager.")
    assert "compile.ttft_ms_p50" in stale.fix
    # The twin: "of" that belongs to a noun is no size of a change.
    assert claims(graphs, "torch.compile reduced the TTFT p50 of 40% of the requests below 150 ms.") == []


def test_the_target_of_in_comparison_with_and_of_a_change_after_equivalent_with(graphs: LintFacts) -> None:
    # torch.compile against CUDA graphs: decode +8.3%; against eager, its compare_to, +30%.
    assert claims(graphs, "In comparison with CUDA graphs, torch.compile is 8% faster.") == []
    (stale,) = claims(graphs, "In comparison with CUDA graphs, torch.compile is 30% faster.")
    assert "+8.3%" in stale.message and "vs=graphs" in stale.fix
    assert claims(graphs, "torch.compile is about the same as CUDA graphs (+8%), which surprised us.") == []
    assert len(claims(graphs, "torch.compile is about the same as CUDA graphs (+30%), which surprised us.")) == 1


KV_CONFIG = """\
[metrics.decode_tok_s]
label = "Decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.itl_ms]
label = "ITL p50"
unit = "ms"
direction = "lower"
digits = 1

[experiments.kv-bf16]
label = "BF16 KV"
role = "reference"

[experiments.kv-fp8]
label = "FP8 KV"
compare_to = "kv-bf16"

[experiments.kv-fp8-plain]
label = "FP8"
compare_to = "kv-bf16"
"""
# name: (hour, decode tok/s, ITL p50 ms)
KV_RUNS = (("kv-bf16", 0, 1000.0, 20.0), ("kv-fp8", 1, 1100.0, 19.0), ("kv-fp8-plain", 2, 1300.0, 16.0))


@pytest.fixture(scope="module")
def kv(tmp_path_factory: pytest.TempPathFactory) -> LintFacts:
    root: Path = tmp_path_factory.mktemp("kv")
    config = parse_config(KV_CONFIG, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for name, hour, decode, itl in KV_RUNS:
            at = collectives_project.T0 + timedelta(hours=hour)
            samples = [Sample(metric, centre * (1 + offset / 1000), i, i)
                       for metric, centre in (("decode_tok_s", decode), ("itl_ms", itl))
                       for i, offset in enumerate((0, -2, 2, -1, 1))]
            ledger.record_run(NewRun(experiment=name, samples=samples, started_at=at,
                                     finished_at=at + timedelta(minutes=5), host="gpu-a"))
        return facts_from_results(build_results(config, ledger))


def test_a_target_that_leaves_out_the_last_word_its_subject_shares(kv: LintFacts) -> None:
    # FP8 KV against BF16 KV: ITL p50 -5%. "BF16" alone names nothing; with the subject's "KV" it is BF16 KV.
    assert claims(kv, "FP8 KV's ITL p50 is 5% lower than BF16's.") == []
    (stale,) = claims(kv, "FP8 KV's ITL p50 is 15% lower than BF16's.")
    assert stale.text == "15% lower than BF16's" and "kv-fp8.itl_ms" in stale.fix
    assert len(claims(kv, "FP8 KV decodes 30% faster than BF16, as expected.")) == 1
    # The twins: a word followed by more of a name the ledger does not hold, and a subject of one word.
    assert claims(kv, "FP8 KV's ITL p50 is 15% lower than BF16 weights'.") == []
    assert claims(kv, "The ITL p50 of FP8 is 15% lower than BF16's.") == []


def test_a_cost_given_to_a_pronoun(graphs: LintFacts) -> None:
    # Eager mode against torch.compile: goodput -10.7%.
    assert claims(graphs, "Eager mode costs you 11% of goodput compared with torch.compile.") == []
    assert len(claims(graphs, "Eager mode costs you only 2% of goodput compared with torch.compile.")) == 1
    assert len(claims(graphs, "Eager mode buys us 5% of goodput over torch.compile.")) == 1
