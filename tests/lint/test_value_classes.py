"""Classes of misread values (a number in a metric's unit), each probed with sentences of our own.

The project is the graph-capture one of test_reading_classes: eager mode decodes 1000 tok/s
(goodput 5.00 req/s), CUDA graphs 1200 tok/s (5.50 req/s), torch.compile 1300 tok/s (5.60 req/s).
"""

from __future__ import annotations

from benchdoc.lint import LintFacts
from benchdoc.lint.findings import STALE_VALUE

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
