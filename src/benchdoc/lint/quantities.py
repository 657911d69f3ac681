"""Numbers with units in a sentence: "54.1 tok/s", "~41 ms", "89.5 vs 92.6 tok/s".

A number counts only with a unit some metric declares (or, in a table cell, under a
header that names a metric). Versions ("13.0.1"), model names ("H100", "8B"), counts
without a unit and numbers glued to words are never quantities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from benchdoc.lint.words import (
    APPROXIMATE,
    ARROW_AFTER,
    BEFORE_NUMBER,
    LOWER_BOUND,
    UNIT_SPELLINGS,
    UPPER_BOUND,
)

NUMBER = r"(?<![\w.\-/])(?P<sign>[+\-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w.,]?\d)"
_BARE_NUMBER = re.compile(NUMBER)
_PLUS_MINUS = r"(?:\s*(?:±|\+/-|\+-)\s*\d+(?:\.\d+)?\s*%?)?"
_PAIR_BEFORE = re.compile(
    r"(?<![\w.\-/])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)" + _PLUS_MINUS
    + r"\s*(?P<link>to|vs\.?|versus|against|and|or|→|->|=>|–|—|/)\s*$",
    re.IGNORECASE,
)
_LOOKBACK = 40  # characters read before a number for its hedges


@dataclass(frozen=True)
class Quantity:
    start: int  # offset of the number in the text
    end: int  # end of the number (not of the unit)
    value: float
    decimals: int  # digits written after the point
    units: frozenset[str]  # the declared units (lowercased) it may be in; empty for a bare number
    bound: str  # "exact", "approx", "lower" (at least) or "upper" (at most)
    before: bool  # in a "from N", "was N" or "N ->" position: an older value by construction
    unit_end: int  # end of the unit (== end for a bare number)


class QuantityFinder:
    """Finds numbers followed by any spelling of the units the project's metrics use."""

    def __init__(self, units: Iterable[str]) -> None:
        spellings: dict[str, set[str]] = {}
        for unit in units:
            key = unit.strip().lower()
            if not key:
                continue
            for spelling in {key, *UNIT_SPELLINGS.get(key, ())}:
                spellings.setdefault(spelling, set()).add(key)
        self._spellings = {s: frozenset(keys) for s, keys in spellings.items()}
        ordered = sorted(self._spellings, key=len, reverse=True)
        alternation = "|".join(re.escape(s).replace(r"\ ", r"\s+") for s in ordered)
        self._pattern = (
            re.compile(NUMBER + r"(?P<kilo>[kK](?![A-Za-z]))?" + _PLUS_MINUS + r"\s*(?P<unit>" + alternation + r")(?![\w/])",
                       re.IGNORECASE)
            if ordered
            else None
        )

    def find(self, text: str) -> list[Quantity]:
        """Every number with a unit, plus the first number of "A vs B unit" pairs (which share B's unit)."""
        if self._pattern is None:
            return []
        found: list[Quantity] = []
        for match in self._pattern.finditer(text):
            if _BITS.search(match.group("unit")):
                continue  # "400 Gb/s", "25 Gbps": a link's rate in bits, not a figure in bytes
            unit = " ".join(match.group("unit").lower().split())
            units = self._spellings.get(unit, frozenset())
            start, end = match.span("num")
            if match.group("kilo"):
                end = match.end("kilo")
            sign = -1.0 if match.group("sign") in ("-", "−") else 1.0
            after = text[match.end() :]
            bound = hedge(text[max(0, match.start() - _LOOKBACK) : match.start()])
            is_before = bool(BEFORE_NUMBER.search(text[max(0, match.start() - _LOOKBACK) : match.start()]))
            is_before = is_before or bool(ARROW_AFTER.match(after))
            pair = _PAIR_BEFORE.search(text, max(0, match.start() - _LOOKBACK), match.start())
            if pair is not None:
                link = pair.group("link").lower()
                first_bound = hedge(text[max(0, pair.start() - _LOOKBACK) : pair.start()])
                if link in ("–", "—"):  # a range: "90–95 tok/s"
                    first_bound, bound = "lower", "upper"
                first_before = link in ("to", "→", "->", "=>") or bool(
                    BEFORE_NUMBER.search(text[max(0, pair.start() - _LOOKBACK) : pair.start()])
                )
                number = pair.group("num")
                found.append(
                    Quantity(
                        pair.start("num"), pair.end("num"), _parse(number), _decimals(number), units,
                        first_bound, first_before, pair.end("num"),
                    )
                )
            number = match.group("num")
            scale = 1000.0 if match.group("kilo") else 1.0  # "9.8k tok/s": 9800, to the hundred
            decimals = _decimals(number) - (3 if match.group("kilo") else 0)
            found.append(
                Quantity(start, end, sign * _parse(number) * scale, decimals, units, bound, is_before, match.end())
            )
        return found


def bare_numbers(text: str) -> list[Quantity]:
    """Every number in a text (for table cells, where the unit is in the column header)."""
    result = []
    for match in _BARE_NUMBER.finditer(text):
        number = match.group("num")
        sign = -1.0 if match.group("sign") in ("-", "−") else 1.0
        bound = hedge(text[max(0, match.start() - _LOOKBACK) : match.start()])
        kilo = _KILO.match(text, match.end("num"))  # "9.8k": 9800, to the hundred
        end = kilo.end() if kilo else match.end("num")
        scale, shift = (1000.0, 3) if kilo else (1.0, 0)
        result.append(
            Quantity(match.start("num"), end, sign * _parse(number) * scale, _decimals(number) - shift, frozenset(),
                     bound, False, end)
        )
    return result


_KILO = re.compile(r"[kK](?![A-Za-z])")
# A unit of bits: a lowercase "b" after a capital prefix ("Gb/s", "Mb"), or "bps" ("Gbps", "gbps").
_BITS = re.compile(r"^[KMGT]b|bps$")


_HEDGE = re.compile(
    r"(?:(?P<approx>" + APPROXIMATE.pattern.removesuffix(r"\s*$") + r"|\bnear)|(?P<lower>" + LOWER_BOUND.pattern.removesuffix(r"\s*$")
    + r")|(?P<upper>" + UPPER_BOUND.pattern.removesuffix(r"\s*$") + r"))\s*$",
    re.IGNORECASE,
)


def hedge(before: str) -> str:
    """How the words just before a number qualify it: exact, approx, lower (at least) or upper (at most)."""
    match = _HEDGE.search(before[-24:])
    return match.lastgroup or "exact" if match else "exact"


def _parse(number: str) -> float:
    return float(number.replace(",", ""))


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0
