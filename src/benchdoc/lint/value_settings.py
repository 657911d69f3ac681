"""Numbers in a metric's unit that the words around them make something else than a result of the ledger.

Each rule reads one way people write a figure that is not the recorded result of the setup the
ledger names: a machine or team the ledger does not record, a threshold the results are held to,
a condition the ledger does not name, a setting the experiment's own label carries, a log entry's
own time stamp.
"""

from __future__ import annotations

import re

from benchdoc.lint.context import Context
from benchdoc.lint.quantities import Quantity

# Words anywhere in the sentence that place its figures outside the ledger: "(other team, not our ledger)",
# "(not in our ledger)", "on the box of my colleague", "another team's measurement".
_OUTSIDE = re.compile(
    r"\bnot\s+(?:in\s+|from\s+)?(?:our|this|the)\s+ledger\b|\b(?:other|another)\s+team(?:'s)?(?![\w-])|"
    r"\b(?:my|a|our)\s+colleague(?:'s)?(?![\w-])|\bof\s+my\s+colleague\b|"
    # others' infrastructure: "on their CI", "from the vendor's runners", "in the partner's lab"
    r"\b(?:on|from|in|at)\s+(?:their|the\s+(?:vendor|partner|customer)'s|(?:the\s+)?upstream(?:'s)?)\s+(?:own\s+)?"
    r"(?:CI|runners?|machines?|hardware|clusters?|box(?:es)?|nodes?|pods?|setup|GPUs?|fleet|labs?|testbeds?)\b|"
    # what a project's tracker or forum says: "the outlines issue tracker says", "a forum thread reports"; our
    # own tracker ("our issue tracker", "the internal bug tracker") holds our figures
    r"\b(?:the|an?|their|its|upstream(?:'s)?|[\w.-]+'s)\s+(?!(?:internal|team|in-house)\b)(?:[\w.-]+\s+){0,2}?"
    r"(?:issue|bug)\s+tracker\b|"
    r"\b(?:forum|mailing[\s-]list|discussion)\s+(?:thread|post)?\s*(?:says|reports?|claims?|quotes?)\b|"
    # what a competitor publishes, what some user reports: "A rival's public post claims", "a user on 8x A100 reported"
    r"\b(?:an?|the|one|another)\s+(?:[\w-]+\s+)?(?:competitor|rival)(?:'s)?\s+(?:[\w-]+\s+){0,2}?"
    r"(?:post|blog|paper|deck|benchmark|numbers?|figures?|results?|claims?|reports?|says)\b|"
    r"\b(?:an?|one|another|some)\s+(?:user|reader|commenter|community\s+member)s?\s+(?:on|with|from|reported|reports|"
    r"says|said|claims?|claimed|measured|posted|saw|sees|got|gets)\b|"
    # "(an M3 Max, a different machine)"
    r"\b(?:an?|another)\s+different\s+(?:machine|box|host|node|cluster|GPU|card|setup|rig|pool)s?\b",
    re.IGNORECASE,
)
# A machine or pool named by its hardware, or said to be another one, before the figure: "On the H200 cluster",
# "on the staging node (8x H100)", "On the MI300X pool", "On the L4 tier". The ledger's own hosts are not named so.
# The sentence may also open with the machine as its subject: "The staging H100 pod measured ...".
_PLACE = re.compile(
    r"(?:\b(?:on|from)\s+|^[\W_]*)(?:the|a|an|their|some|another|other)\s+(?P<what>[^,.;:()]{1,30}?)\s+"
    r"(?:cluster|box|pool|tier|node|machine|rig|rack|fleet|server|pod|lab|testbed)s?\b",
    re.IGNORECASE,
)
_OTHER_HARDWARE = re.compile(r"\b(?:[A-Z]{1,5}\d{1,4}[A-Z]?|staging|other|another|different|their|partner|customer|"
                             r"competitor|vendor|rented)\b")
# A threshold the figure is: "the 1500 ms alert", "a 2 s timeout", and the figures of a list of thresholds
# ("The two SLO thresholds we care about, 800 ms TTFT p50 and 60 ms ITL p99, are met by ...").
# A hardware's specification ("89% of the 400 GB/s specification") and a memory budget or headroom line are limits too,
# and so is a target or goal ("the 2,600 tok/s target"; not "the target model", speculative decoding's).
_THRESHOLD_AFTER = re.compile(r"\s*(?:[\w-]+\s+){0,2}?(?:alert|alarm|threshold|timeout|cap|ceiling|floor|requirement|"
                              r"guardrail|limit|headroom|budget|specification|datasheet|"
                              r"(?:target|goal)(?!\s+(?:model|draft|GPU|hardware|machine)))s?\b", re.IGNORECASE)
# "The SLA guarantees 6.5 req/s of goodput": what a service agreement promises is the bar, not a result.
_THRESHOLD_BEFORE = re.compile(r"\b(?:thresholds?|alert(?:s|ing)?\s+(?:at|above|below)|"
                               r"(?:SLA|SLO)s?\s+(?:guarantees?|promises?|requires?|demands?|asks\s+for|sets?))\b",
                               re.IGNORECASE)
# A target or goal the figure is: "Target for Q1: 13,000 tok/s", "next release target: 2,600 tok/s", "the goal is
# 6 req/s", "aims for 6 req/s". The figure must follow at once ("We hit the target; X decodes ..." still reads).
_TARGET_BEFORE = re.compile(r"(?:\b(?:target|goal|objective)s?(?:\s+(?:for|of|in|on)\s+[^.;:]{1,40}?)?\s*(?::|=|is|of|at)|"
                            r"\baim(?:s|ing)?\s+(?:for|at))\s*(?:about|around|roughly|~)?\s*$", re.IGNORECASE)
# A trigger of an alert or on-call rule: a bound figure whose line ends in what is done when it is crossed
# ("hit rate under 30% on any replica: ticket", "TTFT p99 above 600 ms for 10 minutes -> page").
_TRIGGER = re.compile(r"[^.;:]*?(?::|->|→|=>)\s*[*_]*\s*(?:page|ticket|alert|escalate|roll\s*back|rollback|restart|drain|"
                      r"call\s+on-?call|open\s+an?\s+(?:incident|issue|ticket))\b", re.IGNORECASE)
# A condition after the figure that the ledger does not record: "97.0% when the prompt includes two examples".
_CONDITION_AFTER = re.compile(r"\s*(?:only\s+)?(?:when|whenever|if|unless|provided)\s", re.IGNORECASE)


def outside_the_ledger(context: Context, quantity: Quantity) -> bool:
    """Whether the sentence puts its figure on a team, colleague or machine the ledger does not record."""
    text = context.unit.text
    if _OUTSIDE.search(text):
        return True
    for place in _PLACE.finditer(text, 0, quantity.start):
        inside = any(place.start() <= m.start < place.end() for m in context.mentions)
        if not inside and _OTHER_HARDWARE.search(place.group("what")):
            return True
    return False


def is_threshold(context: Context, quantity: Quantity) -> bool:
    """Whether the figure is a threshold (an alert, a limit) rather than a measured result."""
    text = context.unit.text
    after = _THRESHOLD_AFTER.match(text, quantity.unit_end)
    if after is not None and not any(m.start < after.end() and m.end > quantity.unit_end for m in context.mentions):
        return True  # not a word of a name ("the 2k limit" may be an experiment)
    if _TARGET_BEFORE.search(text, max(0, quantity.start - 60), quantity.start):
        return True
    if quantity.bound in ("lower", "upper") and _TRIGGER.match(text, quantity.unit_end):
        return True
    before = _THRESHOLD_BEFORE.search(text, 0, quantity.start)
    return before is not None and not any(before.end() <= m.start < quantity.start or m.start <= before.start() < m.end
                                          for m in context.mentions)


def under_a_condition(context: Context, quantity: Quantity) -> bool:
    """Whether a "when ..." or "if ..." clause right after the figure sets a condition the ledger does not name."""
    return _CONDITION_AFTER.match(context.unit.text, quantity.unit_end) is not None


# A name that is only what the figure is compared with: "Throughput vs eager: 2,502 tok/s" is the figure of
# an unnamed subject (the section's), never eager's.
_COMPARATOR = re.compile(r"(?:\bvs\.?|\bversus|\bthan|\bagainst|\brelative\s+to|\bcompared\s+(?:to|with)|"
                         r"(?:\d|\btimes|\btwice|\bhalf|%)\s*x?\s+(?:that|those)\s+of)\s*(?:the\s+)?$",
                         re.IGNORECASE)


# The before side of a change named after the figure: "drops to 6.76 s from FA3's 6.94 s".
_FROM_AFTER = re.compile(r"\s*,?\s*(?:(?:down|up)\s+)?from\s+(?:the\s+)?", re.IGNORECASE)
# Words that give the figure to the name right before it: "relative to the baseline at 89.5 tok/s".
_ITS_OWN = re.compile(r"(?:'s)?\s*(?:at|of|is|was|with|on|=|,)?\s*(?:about|around|~)?\s*", re.IGNORECASE)


def only_comparators(context: Context, quantity: Quantity) -> bool:
    """Whether every experiment the sentence names is named only as what something else is compared with,
    and the figure is not given to one of them by the words between ("vs the baseline at 89.5 tok/s")."""
    text = context.unit.text
    if not context.mentions or context.row_experiment is not None:
        return False
    if not all(_COMPARATOR.search(text, max(0, m.start - 20), m.start)
               or _FROM_AFTER.fullmatch(text, quantity.unit_end, m.start) for m in context.mentions):
        return False
    return not any(_ITS_OWN.fullmatch(text, m.end, quantity.start) for m in context.mentions if m.end <= quantity.start)


# A named setup changed into another the sentence does not name, then the change's figures: "Moving X to 0.10.1
# took goodput from 10.40 to 11.30 req/s", "Upgrading X to the new driver lifts it from 5.5 to 5.9 req/s".
_MOVED = re.compile(r"\b(?:mov|upgrad|bump|switch|migrat|port|updat|rebas)(?:e|es|ed|ing|s)?\s+(?:the\s+)?$", re.IGNORECASE)
_MOVED_TO = re.compile(r"\s+(?:[\w.()-]+\s+){0,2}?(?:to|onto)\s", re.IGNORECASE)
_TO_SIDE = re.compile(r"\bfrom\s+[~≈]?\d[\d.,]*\s*\S*\s+(?:to|->|→)\s*[~≈]?\s*$", re.IGNORECASE)


def after_a_move_away(context: Context, quantity: Quantity) -> bool:
    """Whether the figure is the after side of a change that moves the named setup to one the sentence does not
    name: "Moving X to 0.10.1 took goodput from 10.40 to 11.30 req/s" gives 11.30 to 0.10.1, not to X."""
    text = context.unit.text
    if not _TO_SIDE.search(text, max(0, quantity.start - 40), quantity.start):
        return False
    for mention in context.mentions:
        if mention.end > quantity.start or not _MOVED.search(text, max(0, mention.start - 20), mention.start):
            continue
        moved = _MOVED_TO.match(text, mention.end)
        if moved is not None and not any(moved.start() <= m.start < quantity.start for m in context.mentions if m != mention):
            return True
    return False


def named_only_in_a_later_aside(context: Context, quantity: Quantity, same_unit: list[Quantity]) -> bool:
    """Whether every experiment the sentence names stands in a parenthesis after the figure that holds a figure of
    its own in the same unit: "Hit rate: 58.6% (the cache off shows 2.2%)" gives 58.6% to the unnamed subject."""
    text = context.unit.text
    if not context.mentions or context.row_experiment is not None:
        return False
    for mention in context.mentions:
        opened = text.rfind("(", quantity.unit_end, mention.start)
        if opened < 0 or ")" in text[opened : mention.start]:
            return False
        closed = text.find(")", mention.end)
        closed = len(text) if closed < 0 else closed
        if not any(opened < q.start < closed and q.units & quantity.units for q in same_unit):
            return False
    return True


def in_the_label(label_quantities: list[Quantity], quantity: Quantity) -> bool:
    """Whether the figure is one the experiment's own label carries ("16 GB CPU offload"): a setting of it."""
    return any(q.units & quantity.units and abs(q.value - quantity.value) < 1e-9 for q in label_quantities)


# A log entry stamped with its month, day and time: "12-03 11:00  replay finished", "- **11-02 09:10** · ...".
_STAMP = re.compile(r"^[\s*_>#|-]*(?P<month>[01]\d)-(?P<day>[0-3]\d)\s+(?P<hour>[0-2]\d):(?P<minute>[0-5]\d)\b")


def entry_time(text: str, year: str) -> str | None:
    """The time a log entry's stamp gives, as "YYYY-MM-DDTHH:MM", or None."""
    found = _STAMP.match(text)
    if found is None:
        return None
    month, day = int(found.group("month")), int(found.group("day"))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{year}-{month:02d}-{day:02d}T{found.group('hour')}:{found.group('minute')}"
