"""Classes of misread values found on the fifth batch of development logs, each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(TTFT p50 200 ms, TTFT p99 500 ms, goodput 5.00 req/s), CUDA graphs 1200 tok/s (TTFT p50 180 ms,
TTFT p99 400 ms, goodput 5.50 req/s), torch.compile 1300 tok/s.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.lint.conftest import facts_from, measured

from benchdoc.lint import LintFacts, lint_text
from benchdoc.lint.findings import STALE_VALUE

from .test_reading_classes import facts, kinds, lint

__all__ = ["facts"]


def stale(facts: LintFacts, sentence: str) -> bool:
    return [f.kind for f in lint(facts, sentence)] == [STALE_VALUE]


def test_a_budget_a_headroom_line_a_specification_or_a_target_is_a_limit_not_a_result(facts: LintFacts) -> None:
    for sentence in (
        "CUDA graphs keeps TTFT p99 under the 650 ms headroom line we promised the tenant.",
        "CUDA graphs fits the 650 ms latency budget on TTFT p99.",
        "CUDA graphs decodes 1,200 tok/s, about 80% of the 1,500 tok/s specification of the card.",
        "Goal for the spring: 1,500 tok/s with CUDA graphs, once the allocator is fixed.",
        "Next milestone target: 1,500 tok/s of decode speed on CUDA graphs.",
        "CUDA graphs aims for 1,500 tok/s of decode speed.",
        "CUDA graphs still misses the 1,500 tok/s target on decode speed.",
    ):
        assert kinds(facts, sentence) == [], sentence
    # Must stay flagged: the figure measured, after a target met, and beside a speculative decoder's target model.
    for sentence in (
        "CUDA graphs keeps TTFT p99 at 650 ms.",
        "We hit the target; CUDA graphs decodes 1,500 tok/s.",
        "CUDA graphs decodes 1,500 tok/s on the target model.",
    ):
        assert stale(facts, sentence), sentence


def test_a_competitor_s_a_user_s_or_another_customer_s_figure_is_not_ours(facts: LintFacts) -> None:
    for sentence in (
        "A rival's launch blog says CUDA graphs decodes 1,500 tok/s on their stack.",
        "One user with 4x L4 reported 1,500 tok/s with CUDA graphs.",
        "On another tenant's 4x L40S pool CUDA graphs decodes 1,500 tok/s.",
        "On a partner's GB200 rack CUDA graphs decodes 1,500 tok/s.",
        "At home (a desktop, a different machine) CUDA graphs decodes 1,500 tok/s.",
    ):
        assert kinds(facts, sentence) == [], sentence
    # Must stay flagged: our own pool, and a user of ours who is not the one measuring.
    for sentence in (
        "On our own pool CUDA graphs decodes 1,500 tok/s.",
        "For the user, CUDA graphs decodes 1,500 tok/s.",
        "CUDA graphs decodes 1,500 tok/s, well ahead of every competitor.",
    ):
        assert stale(facts, sentence), sentence


def test_a_figure_before_that_of_another_is_the_subject_s(facts: LintFacts) -> None:
    # 180 ms is CUDA graphs' own TTFT p50: eager is only what it is a multiple of.
    assert kinds(facts, "With CUDA graphs TTFT p50 drops to 180 ms, 0.9x that of eager.") == []
    assert kinds(facts, "TTFT p50 drops to 180 ms, 0.9x that of eager.") == []
    # Must stay flagged: the figure given to the compared one by the words between.
    assert stale(facts, "TTFT p50 is 0.9x that of eager at 230 ms.")


def test_a_date_right_after_a_figure_dates_it(facts: LintFacts) -> None:
    # 1,100 tok/s is the old torch.compile's, measured on Nov 3; the current one decodes 1,300.
    assert kinds(facts, "torch.compile has moved: 1,100 tok/s on Nov 3, 1,300 tok/s today.") == []
    assert kinds(facts, "torch.compile decoded 1,100 tok/s (11/03) before the engine update.") == []
    # Must stay flagged: the old figure with no date, and with a date that is not before the latest run.
    assert stale(facts, "torch.compile has moved: 1,100 tok/s, and 1,300 tok/s at peak.")
    assert stale(facts, "torch.compile decodes 1,100 tok/s on Nov 5.")


def test_an_alert_rule_s_trigger_is_a_threshold(facts: LintFacts) -> None:
    assert kinds(facts, "- CUDA graphs TTFT p99 over 650 ms on any node: page the on-call.") == []
    assert kinds(facts, "- CUDA graphs decode speed under 900 tok/s on any node for 5 minutes -> ticket.") == []
    # Must stay flagged: the same bounds with no action after them, and a rule's line whose figure is no bound.
    assert stale(facts, "CUDA graphs TTFT p99 over 650 ms on any node.")
    assert stale(facts, "CUDA graphs decode speed under 900 tok/s: too slow to ship.")
    assert stale(facts, "- CUDA graphs TTFT p99 650 ms: page.")


def test_a_name_in_a_later_aside_with_its_own_figure_does_not_own_the_figure_before(facts: LintFacts) -> None:
    # 650 ms is the unnamed subject's; CUDA graphs' own figure is the one in the parenthesis.
    assert kinds(facts, "TTFT p99: 650 ms (CUDA graphs shows 400 ms on the same prompts).") == []
    assert kinds(facts, "Goodput: 6.50 req/s (CUDA graphs shows 5.50 req/s, the warm-up).") == []
    # Must stay flagged: a name alone in the parenthesis names the figure's owner, and a name outside it.
    assert stale(facts, "TTFT p99: 650 ms (CUDA graphs).")
    assert stale(facts, "CUDA graphs TTFT p99: 650 ms (eager shows 500 ms).")


def test_a_pair_after_equivalent_to_or_matches_gives_its_second_figure_to_the_named_one(facts: LintFacts) -> None:
    # The new kernel is no experiment of the ledger: 5.62 is its figure, 5.50 CUDA graphs' goodput.
    assert kinds(facts, "Goodput for the new kernel is equivalent to CUDA graphs (5.62 vs 5.50 req/s).") == []
    assert kinds(facts, "Goodput for the new kernel matches CUDA graphs (5.62 vs 5.50 req/s).") == []
    # Must stay flagged: the named one's own figure wrong, and a name that is the sentence's subject.
    assert stale(facts, "Goodput for the new kernel matches CUDA graphs (5.62 vs 5.40 req/s).")
    assert stale(facts, "CUDA graphs matches the target (5.62 vs 5.60 req/s).")


def test_the_after_side_of_moving_a_setup_to_an_unnamed_one_is_not_the_setup_s(facts: LintFacts) -> None:
    # CUDA graphs is 5.50 req/s; 5.90 is what the unnamed new allocator gave it.
    assert kinds(facts, "Moving CUDA graphs to the new allocator took goodput from 5.50 to 5.90 req/s.") == []
    assert kinds(facts, "Upgrading CUDA graphs to driver 560 lifts goodput from 5.50 to 5.90 req/s (+7%).") == []
    # Must stay flagged: a change of the setup itself, and a wrong before side of the move.
    assert stale(facts, "CUDA graphs took goodput from 5.00 to 5.90 req/s.")
    assert stale(facts, "Moving CUDA graphs to the new allocator took goodput from 5.20 to 5.90 req/s.")


SHARED = """\
[metrics.hit]
label = "Prefix cache hit rate"
unit = "%"
direction = "higher"
digits = 1
primary = true

[experiments.off]
label = "Sharing off"
aliases = ["off"]
role = "reference"

[experiments.shared]
label = "Prefix sharing"
aliases = ["prefix"]
compare_to = "off"
"""


def test_an_experiment_s_name_inside_a_metric_s_name_names_no_experiment(tmp_path: Path) -> None:
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    runs = [measured(name, at, {"hit": [centre + d for d in (0.0, -0.1, 0.1)]}) for name, centre in (("off", 2.0), ("shared", 70.0))]
    shared = facts_from(tmp_path, SHARED, runs)

    def found(text: str) -> list[str]:
        return [f.kind for f in lint_text(shared, text + "\n", "log.md")]

    # "prefix" is a word of the metric's name here, not the prefix-sharing experiment: 3.0% is nobody's the
    # sentence names.
    assert found("Its prefix cache hit rate is 3.0%, from accidental overlap only.") == []
    # Must stay flagged: the experiment named besides the metric, by its alias or its label.
    assert found("prefix reaches a prefix cache hit rate of 3.0%.") == [STALE_VALUE]
    assert found("The prefix cache hit rate of Prefix sharing is 3.0%.") == [STALE_VALUE]


def test_a_figure_of_a_result_metric_named_after_it_is_no_load_setting(facts: LintFacts) -> None:
    # The workload offers 6 req/s; CUDA graphs' goodput is 5.50 req/s.
    assert stale(facts, "CUDA graphs delivers 6.00 req/s of goodput.")
    assert stale(facts, "CUDA graphs delivers 6.00 req/s of goodput at full load.")
    # Must stay quiet: the same figure said to be the load.
    assert kinds(facts, "CUDA graphs runs at 6.00 req/s of offered load.") == []
    assert kinds(facts, "CUDA graphs is driven with 6.00 req/s of arrivals.") == []


TIMED = """\
[metrics.e2e]
label = "E2E latency p99"
unit = "s"
direction = "lower"
digits = 1
primary = true

[metrics.warm]
label = "Warm-up time"
unit = "s"
direction = "lower"
digits = 0

[experiments.buckets]
label = "Power-of-two buckets"
aliases = ["buckets"]
"""


def test_a_time_named_by_the_verb_of_what_it_times(tmp_path: Path) -> None:
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    starts = {m: [v + d for d in (0, -0.1, 0.1)] for m, v in (("e2e", 6.0), ("warm", 120.0))}
    timed = facts_from(tmp_path, TIMED, [measured("buckets", at, starts)])

    def found(text: str) -> list[str]:
        return [f.message for f in lint_text(timed, text + "\n", "log.md")]

    # Two metrics in seconds: "warms up in" names the warm-up time (120 s).
    (message,) = found("Power-of-two buckets warms up in 45 s.")
    assert "Warm-up time" in message
    (message,) = found("Power-of-two buckets has an E2E latency p99 of 6.0 s and warms up in 45 s.")
    assert "Warm-up time" in message
    # Must stay quiet: the right warm-up time, and a verb that times nothing the ledger records.
    assert found("Power-of-two buckets warms up in 120 s.") == []
    assert found("Power-of-two buckets finishes a replay in 45 s.") == []
