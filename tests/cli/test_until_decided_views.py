"""After `run --until-decided` stops on the primary metric, a secondary metric of the same
run is "not decided" (its run's length was chosen on another metric, and no test looked at
it), and every view says so alike: compare, the documents, the report and show --json, with
no direction, no interval and no p-value to read as evidence."""

from __future__ import annotations

import html
import json
import re
import sys
import textwrap

SCRIPT = """
import sys
from pathlib import Path
counter = Path(sys.argv[1])
done = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(done + 1))
value = float(sys.argv[2 + done % (len(sys.argv) - 2)])
print(f"tok={value} ttft={value / 10 + done % 3}")
"""
NOT_DECIDED = "not decided: the sequential test stopped on output_tok_s, not on this metric"


def _config(root: str) -> str:
    py = json.dumps(sys.executable)
    text = f"""\
    [metrics.output_tok_s]
    label = "tok/s"
    unit = "tok/s"
    primary = true

    [metrics.ttft_ms]
    label = "TTFT"
    unit = "ms"
    direction = "lower"

    [servers.sim]
    argv = [{py}, "-m", "benchdoc", "sim", "--port", "{{port}}"]
    ready_timeout = 30
    """
    for name, values in (("base", "100 100.4 101 100.6"), ("fast", "200 200.4 201 200.6")):
        argv = json.dumps([sys.executable, f"{root}/bench.py", f"{root}/{name}.count", *values.split()])
        text += f"""
    [workloads.w-{name}]
    kind = "command"
    argv = {argv}
    regex = {{ output_tok_s = 'tok=([0-9.]+)', ttft_ms = 'ttft=([0-9.]+)' }}

    [experiments.{name}]
    server = "sim"
    workload = "w-{name}"
    {'compare_to = "base"' if name == "fast" else 'role = "reference"'}
    """
    return textwrap.dedent(text)


def test_a_secondary_metric_of_a_stopped_run_reads_not_decided_in_every_view(project) -> None:  # type: ignore[no-untyped-def]
    (project.root / "bench.py").write_text(SCRIPT, encoding="utf-8")
    project.write_config(_config(str(project.root)))
    ran = project.run("run", "base", "fast", "--until-decided", "--starts", "2", "-n", "1", "--max-starts", "3", "-q")
    assert ran.returncode == 0, ran.stderr
    compared = project.run("compare", "fast", "--markdown")
    rows = {cells[0]: cells for line in compared.stdout.splitlines()
            if line.startswith("| ") and (cells := [html.unescape(c.strip()).replace("\\", "") for c in line.split("|")[1:-1]])}
    ttft = rows["TTFT (lower is better)"]
    assert ttft[3] == "?" and ttft[4] == "—" and ttft[5] == "— (n=2+2)" and ttft[6] == "—" and ttft[-1] == NOT_DECIDED
    assert "faster" in rows["tok/s (higher is better)"][-1] and "sequential" in rows["tok/s (higher is better)"][5]
    doc = project.root / "doc.md"
    doc.write_text("TTFT: <!-- benchdoc:value fast.ttft_ms show=verdict -->x<!-- benchdoc:end -->\n"
                   "delta: <!-- benchdoc:value fast.ttft_ms show=delta -->x<!-- benchdoc:end -->\n", encoding="utf-8")
    assert project.run("sync", "--write", "doc.md").returncode == 0
    written = doc.read_text(encoding="utf-8")
    assert "-->not decided against base: the sequential test stopped on output_tok_s, not on this metric<!--" in written
    assert "delta: <!-- benchdoc:value fast.ttft_ms show=delta -->?<!--" in written
    # The lint's fix for a hand-written claim about the secondary metric writes what sync
    # renders there: not decided, naming the metric the run was decided on.
    claim = project.root / "claim.md"
    claim.write_text("# Notes\n\nWith fast, TTFT is 40% lower than base.\n", encoding="utf-8")
    linted = project.run("lint", "claim.md")
    assert "the ledger cannot tell fast from base: " in linted.stdout
    assert "not decided: the sequential test stopped on output_tok_s, not on this metric (run #" in linted.stdout
    sentence = "not decided against base: the sequential test stopped on output_tok_s, not on this metric"
    assert f'write "{sentence}", or bind it: <!-- benchdoc:value fast.ttft_ms show=verdict -->{sentence}' in linted.stdout, \
        linted.stdout
    assert project.run("report", "--output", "r.html").returncode == 0
    page = html.unescape(re.sub(r"<[^>]+>", " ", (project.root / "r.html").read_text(encoding="utf-8")))
    assert f"TTFT: {NOT_DECIDED} (n=2+2)" in re.sub(r"\s+", " ", page)
    shown = json.loads(project.run("show", "--json", "--all-metrics").stdout)
    fast = next(e for e in shown["experiments"] if e["name"] == "fast")
    assert fast["comparisons"]["ttft_ms"]["verdict"] == "undecided"
