"""How the lint reads one quantity: where it starts and ends, its value, sign, thousands,
decimals, the hedge before it and whether it is an older value; and the property that a
number written with a declared unit is read back as that number wherever it sits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.lint.quantities import QuantityFinder, bare_numbers, hedge

FINDER = QuantityFinder(["tok/s", "ms", "%", "  ", ""])


def test_offsets_cover_the_number_and_then_its_unit() -> None:
    text = "EAGLE-3 reaches 96.1 tok/s."
    (q,) = FINDER.find(text)
    assert text[q.start : q.end] == "96.1" and text[q.start : q.unit_end] == "96.1 tok/s"
    assert (q.value, q.decimals, q.units) == (96.1, 1, frozenset({"tok/s"}))
    (k,) = FINDER.find("peaks at 9.8k tok/s")
    assert (k.value, k.decimals) == (9800.0, -2)  # to the hundred
    assert "peaks at 9.8k tok/s"[k.start : k.end] == "9.8k"
    (whole,) = FINDER.find("1,234 ms")
    assert (whole.value, whole.decimals) == (1234.0, 0)


def test_a_sign_is_read() -> None:
    assert [q.value for q in FINDER.find("-5%, −2.5% and +3%")] == [-5.0, -2.5, 3.0]
    assert [q.value for q in bare_numbers("-5 and −2.5 and 4")] == [-5.0, -2.5, 4.0]


def test_a_blank_unit_declares_nothing() -> None:
    assert QuantityFinder(["", "  "]).find("96.1 tok/s and 5 ms") == []
    assert [q.units for q in FINDER.find("5 ms")] == [frozenset({"ms"})]


def test_pairs_share_the_second_unit_and_say_which_is_older() -> None:
    def pair(text: str) -> list[tuple[float, str, bool]]:
        return [(q.value, q.bound, q.before) for q in FINDER.find(text)]

    assert pair("54.1 → 96.1 tok/s") == [(54.1, "exact", True), (96.1, "exact", False)]
    assert pair("54.1 -> 96.1 tok/s")[0] == (54.1, "exact", True)
    assert pair("54.1 => 96.1 tok/s")[0][2] is True
    assert pair("54.1 vs 96.1 tok/s") == [(54.1, "exact", False), (96.1, "exact", False)]
    assert pair("54.1 or 96.1 tok/s")[0] == (54.1, "exact", False)
    assert pair("was 54.1 and 96.1 tok/s")[0] == (54.1, "exact", True)
    assert pair("about 54.1 and 96.1 tok/s")[0] == (54.1, "approx", False)
    assert pair("90—95 tok/s") == [(90.0, "lower", False), (95.0, "upper", False)]
    first, second = FINDER.find("54.1 vs 96.1 tok/s")
    assert first.units == second.units == frozenset({"tok/s"}) and first.unit_end == first.end == 4


@pytest.mark.xfail(strict=True, reason="the '>' of an ASCII arrow is read as the hedge 'over' (LOWER_BOUND)")
def test_the_value_after_an_ascii_arrow_is_exact() -> None:
    assert [q.bound for q in FINDER.find("54.1 -> 96.1 tok/s")] == ["exact", "exact"]


def test_a_value_is_older_when_an_arrow_follows_its_unit() -> None:
    (old, new) = FINDER.find("54.1 tok/s → 96.1 tok/s")
    assert old.before and not new.before


def test_hedges_are_read_only_just_before_the_number() -> None:
    assert hedge("about ") == "approx" and hedge("at least ") == "lower" and hedge("at most ") == "upper"
    assert hedge("it was nothing ") == "exact"
    far = "about " + "x" * 30 + " "
    assert hedge(far) == "exact"  # a hedge far before is someone else's
    assert [q.bound for q in FINDER.find("about " + "y" * 40 + " 96.1 tok/s")] == ["exact"]


def test_cells_read_thousands_and_decimals() -> None:
    (k,) = bare_numbers("9.8k")
    assert (k.value, k.decimals, k.end) == (9800.0, -2, 4)
    (plain,) = bare_numbers("≈ 12.50")
    assert (plain.value, plain.decimals, plain.bound, plain.units) == (12.5, 2, "approx", frozenset())


@settings(max_examples=80, deadline=None)
@given(
    value=st.decimals(min_value=0, max_value=99999, places=2, allow_nan=False, allow_infinity=False),
    unit=st.sampled_from(["tok/s", "tokens per second", "ms", "milliseconds", "%"]),
    before=st.sampled_from(["", "The run reached ", "TTFT: ", "(", "now "]),
)
def test_a_number_with_a_declared_unit_is_read_back(value: object, unit: str, before: str) -> None:
    written = f"{value}"
    text = f"{before}{written} {unit}, nothing more."
    (q,) = FINDER.find(text)
    assert q.value == float(written) and text[q.start : q.end] == written
    assert q.decimals == (len(written.split(".")[1]) if "." in written else 0)
    assert q.bound == "exact" and not q.before


def test_a_table_cell_s_number_is_a_current_value_with_no_unit_of_its_own() -> None:
    """A cell's number is never read as an older value: its column says what it is."""
    (cell,) = bare_numbers("~96.10")
    assert (cell.start, cell.end, cell.unit_end, cell.value, cell.decimals) == (1, 6, 6, 96.1, 2)
    assert cell.before is False and cell.units == frozenset() and cell.bound == "approx"


def test_an_older_value_s_cue_at_the_very_start_of_the_text() -> None:
    """The words before a number are read from the text's first character: "was" there
    still makes the figure an older one."""
    finder = QuantityFinder(["tok/s"])
    assert [(q.value, q.before) for q in finder.find("was 54.1 tok/s")] == [(54.1, True)]
    assert [(q.value, q.bound) for q in finder.find("~54 tok/s")] == [(54.0, "approx")]
    assert [(q.value, q.before) for q in finder.find("54.1 tok/s")] == [(54.1, False)]


def test_the_longest_spelling_of_a_unit_wins() -> None:
    """A unit that starts with another one's spelling is read whole."""
    finder = QuantityFinder(["tok", "tok per s"])
    assert [q.units for q in finder.find("5 tok per s")] == [frozenset({"tok per s"})]
    assert [q.units for q in finder.find("5 tok here")] == [frozenset({"tok"})]
