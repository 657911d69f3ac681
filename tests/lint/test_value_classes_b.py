"""Classes of misread values found on the second batch of development logs, each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(goodput 5.00 req/s, offered at 6.0 req/s), CUDA graphs 1200 tok/s (5.50 req/s), torch.compile
1300 tok/s on engine 1.3.0, superseding torch.compile on engine 1.2.0 at 1100 tok/s. A second
project holds a transfer experiment whose latest run failed after a successful one.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE
from benchdoc.results import build_results

from .test_reading_classes import facts, kinds, lint

__all__ = ["facts"]


def test_a_clause_after_a_semicolon_that_disowns_the_figures_before_it(facts: LintFacts) -> None:
    for disowning in ("that was a colleague's box, another machine", "different hardware, so not our number",
                      "we have not reproduced it", "that's theirs, on a different workload"):
        assert kinds(facts, f"On a rented node CUDA graphs decodes 1,500 tok/s; {disowning}.") == [], disowning
    # A claim disowned the same way.
    assert kinds(facts, "Their write-up has CUDA graphs at 2x eager; we have not run it here.") == []
    # Must stay flagged: a clause after the semicolon that owns the figure, and a disowning clause in
    # another sentence.
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s; that is our reference.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s. Another machine does better.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s; the other machines do better.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs decodes 1,500 tok/s; that is not our bottleneck.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "CUDA graphs is 2x eager; that settles it.")] == [STALE_CLAIM]


def test_a_past_figure_within_a_start_s_spread_of_a_recorded_run_quotes_that_run(facts: LintFacts) -> None:
    # The old torch.compile's run recorded 5.20 req/s of goodput; a start of it may read 5.25.
    assert kinds(facts, "Before the engine upgrade, torch.compile managed 5.25 req/s of goodput.") == []
    # Must stay flagged: the same figure said of today, and a past figure far from every recorded run.
    assert [f.kind for f in lint(facts, "torch.compile manages 5.25 req/s of goodput.")] == [STALE_VALUE]
    assert [f.kind for f in lint(facts, "Before the engine upgrade, torch.compile managed 4.00 req/s of goodput.")] \
        == [STALE_VALUE]


def test_near_before_a_figure_makes_it_approximate(facts: LintFacts) -> None:
    from benchdoc.lint.quantities import hedge

    assert hedge("a TTFT p99 near ") == "approx"
    assert hedge("nearly ") == "approx"
    # Must stay exact: a word that only ends in "near".
    assert hedge("the linear ") == "exact"


def test_a_result_metric_s_name_before_an_equals_sign_makes_the_figure_its_value(facts: LintFacts) -> None:
    (value,) = lint(facts, "CUDA graphs goodput = 4.80 req/s")
    assert value.kind == STALE_VALUE and "graphs.goodput_req_s -->5.50<" in value.fix
    assert kinds(facts, "CUDA graphs goodput = 5.50 req/s") == []
    # Must stay quiet: an "=" after a load's word sets the load (eager's workload offers 6.0 req/s).
    assert kinds(facts, "CUDA graphs at rate = 6.00 req/s keeps its SLO.") == []
    assert kinds(facts, "CUDA graphs @ 6.00 req/s keeps its SLO.") == []


def test_a_quoted_specification_is_no_result(facts: LintFacts) -> None:
    said = "CUDA graphs keeps 5.50 req/s of goodput, well short of what the vendor advertises for this card (9.00 req/s)."
    assert kinds(facts, said) == []
    assert kinds(facts, "The datasheet lists 9.00 req/s for this card, and CUDA graphs keeps 5.50 req/s of goodput.") == []
    # Must stay flagged: the experiment's own figure, and one named between the words and the figure.
    assert [f.text for f in lint(facts, "CUDA graphs keeps 9.00 req/s of goodput on this card.")] == ["9.00 req/s"]
    assert [f.text for f in lint(facts, "The spec sheet has CUDA graphs at 9.00 req/s of goodput.")] == ["9.00 req/s"]
    assert [f.text for f in lint(facts, "Our summary lists 9.00 req/s of goodput for CUDA graphs.")] == ["9.00 req/s"]
    # "spec" alone is speculative decoding as often as a specification: "(no spec)" names a setup.
    assert [f.text for f in lint(facts, "CUDA graphs (no spec) keeps 9.00 req/s of goodput.")] == ["9.00 req/s"]


TRANSFER = """\
[metrics.tok_s]
label = "output throughput"
unit = "tok/s"
direction = "higher"
digits = 0
primary = true

[metrics.xfer_gbs]
label = "transfer bandwidth"
unit = "GB/s"
direction = "higher"
digits = 1

[experiments.gds]
label = "Direct reads"
aliases = ["direct"]
"""


def _transfer_facts(root: Path) -> LintFacts:
    config = parse_config(TRANSFER, root / "benchdoc.toml")
    first = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    later = datetime(2026, 11, 29, 9, tzinfo=timezone.utc)
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        samples = [Sample("tok_s", v, i, i) for i, v in enumerate((3400.0, 3410.0, 3390.0))]
        samples += [Sample("xfer_gbs", v, i, i) for i, v in enumerate((19.6, 19.7, 19.5))]
        ledger.record_run(NewRun(experiment="gds", samples=samples, started_at=first,
                                 finished_at=first + timedelta(minutes=5), host="gpu-a", environment={}))
        ledger.record_run(NewRun(experiment="gds", outcome="failed", samples=[], started_at=later,
                                 finished_at=later + timedelta(minutes=1), failure_reason="driver not loaded",
                                 host="gpu-a", environment={}))
        return facts_from_results(build_results(config, ledger))


def _found(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint_text(facts, text + "\n", "log.md")]


def test_a_figure_dated_before_a_failure_is_that_day_s(tmp_path: Path) -> None:
    facts = _transfer_facts(tmp_path)
    for dated in ("on 11/20", "on 2026-11-20", "on Nov 20"):
        assert _found(facts, f"Direct reads {dated}: ~3,400 tok/s and 19.6 GB/s.") == [], dated
    assert _found(facts, "Direct reads (Nov 20): ~3,400 tok/s.") == []
    # Must stay flagged: the same figure undated (the experiment has no result now), and one dated after the failure.
    assert [k for k, _ in _found(facts, "Direct reads: ~3,400 tok/s.")] == [STALE_VALUE]
    assert [k for k, _ in _found(facts, "Direct reads on 12/02: ~3,400 tok/s.")] == [STALE_VALUE]


def test_a_figure_carried_over_a_link_is_not_a_difference(tmp_path: Path) -> None:
    facts = _transfer_facts(tmp_path)
    # Must be read: "over RDMA" is the link the transfer crosses.
    assert [t for _, t in _found(facts, "On 11/20 direct reads moved 25.0 GB/s over RDMA.")] == []  # dated: that day's
    (value,) = _found(facts, "Direct reads' transfer bandwidth is 25.0 GB/s over NVLink today, after the fix.")
    assert value[1] == "25.0 GB/s"
    # Must stay quiet: "over" another figure or setup is a difference.
    assert _found(facts, "Direct reads' transfer bandwidth is 5.0 GB/s over the host-bounce path.") == []
