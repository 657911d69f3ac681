"""How long does reading and planning a large experiment log take?

Generates a 10,000-line Markdown log with 200 managed regions (100 tables, 100
inline values), code fences and prose, then times, in one run:

- parse: finding every region (markdown-it-py plus marker pairing);
- plan (stale): rendering every region with new content, splicing, and re-parsing
  the result to check its structure, i.e. what `sync` does when everything changed;
- plan (up to date): the same on the synced log, i.e. what `check` does in CI;
- `python -c "import benchdoc"`, the yardstick every figure is divided by.

    python benchmarks/docs_parse.py          # a small table
    python benchmarks/docs_parse.py --json   # {"parse_s": ..., "parse_ratio": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from benchdoc.docs import Region, parse_text, plan_text

LINES = 10_000
REGIONS = 200
ROWS_PER_TABLE = 8


def generate_log(lines: int = LINES, regions: int = REGIONS) -> str:
    """A log of about `lines` lines: sections of prose, code, a table region and an inline value."""
    sections = regions // 2
    out: list[str] = ["# Experiment log", ""]
    for i in range(sections):
        out += [f"## Experiment {i}", ""]
        out.append(
            f"Run {i} reaches <!-- benchdoc:value exp{i}.output_tok_s -->{50 + i % 40}.0<!-- benchdoc:end --> "
            "tok/s on the reference workload."
        )
        out += ["", f'<!-- benchdoc:table experiments="exp{i} baseline" metric=output_tok_s -->']
        out += ["| Config | Status | tok/s | Notes |", "|---|---|---|---|"]
        out += [f"| config {i}.{r} | Reference | **{80 + r}.0** | old |" for r in range(ROWS_PER_TABLE)]
        out += ["<!-- benchdoc:end -->", ""]
        out += ["```sh", f"benchdoc run exp{i}  # <!-- benchdoc:end --> is text here", "```", ""]
    filler = lines - len(out)
    per_section, extra = divmod(max(filler, 0), sections)
    # Spread prose paragraphs over the sections so the document reads like a long log.
    result: list[str] = []
    section = -1
    for line in out:
        if line.startswith("## Experiment "):
            section += 1
            if section > 0:
                count = per_section + (1 if section <= extra else 0)
                result += [f"Notes line {k}: tried a variant, 3.8% faster, n=5." for k in range(count - 1)]
                result.append("")
        result.append(line)
    result += [f"Closing note {k}." for k in range(LINES - len(result))]
    return "\n".join(result) + "\n"


def render_new(region: Region) -> str:
    if region.inline:
        return "96.1"
    rows = "".join(f"| config {r} | Works | **{92 + r}.6** | new |\n" for r in range(ROWS_PER_TABLE))
    return "| Config | Status | tok/s | Notes |\n|---|---|---|---|\n" + rows


def best_of(repeats: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def import_time(repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import benchdoc"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--repeats", type=int, default=3, help="timing repetitions (the best is kept)")
    args = parser.parse_args()

    log = generate_log()
    parsed = parse_text(log, "log.md")
    assert not parsed.errors and len(parsed.regions) == REGIONS, parsed.errors[:3]
    stale_plan = plan_text(log, render_new, path="log.md")
    assert not stale_plan.errors and len(stale_plan.stale) == REGIONS
    synced = stale_plan.new_text

    import_s = import_time(max(args.repeats, 5))
    parse_s = best_of(args.repeats, lambda: parse_text(log, "log.md"))
    plan_stale_s = best_of(args.repeats, lambda: plan_text(log, render_new, path="log.md"))
    plan_fresh_s = best_of(args.repeats, lambda: plan_text(synced, render_new, path="log.md"))
    figures = {
        "lines": log.count("\n"),
        "regions": REGIONS,
        "import_s": round(import_s, 4),
        "parse_s": round(parse_s, 4),
        "plan_stale_s": round(plan_stale_s, 4),
        "plan_up_to_date_s": round(plan_fresh_s, 4),
        "parse_ratio": round(parse_s / import_s, 1),
        "plan_stale_ratio": round(plan_stale_s / import_s, 1),
        "plan_up_to_date_ratio": round(plan_fresh_s / import_s, 1),
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
        return 0
    print(f"document: {figures['lines']} lines, {REGIONS} regions")
    print(f"{'step':<22}{'seconds':>10}{'x import':>10}")
    print(f"{'import benchdoc':<22}{import_s:>10.3f}{1.0:>10.1f}")
    print(f"{'parse':<22}{parse_s:>10.3f}{figures['parse_ratio']:>10.1f}")
    print(f"{'plan (all stale)':<22}{plan_stale_s:>10.3f}{figures['plan_stale_ratio']:>10.1f}")
    print(f"{'plan (up to date)':<22}{plan_fresh_s:>10.3f}{figures['plan_up_to_date_ratio']:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
