"""A check of the fixes the lint proposes: a bound value is the named experiment's, of the named metric, never a load setting.

Used over the labelled corpus (both halves, tests/lint/test_corpus.py) and over the probe
sentences of tests/lint/test_claim_probes.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from benchdoc.lint import LintFacts
from benchdoc.lint.claim_reading import NEW_CLAUSE
from benchdoc.lint.findings import Finding
from benchdoc.lint.knowledge import Knowledge, fmt
from benchdoc.lint.words import PRONOUN_START, UNIT_SPELLINGS

REGION = re.compile(r"<!-- benchdoc:value (?P<exp>[\w.-]+?)(?:\.(?P<metric>\w+))?(?P<show> show=\w+)?(?: vs=[\w.-]+)? -->"
                    r"(?P<text>.*?)<!-- benchdoc:end -->")

RELATIVE_CLAUSE = re.compile(r",\s+which\s", re.IGNORECASE)
SPEED_CLAIM = re.compile(r"\b(?:faster|slower|quicker|speed-?ups?|slow-?downs?)\b", re.IGNORECASE)
SPEED_UNIT = re.compile(r"/\s*s(?:ec)?$|^(?:ms|s|us|µs|ns|sec|seconds?|min|minutes?|h)$", re.IGNORECASE)


def _up_to_the_next_clause(sentence: str, claim: str) -> str:
    """The sentence up to the end of the claim's clause: a clause after it names its own metric."""
    at = sentence.find(claim)
    if at < 0:
        return sentence
    ends = [m.start() for m in (NEW_CLAUSE.search(sentence, at + len(claim)),
                                # A relative clause commenting on the claim ("6% faster than B,
                                # which is not worth the TTFT cost"): the comment's metric.
                                RELATIVE_CLAUSE.search(sentence, at + len(claim))) if m]
    return sentence[: min(ends)] if ends else sentence


def fix_problems(facts: LintFacts, findings: Iterable[Finding]) -> tuple[list[str], int]:
    """(what is wrong with each fix that binds a value region, how many such fixes there were)."""
    know = Knowledge(facts)
    problems: list[str] = []
    checked = 0
    for finding in findings:
        found = REGION.search(finding.fix)
        if found is None:
            continue
        checked += 1
        where = f"{finding.file}:{finding.line} {finding.fix}"
        experiment = found.group("exp")
        metric_name = found.group("metric") or facts.primary_metric
        if found.group("metric") is None and experiment not in facts.experiments:
            experiment, _, metric_name = experiment.rpartition(".")
        if experiment not in facts.experiments or metric_name not in facts.metrics:
            problems.append(f"binds no experiment and metric of the ledger: {where}")
            continue
        metric = facts.metrics[metric_name]
        sentence = finding.sentence
        table = sentence == finding.text or not know.mentions.find(sentence)
        if not table and not PRONOUN_START.match(sentence):  # "It is ...": the experiment the sentence before named
            # The bound experiment (or its line) is one the sentence names.
            named = {n for m in know.mentions.find(sentence) for n in
                     (m.experiment, *(e.name for e in facts.lineage(m.experiment)))}
            if experiment not in named:
                problems.append(f"binds an experiment the sentence does not name: {where}")
            # The bound metric is one the sentence names (by a word of its label or by its
            # unit: "4,610 tok/s, 35% slower than 570, and bus BW ..."), when it names any.
            # A coordinated clause with a verb of its own names its own metric ("... and goodput is 5.6 req/s").
            sentence = _up_to_the_next_clause(sentence, finding.text)
            plain = sentence
            for m in know.mentions.find(sentence):
                plain = plain[: m.start] + " " * (m.end - m.start) + plain[m.end :]
            named_metrics = {m.name for m in know.named_metrics(plain)}
            if SPEED_CLAIM.search(finding.text):
                # "4% faster than APC and lifts the hit rate to 71%": a speed word speaks of a
                # rate or a time, so the other metrics the sentence names are not its metric.
                named_metrics = {n for n in named_metrics if SPEED_UNIT.search(facts.metrics[n].unit)}
            if (named_metrics and finding.kind == "stale-claim" and metric.name not in named_metrics
                    and not know.names_unit(metric.name, plain)):
                problems.append(f"binds a metric the sentence does not name: {where}")
        if found.group("show") is None:
            # A value: the ledger's current figure of that experiment and metric, in the quoted unit.
            current = facts.experiments[experiment].metrics[metric.name].current
            if current is None or found.group("text") != fmt(current, metric.digits):
                problems.append(f"binds a figure that is not the current one: {where}")
            if metric.unit:
                unit = metric.unit.strip().lower()
                rest = " ".join(re.sub(r"^[~≈]?\s*[\d.,]+k?\s*", "", finding.text).lower().split())
                if rest not in ("", unit, *UNIT_SPELLINGS.get(unit, ())):
                    problems.append(f"binds a figure in another unit: {where}")
            written = float(re.sub(r"[^\d.]", "", finding.text.split()[0].rstrip("k")) or "nan")
            written_unit = " ".join(re.sub(r"^[~≈]?\s*[\d.,]+k?\s*", "", finding.text).lower().split())
            # A setting in the figure's own unit: "6 req/s" against rate = 6, not "900 GB/s" against duration_s = 900.
            if any(value == written and _setting_unit(key) == written_unit
                   for key, value in facts.experiments[experiment].load):
                problems.append(f"binds a figure that is a setting of the workload: {where}")
    return problems, checked


def _setting_unit(key: str) -> str:
    """The unit a workload setting is in, told by its key: "rate" req/s, "slo.ttft_ms" ms, "duration_s" s,
    "input_tokens" tokens; a count ("concurrency", "requests") has none."""
    name = key.lower()
    if "rate" in name or "qps" in name or name.endswith("req_s"):
        return "req/s"
    if name.endswith("tok_s"):
        return "tok/s"
    if name.endswith("_ms"):
        return "ms"
    if name.endswith("_s") or "duration" in name:
        return "s"
    if "token" in name or name.endswith("_len"):
        return "tokens"
    return ""
