"""benchdoc.lint.tables: hand-kept table rows, each cell read under its header.

All against the story: baseline 89.5 -> 92.6 tok/s (CUDA 12.8 -> 13), EAGLE-3 54.1 on CUDA 12.8
superseded by eagle3-cuda13 at 96.1 (+3.8% over the baseline), NCCL Tree failed.
"""

from __future__ import annotations

from pathlib import Path

from tests.lint.conftest import kinds, record_story, story_config

from benchdoc.docs import parse_text
from benchdoc.docs.render import Renderer
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT
from benchdoc.results import LazyResults, build_results


def test_hand_kept_tables(story_facts: LintFacts) -> None:
    text = (
        "| Config | Status | tok/s | vs baseline | Notes |\n|---|---|---|---|---|\n"
        "| Baseline (no spec) | Reference | 92.6 | — | |\n"
        "| EAGLE-3 2-step | Slower | **54.1** | -39.6% | 40% slower than baseline |\n"
        "| EAGLE-3 2-step (CUDA 13 + fusion) | Works | 96.1 | +3.8% | |\n"
        "| NCCL Tree | FAILED | — | — | CUDA graph incompatible |\n"
    )
    found = kinds(story_facts, text)
    assert found == [
        (4, STALE_VERDICT, "Slower"), (4, STALE_VALUE, "54.1"), (4, STALE_CLAIM, "-39.6%"),
        (4, STALE_CLAIM, "40% slower than baseline"),
    ]


def test_a_value_with_its_unit_under_any_header_is_read_for_the_row_s_experiment(story_facts: LintFacts) -> None:
    text = (
        "| Config | Result | Notes |\n|---|---|---|\n"
        "| EAGLE-3 | 71.3 tok/s | fused verify |\n"
        "| Baseline (no spec) | 92.6 tok/s | |\n"
        "| NCCL Tree | FAILED | |\n"
    )
    (finding,) = lint_text(story_facts, text, "log.md")
    assert (finding.line, finding.kind, finding.text) == (3, STALE_VALUE, "71.3 tok/s")
    assert finding.fix == "<!-- benchdoc:value eagle3-cuda13.output_tok_s -->96.1<!-- benchdoc:end --> tok/s"


def test_escaped_pipes_stay_inside_their_cell(story_facts: LintFacts) -> None:
    text = (
        "| Config \\| notes | tok/s | TTFT p50 |\n|---|---|---|\n"
        "| EAGLE-3 \\| fused verify | 54.1 | 43.5 |\n"
        "| Baseline (no spec) \\| plain | 92.6 | 41.0 |\n"
    )
    (finding,) = lint_text(story_facts, text, "log.md")
    assert (finding.line, finding.column, finding.text) == (3, text.split("\n")[2].index("54.1") + 1, "54.1")
    assert "now 96.1 tok/s" in finding.message


def test_the_experiment_may_be_named_in_a_later_column(story_facts: LintFacts) -> None:
    text = "| Date | Config | tok/s |\n|---|---|---|\n| 2026-11-05 | EAGLE-3 | 54.1 |\n| 2026-11-05 | Baseline (no spec) | 92.6 |\n"
    assert kinds(story_facts, text) == [(3, STALE_VALUE, "54.1")]


def test_columns_named_by_experiment_and_rows_by_metric(story_facts: LintFacts) -> None:
    text = (
        "| Metric | Baseline (no spec) | EAGLE-3 |\n|---|---|---|\n"
        "| Output (tok/s) | 92.6 | 54.1 |\n"
        "| TTFT p50 (ms) | 41.0 | 43.5 |\n"
    )
    (finding,) = lint_text(story_facts, text, "log.md")
    assert (finding.line, finding.kind, finding.text) == (3, STALE_VALUE, "54.1")
    assert finding.experiment == "eagle3-cuda13" and "ttft" not in finding.fix


def test_true_and_historical_rows_stand(story_facts: LintFacts) -> None:
    text = (
        "| Config | Result | Notes |\n|---|---|---|\n"
        "| EAGLE-3 | 96.1 tok/s | |\n"
        "| EAGLE-3 2-step | 54.1 tok/s | before the CUDA 13 upgrade |\n"
        "| Medusa | 71.3 tok/s | not in the ledger |\n\n"
        "| Metric | Baseline (no spec) | EAGLE-3 |\n|---|---|---|\n"
        "| tok/s | 92.6 | 96.1 |\n"
        "| Notes | 89.5 on CUDA 12.8 | |\n"
    )
    assert kinds(story_facts, text) == []


def test_a_vs_column_direction_the_ledger_cannot_tell_unless_the_row_says_so(spec_facts: LintFacts) -> None:
    text = (
        "| Config | vs Baseline | Verdict |\n|---|---|---|\n"
        "| N-gram speculation | -10.6% | Slower |\n"
        "| N-gram speculation | -10.6% | No difference |\n"
        "| N-gram speculation | -10.6% (within noise) | |\n"
    )
    # The ledger's status is Inconclusive: neither "Slower" nor "No difference" (which needs
    # equivalence shown) holds; a row that calls its difference noise states neither.
    assert kinds(spec_facts, text) == [
        (3, STALE_CLAIM, "-10.6%"), (3, STALE_VERDICT, "Slower"), (4, STALE_VERDICT, "No difference"),
    ]


def test_a_rendered_table_pasted_as_text_is_read_in_its_own_words(tmp_path: Path) -> None:
    """What a table region renders ('3.8% faster', '1.06x slower' for a latency, under
    'vs baseline (METRIC)') is read back by the lint: true as rendered, stale once changed."""
    config = story_config(tmp_path)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        results = build_results(config, ledger)
    renderer = Renderer(config, LazyResults.of(results), tmp_path / "log.md")
    marker = '<!-- benchdoc:table experiments="baseline eagle3-cuda13" metrics="output_tok_s ttft_ms_p50" columns="label value vs" -->'
    (region,) = parse_text(f"{marker}\n<!-- benchdoc:end -->\n", "log.md").regions
    table = renderer(region)
    assert "| vs baseline (tok/s) | vs baseline (TTFT p50) |" in table
    assert "| 3.8% faster (p=" in table and "| 1.06x slower (p=" in table
    facts = facts_from_results(results)
    assert kinds(facts, table) == []
    stale = table.replace("3.8% faster", "9.8% faster").replace("1.06x slower", "1.60x slower")
    assert [(kind, text) for _, kind, text in kinds(facts, stale)] == [
        (STALE_CLAIM, "9.8% faster"), (STALE_CLAIM, "1.60x slower"),
    ]


def test_a_percentage_under_a_metric_s_header_is_a_change_never_that_metric_s_value(story_facts: LintFacts) -> None:
    """'-10%' under 'TTFT p50 change' is not a TTFT of 10 ms: a fix would write 43.5 ms into a change column."""

    def cell(header: str, value: str) -> list[tuple[int, str, str]]:
        return kinds(story_facts, f"| Config | tok/s | {header} |\n|---|---|---|\n| EAGLE-3 | 96.1 | {value} |\n")

    # The ledger: EAGLE-3 (now on CUDA 13) has a TTFT p50 6.3% above the baseline's.
    assert cell("TTFT p50 change", "-10%") == [(3, STALE_CLAIM, "-10%")]
    assert cell("Δ TTFT p50", "+50%") == [(3, STALE_CLAIM, "+50%")]
    assert cell("TTFT p50 change", "+6.4%") == []
    # A change against a reference the header does not name is left alone rather than guessed.
    assert cell("TTFT p50", "-10%") == []
    (finding,) = lint_text(story_facts, "| Config | TTFT p50 change |\n|---|---|\n| EAGLE-3 | -10% |\n", "log.md")
    assert "ttft_ms_p50" in finding.fix and "ms" not in finding.fix.split("-->")[1]
