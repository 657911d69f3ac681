"""`benchdoc import` through the real command: records, refuses, skips, and records nothing on error."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import Project

DATA = Path(__file__).resolve().parents[1] / "importers" / "data"


def history(project: Project, experiment: str) -> list[dict]:
    result = project.run("history", experiment, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def run_count(project: Project) -> int:
    result = project.run("export", "--format", "json")
    assert result.returncode == 0, result.stderr
    return len({row["run_id"] for row in json.loads(result.stdout)})


def test_import_records_the_selected_runs_with_their_provenance(project: Project) -> None:
    result = project.run(
        "import", str(DATA / "sglang_serving.jsonl"), "--format", "sglang-serving",
        "--experiment", "EAGLE-3", "--select", "*max_concurrency=16*", "--note", "H100 box",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("imported 2 runs from sglang_serving.jsonl (sglang-serving) as runs of 'eagle3'")
    assert "run 1    sglang_serving.jsonl:1" in out and "run 2    sglang_serving.jsonl:2" in out
    # Declared metrics are shown with their configured digits.
    assert re.search(r"\n  output_tok_s +2  1499\.0, 1511\.2\n", out)
    assert re.search(r"\n  ttft_ms_p50 +2  71\.2, 70\.3\n", out)
    assert re.search(r"\n  ttft_ms_p99 +2  301\.52, 288\.41\n", out)  # undeclared: as the tool wrote it

    runs = history(project, "eagle3")
    assert len(runs) == 2
    for record in runs:
        assert record["source"] == "import:sglang-serving" and record["note"] == "H100 box"
        assert record["metadata"]["import"]["file"].endswith("sglang_serving.jsonl")
        assert record["metadata"]["tool"]["backend"] == "sglang"
        assert record["environment"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    by_entry = {r["metadata"]["import"]["entry"]: r for r in runs}
    samples = {s["metric"]: s["value"] for s in by_entry["line 1"]["samples"]}
    assert samples["ttft_ms_p50"] == 71.18 and samples["itl_ms_p99"] == 24.8 and samples["accept_length"] == 2.81


def test_importing_again_skips_what_is_already_in_the_ledger(project: Project) -> None:
    args = ("import", str(DATA / "vllm_serve_append.json"), "-f", "vllm", "-e", "baseline")
    assert project.run(*args).returncode == 0
    again = project.run(*args)
    assert again.returncode == 0, again.stderr
    assert "nothing to import from vllm_serve_append.json (vllm-serve): every run was imported before" in again.stdout
    assert "skipped vllm_serve_append.json:2: already recorded as run 2" in again.stdout
    assert run_count(project) == 2
    forced = project.run(*args, "--allow-duplicates", "--json")
    assert forced.returncode == 0, forced.stderr
    assert [r["id"] for r in json.loads(forced.stdout)["runs"]] == [3, 4]


def test_a_truncated_file_is_refused_and_nothing_is_recorded(project: Project) -> None:
    assert project.run("import", str(DATA / "llmperf_summary.json"), "-e", "baseline").returncode == 0
    text = (DATA / "sglang_serving.jsonl").read_text()
    cut = project.root / "cut.jsonl"
    cut.write_text(text[: len(text) * 5 // 6])  # lines 1 and 2 whole, line 3 cut
    result = project.run("import", str(cut), "-f", "sglang-serving", "-e", "eagle3", "--mixed")
    assert result.returncode == 1
    assert result.stderr.startswith(f"benchdoc: error: {cut}:3: this line ends before the JSON is complete")
    assert "the file looks truncated; expected an SGLang bench_serving result" in result.stderr
    assert result.stdout == ""
    assert run_count(project) == 1 and history(project, "eagle3") == []


def test_unknown_experiments_are_refused_unless_new_ones_are_allowed(project: Project) -> None:
    path = str(DATA / "genai_perf.json")
    result = project.run("import", path, "-e", "baselin")
    assert result.returncode == 2
    assert "unknown experiment 'baselin' (did you mean 'baseline'?)" in result.stderr and "--allow-new" in result.stderr
    bad_name = project.run("import", path, "-e", "my run", "--allow-new")
    assert bad_name.returncode == 2 and "cannot be an experiment name" in bad_name.stderr
    created = project.run("import", path, "-e", "trtllm-chat", "--allow-new")
    assert created.returncode == 0, created.stderr
    assert "imported 1 run from genai_perf.json (genai-perf) as runs of 'trtllm-chat'" in created.stdout
    assert history(project, "baseline") == []


def test_a_file_of_several_configurations_needs_a_selection(project: Project) -> None:
    path = str(DATA / "hyperfine.json")
    result = project.run("import", path, "-e", "baseline")
    assert result.returncode == 2
    assert "2 different configurations" in result.stderr and "--select LABEL" in result.stderr
    picked = project.run("import", path, "-e", "baseline", "-s", "*-fa 1")
    assert picked.returncode == 0, picked.stderr
    (record,) = history(project, "baseline")
    assert record["outcome"] == "failed"
    assert record["failure_reason"] == "the command exited with status 1 in 1 of 10 timed runs"
    assert [s["repetition"] for s in record["samples"] if s["metric"] == "time_ms"] == list(range(10))


def test_a_dry_run_needs_no_project_and_records_nothing(tmp_path: Path) -> None:
    anywhere = Project(tmp_path)  # no benchdoc.toml here
    result = anywhere.run("import", str(DATA / "guidellm.json"), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("would import 2 runs from guidellm.json (guidellm); nothing recorded (dry run)")
    assert "guidellm.json benchmarks[1]  constant rate=4" in result.stdout
    assert "note: 2 configurations; import one with --select LABEL" in result.stdout
    as_json = json.loads(anywhere.run("import", str(DATA / "guidellm.json"), "-n", "--json", "-s", "synchronous").stdout)
    assert as_json["dry_run"] is True and [r["label"] for r in as_json["runs"]] == ["synchronous"]
    assert as_json["runs"][0]["metrics"]["tpot_ms_mean"] == [5.91]
    assert not (tmp_path / ".benchdoc").exists()


def test_an_experiment_is_required_to_record(project: Project) -> None:
    result = project.run("import", str(DATA / "llmperf_summary.json"))
    assert result.returncode == 2 and "--experiment NAME" in result.stderr
    wrong = project.run("import", str(DATA / "llmperf_summary.json"), "-e", "baseline", "-f", "hyperfin")
    assert wrong.returncode == 2 and "did you mean 'hyperfine'" in wrong.stderr


def test_llmperf_statistics_are_kept_as_numbers_not_redacted(project: Project) -> None:
    res = project.run("import", str(DATA / "llmperf_summary.json"), "-e", "baseline")
    assert res.returncode == 0, res.stderr
    (run,) = json.loads(project.run("history", "baseline", "--json").stdout)
    text = json.dumps(run)
    # Their names hold the word "token"; their values are statistics, not credentials.
    assert '"results_inter_token_latency_s_stddev": 0.001626' in text
    assert '"results_request_output_throughput_token_per_s_stddev": 16.9' in text


def test_an_aiperf_file_imported_as_genai_perf_is_refused_in_one_line(project: Project) -> None:
    res = project.run("import", str(DATA / "aiperf-0.13.0-rate.json"), "-f", "genai-perf", "-e", "baseline")
    assert res.returncode != 0
    (line,) = res.stderr.strip().splitlines()
    assert "written by AIPerf 0.13.0, not genai-perf" in line and "looks like 'aiperf' output" in line
    assert project.run("import", str(DATA / "aiperf-0.13.0-rate.json"), "-e", "baseline").returncode == 0
    again = project.run("import", str(DATA / "aiperf-0.13.0-rate.json"), "-f", "aiperf", "-e", "baseline")
    assert again.returncode == 0 and "every run was imported before" in again.stdout


def test_a_key_in_a_label_is_never_shown_or_stored(project: Project, tmp_path: Path) -> None:
    data = json.loads((DATA / "hyperfine.json").read_text())
    for result in data["results"]:
        result["command"] += " --api-key s3cr3tvalue9 --url http://u:Pa55word@127.0.0.1:1/v1"
    source = tmp_path / "hyperfine.json"
    source.write_text(json.dumps(data))
    for flags in (["--dry-run"], ["--dry-run", "--json"], ["--json"]):
        res = project.run("import", str(source), "-f", "hyperfine", "--experiment", "baseline", "--mixed", *flags)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "--api-key ***" in res.stdout, res.stdout
        assert "s3cr3tvalue9" not in res.stdout + res.stderr and "Pa55word" not in res.stdout + res.stderr
    stored = b"".join(p.read_bytes() for p in (project.root / ".benchdoc").glob("ledger.db*"))
    assert b"--api-key ***" in stored and b"s3cr3tvalue9" not in stored and b"Pa55word" not in stored


def test_a_file_with_a_negative_throughput_records_nothing(project: Project, tmp_path: Path) -> None:
    data = json.loads((DATA / "vllm_serve.json").read_text())
    data["output_throughput"] = -5.0
    source = tmp_path / "neg.json"
    source.write_text(json.dumps(data))
    res = project.run("import", str(source), "--experiment", "baseline")
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert "output_tok_s = -5 is negative" in res.stderr
    assert not (project.root / ".benchdoc" / "ledger.db").exists() or run_count(project) == 0


def test_a_value_outside_a_declared_bound_records_nothing(project: Project) -> None:
    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text().replace('primary = true\n', 'primary = true\nmax = 1000\n', 1))
    res = project.run("import", str(DATA / "vllm_serve.json"), "--experiment", "baseline")
    assert res.returncode == 1 and "is above its declared max 1000; nothing was recorded" in res.stderr, res.stderr
    assert run_count(project) == 0
