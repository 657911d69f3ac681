"""Bad or huge input is one located line with a documented exit code, within bounded memory:
ledger URLs and schema versions, aliases, numbers, workload limits, datasets, imports,
sweeps, counts from a server, and concurrent imports of one file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG, Project

from benchdoc.limits import DEFAULT_REQUEST_TIMEOUT_S, MAX_SERVER_TOKENS
from benchdoc.workloads.protocols import CompletionsDecoder, StreamError
from benchdoc.workloads.spec import Timeouts

PEAK_LIMIT_KB = 500 * 1024
# Runs benchdoc in this child and reports its own peak memory on the last line of stderr.
_MEASURED = (
    "import resource, runpy, sys\n"
    "sys.argv = ['benchdoc', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('benchdoc', run_name='__main__')\n"
    "finally:\n    print(f'peak_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
)


def measured(project: Project, *args: str) -> tuple[int, str, int]:
    """Exit code, the error line(s) and the peak memory (KiB) of `benchdoc ARGS` in a child."""
    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    proc = subprocess.run([sys.executable, "-c", _MEASURED, *args], cwd=project.root, capture_output=True, text=True,
                          timeout=120, env={**env, "NO_COLOR": "1"})
    *lines, peak = proc.stderr.strip().splitlines()
    return proc.returncode, "\n".join(lines), int(peak.removeprefix("peak_kb="))


def one_line(text: str) -> str:
    assert "Traceback" not in text, text
    (line,) = text.strip().splitlines()
    return line


@pytest.mark.parametrize("url", ["file:///x", "foo+bar://h/x"])
def test_a_ledger_url_of_no_database_is_one_line(project: Project, url: str) -> None:
    res = project.run("show", env={"BENCHDOC_LEDGER_URL": url})
    assert res.returncode == 1 and "invalid ledger URL" in one_line(res.stderr)


def test_a_damaged_schema_version_is_one_line_and_an_old_one_upgrades_on_first_read(project: Project) -> None:
    from tests.ledger.schema_v1 import downgrade_to_version_1

    assert project.run("record", "baseline", "--metric", "output_tok_s=90").returncode == 0
    downgrade_to_version_1(project.ledger_url)
    first = project.run("show")
    assert first.returncode == 0, first.stderr  # no "Cannot operate on a closed database"
    db = project.root / ".benchdoc" / "ledger.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE benchdoc_meta SET value = '-1' WHERE key = 'schema_version'")
    for argv in (["show"], ["record", "baseline", "--metric", "output_tok_s=91"]):
        res = project.run(*argv)
        assert res.returncode == 1 and "restore it from a backup" in one_line(res.stderr)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE benchdoc_meta SET value = '99' WHERE key = 'schema_version'")
    assert "upgrade benchdoc" in one_line(project.run("show").stderr)


@pytest.mark.parametrize(("aliases", "message"), [
    ('[experiments.x]\naliases = ["Baseline"]\n', "is the name of experiment 'baseline'"),
    ('[experiments.x]\naliases = ["EAGLE-3"]\n', "is already an alias of 'eagle3'"),
])
def test_alias_clashes_are_refused_at_load(project: Project, aliases: str, message: str) -> None:
    project.write_config(STORY_CONFIG + aliases)
    res = project.run("show")
    assert res.returncode == 1 and message in one_line(res.stderr) and "benchdoc.toml:" in res.stderr


@pytest.mark.parametrize("value", ["1_000", "\u0661\u0662", "\uff11"])
def test_numbers_are_ascii_digits(project: Project, value: str) -> None:
    res = project.run("record", "baseline", "--metric", f"output_tok_s={value}")
    assert res.returncode == 2 and "is not a number" in one_line(res.stderr)
    res = project.run("bench", "--url", "http://127.0.0.1:9", "--requests", value)
    assert res.returncode == 2


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--concurrency", "100000000"], {}, "concurrency must be at most 100,000"),
    (["--input-tokens", "2000000000"], {}, "input_tokens must be at most 10,000,000 tokens"),
    (["--shared-prefix-groups", "100000", "--shared-prefix-tokens", "100000"], {}, "shared prefixes must hold"),
    (["--requests", "10000", "--input-tokens", "100000"], {}, "built before timing starts"),
    (["--requests", "1"], {"OPENAI_API_KEY": "sk-abc\r"}, "control character"),
])
def test_workload_limits_are_one_line_in_little_memory(project: Project, argv: list[str], env: dict[str, str],
                                                        message: str) -> None:
    os.environ.update(env)
    try:
        code, err, peak = measured(project, "bench", "--url", "http://127.0.0.1:9", *argv)
    finally:
        for key in env:
            os.environ.pop(key)
    assert code == 2 and message in one_line(err)
    assert peak < PEAK_LIMIT_KB


def test_a_url_with_credentials_and_a_bad_port_is_one_line(project: Project) -> None:
    res = project.run("bench", "--url", "http://user:pw-value@127.0.0.1:99999", "--requests", "1")
    assert res.returncode == 2 and "not a valid address" in one_line(res.stderr) and "pw-value" not in res.stderr


def _null_device(folder: Path) -> Path:
    node = folder / "zero"
    try:
        os.mknod(node, 0o666 | 0o020000, os.makedev(1, 5))  # our own /dev/zero twin
    except PermissionError:
        pytest.skip("mknod needs root")
    return node


@pytest.mark.parametrize("option", ["--dataset", "--tokenizer"])
def test_a_device_as_dataset_or_tokenizer_is_refused_at_once(project: Project, option: str) -> None:
    zero = _null_device(project.root)
    code, err, peak = measured(project, "bench", "--url", "http://127.0.0.1:9", option, str(zero), "--requests", "1")
    assert code == 2 and "a character device, not a regular file" in one_line(err) and peak < PEAK_LIMIT_KB


@pytest.mark.parametrize(("content", "message"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"output_throughput": 1' + "0" * 5000 + "}", "thousands of digits"),
    (None, "over the 16 MiB"),
])
@pytest.mark.parametrize("fmt", ["auto", "sglang-serving"])
def test_hostile_import_files_are_one_line_in_little_memory(project: Project, content: str | None, message: str,
                                                             fmt: str) -> None:
    path = project.root / "results.jsonl"
    if content is None:
        with path.open("wb") as handle:
            handle.truncate(2 * 1024**3)  # sparse: 2 GiB that takes no disk
    else:
        path.write_text(content)
    code, err, peak = measured(project, "import", str(path), "--experiment", "baseline", "--format", fmt)
    assert code == 1 and message in one_line(err) and peak < PEAK_LIMIT_KB


def test_a_sweep_beyond_the_limit_is_one_line(project: Project) -> None:
    values = ", ".join(str(i) for i in range(1, 102))
    project.write_config(
        '[metrics.x]\nprimary = true\n[servers.s]\nargv = ["true"]\n[workloads.w]\nrequests = 1\n'
        '[experiments.a]\nserver = "s"\nworkload = "w"\n[sweeps.big]\nbase = "a"\nname = "a-{x}-{y}-{z}"\n'
        f"matrix = {{ x = [1,2,3,4,5,6,7,8,9,10], y = [1,2,3,4,5,6,7,8,9,10], z = [{values}] }}\n"
    )
    code, err, peak = measured(project, "run", "--dry-run")
    assert code == 1 and "expands to 10,100 experiments, over the 10,000" in one_line(err) and peak < PEAK_LIMIT_KB


@pytest.mark.parametrize("count", [10**30, -1, MAX_SERVER_TOKENS + 1])
def test_a_count_no_server_could_reach_fails_the_request(count: int) -> None:
    decoder = CompletionsDecoder()
    event = {"choices": [{"text": "hi", "index": 0}], "usage": {"prompt_tokens": 4, "completion_tokens": count}}
    with pytest.raises(StreamError, match="beyond any real count"):
        decoder.feed(json.dumps(event))


def test_a_request_has_a_default_timeout() -> None:
    assert Timeouts().request_s == DEFAULT_REQUEST_TIMEOUT_S == 600.0


def test_concurrent_imports_of_one_file_record_it_once(project: Project) -> None:
    source = Path(__file__).parents[1] / "importers" / "data" / "sglang_serving.jsonl"
    path = project.root / "results.jsonl"
    path.write_bytes(source.read_bytes())
    assert project.run("record", "eagle3", "--metric", "output_tok_s=1").returncode == 0  # the ledger exists
    env = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
    children = [subprocess.Popen([sys.executable, "-m", "benchdoc", "import", str(path), "--experiment", "baseline",
                                  "--mixed"], cwd=project.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(12)]
    for child in children:
        child.wait(timeout=120)
        assert child.returncode == 0, child.stderr.read() if child.stderr else ""
    with sqlite3.connect(project.root / ".benchdoc" / "ledger.db") as conn:
        (count,) = conn.execute("SELECT count(*) FROM runs WHERE experiment = 'baseline'").fetchone()
    assert count == sum(1 for line in source.read_text().splitlines() if line.strip())


def test_a_nan_primary_metric_in_an_import_is_refused_at_its_line(project: Project) -> None:
    line = (Path(__file__).parents[1] / "importers" / "data" / "sglang_serving.jsonl").read_text().splitlines()[0]
    entry = json.loads(line)
    path = project.root / "nan.jsonl"
    path.write_text(json.dumps({**entry, "output_throughput": float("nan")}) + "\n")
    res = project.run("import", str(path), "--experiment", "baseline")
    assert res.returncode == 1
    assert one_line(res.stderr).endswith("nan.jsonl:1: output_tok_s, the project's primary metric, is NaN (the tool had "
                                         "no data); a run without it would become the latest result with no value; "
                                         "nothing was recorded")
    assert project.run("history", "baseline").returncode != 0 or "nan.jsonl" not in project.run("history", "baseline").stdout
    path.write_text(json.dumps({**entry, "mean_ttft_ms": float("nan")}) + "\n")  # another metric: left out
    assert project.run("import", str(path), "--experiment", "baseline").returncode == 0
