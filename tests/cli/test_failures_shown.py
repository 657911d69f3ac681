"""Where a failure is, its cause is: a server that died of an exception no known pattern
names is shown by that exception in show, history, export, tables, lists and the report.
And a retracted run is out of every result, but struck through in history."""

from __future__ import annotations

import csv
import io
import json
import re
import sys

from tests.conftest import Project

MESSAGE = "ValueError: Model path does not exist: /x.gguf"
EXPLANATION = f"{MESSAGE} (server exited with code 1 before becoming ready)"
SIM = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--fail-start", MESSAGE]

CONFIG = f"""\
[metrics.output_tok_s]
label = "tok/s"
primary = true

[servers.broken]
argv = {json.dumps(SIM)}
ready_timeout = 30

[workloads.small]
requests = 2

[experiments.gguf]
label = "llama.cpp GGUF"
server = "broken"
workload = "small"

[documents]
paths = ["log.md"]
"""

DOC = """\
# Log

<!-- benchdoc:table experiments="gguf" metric=output_tok_s -->
<!-- benchdoc:end -->

<!-- benchdoc:list status="failed untested" -->
<!-- benchdoc:end -->
"""


def test_the_cause_is_shown_wherever_the_failure_is(project: Project) -> None:
    project.write_config(CONFIG)
    (project.root / "log.md").write_text(DOC)
    assert project.run("run", "gguf", "--quiet").returncode == 0
    show = project.run("show", "gguf")
    assert MESSAGE in show.stdout, show.stdout
    history = project.run("history", "gguf")
    assert EXPLANATION in history.stdout, history.stdout
    rows = list(csv.DictReader(io.StringIO(project.run("export").stdout)))
    assert [(r["failure_reason"], r["cause"]) for r in rows] == [("server exited with code 1 before becoming ready", MESSAGE)]
    assert project.run("sync", "--write").returncode == 0
    doc = (project.root / "log.md").read_text()
    table_row = next(line for line in doc.splitlines() if line.startswith("| llama.cpp GGUF"))
    assert "Failed" in table_row and EXPLANATION in table_row
    assert re.search(rf"^- .*llama\.cpp GGUF.*{re.escape(MESSAGE)}", doc, re.M), doc
    assert project.run("report").returncode == 0
    page = (project.root / "report.html").read_text()
    assert f"<strong>Cause:</strong> {MESSAGE}" in page
