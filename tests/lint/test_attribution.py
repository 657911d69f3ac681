"""benchdoc.lint.attribution: whose figure a number is, by where it stands in its sentence.

Against a ledger where spec3 (named "speculative decoding with 3 draft steps") measured
1583.6 tok/s in run #2 and 1402.5 in run #3, and the baseline 845.7 in run #1.
"""

from __future__ import annotations

import pytest

from benchdoc.lint import LintFacts
from benchdoc.lint.attribution import Comparison, Place, place
from benchdoc.lint.checker import ProseChecker
from benchdoc.lint.claims import find_claims
from benchdoc.lint.context import Context
from benchdoc.lint.quantities import QuantityFinder
from benchdoc.lint.text import Piece, Unit


def places(facts: LintFacts, sentence: str) -> list[tuple[str, Place]]:
    """Each number of a sentence with its place, as the checker computes them."""
    checker = ProseChecker(facts)
    unit = Unit(sentence, (Piece(0, 1, 1),), (), False)
    mentions = tuple(checker.know.mentions.find(sentence))
    context = Context(unit, "log.md", mentions, None, False)
    comparisons = [checker.claims.parties(context, claim) for claim in find_claims(sentence)]
    quantities = checker.know.quantities.find(sentence)
    return [(sentence[q.start : q.end], place(context, q, quantities, comparisons)) for q in quantities]


def test_a_pair_after_a_comparison_follows_its_order(spec_facts: LintFacts) -> None:
    sentence = "Speculative decoding with 3 draft steps is 87% faster than baseline (1583.6 tok/s vs 845.7 tok/s)."
    assert places(spec_facts, sentence) == [
        ("1583.6", Place("spec3", True)),
        ("845.7", Place("baseline", True)),
    ]


def test_a_pair_sharing_one_unit_and_a_pair_after_two_names(spec_facts: LintFacts) -> None:
    assert places(spec_facts, "Speculative decoding with 3 draft steps against the baseline: 1583.6 vs 845.7 tok/s.") == [
        ("1583.6", Place("spec3", True)),
        ("845.7", Place("baseline", True)),
    ]


def test_the_place_of_something_the_ledger_does_not_name_is_foreign(spec_facts: LintFacts) -> None:
    paired = places(spec_facts, "Spec decoding is 87% faster than baseline (1583.6 tok/s vs 845.7 tok/s).")
    assert paired == [("1583.6", Place(None, False, foreign=True)), ("845.7", Place("baseline", True))]
    (before,) = places(spec_facts, "Spec decoding reaches 1583.6 tok/s, 87% faster than baseline.")
    assert before == ("1583.6", Place(None, False, foreign=True))


@pytest.mark.parametrize(
    "sentence",
    [
        "Speculative decoding with 3 draft steps went from 1583.6 to 1402.5 tok/s.",  # before and after: one experiment
    ],
)
def test_numbers_that_are_no_pair_keep_the_name_before_them(spec_facts: LintFacts, sentence: str) -> None:
    assert all(not where.certain and not where.foreign for _, where in places(spec_facts, sentence))


def test_a_name_of_a_list_followed_at_once_by_its_figure_owns_it(spec_facts: LintFacts) -> None:
    sentence = "Speculative decoding with 3 draft steps reaches 1402.5 tok/s and the baseline 845.7 tok/s."
    # The first figure is the subject's: its clause opens with the name and a verb ("... reaches 1402.5").
    assert places(spec_facts, sentence) == [("1402.5", Place("spec3", True)), ("845.7", Place("baseline", True))]
    assert places(spec_facts, "Throughput: baseline (845.7 tok/s) vs speculative decoding with 3 draft steps (1402.5 tok/s).") == [
        ("845.7", Place("baseline", True)), ("1402.5", Place("spec3", True))]


def test_a_comparison_whose_sides_are_unclear_places_nothing() -> None:
    unit = Unit("A is 5% faster (1.0 vs 2.0 tok/s)", (Piece(0, 1, 1),), (), False)
    context = Context(unit, "log.md", (), "a", False)
    quantities = QuantityFinder(["tok/s"]).find(unit.text)
    unclear = [Comparison(2, None, None)]
    assert [place(context, q, quantities, unclear) for q in quantities] == [Place("a", False), Place("a", False)]
