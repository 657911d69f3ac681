"""Reading counters from a Prometheus text exposition, and speculative decoding from
the difference of two scrapes."""

from __future__ import annotations

import math
from collections.abc import Iterable

ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens_total"
DRAFTS = "vllm:spec_decode_num_drafts_total"
SPEC_COUNTERS: tuple[str, ...] = (ACCEPTED_TOKENS, DRAFTS)


def parse_counters(text: str, names: Iterable[str]) -> dict[str, float]:
    """The value of each named metric in ``text``, summed over its label sets.

    Metrics absent from the text are absent from the result. Comment lines and samples
    of other metrics are skipped; a value that is not a number is skipped too.
    """
    wanted = set(names)
    totals: dict[str, float] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        brace = line.find("{")
        space = line.find(" ")
        if brace != -1 and (space == -1 or brace < space):
            name = line[:brace]
            close = line.rfind("}")
            rest = line[close + 1 :].split() if close != -1 else []
        else:
            name, _, tail = line.partition(" ")
            rest = tail.split()
        if name not in wanted or not rest:
            continue
        try:
            value = float(rest[0])
        except ValueError:
            continue
        if math.isnan(value):
            continue
        totals[name] = totals.get(name, 0.0) + value
    return totals


def accept_length_from_counters(before: dict[str, float], after: dict[str, float]) -> float | None:
    """1 + accepted draft tokens / drafts, both differenced between two scrapes.

    None when either counter is missing from either scrape or no draft happened in
    between (a counter that went down means the server restarted: None too).
    """
    if any(name not in before or name not in after for name in SPEC_COUNTERS):
        return None
    accepted = after[ACCEPTED_TOKENS] - before[ACCEPTED_TOKENS]
    drafts = after[DRAFTS] - before[DRAFTS]
    if drafts <= 0 or accepted < 0:
        return None
    return 1.0 + accepted / drafts
