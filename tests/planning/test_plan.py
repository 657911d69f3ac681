"""Selecting experiments and filling placeholders into the exact command lines."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from benchdoc.config import load_config
from benchdoc.errors import ConfigError, UsageError
from benchdoc.planning.plan import (
    baselines_first,
    check_setups,
    command_argv,
    experiment_setup,
    loadgen_spec,
    plan_launch,
    select_experiments,
)

PROJECT = """\
[servers.sglang]
argv = ["python", "-m", "sglang.launch_server", "--port", "{port}", "--host", "{host}", "--model-path", "{model}",
        "--tp", "{tp}", "--json-model-override-args", '{"rope_scaling": {"factor": 2}}', "--literal", "{{port}}"]
model = "llama-8b"
env = { SGLANG_LOG = "{model}.log" }
ready_url = "http://{host}:{port}/health_generate"

[workloads.chat]
requests = 10

[workloads.bench]
kind = "command"
argv = ["bench", "--base-url", "{url}", "--output-file", "{output}", "--model", "{model}"]
json = { output_tok_s = "output_throughput" }

[experiments.baseline]
server = "sglang"
workload = "chat"
variables = { tp = 2 }
env = { NCCL_ALGO = "Tree" }
repetitions = 3

[experiments.eagle3-2step]
server = "sglang"
workload = "bench"
compare_to = "baseline"
args = ["--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "{steps}"]
variables = { tp = 1, steps = 2, model = "llama-8b-instruct" }

[experiments.eagle3-3step]
server = "sglang"
workload = "chat"
compare_to = "eagle3-2step"
args = ["--speculative-num-steps", "3"]
variables = { tp = 1 }

[experiments.measured-elsewhere]
label = "recorded by hand"
"""


@pytest.fixture
def config(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "benchdoc.toml"
    path.write_text(PROJECT, encoding="utf-8")
    return load_config(path)


def test_selection_follows_config_order_and_skips_experiments_without_server(config) -> None:  # type: ignore[no-untyped-def]
    assert select_experiments(config, []) == ["baseline", "eagle3-2step", "eagle3-3step"]
    assert select_experiments(config, ["eagle3-*", "baseline"]) == ["baseline", "eagle3-2step", "eagle3-3step"]
    assert select_experiments(config, ["*"]) == ["baseline", "eagle3-2step", "eagle3-3step"]


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        (["nope-*"], "no experiment matches 'nope-*'"),
        (["measured-*"], "matches measured-elsewhere, none of which has a server to run"),
        (["measured-elsewhere"], "experiment 'measured-elsewhere' has no server to run"),
        (["baselin"], "unknown experiment 'baselin' (did you mean 'baseline'?)"),
    ],
)
def test_selection_errors_are_usage_errors(config, patterns: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as info:
        select_experiments(config, patterns)
    assert message in str(info.value)


def test_baselines_run_before_what_compares_to_them(config) -> None:  # type: ignore[no-untyped-def]
    assert baselines_first(config, ["eagle3-3step", "eagle3-2step", "baseline"]) == [
        "baseline", "eagle3-2step", "eagle3-3step",
    ]
    assert baselines_first(config, ["eagle3-3step"]) == ["eagle3-3step"]


def test_placeholders_fill_argv_env_and_ready_url(config) -> None:  # type: ignore[no-untyped-def]
    launch = plan_launch(config, experiment_setup(config, "eagle3-2step"), port=30001)
    assert launch.argv == (
        "python", "-m", "sglang.launch_server", "--port", "30001", "--host", "127.0.0.1",
        "--model-path", "llama-8b-instruct",  # the experiment's variable overrides the server's model
        "--tp", "1", "--json-model-override-args", '{"rope_scaling": {"factor": 2}}', "--literal", "{port}",
        "--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "2",
    )
    assert launch.ready_url == "http://127.0.0.1:30001/health_generate"
    assert launch.env == {"SGLANG_LOG": "llama-8b-instruct.log"}
    assert launch.cwd == config.root


def test_experiment_env_overrides_the_servers(config) -> None:  # type: ignore[no-untyped-def]
    launch = plan_launch(config, experiment_setup(config, "baseline"), port=1234)
    assert launch.env == {"SGLANG_LOG": "llama-8b.log", "NCCL_ALGO": "Tree"}
    assert launch.full_env({"PATH": "/bin", "NCCL_ALGO": "Ring"})["NCCL_ALGO"] == "Tree"
    assert experiment_setup(config, "baseline").repetitions == 3
    assert experiment_setup(config, "baseline", repetitions=7).repetitions == 7
    assert experiment_setup(config, "eagle3-3step").repetitions == 5  # the default


def test_workloads_get_the_port_url_output_and_model(config) -> None:  # type: ignore[no-untyped-def]
    setup = experiment_setup(config, "eagle3-2step")
    launch = plan_launch(config, setup, port=4321)
    assert command_argv(config, setup.workload, launch, "/tmp/out.json") == (  # type: ignore[arg-type]
        "bench", "--base-url", "http://127.0.0.1:4321", "--output-file", "/tmp/out.json", "--model", "llama-8b-instruct",
    )
    chat = experiment_setup(config, "baseline")
    spec = loadgen_spec(config, chat.workload, plan_launch(config, chat, port=4321))  # type: ignore[arg-type]
    assert spec.url == "http://127.0.0.1:4321" and spec.model == "llama-8b" and spec.requests == 10


def test_a_plan_before_the_port_is_picked_keeps_the_placeholder(config) -> None:  # type: ignore[no-untyped-def]
    launch = plan_launch(config, experiment_setup(config, "baseline"), port=None)
    assert "{port}" in launch.argv and launch.ready_url == "http://127.0.0.1:{port}/health_generate"


def test_unknown_placeholder_is_located(tmp_path: Path) -> None:
    text = PROJECT.replace('"--tp", "{tp}"', '"--tp", "{tensor_parallel}"')
    path = tmp_path / "benchdoc.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    with pytest.raises(ConfigError) as info:
        check_setups(config, ["baseline"])
    assert str(info.value).startswith(f"{path.resolve()}:2: servers.sglang.argv: unknown placeholder {{tensor_parallel}}")
    assert "known: {host}, {model}, {port}, {tp}" in str(info.value)


def test_missing_model_and_reserved_variables(tmp_path: Path) -> None:
    path = tmp_path / "benchdoc.toml"
    path.write_text(
        '[servers.s]\nargv = ["srv", "{model}"]\n[workloads.w]\n'
        '[experiments.a]\nserver = "s"\nworkload = "w"\n'
        '[experiments.b]\nserver = "s"\nworkload = "w"\nvariables = { port = 1 }\n'
        '[experiments.c]\nserver = "s"\nworkload = "missing"\n'
        '[experiments.d]\nserver = "s"\n',
        encoding="utf-8",
    )
    config = load_config(path)
    with pytest.raises(ConfigError, match=r"benchdoc.toml:2: servers.s.argv: \{model\} has no value"):
        check_setups(config, ["a"])
    with pytest.raises(ConfigError, match=r"benchdoc.toml:10: experiments.b.variables: 'port' is set by benchdoc"):
        check_setups(config, ["b"])
    with pytest.raises(ConfigError, match=r"benchdoc.toml:13: experiments.c.workload: no \[workloads.missing\] table"):
        check_setups(config, ["c"])
    with pytest.raises(ConfigError, match=r"benchdoc.toml:14: experiments.d: an experiment with a server needs a workload"):
        check_setups(config, ["d"])


def test_shell_servers_quote_every_value(tmp_path: Path) -> None:
    path = tmp_path / "benchdoc.toml"
    path.write_text(
        '[servers.s]\nshell = true\nargv = "cd build && ./srv --port {port} --name {name}"\n[workloads.w]\n'
        '[experiments.a]\nserver = "s"\nworkload = "w"\nargs = ["--note", "a b; rm -rf x"]\n'
        'variables = { name = "x; echo pwned" }\n',
        encoding="utf-8",
    )
    config = load_config(path)
    launch = plan_launch(config, experiment_setup(config, "a"), port=9)
    assert launch.argv[:2] == ("/bin/sh", "-c")
    assert shlex.split(launch.argv[2]) == [
        "cd", "build", "&&", "./srv", "--port", "9", "--name", "x; echo pwned", "--note", "a b; rm -rf x",
    ]
