"""The words the prose lint reads: unit spellings, cues of time and hedging, verdict phrases.

Kept apart from the rules so that what counts as "historical" or "a verdict" can be read,
and extended, in one place.
"""

from __future__ import annotations

import re

from benchdoc.results.status import Status

# Other spellings of the units a benchdoc.toml commonly declares (compared lowercased).
UNIT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "tok/s": ("tok/s", "tokens/s", "tok/sec", "tokens/sec", "tokens per second", "tokens/second", "t/s"),
    "req/s": ("req/s", "requests/s", "req/sec", "requests/sec", "requests per second", "rps"),
    "ms": ("ms", "msec", "millisecond", "milliseconds"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "us": ("us", "µs", "μs", "microsecond", "microseconds"),
    "µs": ("µs", "us", "μs", "microsecond", "microseconds"),
    "gb/s": ("gb/s", "gb/sec", "gbps", "gbytes/s"),
    "%": ("%", "percent", "per cent"),
    "gb": ("gb", "gib"),
    "w": ("w", "watts"),
}

# Units too common to tie a number to a metric without the metric being named nearby.
GENERIC_UNITS = frozenset({"%", "ms", "s", "us", "µs", "ns", "gb", "mb", "w"})

# Words that never identify a metric on their own (parts of labels like "TTFT p50 (ms)").
METRIC_NOISE_WORDS = frozenset(
    ["the", "of", "a", "an", "per", "and", "or", "in", "at", "on", "ms", "s", "us", "tok", "tokens", "sec", "second", "seconds", "p50", "p90", "p95", "p99", "median", "mean", "avg", "average", "rate", "value", "time", "total",
     # parts of a metric's key that spell a unit ("bw_gb_s", "kv_footprint_gb"): "5.3 GB" names no bandwidth
     "gb", "gib", "mb", "mib", "kb", "tb", "gbs", "mbs", "req", "reqs", "pct", "us", "ns"]
)

# The serving acronyms a metric's label uses, and the words a report spells them out in.
ACRONYMS = {
    "ttft": r"time[- ]to[- ]first[- ]token",
    "tpot": r"time[- ]per[- ]output[- ]token",
    "itl": r"inter[- ]token[- ]latency",
    "e2e": r"end[- ]to[- ]end",
}

# A sentence speaking of the past: numbers in it may be an experiment's older results.
HISTORICAL_CUES = re.compile(
    r"(?<![\w-])(?:was|were|had|used to|previously|originally|initially|formerly|earlier|at the time|"
    # "first" of a first run, not the "first" that orders a plan ("needs a canary first.", "First, ..."):
    r"back then|before|prior to|first(?!\s*(?:[.,;:!?)]|$))|old|older|up from|down from|reached|measured|gave|got|"
    r"achieved|delivered|scored|ran|peaked|superseded|pre-upgrade|historically|last (?:week|month|year)|"
    r"generated|added|showed|produced|came in|clocked|did|managed|topped out|started at)(?![\w-])",
    re.IGNORECASE,
)

# A sentence that calls its own difference noise does not claim a direction: "0.3% slower, i.e. noise".
NOISE_HEDGE = re.compile(
    r"(?<![\w-])(?:noise|noisy|not (?:statistically )?significant|insignificant|n\.s\.|run-to-run (?:variation|noise)|"
    r"error bars?|margin of error|indistinguishable|can(?:not|'t|\s+not)\s+tell\s+(?:[\w-]+\s+){0,3}?apart)(?![\w-])",
    re.IGNORECASE,
)

# A sentence that quotes an undecided comparison as the ledger states it: "+1.0%, interval -4.7% to +7.1%, so it
# is inconclusive", "cannot be told apart from X: +0.6%", "we cannot tell A from B yet: +1.0%". Its figure is the
# comparison's estimate, which claims no direction: it holds when it is the ledger's estimate.
UNDECIDED = re.compile(
    # "+0.6%, equivalent within ±2%": the estimate of a comparison the sentence calls equivalent within a margin
    r"(?<![\w-])(?:inconclusive|undecided|equivalent\s+within|"
    r"(?:within|inside)\s+(?:the\s+|its\s+|an?\s+)?(?:[±]\s*\d+(?:\.\d+)?\s*%\s+)?(?:equivalence\s+)?margin|"
    r"can(?:not|'t|\s+not)\s+(?:yet\s+)?be\s+told\s+apart|"
    r"can(?:not|'t|\s+not)\s+(?:yet\s+)?(?:tell|distinguish)\s+(?:[\w.+-]+\s+){1,4}?from)(?![\w-])",
    re.IGNORECASE,
)

# Before a number: "from 54.1 to 96.1", "(was 54.1)", "up from 89.5", "54.1 -> 96.1".
BEFORE_NUMBER = re.compile(r"(?:\bfrom|\bwas|\bwere|\bprevious(?:ly)?|\bold|\bbefore|\bformerly)\s*[(:]?\s*$", re.IGNORECASE)
ARROW_AFTER = re.compile(r"^\s*(?:→|->|=>|⟶)")

# Hedges and hypotheticals in the words just before a number: not a claim about a result.
HYPOTHETICAL = re.compile(
    r"(?<![\w-])(?:if|unless|until|would|could|might|may|expect(?:s|ed)?|hope(?:s|d)?|target(?:s|ed)?|goal|aim(?:s|ed)?|"
    r"need(?:s|ed)?|must|should|require(?:s|d)?|budget|threshold|bar|limit|predict(?:s|ed)?|"
    r"estimate(?:s|d)?|projected|theoretical(?:ly)?|ideal(?:ly)?|planned|plan|"
    # an alert's threshold: "we alert when TTFT p99 goes above 800 ms", "the pager fires at 900 ms"
    r"alert(?:s|ing|ed)?|alarm(?:s|ing)?|pager|pages|paging|fires|trigger(?:s|ed)?)(?![\w-])",
    re.IGNORECASE,
)

# Approximations and bounds just before a number.
APPROXIMATE = re.compile(
    r"(?:~|≈|\babout|\baround|\broughly|\bapproximately|\bapprox\.?|\bnearly|\balmost|\bsome|\bclose to|\bca\.)\s*$",
    re.IGNORECASE,
)
LOWER_BOUND = re.compile(r"(?:>=?|≥|\bover|\bmore than|\bat least|\babove|\bexceeds?|\bbeyond|\bupwards of)\s*$", re.IGNORECASE)
UPPER_BOUND = re.compile(r"(?:<=?|≤|\bunder|\bless than|\bat most|\bbelow|\bup to|\bno more than|\bwithin)\s*$", re.IGNORECASE)

# After a number with its unit: a different quantity than the experiment's result.
QUALIFIER_AFTER = re.compile(
    r"^\s*(?:per[\s-](?:gpu|user|request|stream|step|token|layer|rank|node|sequence|batch|head|card)|each|"
    r"more|less|fewer|extra|additional|faster|slower|higher|lower|better|worse|over|above|below|ahead|behind|"
    r"of (?:headroom|overhead|slack|difference|gain|loss|improvement|regression)|lost|gained|saved|off)\b",
    re.IGNORECASE,
)
QUALIFIER_BEFORE = re.compile(
    r"(?:\bper[\s-]\w+|\bpeak|\bmax(?:imum)?|\bmin(?:imum)?|\bworst|\bbest|\bsingle[\s-]stream|\bdraft|"
    r"\badds?|\badding|\bsaves?|\bshaves?|\btrims?|\bcuts?|\bknocks?|\bgains?|\bloses?|\bcosts?|\bextra|\bby|"
    r"\bdelta|\bdifference|\bgap|\bplus|"
    r"\boverhead|\bheadroom|[+±]|"
    # a figure of another time: "last quarter's 900 tok/s", "yesterday's 1,450"
    r"\b(?:last|previous|prior)\s+(?:week|month|quarter|year|release|sprint|run)'s|\byesterday's)\s*(?:of\s+|about\s+|~\s*)?$",
    re.IGNORECASE,
)

# Negation shortly before a verdict word.
NEGATION = re.compile(
    r"(?<![\w-])(?:not|no longer|never|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|no|nor|hardly|without|"
    r"neither|cannot|can't|won't|stopped being)(?![\w-])\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)

# A change of setup in words: "without P2P between nodes", "w/o graphs", "with X disabled".
UNNAMED_CONDITION = re.compile(
    r"(?<![\w-])(?:without|w/o|sans)\s+(?:the\s+|any\s+)?[\w.+-]+(?:\s+(?!\d)[\w.+-]+){0,3}|"
    r"(?<![\w-])with\s+(?:the\s+)?[\w.+-]+(?:\s+[\w.+-]+){0,2}\s+(?:disabled|turned off|switched off|off|removed)\b",
    re.IGNORECASE,
)


# A load or setup other than the recorded one, in words: "on long contexts", "at small batch sizes", "under heavy traffic".
OTHER_SETUP = re.compile(
    r"(?:(?<![\w-])(?:on|at|with|for|under|in)|@)\s*(?:very\s+)?(?:long|short|large|small|big|heavy|light|high|low|longer|"
    r"shorter|larger|smaller|bigger|heavier|lighter|higher|lower)(?:\s+|-)(?:contexts?|prompts?|sequences?|inputs?|"
    r"outputs?|batch(?:es)?(?:\s+sizes?)?|requests?|load|traffic|concurrency)(?![\w-])|"
    # another model or machine: "on the smaller model", "with a different GPU"
    r"(?<![\w-])(?:on|with|for|using)\s+(?:the\s+|a\s+|an\s+)?(?:smaller|larger|bigger|other|different|older|newer|"
    r"cheaper)\s+(?:model|GPU|card|node|machine|hardware|cluster|box)s?(?![\w-])|"
    # a setting scaled: "with 2x the batch size", "at double the concurrency"
    r"(?<![\w-])(?:with|at)\s+(?:\d+(?:\.\d+)?\s*[x×]|double|twice|half|triple)\s+the\s+(?:batch|concurrency|rate|load|"
    r"traffic|context|prompt|sequence|KV cache|memory|GPUs?|replicas|workers|budget|request)",
    re.IGNORECASE,
)

# A sentence that asks, or reports what someone else measured, claims nothing about the ledger:
# "Is Punica worth it?", "S-LoRA is 9% faster in the upstream paper", "we have not run it".
QUESTION = re.compile(r"\?[*_)\s]*$")
NOT_OURS = re.compile(
    r"(?<![\w-])(?:(?:in|per|from|according to)\s+(?:the|their|its|a)\s+(?:upstream\s+|original\s+|vendor'?s?\s+|"
    r"authors'?\s+|published\s+|project'?s\s+)?(?:paper|preprint|blog(?:\s+post)?|announcement|release notes|model card|"
    r"press release|datasheet|whitepaper)|"
    r"(?:in|per|from)\s+(?:the|their|its|a)\s+(?:upstream|vendor'?s?|published|official|third-party|public)\s+"
    r"(?:benchmarks?|numbers|results|measurements|report|leaderboard|tests?|testing|runs|evaluations?|experiments)|according to|(?:the\s+)?(?:paper|authors|vendor|upstream)\s+(?:reports?|claims?|says|"
    r"states?|quotes?)|(?:we|I)\s+(?:have|has)\s*n[o']t\s+(?:yet\s+)?(?:run|measured|tried|tested|reproduced)|"
    r"not\s+(?:yet\s+)?(?:run|measured|reproduced)\s+(?:by us|here|it|this)|"
    # others' figures: "reports elsewhere put X ahead", "reportedly", "we cannot confirm it"
    r"(?:reports?|benchmarks?|numbers|results|figures)\s+elsewhere|reportedly|"
    # a document of others says so: "the vendor's release notes claim X is 1.7x faster", "the datasheet says"
    r"(?:release\s+notes|blog\s+posts?|announcements?|model\s+cards?|datasheets?|whitepapers?|press\s+releases?)\s+"
    r"(?:claims?|says?|reports?|states?|quotes?|promises?|advertises?|puts?)|"
    # a project's own documentation: "LMCache's own docs quote 3-10x lower TTFT", "the README claims 2x"
    r"(?:\bown|\bthe|\btheir|\bits)\s+(?:docs|documentation|README|blog|marketing)\s+(?:quotes?|says|claims?|reports?|states?|"
    r"lists?|promises?|advertises?)|"
    r"(?:we|I)\s+(?:cannot|can't|could\s*n[o']t|have\s*n[o']t\s+been\s+able\s+to)\s+(?:confirm|reproduce|verify))(?![\w-])",
    re.IGNORECASE,
)

# Clause boundaries, for "near its name".
CLAUSE_BREAK = re.compile(r"[;:()\[\]—–·•]|,\s*(?:but|while|whereas|although|though|so|and|which)\b|\s(?:but|whereas|while|although)\s")

# Verdict phrases, by what they assert.
FAILS = "fails"  # the configuration does not run
WORKS = "works"  # it runs (and does its job)
WINS = "wins"  # better than what it is compared with
LOSES = "loses"  # worse than what it is compared with
SAME = "same"  # no difference

VERDICT_PHRASES: tuple[tuple[str, str], ...] = (
    # Checked in order; earlier, longer phrases win over the words inside them.
    (FAILS, r"(?:does not|doesn't|did not|didn't|do not|don't|won't|will not|cannot|can't) (?:work|run|start|launch|load|boot|fit)"),
    (FAILS, r"(?:stopped|stops|stop) working|not working|no longer works"),
    (LOSES, r"fail(?:s|ed|ing)? to (?:beat|outperform|improve|help|speed up|match|show|pay off|deliver)"),
    (FAILS, r"fail(?:s|ed|ing)? to (?:start|run|launch|load|boot|capture|compile|initiali[sz]e|allocate|serve|complete|finish)"),
    (FAILS, r"(?:is|are|was|still|keeps?) failing|fail(?:s|ed)?(?! (?:the|a|an|our|its|their|this|that|to)\b)"),
    (FAILS, r"crash(?:es|ed|ing)?|broken|OOMs?|OOMed|out of memory|hangs|deadlocks?"),
    (LOSES, r"net[- ]negative|(?:a )?net loss|a regression|regress(?:es|ed)|hurts|loses to|lags(?: behind)?|trails|"
     r"not worth (?:it|enabling|turning on|keeping|the)|no (?:gain|improvement|speed-?up|benefit|win)"),
    (SAME, r"no (?:significant |measurable |meaningful |real |visible |statistically significant )?difference|"
     r"within (?:the )?noise|in the noise|on par with|the same as|indistinguishable from|a wash|equivalent to"),
    (LOSES, r"slower|worse"),
    (WINS, r"net[- ]positive|faster|better|fastest|the best|wins|a win|(?:the )?(?:clear )?winner|speed-?up|outperforms|"
     r"beats|improves|ahead of|worth (?:it|enabling)"),
    # a plural subject's "work" only with the words that make it a verdict: "graphs work again", "work and are ready"
    (WORKS, r"works|work well|working|runs fine|runs cleanly|work (?:again|now|fine|reliably)|work(?= and (?:are|is)\b)"),
)

# Between the two experiments of a heading that compares them: "## 2P1D vs TP8".
# Words that bring a second party into a sentence, whose figure it may quote without naming it:
# "2590 tok/s against the reference's", "up from", "than its baseline".
COMPARING = re.compile(
    r"(?<![\w-])(?:vs\.?|versus|against|than|over|from|relative|compared|baseline|reference|ahead|behind|beats?|"
    r"outperforms?|like|unlike|same as|as (?:fast|slow|high|low) as)(?![\w-])",
    re.IGNORECASE,
)
VERSUS = re.compile(r"\s(?:vs\.?|versus|against|over|compared (?:to|with))\s", re.IGNORECASE)

# A sentence opening with these speaks of the experiment the previous sentence named.
PRONOUN_START = re.compile(r"^(?:it|its|it's|this|that|they|their|these|those|both|which)\b", re.IGNORECASE)

# Words in a status cell of a hand-kept table, to the status they name: every status by its
# own word, and the other words people write for some of them.
STATUS_WORDS: dict[str, Status] = {
    **{status.value.lower(): status for status in Status},
    "work": Status.WORKS,
    "ok": Status.WORKS,
    "same": Status.NO_DIFFERENCE,
    "fails": Status.FAILED,
    "fail": Status.FAILED,
}
STATUS_HEADERS = re.compile(r"^(?:status|verdict|result|outcome|state)$", re.IGNORECASE)

# A word of price ("12% cheaper", "9% more expensive"), and a metric that is a price ("Cost per million tokens", "USD/Mtok").
COST_WORD = re.compile(r"cheaper|less\s+expensive|more\s+expensive|pricier|costlier", re.IGNORECASE)
COST = re.compile(r"\b(?:costs?|price|USD|EUR|dollars?)\b|[$€]", re.IGNORECASE)
