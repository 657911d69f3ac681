"""Classes of misread values found on the fourth batch of development logs, each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(TTFT p99 500 ms, goodput 5.00 req/s), CUDA graphs 1200 tok/s (TTFT p99 400 ms, goodput 5.50
req/s), torch.compile 1300 tok/s. A second project holds a metric that is itself a score.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.lint.conftest import facts_from, measured

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_VALUE

from .test_reading_classes import facts, kinds, lint

__all__ = ["facts"]


def test_a_column_of_marks_on_a_scale_holds_no_metric_s_value(facts: LintFacts) -> None:
    table = ("| Option | Decode speed score [0.4] | TTFT p99 rating | Prefill grade | Weighted total |\n"
             "|---|---|---|---|---|\n"
             "| CUDA graphs | 4 | 3 | 5 | 3.90 |\n"
             "| eager | 1 | 2 | 2 | 1.60 |\n")
    assert kinds(facts, table) == []
    # Must stay flagged: the same table measured, a metric's own header above a wrong figure.
    measured = "| Option | Decode speed (tok/s) | TTFT p99 (ms) |\n|---|---|---|\n| CUDA graphs | 1,500 | 400 |\n"
    (value,) = lint(facts, measured)
    assert value.kind == STALE_VALUE and "graphs.decode_tok_s -->1200<" in value.fix


SCORED = """\
[metrics.judge]
label = "Judge score"
unit = "pts"
direction = "higher"
digits = 1
primary = true

[experiments.base]
label = "Base prompt"
aliases = ["base"]
"""


def test_a_score_column_of_a_metric_that_is_a_score_is_its_value(tmp_path: Path) -> None:
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    scored = facts_from(tmp_path, SCORED, [measured("base", at, {"judge": (7.1, 7.2, 7.0)})])
    head = "| Prompt | Judge score |\n|---|---|\n"
    assert [f.kind for f in lint_text(scored, head + "| Base prompt | 7.1 |\n", "log.md")] == []
    assert [f.kind for f in lint_text(scored, head + "| Base prompt | 8.4 |\n", "log.md")] == [STALE_VALUE]


def test_a_figure_from_others_infrastructure_or_tracker_is_not_ours(facts: LintFacts) -> None:
    for sentence in (
        "The issue tracker says CUDA graphs decodes 1,500 tok/s on recent builds.",
        "CUDA graphs decodes 1,500 tok/s on their CI runners.",
        "CUDA graphs decodes 1,500 tok/s in the vendor's lab.",
        "On the partner's testbed CUDA graphs decodes 1,500 tok/s.",
        "Upstream quotes CUDA graphs at 1,500 tok/s from their own hardware.",
        "CUDA graphs decodes 1,500 tok/s; not on our box, though.",
        "The staging A10G pod decodes 1,500 tok/s with CUDA graphs.",
        "CUDA graphs decodes 1,500 tok/s on the old cluster; those runs are not in this ledger.",
        "CUDA graphs decodes 1,500 tok/s on the old cluster; that cluster is not part of this report.",
    ):
        assert kinds(facts, sentence) == [], sentence
    # Must stay flagged: our own infrastructure, a machine that names no other hardware, and no disowning clause.
    for sentence in (
        "CUDA graphs decodes 1,500 tok/s on our CI runners.",
        "Our issue tracker says CUDA graphs decodes 1,500 tok/s.",
        "The bench pod decodes 1,500 tok/s with CUDA graphs.",
        "CUDA graphs decodes 1,500 tok/s on the old cluster; that is the figure we ship.",
    ):
        assert [f.kind for f in lint(facts, sentence)] == [STALE_VALUE], sentence


def test_a_floor_a_requirement_or_an_sla_s_promise_is_a_threshold_not_a_result(facts: LintFacts) -> None:
    assert kinds(facts, "The SLO sets a 6.50 req/s floor on goodput for CUDA graphs.") == []
    assert kinds(facts, "CUDA graphs meets the 6.50 req/s goodput requirement.") == []
    assert kinds(facts, "The SLA guarantees 6.50 req/s of goodput for CUDA graphs.") == []
    # Must stay flagged: the same figure said to be measured, also beside an SLA that is met.
    assert [f.kind for f in lint(facts, "CUDA graphs goodput is 6.50 req/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "Our SLA is met: CUDA graphs goodput is 6.50 req/s.")] == [STALE_VALUE]


SPREAD = """\
[metrics.decode]
label = "Decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[experiments.wide]
label = "Wide-spread kernel"
aliases = ["wide"]
"""


def test_about_widens_the_result_s_figure_not_its_extreme_starts(tmp_path: Path) -> None:
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    # Five server starts from 800 to 1200 tok/s: the result is their median, 1000 tok/s.
    spread = facts_from(tmp_path, SPREAD, [measured("wide", at, {"decode": (800.0, 900.0, 1000.0, 1100.0, 1200.0)})])

    def found(text: str) -> list[str]:
        return [f.kind for f in lint_text(spread, text + "\n", "log.md")]

    # 10% above the fastest start, a quarter above the result: "about" does not stretch the extreme.
    assert found("The wide-spread kernel decodes about 1,320 tok/s.") == [STALE_VALUE]
    # Must stay quiet: "about" the result, and the fastest start quoted as it is.
    assert found("The wide-spread kernel decodes about 1,080 tok/s.") == []
    assert found("The wide-spread kernel decodes about 1,200 tok/s at its best start.") == []
