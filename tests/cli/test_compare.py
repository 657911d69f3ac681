"""`benchdoc compare` and `benchdoc show` on a ledger built through `benchdoc record`."""

from __future__ import annotations

import json

from tests.conftest import Project

from benchdoc.stats import compare

BASE = [92.6, 92.4, 92.9, 92.5, 92.7]
NEW = [96.1, 95.8, 96.4, 96.0, 96.3]


def record(project: Project, experiment: str, values: list[float]) -> None:
    res = project.run("record", experiment, "--each-start", "-m", "output_tok_s=" + ",".join(map(str, values)))
    assert res.returncode == 0, res.stderr


def test_compare_gives_the_library_verdict(project: Project) -> None:
    record(project, "baseline", BASE)
    record(project, "eagle3-cuda13", NEW)
    res = project.run("compare", "eagle3-cuda13", "--json")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)["comparisons"]["output_tok_s"]
    expected = compare(NEW, BASE, direction="higher", equivalence_margin=0.01)
    assert got["verdict"] == expected.verdict == "better"
    assert got["p_value"] == expected.p_value
    assert round(got["delta_pct"], 1) == 3.8

    text = project.run("compare", "eagle3-cuda13", "baseline")
    assert text.returncode == 0
    assert "+3.8%" in text.stdout and "3.8% faster" in text.stdout and "<0.001" in text.stdout


def test_compare_errors(project: Project) -> None:
    record(project, "baseline", BASE)
    assert project.run("record", "nccl-tree", "--failed", "CUDA graph incompatible").returncode == 0
    failed = project.run("compare", "nccl-tree")
    assert failed.returncode == 2 and "its latest run failed: CUDA graph incompatible" in failed.stderr
    no_base = project.run("compare", "baseline")
    assert no_base.returncode == 2 and "has no compare_to" in no_base.stderr


def test_show_has_status_and_comparison_columns(project: Project) -> None:
    record(project, "baseline", BASE)
    record(project, "eagle3-cuda13", NEW)
    assert project.run("record", "nccl-tree", "--failed", "CUDA graph incompatible").returncode == 0
    res = project.run("show")
    assert res.returncode == 0, res.stderr
    for text in ("Reference", "Works", "Failed (CUDA graph incompatible)", "Untested", "vs baseline: 3.8% faster"):
        assert text in res.stdout
    assert "+3.8% vs baseline" not in res.stdout  # the size once, in the verdict's words
    # The name to type beside each label.
    assert "eagle3-cuda13" in res.stdout and "nccl-fewer-channels" in res.stdout
    data = json.loads(project.run("show", "--json").stdout)
    statuses = {e["name"]: e["status"] for e in data["experiments"]}
    assert statuses == {
        "baseline": "Reference", "eagle3": "Untested", "eagle3-cuda13": "Works",
        "nccl-tree": "Failed", "nccl-fewer-channels": "Untested",
    }


def test_compare_lists_a_machine_load_difference(project: Project) -> None:
    from benchdoc.ledger import NewRun
    from benchdoc.ledger.models import Sample
    from benchdoc.ledger.store import Ledger
    from benchdoc.machineload import LoadFigures, environment_entry

    def figures(others: float, busy: bool) -> LoadFigures:
        reasons = (f"other processes kept {others:.2f} of 8 CPUs busy",) if busy else ()
        return LoadFigures(2.0, 8, 0.4, 0.5, others, 0.6, 1.0, busy, reasons)

    host = {"hostname": "gpu-01"}
    with Ledger.open(project.ledger_url) as ledger:
        for name, values, entry in (
            ("baseline", BASE, environment_entry([figures(0.02, False), figures(0.03, False)])),
            ("eagle3-cuda13", NEW, environment_entry([figures(1.7, True), figures(0.01, False)])),
        ):
            ledger.record_run(NewRun(
                experiment=name, samples=[Sample("output_tok_s", v, i, i) for i, v in enumerate(values)],
                environment={"host": host, "load": entry}, source="run",
            ))
    text = project.run("compare", "eagle3-cuda13", "baseline")
    assert text.returncode == 0, text.stderr
    assert "environment: machine load quiet -> busy" in text.stdout
    data = json.loads(project.run("compare", "eagle3-cuda13", "--json").stdout)
    # The raw figures differ too, but only the state is compared.
    assert data["environment_diff"] == ["machine load quiet -> busy"]


def test_compare_warns_when_the_load_generator_was_the_bottleneck(project: Project) -> None:
    from benchdoc.config import load_config
    from benchdoc.ledger.metadata import ClientVerdict, RunMetadata
    from benchdoc.ledger.models import NewRun, Sample
    from benchdoc.ledger.store import Ledger

    config = load_config(project.root / "benchdoc.toml")
    bound = RunMetadata(client=ClientVerdict(True, reasons=("the client used 97% of a core",)))
    with Ledger.open(config.ledger_url) as ledger:
        ledger.record_run(NewRun(experiment="baseline", samples=[Sample("output_tok_s", v, i, i)
                                                                for i, v in enumerate([92.6, 92.4, 92.9, 92.5])]))
        ledger.record_run(NewRun(experiment="eagle3", metadata=bound, samples=[
            Sample("output_tok_s", v, i, i) for i, v in enumerate([96.1, 95.8, 96.4, 96.2])]))
    res = project.run("compare", "eagle3", "baseline")
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert "the load generator was the bottleneck (client-bound) in 1 of 1 pooled runs: the client used 97%" in text


def test_one_server_start_a_side_gives_no_direction_and_no_p(project: Project) -> None:
    for name, values in (("baseline", BASE), ("eagle3-cuda13", NEW)):
        assert project.run("record", name, "-m", "output_tok_s=" + ",".join(map(str, values))).returncode == 0
    text = project.run("compare", "eagle3-cuda13", "baseline").stdout
    assert "within one server start each: start-to-start" in text and "faster" not in text
    assert "— (n=5+5)" in text and "1 v 1 server starts of about 5 repetitions" in text
    shown = project.run("show").stdout
    assert "Measured (+3.8% within one server start each" in shown and "Works" not in shown
