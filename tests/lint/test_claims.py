"""benchdoc.lint.claims: the shape of relative claims."""

from __future__ import annotations

from benchdoc.lint.claims import BAD, DOWN, GOOD, SIGNED, UP, find_claims


def shape(text: str) -> list[tuple[float, bool, str, float, str, str | None]]:
    result = []
    for c in find_claims(text):
        target = text[c.object_at :] if c.object_at is not None else None
        result.append((c.value, c.factor, c.polarity, c.sign, c.bound, target))
    return result


def test_percent_claims_with_and_without_a_target() -> None:
    assert shape("EAGLE-3 is 40% slower than baseline (54.1 tok/s)") == [
        (40.0, False, BAD, 1.0, "exact", "baseline (54.1 tok/s)")]
    assert shape("a 3.5% gain")[0][:3] == (3.5, False, GOOD)
    assert shape("is ~12% faster on this workload than the baseline") == [
        (12.0, False, GOOD, 1.0, "approx", "baseline")]
    assert shape("20% lower TTFT than BF16")[0][2] == DOWN
    assert shape("1.9% more output throughput")[0][2] == UP


def test_signed_factor_and_verb_claims() -> None:
    assert shape("LL128 (1601.5 tok/s, +5.1% over Ring).") == [(5.1, False, SIGNED, 1.0, "exact", "Ring).")]
    assert shape("PLD is -0.3% vs defaults")[0][:4] == (0.3, False, SIGNED, -1.0)
    assert shape("max-bs 256 is 1.5x faster than the stack") == [(1.5, True, GOOD, 1.0, "exact", "stack")]
    assert shape("LL128 gives 1.5× the throughput of Ring") == [(1.5, True, UP, 1.0, "exact", "Ring")]
    assert shape("EAGLE-3 cuts ITL by 8% relative to the baseline")[0][2:] == (DOWN, 1.0, "exact", "baseline")
    assert shape("Q5 costs 11% of generation speed against Q4")[0][2:] == (BAD, 1.0, "exact", "Q4")
    assert shape("flash attention adds 0.5% to generation")[0][:3] == (0.5, False, GOOD)


def test_no_claim_without_a_direction_word() -> None:
    assert find_claims("70% of each prompt is shared; 95% hit rate; 1% of GSM8K accuracy") == []
    assert find_claims("-5% faster") == []
