"""Commands that read results agree with each other: `compare` with `show`, and every command
with every other on which experiments a name, alias or glob names. Run in-process."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tests.conftest import Project

from benchdoc.cli import main
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger

BASE = [92.6, 92.4, 92.9, 92.5, 92.7]
VARIANT = [93.1, 92.8, 93.3, 92.9, 93.2]  # five starts: p = 0.0084 alone
IMPORTED = Path(__file__).resolve().parents[1] / "importers" / "data" / "genai_perf.json"
TEN_VARIANTS = (
    '[metrics.output_tok_s]\nlabel = "tok/s"\nunit = "tok/s"\nprimary = true\n\n'
    '[experiments.baseline]\nrole = "reference"\n\n'
    + "".join(f'[experiments.v{i}]\ncompare_to = "baseline"\n\n' for i in range(10))
)


def record(project: Project, experiment: str, values: list[float]) -> None:
    with Ledger.open(project.ledger_url) as ledger:
        ledger.record_run(NewRun(experiment, samples=[Sample("output_tok_s", v, i, i) for i, v in enumerate(values)]))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def ten_variants(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    project.write_config(TEN_VARIANTS)
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("BENCHDOC_LEDGER_URL", raising=False)
    record(project, "baseline", BASE)
    for i in range(10):
        record(project, f"v{i}", VARIANT)
    return project


def test_compare_gives_the_verdict_interval_and_p_that_show_gives(
    ten_variants: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "show", "--json")
    assert code == 0, err
    shown = {e["name"]: e["comparisons"]["output_tok_s"] for e in json.loads(out)["experiments"] if e["comparisons"]}
    assert len(shown) == 10
    for name in ("v0", "v7"):
        code, out, err = cli(capsys, "compare", name, "--json")
        assert code == 0, err
        compared = json.loads(out)["comparisons"]["output_tok_s"]
        keys = ("verdict", "verdict_text", "delta_pct", "delta_ci_low_pct", "delta_ci_high_pct", "p_value", "p_adjusted")
        assert {k: compared[k] for k in keys} == {k: shown[name][k] for k in keys}
        # Alone, p < 0.01 says faster; corrected across the ten it does not.
        assert compared["verdict"] != "better" and compared["p_value"] < 0.01 < 0.05 < compared["p_adjusted"]
        assert compared["corrected"] is True and "across 10 comparisons" in compared["correction_note"]

    code, out, _ = cli(capsys, "compare", "v3", "baseline")
    assert code == 0
    row = next(line for line in out.splitlines() if line.lstrip("│ ").startswith("tok/s"))
    p_adjusted, p_raw = f"{shown['v3']['p_adjusted']:.2g}", f"{shown['v3']['p_value']:.2g}"
    assert "p uncorrected" in out and p_adjusted in row and p_raw in row
    assert shown["v3"]["verdict_text"].split(";")[0] in row  # the verdict's words (wrapped after its p)
    assert "across 10 comparisons" in out


def test_compare_of_a_pair_outside_the_family_says_it_is_uncorrected(
    ten_variants: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "compare", "v1", "v2", "--json")
    assert code == 0, err
    compared = json.loads(out)["comparisons"]["output_tok_s"]
    assert compared["corrected"] is False and compared["p_adjusted"] is None
    assert "not part of the corrected family" in compared["correction_note"]
    code, out, _ = cli(capsys, "compare", "v1", "v2", "-m", "tok/s")
    assert code == 0 and "p uncorrected" not in out and "not part of the corrected family" in out


def test_show_accepts_globs_like_run_and_plot(ten_variants: Project, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "show", "v1*", "baseline", "--json")
    assert code == 0, err
    assert [e["name"] for e in json.loads(out)["experiments"]] == ["v1", "baseline"]
    code, _, err = cli(capsys, "show", "w*")
    assert code == 2 and "no experiment matches 'w*'" in err
    code, out, err = cli(capsys, "show", "v2", "-m", "tok/s")
    assert code == 0 and "tok/s" in out, err


def test_an_experiment_only_in_the_ledger_is_named_like_any_other(
    ten_variants: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "import", str(IMPORTED), "-e", "trtllm-chat", "--allow-new")
    assert code == 0, err
    code, out, err = cli(capsys, "show", "--json")
    assert "trtllm-chat" in [e["name"] for e in json.loads(out)["experiments"]]
    for args in (("show", "trtllm-chat"), ("show", "trtllm-*"), ("history", "trtllm-chat"), ("history", "trtllm*")):
        code, out, err = cli(capsys, *args)
        assert code == 0, (args, err)
        assert "trtllm-chat" in out, args
    code, out, _ = cli(capsys, "history", "trtllm-chat", "--json")
    assert [run["experiment"] for run in json.loads(out)] == ["trtllm-chat"]
    for pattern in ("trtllm-chat", "trt*"):
        code, out, err = cli(capsys, "export", "-e", pattern)
        assert code == 0, err
        assert {row["experiment"] for row in csv.DictReader(io.StringIO(out))} == {"trtllm-chat"}
    code, _, err = cli(capsys, "history", "trtllm-chta")
    assert code == 2 and "unknown experiment 'trtllm-chta' (did you mean 'trtllm-chat'?)" in err
