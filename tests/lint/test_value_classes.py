"""Classes of misread values (a number in a metric's unit), each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(goodput 5.00 req/s), CUDA graphs 1200 tok/s (5.50 req/s), torch.compile 1300 tok/s (5.60 req/s).
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


def test_a_header_s_load_or_denominator_is_not_the_unit_of_its_cells(facts: LintFacts) -> None:
    # Counts sized for a load, and a cost per unit of goodput: none is a goodput.
    sizing = ("| config | Goodput (req/s) | Servers for 50 req/s | Servers (80 req/s) | $/h per req/s of goodput |\n"
              "|---|---|---|---|---|\n| CUDA graphs | {goodput} | 10 | 15 | 0.41 |")
    assert kinds(facts, sizing.format(goodput="5.50")) == []
    # Must stay flagged: the column whose own unit is req/s.
    (value,) = lint(facts, sizing.format(goodput="6.10"))
    assert value.kind == STALE_VALUE and "graphs.goodput_req_s -->5.50<" in value.fix
    # A unit spelled with "per" is still the column's own.
    speed = "| config | decode, tokens per second |\n|---|---|\n| CUDA graphs | {v} |"
    assert kinds(facts, speed.format(v="1200")) == []
    assert [f.kind for f in lint(facts, speed.format(v="1500"))] == [STALE_VALUE]


def test_a_figure_in_a_clause_whose_subject_is_it_is_the_comparison_s_subject(facts: LintFacts) -> None:
    # torch.compile decodes 1300 tok/s, 30% faster than eager (1000 tok/s).
    said = "torch.compile is 30% faster than eager on decode, and it decodes {v} tok/s."
    assert kinds(facts, said.format(v="1,300")) == []
    (value,) = lint(facts, said.format(v="1,450"))
    assert value.kind == STALE_VALUE and "compile.decode_tok_s -->1300<" in value.fix
    # Must stay: a clause that names its own subject is that subject's, and eager's figure is right.
    assert kinds(facts, "torch.compile is 30% faster than eager on decode, and eager decodes 1,000 tok/s.") == []


def test_a_rate_in_bits_is_not_a_figure_in_bytes(tmp_path: Path) -> None:
    facts = _bandwidth_facts(tmp_path)
    # A link's rate in bits beside the experiment: not its bus bandwidth in bytes.
    assert _kinds(facts, "Ring-8 runs over two 200 Gb/s links (25 Gbps each way).") == []
    # Must stay flagged: the same number in bytes.
    assert [f.kind for f in lint_text(facts, "Ring-8 reaches 200 GB/s.\n", "log.md")] == [STALE_VALUE]


def test_a_second_figure_after_a_word_of_contrast_is_not_the_first_one_s_owner_s(tmp_path: Path) -> None:
    facts = _bandwidth_facts(tmp_path)
    # The other side ("on a single socket") is no experiment the ledger holds.
    assert _kinds(facts, "Bus bandwidth is 150 GB/s for Ring-8, against about 300 GB/s on a single socket.") == []
    # Must stay flagged: the first figure is Ring-8's, and wrong.
    assert [f.text for f in lint_text(facts, "Bus bandwidth is 170 GB/s for Ring-8, against about 300 GB/s.\n",
                                      "log.md")] == ["170 GB/s"]


def test_a_verb_of_memory_names_the_memory_metric_and_a_device_s_share_is_its_sense(tmp_path: Path) -> None:
    facts = _bandwidth_facts(tmp_path)  # Ring-8 holds 30.0 GiB per GPU
    assert _kinds(facts, "Ring-8 uses 30.0 GiB, and it needs 30.0 GiB per GPU at peak.") == []
    assert [f.text for f in lint_text(facts, "Ring-8 uses 34.5 GiB.\n", "log.md")] == ["34.5 GiB"]
    assert [f.text for f in lint_text(facts, "Ring-8 peaks at 34.5 GiB per GPU.\n", "log.md")] == ["34.5 GiB"]
    assert [f.text for f in lint_text(facts, "On this card Ring-8 needs 34.5 GiB.\n", "log.md")] == ["34.5 GiB"]
    # Must stay quiet: a hedge.
    assert _kinds(facts, "If we add the draft, Ring-8 would need 34.5 GiB.") == []


BANDWIDTH = """\
[metrics.busbw]
label = "bus bandwidth"
unit = "GB/s"
direction = "higher"
digits = 0
primary = true

[metrics.mem]
label = "GPU memory"
unit = "GiB"
direction = "lower"
digits = 1

[experiments.ring8]
label = "Ring-8"
"""


def _bandwidth_facts(root: Path) -> LintFacts:
    config = parse_config(BANDWIDTH, root / "benchdoc.toml")
    at = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        samples = [Sample("busbw", v, i, i) for i, v in enumerate((150.0, 149.0, 151.0, 150.5, 149.5))]
        samples += [Sample("mem", 30.0, i, i) for i in range(5)]
        ledger.record_run(NewRun(experiment="ring8", samples=samples, started_at=at,
                                 finished_at=at + timedelta(minutes=5), host="gpu-a", environment={}))
        return facts_from_results(build_results(config, ledger))


def _kinds(facts: LintFacts, text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in lint_text(facts, text + "\n", "log.md")]


def test_a_name_after_n_percent_above_is_a_target_and_owns_only_its_own_figure(facts: LintFacts) -> None:
    # The subject is no experiment the ledger names; eager is only what it is compared with.
    said = "The nightly build decodes 1,300 tok/s, 30% above eager's {v} tok/s, with TTFT p50 at 150 ms."
    assert [f for f in lint(facts, said.format(v="1,000")) if f.kind == STALE_VALUE] == []
    # Must stay flagged: the target's own figure, right after its name, is still the target's.
    (value,) = [f for f in lint(facts, said.format(v="900")) if f.kind == STALE_VALUE]
    assert value.text == "900 tok/s" and "eager.decode_tok_s -->1000<" in value.fix


def test_a_fleet_s_figure_is_not_one_copy_s_result(facts: LintFacts) -> None:
    # CUDA graphs' goodput is 5.50 req/s.
    assert kinds(facts, "With CUDA graphs, 9 replicas absorb 48 req/s at peak.") == []
    # Must stay flagged: the setup's own figure, and one copy's figure, which is the setup's.
    (value,) = lint(facts, "With CUDA graphs, goodput is 4.80 req/s.")
    assert value.kind == STALE_VALUE and "graphs.goodput_req_s -->5.50<" in value.fix
    assert [f.kind for f in lint(facts, "CUDA graphs manages 4.80 req/s per replica.")] == [STALE_VALUE]


def test_a_proposal_s_figure_is_a_plan(facts: LintFacts) -> None:
    assert kinds(facts, "We propose to run CUDA graphs at 4.00 req/s of goodput in production.") == []
    (value,) = lint(facts, "We ran CUDA graphs: 4.00 req/s of goodput.")
    assert value.kind == STALE_VALUE


def test_a_figure_the_sentence_calls_not_comparable_is_left_alone(facts: LintFacts) -> None:
    said = "The first CUDA graphs run used an older prompt set; its 4.00 req/s of goodput is {rest}."
    assert kinds(facts, said.format(rest="not comparable")) == []
    assert [f.kind for f in lint(facts, said.format(rest="our reference"))] == [STALE_VALUE]


def test_a_change_on_a_name_makes_it_the_target(facts: LintFacts) -> None:
    # The subject is unnamed; eager (goodput 5.00 req/s) is what it is compared with.
    said = "Batching more aggressively lifts decode by a fifth (up 20% on eager's {v}), and goodput is 5.90 req/s."
    assert [f for f in lint(facts, said.format(v="1,000 tok/s")) if f.kind == STALE_VALUE] == []
    # Must stay: a plain "62% on X" is X's figure, and a name before its own figure still owns it.
    (value,) = [f for f in lint(facts, "Goodput is 5.90 req/s on eager.") if f.kind == STALE_VALUE]
    assert "eager.goodput_req_s -->5.00<" in value.fix


def test_a_name_after_up_from_owns_the_earlier_figure_only(facts: LintFacts) -> None:
    assert kinds(facts, "TTFT p50 150 ms, down from 200 ms on eager.") == []
    # Must stay flagged: the same figure said of eager itself.
    (value,) = lint(facts, "TTFT p50 150 ms on eager.")
    assert value.kind == STALE_VALUE and "eager.ttft_ms_p50 -->200<" in value.fix


def test_a_label_before_a_colon_names_the_metric_of_a_name_s_figure(facts: LintFacts) -> None:
    assert kinds(facts, "TTFT p99: CUDA graphs 400 ms.") == []
    (value,) = lint(facts, "TTFT p99: CUDA graphs 470 ms.")
    assert value.kind == STALE_VALUE and "graphs.ttft_ms_p99 -->400<" in value.fix
    # Must stay quiet: no label, and two metrics in ms: which one is unclear.
    assert kinds(facts, "CUDA graphs 470 ms.") == []


def test_a_clause_that_opens_with_a_name_and_a_verb_owns_its_figure(facts: LintFacts) -> None:
    said = "CUDA graphs sustains {v} req/s of goodput, and torch.compile is 30% faster than eager."
    assert kinds(facts, said.format(v="5.50")) == []
    (value,) = [f for f in lint(facts, said.format(v="6.10")) if f.kind == STALE_VALUE]
    assert "graphs.goodput_req_s -->5.50<" in value.fix
    # Must stay quiet: a figure after a second name in its clause is not placed by this rule.
    assert [f for f in lint(facts, "Against eager, torch.compile and CUDA graphs sustain 6.10 req/s.")
            if f.kind == STALE_VALUE and "compile" in f.fix] == []


def test_a_trailing_with_after_a_comparison_speaks_of_its_subject(facts: LintFacts) -> None:
    said = "torch.compile cuts TTFT p50 by 15% vs eager, with a goodput of {v} req/s."
    assert kinds(facts, said.format(v="5.60")) == []
    (value,) = [f for f in lint(facts, said.format(v="6.20")) if f.kind == STALE_VALUE]
    assert "compile.goodput_req_s -->5.60<" in value.fix
    # Must stay: a "with" that names its own owner is that owner's.
    assert kinds(facts, "torch.compile cuts TTFT p50 by 15% vs eager, with eager at 5.00 req/s of goodput.") == []


def test_a_pair_whose_only_name_is_the_target_is_the_unnamed_subject_s_then_the_target_s(facts: LintFacts) -> None:
    # Goodput: eager 5.00 req/s. The subject (a change the ledger does not name) comes first.
    assert kinds(facts, "Goodput is on par with eager within noise: 5.70 vs 5.00 req/s.") == []
    assert kinds(facts, "Goodput barely moves: ~5.70 vs ~5.00 req/s on eager.") == []
    # Must stay flagged: the target's own figure, second in the pair, when wrong.
    (value,) = lint(facts, "Goodput is on par with eager within noise: 5.70 vs 4.20 req/s.")
    assert value.text == "4.20 req/s" and "eager.goodput_req_s -->5.00<" in value.fix


def test_a_sentence_that_opens_with_it_and_a_verb_speaks_of_the_last_subject(facts: LintFacts) -> None:
    said = "Re-ran CUDA graphs on the new driver. It now sustains {v} req/s of goodput, against 5.00 req/s for eager."
    assert kinds(facts, said.format(v="5.50")) == []
    (value,) = lint(facts, said.format(v="6.10"))
    assert value.kind == STALE_VALUE and "graphs.goodput_req_s -->5.50<" in value.fix
    # Must stay: a sentence that names its own subject after "it" is not the previous subject's.
    assert kinds(facts, "Re-ran CUDA graphs on the new driver. It matters that eager sustains 5.00 req/s.") == []


def test_an_approximate_figure_whose_place_is_certain_is_weighed_against_its_owner_only(facts: LintFacts) -> None:
    # Eager decodes 1000 tok/s; "~1.2k" is CUDA graphs' figure, not eager's.
    assert kinds(facts, "Eager decodes ~1.0k tok/s, well behind CUDA graphs.") == []
    (value,) = [f for f in lint(facts, "Eager decodes ~1.2k tok/s, well behind CUDA graphs.") if f.kind == STALE_VALUE]
    assert "eager.decode_tok_s -->1000<" in value.fix
    # Must stay quiet: an exact figure that is the other named experiment's, where its place is unsure.
    assert [f for f in lint(facts, "Against eager, CUDA graphs and torch.compile decode 1,200 tok/s.")
            if f.kind == STALE_VALUE] == []
