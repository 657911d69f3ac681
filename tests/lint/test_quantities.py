"""benchdoc.lint.quantities: numbers with the units the project's metrics declare."""

from __future__ import annotations

from benchdoc.lint.quantities import QuantityFinder, bare_numbers

FINDER = QuantityFinder(["tok/s", "ms", "%"])


def found(text: str) -> list[tuple[float, str, bool, frozenset[str]]]:
    return [(q.value, q.bound, q.before, q.units) for q in FINDER.find(text)]


def test_units_and_their_spellings() -> None:
    assert [q[0] for q in found("54.1 tok/s, 1,234 tokens/s, 41 ms and 12.5 milliseconds, 94.0%")] == [
        54.1, 1234.0, 41.0, 12.5, 94.0]
    assert found("96.1tok/s")[0][3] == frozenset({"tok/s"})


def test_versions_model_names_and_bare_counts_are_not_quantities() -> None:
    assert found("CUDA 13.0.1, H100, Llama-3.1-8B, 512 steps, 2 draft steps, TP=8, 5 msgs") == []


def test_hedges_and_before_values() -> None:
    assert found("about 90 tok/s")[0][1] == "approx"
    assert found("over 90 tok/s")[0][1] == "lower"
    assert found("up to 90 tok/s")[0][1] == "upper"
    assert found("from 54.1 to 96.1 tok/s") == [
        (54.1, "exact", True, frozenset({"tok/s"})), (96.1, "exact", False, frozenset({"tok/s"}))]
    assert found("(54.1 vs 89.5 tok/s)")[0][:2] == (54.1, "exact")
    assert found("90–95 tok/s") == [(90.0, "lower", False, frozenset({"tok/s"})), (95.0, "upper", False, frozenset({"tok/s"}))]
    assert found("54.1 → 96.1 tok/s")[0][2] is True
    assert found("96.1 ± 0.4 tok/s")[0][0] == 96.1


def test_bare_numbers_in_cells() -> None:
    assert [n.value for n in bare_numbers("  **1,510.2** ± 0.3% ")] == [1510.2, 0.3]
    assert bare_numbers("—") == []
