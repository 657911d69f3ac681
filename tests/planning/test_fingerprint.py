"""Which results are current: each run records its configuration's fingerprint; a changed
configuration marks older runs "config changed since", and `run --missing` reruns them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.runner.conftest import write_project

from benchdoc.ledger import Ledger, NewRun, Sample
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.planning.fingerprint import experiment_fingerprint, missing_experiments
from benchdoc.results import build_results

SWEEP = """
[experiments.eagle3]
label = "EAGLE-3"
server = "sim"
workload = "small"
repetitions = 1

[sweeps.grid]
base = "eagle3"
name = "eagle3-s{steps}"
matrix = { steps = [1, 2] }
args = ["--draft-steps", "{steps}"]

[documents]
paths = ["log.md"]
"""


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchdoc", *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "200"})


def test_what_changes_the_fingerprint(tmp_path: Path) -> None:
    config = write_project(tmp_path, SWEEP)
    before = {name: experiment_fingerprint(config, name) for name in ("eagle3", "eagle3-s1", "eagle3-s2")}
    assert len(set(before.values())) == 3 and all(v and v.startswith("sha256:") for v in before.values())
    # A label, the repetitions or a timeout do not change what runs.
    same = write_project(tmp_path, SWEEP.replace('label = "EAGLE-3"', 'label = "EAGLE-3 (renamed)"')
                         .replace("repetitions = 1", "repetitions = 3"), ready_timeout=99)
    assert {n: experiment_fingerprint(same, n) for n in before} == before
    # An argument, a matrix value's argument, the environment or a workload setting do.
    changed = write_project(tmp_path, SWEEP.replace('workload = "small"', 'workload = "small"\nenv = { NCCL_ALGO = "Tree" }'))
    assert all(experiment_fingerprint(changed, n) != before[n] for n in before)
    big = "\n[workloads.big]\nrequests = 60\nconcurrency = 2\ninput_tokens = 8\noutput_tokens = 8\nwarmup_requests = 1\n"
    heavier = write_project(tmp_path, SWEEP.replace('workload = "small"', 'workload = "big"') + big)
    assert experiment_fingerprint(heavier, "eagle3") != before["eagle3"]
    # The workload's name is not what runs: the same settings under another name are the same.
    renamed = write_project(tmp_path, SWEEP.replace('workload = "small"', 'workload = "big"') + big.replace("60", "6"))
    assert experiment_fingerprint(renamed, "eagle3") == before["eagle3"]
    assert experiment_fingerprint(config, "no-such") is None


def test_changed_config_is_marked_and_missing_reruns_only_what_needs_it(tmp_path: Path) -> None:
    config = write_project(tmp_path, SWEEP)
    (tmp_path / "log.md").write_text(
        '<!-- benchdoc:table experiments="eagle3-s*" columns="label status notes" -->\n<!-- benchdoc:end -->\n')
    first = cli(tmp_path, "run", "-q", "eagle3-s*")
    assert first.returncode == 0, first.stderr
    with Ledger.open(config.ledger_url) as ledger:
        runs = ledger.runs()
        assert {r.metadata.config_fingerprint for r in runs} == {
            experiment_fingerprint(config, "eagle3-s1"), experiment_fingerprint(config, "eagle3-s2")}
        assert missing_experiments(config, ["eagle3-s1", "eagle3-s2"], runs) == []
    nothing = cli(tmp_path, "run", "--missing", "eagle3-s*")
    assert nothing.returncode == 0 and "nothing to run" in nothing.stdout

    # The second member's argument changes: its result is no longer current.
    config = write_project(tmp_path, SWEEP.replace('args = ["--draft-steps", "{steps}"]',
                                    'args = ["--draft-steps", "{steps}", "--accept-prob", "0.{steps}"]'))
    with Ledger.open(config.ledger_url) as ledger:
        results = build_results(config, ledger)
    assert (results["eagle3-s1"].config_changed, results["eagle3-s2"].config_changed) == (True, True)
    show = cli(tmp_path, "show")
    assert show.stdout.count("(config changed since)") == 2, show.stdout
    assert "benchdoc run --missing" in show.stdout
    assert cli(tmp_path, "sync", "--write").returncode == 0
    assert (tmp_path / "log.md").read_text().count("config changed since this result") == 2

    # A failed run of the current config is not a result; an ok run of the old one is not current.
    with Ledger.open(config.ledger_url) as ledger:
        ledger.record_run(NewRun("eagle3-s1", outcome="failed", failure_reason="OOM",
                                 metadata=RunMetadata(config_fingerprint=experiment_fingerprint(config, "eagle3-s1"))))
        ledger.record_run(NewRun("eagle3-s2", samples=[Sample("output_tok_s", 10.0)],
                                 metadata=RunMetadata(config_fingerprint=experiment_fingerprint(config, "eagle3-s2"))))
    dry = cli(tmp_path, "run", "--missing", "--dry-run", "eagle3-s*")
    assert dry.returncode == 0, dry.stderr
    assert "eagle3-s1  (server sim" in dry.stdout and "eagle3-s2  (server sim" not in dry.stdout
    rerun = cli(tmp_path, "run", "-q", "--missing", "eagle3-s*")
    assert rerun.returncode == 0, rerun.stderr
    with Ledger.open(config.ledger_url) as ledger:
        assert [r.experiment for r in ledger.runs()][:1] == ["eagle3-s1"] and len(ledger.runs()) == 5
        results = build_results(config, ledger)
    assert not results["eagle3-s1"].config_changed and not results["eagle3-s2"].config_changed


def test_runs_without_a_fingerprint_count_as_current(tmp_path: Path) -> None:
    config = write_project(tmp_path, SWEEP)
    with Ledger.open(config.ledger_url) as ledger:
        ledger.record_run(NewRun("eagle3-s1", samples=[Sample("output_tok_s", 10.0)], source="record"))
        runs = ledger.runs()
        results = build_results(config, ledger)
    assert missing_experiments(config, ["eagle3-s1", "eagle3-s2"], runs) == ["eagle3-s2"]
    assert not results["eagle3-s1"].config_changed
