"""Precision and recall of the prose lint on the labelled corpus, in two halves.

The development half (tests/lint_corpus/) holds the logs the lint's rules were built on,
and every log once held out whose misreadings have since been looked at. The held-out half
(tests/lint_corpus_unseen/) holds logs written by a different hand, who does not see the
lint's code: they are added and scored, never tuned on. The folder may be empty between
batches; then only the development half is scored (its README states the rule).

Each case folder holds a benchdoc.toml, the runs of its ledger (runs.toml), one or more
Markdown logs and expected.txt, which lists every planted stale statement as
``FILE:LINE KIND SNIPPET``. The runs are recorded into a fresh SQLite ledger, the results
computed, and every Markdown file of the case linted. A finding is a true positive when
an expected entry has its file, line and kind; every other finding is a false positive.

    python benchmarks/lint_corpus.py            # a table per case and the totals of each half
    python benchmarks/lint_corpus.py --json     # {"precision": ..., "precision_unseen": ..., ...}
    python benchmarks/lint_corpus.py --speed    # also time lint and sync on a 10,000-line log
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchdoc.config import Config, load_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import Finding, LintFacts, facts_from_results, lint_paths, markdown_files
from benchdoc.results import build_results

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "lint_corpus"
UNSEEN = Path(__file__).resolve().parents[1] / "tests" / "lint_corpus_unseen"
# The kinds of finding the lint reports; a label of any other kind could never be found.
KINDS = ("stale-claim", "stale-value", "stale-verdict")
TARGET_PRECISION = 0.95
TARGET_RECALL = 0.90


@dataclass(frozen=True)
class Expected:
    file: str
    line: int
    kind: str
    snippet: str


@dataclass
class CaseScore:
    name: str
    expected: list[Expected]
    findings: list[Finding]
    true_positives: list[Finding] = field(default_factory=list)
    false_positives: list[Finding] = field(default_factory=list)
    missed: list[Expected] = field(default_factory=list)


def read_expected(case: Path) -> list[Expected]:
    entries = []
    for number, raw in enumerate((case / "expected.txt").read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where, kind, *snippet = line.split(maxsplit=2)
        file, _, line_number = where.rpartition(":")
        if not file or not line_number.isdigit():
            raise ValueError(f"{case / 'expected.txt'}:{number}: expected FILE:LINE KIND SNIPPET, got {raw!r}")
        if kind not in KINDS:
            raise ValueError(f"{case / 'expected.txt'}:{number}: unknown kind {kind!r}, expected one of {', '.join(KINDS)}")
        entries.append(Expected(file, int(line_number), kind, snippet[0] if snippet else ""))
    return entries


def load_runs(case: Path, config: Config) -> list[NewRun]:
    """The case's runs.toml as runs to record, in file order."""
    import tomllib

    data = tomllib.loads((case / "runs.toml").read_text(encoding="utf-8"))
    environments: dict[str, Any] = data.get("env", {})
    runs = []
    for item in data.get("runs", []):
        started = datetime.fromisoformat(item["started_at"].replace("Z", "+00:00"))
        # A case's runs were interleaved: each listed value is a server start of its own.
        samples = [
            Sample(metric, float(value), repetition, repetition)
            for metric in config.metrics
            for repetition, value in enumerate(item.get(metric, []))
        ]
        environment = dict(environments.get(item.get("env", ""), {}))
        runs.append(
            NewRun(
                experiment=item["experiment"],
                outcome=item.get("outcome", "ok"),
                samples=samples,
                started_at=started,
                finished_at=started + timedelta(minutes=5),
                failure_reason=item.get("failure_reason"),
                host="gpu-a",
                environment={"host": {"hostname": "gpu-a"}, **environment},
            )
        )
    return runs


def case_facts(case: Path, ledger_folder: Path) -> tuple[Config, LintFacts]:
    """Record the case's runs into a new SQLite ledger and take the lint's facts from it."""
    config = load_config(case / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{ledger_folder / (case.name + '.db')}") as ledger:
        ledger.record_runs(load_runs(case, config))
        return config, facts_from_results(build_results(config, ledger))


def score_case(case: Path, ledger_folder: Path) -> CaseScore:
    _, facts = case_facts(case, ledger_folder)
    expected = read_expected(case)
    documents = markdown_files([case])
    findings = [f for result in lint_paths(facts, documents) for f in result.findings]
    for finding in findings:
        object.__setattr__(finding, "file", Path(finding.file).resolve().relative_to(case.resolve()).as_posix())
    score = CaseScore(case.name, expected, findings)
    remaining = Counter((e.file, e.line, e.kind) for e in expected)
    for finding in findings:
        key = (finding.file, finding.line, finding.kind)
        if remaining[key] > 0:
            remaining[key] -= 1
            score.true_positives.append(finding)
        else:
            score.false_positives.append(finding)
    matched = Counter((f.file, f.line, f.kind) for f in score.true_positives)
    for entry in expected:
        key = (entry.file, entry.line, entry.kind)
        if matched[key] > 0:
            matched[key] -= 1
        else:
            score.missed.append(entry)
    return score


def check_snippets(case: Path) -> list[str]:
    """Expected entries whose snippet is not on their line (the document moved under the label)."""
    problems = []
    for entry in read_expected(case):
        lines = (case / entry.file).read_text(encoding="utf-8").splitlines()
        if entry.line > len(lines) or entry.snippet not in lines[entry.line - 1]:
            problems.append(f"{case.name}/{entry.file}:{entry.line}: snippet {entry.snippet!r} not on that line")
    return problems


def speed(ledger_folder: Path, lines: int = 10_000) -> dict[str, float]:
    """Seconds to lint, and to plan a sync of, a log of about ``lines`` lines built from the corpus."""
    from benchdoc.docs.project import plan_documents
    from benchdoc.lint import ProseChecker
    from benchdoc.results import LazyResults, compute_results

    case = CORPUS / "speculative-decoding"
    config, facts = case_facts(case, ledger_folder)
    source = (case / "eagle-fast-verify.md").read_text(encoding="utf-8")
    # Without the recorded checksum, sync re-renders every region, as after new runs.
    body = re.sub(r"<!-- benchdoc:end sum=\w+ -->", "<!-- benchdoc:end -->", source.split("\n", 1)[1])
    copies = max(1, lines // body.count("\n"))
    big = ledger_folder / "big-log.md"
    big.write_text("# Big log\n" + "".join(f"\n## Copy {i}\n{body}" for i in range(copies)), encoding="utf-8")
    with Ledger.open(f"sqlite:///{ledger_folder / (case.name + '.db')}") as ledger:
        runs = ledger.runs()
    results = compute_results(config, runs)

    def best(action: Any, repeat: int = 3) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            action()
            times.append(time.perf_counter() - start)
        return min(times)

    lint_s = best(lambda: lint_paths(facts, [big], ProseChecker(facts)))
    sync_s = best(lambda: plan_documents(config, LazyResults.of(results), [big]))
    return {"lines": float(big.read_text().count("\n")), "lint_s": lint_s, "sync_s": sync_s,
            "lint_over_sync": lint_s / sync_s if sync_s else float("inf")}


def score_half(cases: list[Path], folder: Path) -> tuple[list[CaseScore], dict[str, Any]]:
    """Every case of one half scored, and the half's totals."""
    scores = [score_case(case, folder) for case in cases]
    tp = sum(len(s.true_positives) for s in scores)
    fp = sum(len(s.false_positives) for s in scores)
    fn = sum(len(s.missed) for s in scores)
    totals: dict[str, Any] = {
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
        "true_positives": tp,
        "false_positives": fp,
        "missed": fn,
        "planted": tp + fn,
    }
    return scores, totals


def case_figures(scores: list[CaseScore]) -> dict[str, Any]:
    return {
        s.name: {
            "planted": len(s.expected),
            "found": len(s.findings),
            "false_positives": [f"{f.file}:{f.line} {f.kind} {f.text!r}" for f in s.false_positives],
            "missed": [f"{e.file}:{e.line} {e.kind} {e.snippet!r}" for e in s.missed],
        }
        for s in scores
    }


def print_half(title: str, scores: list[CaseScore], totals: dict[str, Any]) -> None:
    print(f"{title}:")
    for s in scores:
        print(f"{s.name:24} planted {len(s.expected):3}  found {len(s.findings):3}  "
              f"false positives {len(s.false_positives):2}  missed {len(s.missed):2}")
        for f in s.false_positives:
            print(f"    false positive  {f.file}:{f.line}:{f.column} {f.kind}: {f.message}")
        for e in s.missed:
            print(f"    missed          {e.file}:{e.line} {e.kind} {e.snippet!r}")
    print(f"precision {totals['precision']:.3f} (target {TARGET_PRECISION})  recall {totals['recall']:.3f} "
          f"(target {TARGET_RECALL})  [{totals['true_positives']} found, {totals['false_positives']} false, "
          f"{totals['missed']} missed of {totals['planted']} planted]")


def cases_of(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if (p / "expected.txt").is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--speed", action="store_true", help="also time lint and sync on a 10,000-line log")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the development half's folder")
    parser.add_argument("--unseen", type=Path, default=UNSEEN, help="the unseen half's folder")
    args = parser.parse_args(argv)
    development, unseen = cases_of(args.corpus), cases_of(args.unseen)
    try:
        problems = [p for case in development + unseen for p in check_snippets(case)]
    except ValueError as error:  # a malformed label: its file and line, not a traceback
        print(f"lint_corpus: {error}", file=sys.stderr)
        return 2
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        dev_scores, dev_totals = score_half(development, Path(folder))
        unseen_scores, unseen_totals = score_half(unseen, Path(folder))
        timing = speed(Path(folder)) if args.speed else None
    figures: dict[str, Any] = {**dev_totals, "cases": case_figures(dev_scores)}
    if unseen:
        figures.update({f"{key}_unseen": value for key, value in unseen_totals.items()})
        figures["unseen_cases"] = case_figures(unseen_scores)
    if timing is not None:
        figures["speed"] = {k: round(v, 4) for k, v in timing.items()}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print_half("development half", dev_scores, dev_totals)
    print()
    if unseen:
        print_half("unseen half", unseen_scores, unseen_totals)
    else:
        print(f"held-out half: no cases in {args.unseen} (empty between batches)")
    if timing is not None:
        print(f"{int(timing['lines'])}-line log: lint {timing['lint_s']:.3f} s, sync plan {timing['sync_s']:.3f} s "
              f"(lint/sync {timing['lint_over_sync']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
