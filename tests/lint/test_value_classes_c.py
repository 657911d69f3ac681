"""Classes of misread values found on the third batch of development logs, each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(TTFT p50 200 ms, TTFT p99 500 ms), CUDA graphs 1200 tok/s, torch.compile 1300 tok/s (TTFT p99
450 ms, run 2026-11-05 09:00) on engine 1.3.0, superseding torch.compile on engine 1.2.0 at
1100 tok/s (2026-11-03). A second project holds an offload experiment whose label carries its setting.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_VALUE
from benchdoc.results import build_results

from .test_reading_classes import facts, kinds, lint

__all__ = ["facts"]


def test_a_machine_team_or_colleague_outside_the_ledger_owns_the_figure(facts: LintFacts) -> None:
    for sentence in (
        "On the A10G pool, CUDA graphs decodes 1,500 tok/s.",
        "From a rented box in another region CUDA graphs decoded 1,500 tok/s.",
        "On the staging node CUDA graphs reaches 1,500 tok/s.",
        "CUDA graphs decodes 1,500 tok/s (their numbers, not in our ledger).",
        "Another team's harness has CUDA graphs at 1,500 tok/s.",
        "On the laptop of my colleague CUDA graphs managed 1,500 tok/s.",
    ):
        assert kinds(facts, sentence) == [], sentence
    # Must stay flagged: a place that names no other hardware, and the bare figure.
    assert [f.kind for f in lint(facts, "On the same node, CUDA graphs decodes 1,500 tok/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "On the bench node, CUDA graphs decodes 1,500 tok/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s.")] == [STALE_VALUE]


def test_a_threshold_is_no_result(facts: LintFacts) -> None:
    for sentence in (
        "torch.compile's TTFT p99 is 450 ms, comfortably below the 700 ms alarm.",
        "The thresholds we hold releases to, 300 ms TTFT p50 and 900 ms TTFT p99, are met by torch.compile.",
        "CUDA graphs TTFT p99 must stay under a 650 ms hard limit.",
    ):
        assert kinds(facts, sentence) == [], sentence
    # Must stay flagged: the same figures said to be measured; a figure after the experiment named past the word.
    assert [f.kind for f in lint(facts, "torch.compile's TTFT p99 is 700 ms.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "Thresholds aside, torch.compile's TTFT p99 is 700 ms.")] == [STALE_VALUE]


def test_a_condition_after_the_figure_names_a_setup_the_ledger_does_not(facts: LintFacts) -> None:
    assert kinds(facts, "CUDA graphs decodes 1,500 tok/s when every prompt hits the cache.") == []
    assert kinds(facts, "CUDA graphs decodes 1,500 tok/s if we pin the clocks.") == []
    # Must stay flagged: no condition, or words after it that are no condition.
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s, which we ship.")] == [STALE_VALUE]


def test_a_log_entry_stamped_with_a_time_speaks_of_that_time(facts: LintFacts) -> None:
    # The old torch.compile's 1,100 tok/s before the new one ran (11-05 09:00), on another day or the same.
    assert kinds(facts, "- **11-04 10:00** · torch.compile decodes 1,100 tok/s.") == []
    assert kinds(facts, "11-05 08:30  torch.compile decodes 1,100 tok/s.") == []
    # Must stay flagged: a stamp after the new run, and an unstamped line.
    assert [f.kind for f in lint(facts, "11-05 10:30  torch.compile decodes 1,100 tok/s.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "torch.compile decodes 1,100 tok/s.")] == [STALE_VALUE]


OFFLOAD = """\
[metrics.mem_gb]
label = "Peak GPU memory"
unit = "GB"
direction = "lower"
digits = 1
primary = true

[experiments.off8]
label = "Offload, 8 GB CPU"
aliases = ["offload-8"]
"""


def _offload_facts(root: Path) -> LintFacts:
    config = parse_config(OFFLOAD, root / "benchdoc.toml")
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        samples = [Sample("mem_gb", v, i, i) for i, v in enumerate((30.0, 30.1, 29.9))]
        ledger.record_run(NewRun(experiment="off8", samples=samples, started_at=at,
                                 finished_at=at + timedelta(minutes=5), host="gpu-a", environment={}))
        return facts_from_results(build_results(config, ledger))


def test_a_figure_the_experiment_s_label_carries_is_its_setting(tmp_path: Path) -> None:
    facts = _offload_facts(tmp_path)
    found = [(f.kind, f.text) for f in lint_text(facts, "Going from 4 GB to 8 GB of offload, offload-8 peaks at 30.0 GB.\n", "log.md")]
    assert found == []
    # Must stay flagged: a peak that is no setting.
    found = [(f.kind, f.text) for f in lint_text(facts, "offload-8 peaks at 34.0 GB.\n", "log.md")]
    assert found == [(STALE_VALUE, "34.0 GB")]


def test_a_price_column_is_not_the_metric_its_denominator_names(facts: LintFacts) -> None:
    table = "| config | Decode speed | {header} |\n|---|---|---|\n| CUDA graphs | 1200 tok/s | 0.45 |"
    assert kinds(facts, table.format(header="$ per 1M decoded tok/s")) == []
    assert kinds(facts, table.format(header="Cost per 1k tokens (USD)")) == []
    # Must stay flagged: a column in the metric's own unit.
    assert [f.kind for f in lint(facts, table.format(header="Decode (tok/s)").replace("0.45", "1500"))] == [STALE_VALUE]


def test_a_name_only_compared_with_does_not_own_the_figure(facts: LintFacts) -> None:
    # The subject is unnamed (a section's); the figure is never eager's.
    assert kinds(facts, "Decode vs eager: 1,150 tok/s, +15%.") == []
    assert kinds(facts, "Compared with eager, decode reaches 1,150 tok/s.") == []
    # Must stay flagged: a figure the words give to the compared name ("eager at ..."), or its own subject's.
    assert [f.kind for f in lint(facts, "Compared with eager at 1,150 tok/s, decode is up.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s, against eager.")] == [STALE_VALUE]


def test_a_figure_first_table_row_is_read_by_its_label(facts: LintFacts) -> None:
    head = "| | |\n|---|---|\n"
    # The label dates the row: the old torch.compile's result, measured before the new one ran.
    assert kinds(facts, head + "| 1,100 tok/s | torch.compile on 11-03, before the upgrade |") == []
    assert [f.kind for f in lint(facts, head + "| 1,100 tok/s | torch.compile on 11-06 |")] == [STALE_VALUE]
    # The label names the metric of the figure: eager's TTFT p99 is 500 ms.
    assert kinds(facts, head + "| 500 ms | eager TTFT p99 |") == []
    (value,) = lint(facts, head + "| 650 ms | eager TTFT p99 |")
    assert value.kind == STALE_VALUE and "eager.ttft_ms_p99 -->500<" in value.fix
    # Must stay quiet: a figure in another unit than the metric the label names.
    assert kinds(facts, head + "| 650 tok/s | eager TTFT p99 |") == []


def test_the_before_side_of_a_change_named_after_the_figure_does_not_own_it(facts: LintFacts) -> None:
    # The subject is unnamed (a section's); "from eager's 500 ms" names only the before side.
    assert kinds(facts, "TTFT p99 drops to 430 ms from eager's 500 ms.") == []
    assert kinds(facts, "Decode is 1.1x faster than eager's, and TTFT p99 drops to 430 ms from eager's 500 ms.") == []
    # Must stay flagged: the subject named, and eager's own figure wrong.
    (value,) = lint(facts, "TTFT p99 drops to 430 ms on CUDA graphs, from eager's 500 ms.")
    assert value.kind == STALE_VALUE and "graphs.ttft_ms_p99 -->400<" in value.fix
    assert [f.kind for f in lint(facts, "Eager's TTFT p99 is 530 ms, worse than CUDA graphs.")] == [STALE_VALUE]


SHARE = """\
[metrics.req_tok_s]
label = "Per-request decode speed"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[experiments.guided]
label = "Guided decoding"
aliases = ["guided"]
"""


def test_a_share_the_metric_s_own_label_names_is_the_metric(tmp_path: Path) -> None:
    config = parse_config(SHARE, tmp_path / "benchdoc.toml")
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        samples = [Sample("req_tok_s", v, i, i) for i, v in enumerate((50.0, 50.2, 49.8))]
        ledger.record_run(NewRun(experiment="guided", samples=samples, started_at=at,
                                 finished_at=at + timedelta(minutes=5), host="gpu-a", environment={}))
        facts = facts_from_results(build_results(config, ledger))

    def found(text: str) -> list[tuple[str, str]]:
        return [(f.kind, f.text) for f in lint_text(facts, text + "\n", "log.md")]

    assert found("Guided decoding streams 50 tok/s per request.") == []
    assert found("Guided decoding streams 70 tok/s per request.") == [(STALE_VALUE, "70 tok/s")]
    # Must stay quiet: a share the label does not name.
    assert found("Guided decoding streams 70 tok/s per GPU.") == []


FLEET = """\
[metrics.goodput]
label = "Goodput"
unit = "req/s"
direction = "higher"
digits = 1
primary = true

[experiments.single]
label = "One replica"
aliases = ["single"]

[experiments.scaled]
label = "Queue-depth autoscaling"
aliases = ["autoscaler"]
compare_to = "single"
"""


def test_a_replica_count_does_not_hide_the_figure_of_an_experiment_that_is_a_fleet(tmp_path: Path) -> None:
    config = parse_config(FLEET, tmp_path / "benchdoc.toml")
    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        samples = [Sample("goodput", v, i, i) for i, v in enumerate((4.0, 4.1, 3.9))]
        ledger.record_run(NewRun(experiment="single", samples=samples, started_at=at,
                                 finished_at=at + timedelta(minutes=5), host="gpu-a", environment={}))
        facts = facts_from_results(build_results(config, ledger))

    def found(text: str) -> list[str]:
        return [f.kind for f in lint_text(facts, text + "\n", "log.md")]

    # The autoscaler never ran: its fleet's figure is a result the ledger does not have.
    assert found("The autoscaler ran 5 replicas on average, 19.0 req/s goodput.") == [STALE_VALUE]
    # Must stay quiet: replicas of a single-replica setup are capacity arithmetic, not its result.
    assert found("Five replicas of single cover 20.0 req/s.") == []


def test_a_metric_named_whole_wins_over_one_named_by_a_shared_word(facts: LintFacts) -> None:
    # "Decode speed" and "Prefill speed" share "speed"; "decode speed" names one of them whole.
    (value,) = lint(facts, "CUDA graphs decode speed is 1,500 tok/s.")
    assert value.kind == STALE_VALUE and "graphs.decode_tok_s -->1200<" in value.fix
    table = "| | | |\n|---|---|---|\n| CUDA graphs prefill speed | 9,000 tok/s | measured |"
    (value,) = lint(facts, table)
    assert value.kind == STALE_VALUE and "graphs.prefill_tok_s -->8100<" in value.fix
    # Must stay quiet: only the shared word, which names neither metric beyond doubt.
    assert kinds(facts, "CUDA graphs speed is 1,500 tok/s and 9,000 tok/s.") == []
