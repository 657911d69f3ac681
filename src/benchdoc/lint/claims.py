"""Relative claims in a sentence: "40% slower than baseline", "+5.1% over Ring", "1.5x faster".

This module only reads the shape of a claim: its number, which way it points, how hedged
it is and where its explicit comparison target ("than X") starts. Which experiments it is
about, and whether it is true, is decided by :mod:`benchdoc.lint.stale_claims`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchdoc.lint.quantities import hedge

GOOD = "good"  # better for the metric, whichever way the metric points
BAD = "bad"
UP = "up"  # the number itself goes up
DOWN = "down"
SIGNED = "signed"  # "+3.8%": the sign is the direction of the number

_NUM = r"(?P<num>\d+(?:\.\d+)?)"
# "more slow", "more high": a comparative with "more" before the plain adjective, as a translated text writes it.
_WORDS = {
    GOOD: r"faster|better|gains?|improvements?|speed-?ups?|boosts?|ahead|quicker|uplifts?|lift|win|more\s+(?:fast|quick)",
    BAD: r"slower|worse|regressions?|slow-?downs?|loss|behind|penalty|degradation|more\s+slow",
    # "12% cheaper", "9% more expensive": the number of a cost goes down or up
    UP: r"more\s+expensive|pricier|costlier|higher|more\s+high|more|increases?|jump|above",
    DOWN: r"cheaper|less\s+expensive|lower|more\s+low|less|fewer|decreases?|drops?|reductions?|cut|below",
}
_ANY_WORD = "|".join(_WORDS.values())

_PERCENT = re.compile(
    r"(?<![\w.])(?P<sign>[+\-−])?" + _NUM + r"\s*(?:%|percent\b|per cent\b)(?:\s+|-)(?P<word>" + _ANY_WORD + r")\b",
    re.IGNORECASE,
)
# "1.5x", "1.5×", "1.5 times", "1.5-fold": a factor.
_TIMES = r"(?:\s*[x×](?![\w])|\s+times\b|-?fold\b)"
_FACTOR = re.compile(
    # "a 1.3x decode speedup": up to two words naming the quantity before a noun of speed.
    r"(?<![\w.])" + _NUM + _TIMES + r"\s*(?P<pre>(?:[A-Za-z][\w/-]*\s+){1,2}?(?=speed-?ups?\b|slow-?downs?\b))?"
    r"(?:(?P<word>faster|slower|higher|lower|more|less|better|worse|"
    r"speed-?ups?|slow-?downs?)\b|(?P<the>(?:the|its)\s+(?P<noun>[\w/ -]{1,30}?)\s+of\b)|(?P<as>as (?:fast|much|high) as)\b|"
    # "serves 2.5x what X does": the target's own figure, unnamed
    r"(?P<what>what)\s+(?=[^.;:]{1,40}?\s(?:do|does|did|gets?|got|serves?|served|reach(?:es)?|deliver(?:s|ed)?)\b))",
    re.IGNORECASE,
)
_SIGNED = re.compile(
    r"(?<![\w.])(?P<sign>[+\-−])" + _NUM + r"\s*%(?P<gap>(?:\s+(?!vs\b|versus\b|over\b|against\b|relative\b|compared\b|on top\b)"
    r"[\w/()'-]+){0,3}?)\s*(?P<link>vs\.?|versus|over|against|relative to|compared (?:to|with)|on top of)\s",
    re.IGNORECASE,
)
# "TTFT down 10%", "up 20% on eager", "down by 25% vs X": a change with its direction before it.
# A share in words after "by", "up" or "down": "cuts TTFT by half", "up by a third".
_FRACTIONS = {"half": 50.0, "a half": 50.0, "one half": 50.0, "a third": 100 / 3, "one third": 100 / 3,
              "a quarter": 25.0, "one quarter": 25.0, "two thirds": 200 / 3, "three quarters": 75.0,
              "a fifth": 20.0, "one fifth": 20.0, "a tenth": 10.0, "one tenth": 10.0}
# The size of a change: a percentage, a factor ("by 3x": to a third, or three times as much), or a share in words.
_AMOUNT = (r"(?:" + _NUM + r"\s*(?:%|percent\b)|(?P<fnum>\d+(?:\.\d+)?)(?:\s*[x×](?![\w])|\s+times\b|-?fold\b)|"
           r"(?P<frac>a half|one half|half|a third|one third|a quarter|one quarter|two thirds|three quarters|a fifth|"
           r"one fifth|a tenth|one tenth)\b)")
_UP_DOWN = re.compile(r"(?<!\bgive )(?<!\bgives )(?<!\bgave )(?<!\bgiving )(?<!\bspeeds )(?<!\bspeed )(?<!\bslows )"
                      r"(?<!\bslow )(?<!\bsets )(?<!\bshows )(?<!\bends )(?<!\badds )(?<!\bbreaks )(?<!\bwinds )"
                      # a setting moved, not a result: "sped up", "scaled up 2x", "ramped up by half", "bumped up"
                      r"(?<!\bsped )(?<!\bscale )(?<!\bscales )(?<!\bscaled )(?<!\bramp )(?<!\bramps )(?<!\bramped )"
                      r"(?<!\bturn )(?<!\bturns )(?<!\bturned )(?<!\bbump )(?<!\bbumps )(?<!\bbumped )(?<!\bdial )"
                      r"(?<!\bdials )(?<!\bdialed )(?<!\bdialled )(?<!\bstep )(?<!\bsteps )(?<!\bstepped )"
                      r"\b(?P<dir>up|down)\s+(?:by\s+)?(?P<hedge>about\s+|~\s*|roughly\s+|nearly\s+|almost\s+)?" + _AMOUNT, re.IGNORECASE)
# "5% over eager": an unsigned change with "over" and its target.
_OVER = re.compile(r"(?<![\w.+\-−])" + _NUM + r"\s*%\s+(?P<link>over|on top of)\s", re.IGNORECASE)
# "+11% tok/s", "TTFT p99 -23%": a signed change with no target named, against the one the
# sentence or its section implies (or the subject's compare_to).
_BARE_SIGNED = re.compile(
    r"(?<![\w.%])(?P<sign>[+\-−])" + _NUM + r"\s*%(?![\w%])(?!(?:\s+|-)(?:" + _ANY_WORD + r")\b)", re.IGNORECASE
)
# "1.6x TP8", "0.85x the baseline's": a ratio of the two, the target right after it.
_BARE_FACTOR = re.compile(r"(?<![\w.])" + _NUM + _TIMES + r"\s+(?=[\w\"'(])", re.IGNORECASE)
_BY_VERB = re.compile(
    r"\b(?P<verb>improv(?:es|ed|ing|e)|increas(?:es|ed|ing|e)|rais(?:es|ed|ing|e)|boost(?:s|ed|ing)?|lift(?:s|ed|ing)?|"
    r"reduc(?:es|ed|ing|e)|shorten(?:s|ed|ing)?|cut(?:s|ting)?|trim(?:s|med|ming)?|shav(?:es|ed|ing|e)|lower(?:s|ed|ing)?|decreas(?:es|ed|ing|e)|drop(?:s|ped|ping)?|"
    r"beat(?:s|ing)?|lead(?:s|ing)?(?!\s+to\b)|outperform(?:s|ed|ing)?|trail(?:s|ed|ing)?|lag(?:s|ged|ging)?|regress(?:es|ed|ing)?|"
    r"outpac(?:es|ed|ing|e)|outrun(?:s|ning)?|outstrip(?:s|ped|ping)?|surpass(?:es|ed|ing)?|exceed(?:s|ed|ing)?|"
    r"underperform(?:s|ed|ing)?|speeds? up|slows? down|ahead of|behind)\b(?P<mid>(?:[^.;:%]|\.(?=\w)){0,60}?)"
    # "reduced of 50%", "increased of 10%": "of" for "by" right after the verb, as a translated text writes it
    r"(?:\bby|(?<=ed )of|(?<=es )of)\s+(?P<hedge>about\s+|roughly\s+|~\s*|around\s+|"
    r"nearly\s+|almost\s+|over\s+|more than\s+|at least\s+)?" + _AMOUNT,
    re.IGNORECASE,
)
# "ITL p50 halves", "halved relative to bf16", "doubles goodput over X": a factor as a verb.
_FACTOR_VERB = re.compile(r"\b(?P<verb>halv(?:es|ed|ing)|doubl(?:es|ed|ing)|tripl(?:es|ed|ing)|cut in half)\b", re.IGNORECASE)
_FACTOR_VERBS = (("halv", 2.0, DOWN), ("cut", 2.0, DOWN), ("doubl", 2.0, UP), ("tripl", 3.0, UP))
# "TTFT p95 drops 40% with X vs Y", "goodput rises 12% over eager": a change verb with its number.
_MOVE_VERB = re.compile(
    r"\b(?P<verb>(?:drop|fall|shrink|decreas|ris|climb|grow|jump|increas)(?:s|es|ped|ing|ed)?|fell|shrank|rose|grew|"
    r"rises|jumped)\s+(?P<hedge>about\s+|roughly\s+|~\s*|around\s+|nearly\s+|almost\s+)?" + _NUM
    + r"\s*(?:%|percent\b)(?!\s*(?:of|to)\b)",
    re.IGNORECASE,
)
# "an ITL p50 regression of 6% against X": a change as a noun, its size after it.
_NOUN_OF_PERCENT = re.compile(
    r"\b(?P<word>improvement|gain|speed-?up|boost|uplift|increase|reduction|decrease|regression|slow-?down|drop|loss)s?"
    r"\s+of\s+(?P<hedge>about\s+|roughly\s+|~\s*|around\s+|nearly\s+|almost\s+)?" + _NUM + r"\s*%",
    re.IGNORECASE,
)
# "a 40% throughput improvement over eager": a change as a noun, the metric between.
_PERCENT_NOUN = re.compile(
    r"(?<![\w.])" + _NUM + r"\s*%\s+(?P<gap>(?!(?:of|the|in|on|at|for|more|less|faster|slower)\b)[\w/-]+"
    r"(?:\s+(?!(?:of|the|in|on|at|for)\b)[\w/-]+)?)\s+(?P<word>improvement|gain|speed-?up|boost|uplift|increase|"
    r"reduction|decrease|regression|slow-?down|drop|loss)s?\b",
    re.IGNORECASE,
)
# "CB's speedup over static is 1.6x", "the slowdown is 1.2x": the noun first, the factor after.
_NOUN_FACTOR = re.compile(
    r"\b(?P<word>speed-?ups?|slow-?downs?)\b(?P<mid>(?:\s+(?:over|vs\.?|versus|against|relative to|compared (?:to|with))\s+"
    r"[^.;:%]{1,40}?)?)\s*(?:is|was|of|:|=)\s*(?P<hedge>about\s+|roughly\s+|~\s*|≈\s*|around\s+|nearly\s+)?"
    + _NUM + _TIMES,
    re.IGNORECASE,
)
_FACTOR_HINT = re.compile(r"\d\s*[x×](?![\w])|\d\s+times\b|\d-?fold\b|\b(?:twice|double|triple|half|third|quarter|halv|"
                          r"doubl|tripl|fifth|tenth)", re.IGNORECASE)
# "twice as fast as X", "half the TTFT of X", "half of X's": a factor in words.
_WORD_FACTOR = re.compile(
    r"\b(?P<num>twice|double|triple|half|(?P<share>(?:a|one)\s+(?:third|quarter|fifth|tenth)|two\s+thirds|"
    r"three\s+quarters))\s+(?:(?P<as>as (?P<adj>fast|quick|slow|much|high|long|low) as)|"
    # a share in words takes "of" before "the" ("a third of the memory of X"), and "half" may ("half of the TTFT of X")
    r"(?P<the>(?:of\s+)?the\s+"
    r"(?P<noun>[\w/ -]{1,30}?)\s+of)|of(?=\s+\S+'s\b))\s+",
    re.IGNORECASE,
)
_WORD_FACTORS = {"twice": 2.0, "double": 2.0, "triple": 3.0, "half": 0.5,
                 **{share: size / 100 for share, size in _FRACTIONS.items()}}  # "a third of the TTFT of X": 1/3
_VERB_PERCENT = re.compile(
    r"\b(?P<verb>adds?|added|adding|gains?|gained|buys|bought|gives|gave|brings|brought|costs?|loses?|lost|saves?|saved|saving)\s+"
    # "costs you only 1%", "buys us 9%": a pronoun the change is given to
    r"(?:(?:you|us|them|me)\s+)?(?:(?:an?\s+)?(?:extra|another|additional|further)\s+)?(?:(?:only|just|merely)\s+)?(?P<hedge>about\s+|roughly\s+|~\s*|around\s+|nearly\s+|almost\s+|"
    r"over\s+|more than\s+|at least\s+|up to\s+)?(?P<sign>[+\-−])?" + _NUM + r"\s*(?:%|percent\b)(?:\s+(?:of|to|in|on)\b)?",
    re.IGNORECASE,
)
_VERB_POLARITY = (
    (re.compile(r"^(?:add|gain|buy|bought|give|gave|bring|brought)", re.IGNORECASE), GOOD),
    (re.compile(r"^(?:cost|los)", re.IGNORECASE), BAD),
    (re.compile(r"underperform|trail|lag|regress|slows? down|behind", re.IGNORECASE), BAD),
    (re.compile(r"improv|boost|beat|lead|outperform|outpac|outrun|outstrip|surpass|exceed|speeds? up|ahead", re.IGNORECASE), GOOD),
    (re.compile(r"increas|rais|ris|rose|climb|grow|grew|jump|lift", re.IGNORECASE), UP),
    (re.compile(r"reduc|shorten|cut|trim|shav|sav|lower|decreas|drop|fall|fell|shrink|shrank", re.IGNORECASE), DOWN),
)
# After the claim word: up to four words, then the word that introduces what it is compared with
# ("than |the baseline", "than with |the Triton backend").
_LINK = re.compile(
    # A word of the gap may hold a dot before a letter ("with torch.compile than", "with llama.cpp than").
    r"^(?P<gap>(?:\s+(?!than\b|over\b|vs\b|versus\b|against\b|compared\b|relative\b|on top\b|from\b)"
    r"[\w/()'+-]+(?:\.[A-Za-z][\w/()'+-]*)*){0,4}?)"
    r"\s*,?\s+(?P<link>than|over|vs\.?|versus|against|compared (?:to|with)|relative to|on top of|from)\s+"
    r"(?:(?<=than )(?:with|on|under|using|for)\s+)?(?:(?:the|a|an|its|their|our)\s+)?",
    re.IGNORECASE,
)
_LINK_AFTER_BY = re.compile(
    r"^\s*(?:,\s*)?(?:(?:with|using|on|under)\s+[\w.+-]+(?:\s+[\w.+-]+){0,2}?\s+)?(?P<link>than|over|vs\.?|versus|against|compared (?:to|with)|relative to|on top of|from)\s+"
    r"(?:(?:the|a|an|its|their|our)\s+)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Claim:
    start: int  # where the claim's number (or verb) starts
    end: int  # end of the claim word, or of the link word when there is one
    text_end: int  # end of the quoted claim text (after the object when there is one)
    value: float  # the magnitude written: a percentage, or a factor for "1.5x"
    decimals: int
    factor: bool  # "1.5x" rather than "50%"
    polarity: str  # GOOD, BAD, UP, DOWN or SIGNED
    sign: float  # for SIGNED claims: +1 or -1
    bound: str  # exact, approx, lower, upper
    object_at: int | None  # where the explicit comparison target should start ("than |baseline")
    object_search_start: int | None  # for "beats X by 5%": the target sits before the number
    noun: str  # the words between the claim word and its link ("faster output throughput than")
    word: str
    low: float | None = None  # the range's other end: "20–25% faster" has value 25, low 20
    worded: bool = False  # a factor in words ("twice as fast"): looser than any written number


# "interval -4.7% to +7.1%", "CI [+2.1%, +3.0%]", "[-2.4%, +3.8%]": the ends of a difference's interval,
# quoted as the ledger writes them, are no claims of their own; nor when spelled out in words ("with an
# interval from -4.4% to +7.4%", "a confidence interval between -1% and +3%", "the CI runs from ...").
_END = r"[+\-−]?\d+(?:\.\d+)?\s*%?"
_INTERVAL_LEAD = (r"(?:runs|running|goes|going|ranges|ranging|spans|spanning|stretches|stretching|reaches|reaching)\s+"
                  r"(?:from\s+|between\s+)?"
                  r"|(?:from|between)\s+")
_INTERVAL = re.compile(
    # "the interval against no-chunk runs from ...": the pair it is of may be named between
    r"\b(?:(?:confidence\s+)?intervals?|CI)(?:\s+(?:against|vs\.?|versus|over|relative to|compared (?:to|with))"
    r"(?:\s+[\w.+/-]+){1,3}?(?=\s+(?:runs|running|goes|going|ranges|ranging|spans|spanning|stretches|stretching|reaches|reaching|is|was|:)))?"
    r"\s*(?:of\s+|is\s+|was\s+|:\s*|=\s*)?(?:" + _INTERVAL_LEAD
    + r")?[\[(]?\s*" + _END + r"\s*(?:,|to|and|–|—|…|\.\.\.?)\s*" + _END + r"\s*[\])]?"
    r"|\[\s*[+\-−]\d+(?:\.\d+)?\s*%\s*,\s*[+\-−]?\d+(?:\.\d+)?\s*%\s*\]",
    re.IGNORECASE,
)


def interval_spans(text: str) -> list[tuple[int, int]]:
    """Where a text quotes a difference's interval ("interval -4.7% to +7.1%", "[-2.4%, +3.8%]")."""
    return [match.span() for match in _INTERVAL.finditer(text)]


_RANGE_BEFORE = re.compile(r"(?<![\w.])(?P<low>\d+(?:\.\d+)?)\s*(?:%|[x×])?\s*(?:-|–|—|to)\s*$")


def with_range(text: str, claim: Claim) -> Claim:
    """The claim with the lower end of a range written before its number ("20–25% faster", "1.1-1.3x")."""
    found = _RANGE_BEFORE.search(text[max(0, claim.start - 16) : claim.start])
    if found is None or claim.word in ("/", ""):
        return claim
    low = float(found.group("low"))
    if low >= claim.value:
        return claim
    return dataclasses.replace(claim, low=low, start=max(0, claim.start - 16) + found.start())


def find_claims(text: str) -> list[Claim]:
    """Every relative claim in a sentence, in order."""
    claims: list[Claim] = []
    taken: list[tuple[int, int]] = interval_spans(text)
    has_percent = "%" in text or "percent" in text or "per cent" in text
    if not has_percent and not _FACTOR_HINT.search(text):
        return claims
    # In order of precedence: a stretch read by an earlier shape is not read again.
    shapes: tuple[tuple[re.Pattern[str], Callable[[str, re.Match[str]], Claim | None], bool], ...] = (
        (_SIGNED, _signed_claim, True),
        (_PERCENT, _percent_claim, True),
        (_OVER, _over_claim, True),
        (_UP_DOWN, _up_down_claim, False),
        (_FACTOR, _factor_claim, False),
        (_VERB_PERCENT, _verb_percent_claim, True),
        (_BY_VERB, _by_verb_claim, False),
        (_MOVE_VERB, _move_verb_claim, True),
        (_PERCENT_NOUN, _percent_noun_claim, True),
        (_NOUN_OF_PERCENT, _noun_of_percent_claim, True),
        (_NOUN_FACTOR, _noun_factor_claim, False),
        (_BARE_FACTOR, _bare_factor_claim, False),
        (_WORD_FACTOR, _word_factor_claim, False),
        (_FACTOR_VERB, _factor_verb_claim, False),
        (_BARE_SIGNED, _bare_signed_claim, True),
    )
    for pattern, build, needs_percent in shapes:
        for match in pattern.finditer(text) if has_percent or not needs_percent else ():
            if not all(match.end() <= lo or match.start() >= hi for lo, hi in taken):
                continue
            claim = build(text, match)
            if claim is not None:
                claim = with_range(text, claim)
                claims.append(claim)
                taken.append(match.span())
    claims.sort(key=lambda c: c.start)
    return claims


def _signed_claim(text: str, match: re.Match[str]) -> Claim:
    """"+3.8% over baseline", "+19% goodput over TP8"."""
    sign = -1.0 if match.group("sign") in ("-", "−") else 1.0
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=False,
        polarity=SIGNED, sign=sign, bound=hedge(text[max(0, match.start() - 30) : match.start()]),
        object_at=_skip_article(text, match.end()), object_search_start=None, noun=(match.group("gap") or "").strip(),
        word=match.group("link"),
    )


def _up_down_claim(text: str, match: re.Match[str]) -> Claim:
    """"TTFT p95 down 10%", "up 20% on eager": the number's own direction, its target after "on/vs/over/from"."""
    link = _UP_DOWN_LINK.match(text, match.end())
    value, decimals, factor, worded = _amount(match)
    return Claim(
        start=match.start(), end=link.end() if link else match.end(), text_end=link.end() if link else match.end(),
        value=value, decimals=decimals, factor=factor,
        polarity=SIGNED, sign=1.0 if match.group("dir").lower() == "up" else -1.0,
        bound="approx" if match.group("hedge") or worded else "exact", object_at=link.end() if link else None,
        object_search_start=None, noun="", word=match.group("dir").lower(),
    )


_LEVEL_BEFORE = re.compile(r"\bto\s*[~≈]?\s*$", re.IGNORECASE)
_UP_DOWN_LINK = re.compile(r"\s+(?:on|vs\.?|versus|over|from|against|relative to|compared (?:to|with))\s+"
                           r"(?:(?:the|a|an|its|their|our)\s+)?", re.IGNORECASE)


def _over_claim(text: str, match: re.Match[str]) -> Claim | None:
    """"5% over eager": a rise over the target; "from 70% to 94% over X" is a level reached, not a change."""
    if _LEVEL_BEFORE.search(text[max(0, match.start() - 12) : match.start()]):
        return None
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=False,
        polarity=SIGNED, sign=1.0, bound=hedge(text[max(0, match.start() - 30) : match.start()]),
        object_at=_skip_article(text, match.end()), object_search_start=None, noun="", word=match.group("link"),
    )


def _bare_signed_claim(text: str, match: re.Match[str]) -> Claim:
    """"+11% tok/s", "TTFT p99 -23%": no target in the words."""
    sign = -1.0 if match.group("sign") in ("-", "−") else 1.0
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=False,
        polarity=SIGNED, sign=sign, bound=hedge(text[max(0, match.start() - 30) : match.start()]),
        object_at=None, object_search_start=None, noun=_noun_after(text, match.end()), word="",
    )


def _word_factor_claim(text: str, match: re.Match[str]) -> Claim:
    """"twice as fast as X", "half the TTFT of X": approximate by nature."""
    adjective = (match.group("adj") or "").lower()
    polarity = GOOD if adjective in ("fast", "quick") else BAD if adjective == "slow" else UP
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=_WORD_FACTORS[" ".join(match.group("num").lower().split())], decimals=1, factor=True, polarity=polarity, sign=1.0,
        bound="approx", object_at=_skip_article(text, match.end()), object_search_start=None,
        noun=match.group("noun") or "", word="x", worded=True,
    )


def _noun_factor_claim(text: str, match: re.Match[str]) -> Claim:
    """"CB's speedup over static is 1.6x": the target, if any, between the noun and the factor."""
    word = match.group("word").lower()
    mid = match.group("mid") or ""
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=True,
        polarity=GOOD if word.startswith("speed") else BAD, sign=1.0,
        bound="approx" if match.group("hedge") else "exact", object_at=None,
        object_search_start=match.start("mid") if mid else None, noun="", word=word,
    )


def _bare_factor_claim(text: str, match: re.Match[str]) -> Claim:
    """"DP8 ≈ 1.6x TP8", "0.85x the baseline's": the ratio of the two, its target right after."""
    return Claim(
        start=match.start(), end=match.end(), text_end=match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=True,
        polarity=UP, sign=1.0, bound=hedge(text[max(0, match.start() - 30) : match.start()]),
        object_at=_skip_article(text, match.end()), object_search_start=None, noun="", word="x",
    )


def _percent_claim(text: str, match: re.Match[str]) -> Claim | None:
    """"40% slower than baseline"."""
    word = match.group("word").lower()
    polarity = _polarity(word)
    if match.group("sign") in ("-", "−") and polarity in (GOOD, UP):
        return None  # "-5% faster" says nothing clear
    return _with_link(text, match, polarity, word, factor=False)


def _factor_claim(text: str, match: re.Match[str]) -> Claim:
    """"1.5x faster", "1.5x the throughput of Ring", "2x as fast as"."""
    if match.group("word"):
        word = match.group("word").lower()
        polarity = _polarity(word)
    else:
        word = (match.group("the") or match.group("as") or match.group("what") or "").lower()
        polarity = UP
    claim = _with_link(text, match, polarity, word, factor=True)
    if match.group("pre"):
        claim = dataclasses.replace(claim, noun=match.group("pre").strip())
    if match.group("the") or match.group("as") or match.group("what"):
        # "1.5x the throughput of Ring": the target follows "of" / "as".
        claim = Claim(**{**claim.__dict__, "object_at": _skip_article(text, match.end()),
                         "noun": match.group("noun") or "", "end": match.end()})
    return claim


def _verb_percent_claim(text: str, match: re.Match[str]) -> Claim:
    """"adds 5% over Ring", "costs about 3%"."""
    verb = match.group("verb").lower()
    polarity = next(p for pattern, p in _VERB_POLARITY if pattern.search(verb))
    if match.group("sign"):
        polarity, sign = SIGNED, (-1.0 if match.group("sign") in ("-", "−") else 1.0)
    else:
        sign = 1.0
    link = _LINK.match(text[match.end() :])
    object_at = _skip_article(text, match.end() + link.end()) if link else None
    hedge_words = match.group("hedge")
    return Claim(
        start=match.start(), end=object_at or match.end(), text_end=object_at or match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=False,
        polarity=polarity, sign=sign, bound=hedge(hedge_words.strip() + " ") if hedge_words else "exact",
        object_at=object_at, object_search_start=None,
        noun=(link.group("gap").strip() if link else _noun_after(text, match.end())), word=verb,
    )


def is_move_verb(word: str) -> bool:
    """Whether a claim's word is a change verb whose subject names the quantity ("TTFT p95 drops 10%")."""
    return _MOVE_VERB.match(word + " 1%") is not None


def _move_verb_claim(text: str, match: re.Match[str]) -> Claim:
    """"TTFT p95 drops 40% with X vs Y": the verb's direction, the target after a link."""
    verb = match.group("verb").lower()
    polarity = next(p for pattern, p in _VERB_POLARITY if pattern.search(verb))
    link = _LINK.match(text[match.end() :])
    object_at = _skip_article(text, match.end() + link.end()) if link else None
    hedge_words = match.group("hedge")
    return Claim(
        start=match.start(), end=object_at or match.end(), text_end=object_at or match.end(),
        value=float(match.group("num")), decimals=_decimals(match.group("num")), factor=False,
        polarity=SIGNED, sign=1.0 if polarity == UP else -1.0,
        bound=hedge(hedge_words.strip() + " ") if hedge_words else "exact",
        object_at=object_at, object_search_start=None,
        noun=(link.group("gap").strip() if link else _noun_after(text, match.end())), word=verb,
    )


def _percent_noun_claim(text: str, match: re.Match[str]) -> Claim:
    """"a 40% throughput improvement over eager": the words between number and noun name the metric."""
    word = match.group("word").lower()
    claim = _with_link(text, match, _polarity(word), word, factor=False)
    return dataclasses.replace(claim, noun=match.group("gap"))


def _noun_of_percent_claim(text: str, match: re.Match[str]) -> Claim:
    """"an ITL p50 regression of 6% against X": the change as a noun, its size after "of"."""
    word = match.group("word").lower()
    claim = _with_link(text, match, _polarity(word), word, factor=False)
    # The quantity: the words between an article and the noun ("an |ITL p50| regression"), else after it ("in TTFT").
    before = re.search(r"\b(?:an?|the|its|their)\s+(?P<noun>(?:[\w/-]+\s+){1,3}?)$", text[: match.start()], re.IGNORECASE)
    after = re.match(r"\s+(?:in|on)\s+(?P<noun>[\w/ -]{1,30}?)(?=[,.;)]|\s+(?:and|but|vs|over|against|than)\b|$)",
                     text[claim.end :], re.IGNORECASE)
    noun = before.group("noun") if before else after.group("noun") if after else ""
    claim = dataclasses.replace(claim, noun=noun.strip())
    if match.group("hedge"):
        claim = dataclasses.replace(claim, bound=hedge(match.group("hedge").strip() + " "))
    return claim


def _by_verb_claim(text: str, match: re.Match[str]) -> Claim:
    """"beats Ring by 5%", "cuts TTFT by about 20% against the default"."""
    verb = match.group("verb").lower()
    polarity = next(p for pattern, p in _VERB_POLARITY if pattern.search(verb))
    link = _LINK_AFTER_BY.match(text[match.end() :])
    object_at = _skip_article(text, match.end() + link.end()) if link else None
    bound = hedge((match.group("hedge") or "").strip() + " ") if match.group("hedge") else "exact"
    value, decimals, factor, worded = _amount(match)
    return Claim(
        start=match.start(), end=match.end() if link is None else match.end() + link.end(),
        text_end=match.end() if link is None else match.end() + link.end(),
        value=value, decimals=decimals, factor=factor, worded=worded and factor,
        bound="approx" if worded else bound,
        polarity=polarity, sign=1.0, object_at=object_at,
        object_search_start=match.start("mid") if polarity in (GOOD, BAD) else None,
        noun=match.group("mid").strip(), word=verb,
    )


def _amount(match: re.Match[str]) -> tuple[float, int, bool, bool]:
    """The size of a change as (value, decimals, factor, worded): "20%", "3x" (a factor), "a third" (33.3%, in words)."""
    if match.group("fnum"):
        return float(match.group("fnum")), _decimals(match.group("fnum")), True, False
    if match.group("frac"):
        return _FRACTIONS[match.group("frac").lower()], 1, False, True
    return float(match.group("num")), _decimals(match.group("num")), False, False


def _factor_verb_claim(text: str, match: re.Match[str]) -> Claim:
    """"EAGLE-3 halves ITL p50 relative to no-spec", "TTFT halved with X": a factor as a verb, approximate by nature."""
    verb = match.group("verb").lower()
    value, polarity = next((v, p) for stem, v, p in _FACTOR_VERBS if verb.startswith(stem))
    link = _LINK.match(text[match.end() :])
    object_at = _skip_article(text, match.end() + link.end()) if link else None
    if link is not None and _WITHOUT.match(text[object_at or 0 :]):
        object_at = None  # "halves with X than without": against what the subject is compared with
    end = object_at or match.end()
    return Claim(
        start=match.start(), end=end, text_end=end, value=value, decimals=1, factor=True, polarity=polarity,
        sign=1.0, bound="approx", object_at=object_at, object_search_start=None,
        noun=link.group("gap").strip() if link else _noun_after(text, match.end()), word=verb, worded=True,
    )


def _with_link(text: str, match: re.Match[str], polarity: str, word: str, *, factor: bool) -> Claim:
    if word in _SELF_LINKED:
        # "45% above BF16", "9% ahead of the old kernel": the word itself links to the target.
        direct = _DIRECT_OBJECT.match(text[match.end() :])
        if direct is not None:
            return _claim(text, match, polarity, word, factor, match.end() + direct.end(), "")
    link = _LINK.match(text[match.end() :])
    object_at = _skip_article(text, match.end() + link.end()) if link else None
    if link is not None and _WITHOUT.match(text[object_at:]):
        # "8% lower with chunked prefill than without": against what the subject is compared with.
        return _claim(text, match, polarity, word, factor, None, link.group("gap").strip(), end=object_at)
    return _claim(text, match, polarity, word, factor, object_at, link.group("gap").strip() if link else None)


_SELF_LINKED = ("above", "below", "ahead", "behind")
_DIRECT_OBJECT = re.compile(r"^\s+(?:of\s+)?(?:(?:the|a|an|its|their|our)\s+)?(?=\w)", re.IGNORECASE)
_WITHOUT = re.compile(r"^without\b", re.IGNORECASE)


def _claim(
    text: str, match: re.Match[str], polarity: str, word: str, factor: bool, object_at: int | None,
    gap: str | None, end: int | None = None,
) -> Claim:
    end = end or object_at or match.end()
    return Claim(
        start=match.start(),
        end=end,
        text_end=end,
        value=float(match.group("num")),
        decimals=_decimals(match.group("num")),
        factor=factor,
        polarity=SIGNED if (not factor and match.groupdict().get("sign") and polarity in (UP, DOWN)) else polarity,
        sign=-1.0 if match.groupdict().get("sign") in ("-", "−") else 1.0,
        bound=hedge(text[max(0, match.start() - 30) : match.start()]),
        object_at=object_at,
        object_search_start=None,
        noun=gap if gap is not None else _noun_after(text, match.end()),
        word=word,
    )


def _noun_after(text: str, end: int) -> str:
    """The words right after a claim word with no link: "20% lower |TTFT p50|"."""
    rest = re.match(r"^\s+((?:[\w/-]+\s*){0,3})", text[end:])
    words = rest.group(1).strip() if rest else ""
    # "61% lower and E2E p99 is halved": a conjunction opens the next clause, whose words are not this claim's.
    return "" if re.match(r"(?:and|but|or|while|whereas|so)\b", words, re.IGNORECASE) else words


def _skip_article(text: str, pos: int) -> int:
    # "than the plain IFB-128": an article, and a word that only says "without the change" ("plain", "stock").
    match = re.match(r"\s*(?:(?:the|a|an|its|their|our)\s+)?(?:(?:plain|stock|vanilla|bare|regular)\s+)?", text[pos:],
                     re.IGNORECASE)
    return pos + (match.end() if match else 0)


def _polarity(word: str) -> str:
    for polarity, words in _WORDS.items():
        if re.fullmatch(words, word, re.IGNORECASE):
            return polarity
    return UP


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


# A signed percentage in a table cell: "+3.8%", "−2%".
_SIGNED_CELL = re.compile(r"(?<![\w.])([+\-−])?(\d+(?:\.\d+)?)\s*%")


def vs_cell_claim(text: str) -> Claim | None:
    """The claim of a "vs X" cell: its signed percentage, else its first change in words."""
    match = _SIGNED_CELL.search(text)
    if match is not None and match.group(1) is not None:
        sign = -1.0 if match.group(1) in ("-", "−") else 1.0
        return Claim(
            start=match.start(), end=match.end(), text_end=match.end(), value=float(match.group(2)),
            decimals=len(match.group(2).split(".")[1]) if "." in match.group(2) else 0, factor=False,
            polarity=SIGNED, sign=sign, bound="approx" if "~" in text[: match.start()] else "exact",
            object_at=None, object_search_start=None, noun="", word="vs",
        )
    worded = next((c for c in find_claims(text) if c.polarity != SIGNED), None)
    if worded is None:
        return None
    # The header names the target: what follows the claim word is no object of its own.
    end = worded.start + len(text[worded.start : worded.end].split("(")[0].rstrip())
    return dataclasses.replace(worded, end=end, text_end=end, object_at=None, object_search_start=None)
