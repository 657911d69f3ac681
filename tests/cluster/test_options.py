"""[slurm] in benchdoc.toml and the command line: merged, validated, located."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.cluster import SlurmOptions, slurm_options
from benchdoc.config import load_config
from benchdoc.errors import ConfigError, UsageError


def config_with(tmp_path: Path, slurm: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "benchdoc.toml"
    path.write_text("[experiments.a]\n\n[slurm]\n" + slurm, encoding="utf-8")
    return load_config(path)


def test_the_file_gives_defaults_and_the_command_line_wins(tmp_path: Path) -> None:
    config = config_with(tmp_path, 'partition = "gpu"\ngres = "gpu:8"\ntime = "02:00:00"\nmax_parallel = 4\n'
                                   'sbatch_args = ["--mem=0"]\nsetup = ["module load cuda/12.8"]\n')
    options = slurm_options(config, {"partition": "debug", "time": None, "exclusive": False,
                                     "sbatch_args": ("--constraint=h100",)})
    assert options == SlurmOptions(partition="debug", gres="gpu:8", time="02:00:00", exclusive=False, max_parallel=4,
                                   sbatch_args=("--mem=0", "--constraint=h100"), setup=("module load cuda/12.8",))
    assert options.directives() == ["--partition=debug", "--gres=gpu:8", "--time=02:00:00", "--mem=0",
                                    "--constraint=h100"]
    assert slurm_options(config_with(tmp_path, ""), {}).directives() == ["--exclusive"]  # the node to itself


@pytest.mark.parametrize(
    ("slurm", "message"),
    [
        ('partiton = "gpu"\n', r"slurm.partiton: unknown key 'partiton' \(did you mean 'partition'\?\)"),
        ('time = "two hours"\n', "slurm.time: 'two hours' holds characters"),
        ('time = "2h"\n', "slurm.time: expected a Slurm time"),
        ("max_parallel = 0\n", "slurm.max_parallel: expected a whole number of at least 1"),
        ('exclusive = "yes"\n', "slurm.exclusive: expected true or false"),
        ('partition = "gpu\\n#SBATCH --uid=0"\n', "slurm.partition: .* holds characters"),
        ('sbatch_args = ["mem=0"]\n', "slurm.sbatch_args: expected sbatch options like --mem=64G"),
    ],
)
def test_a_bad_value_in_the_file_names_its_line_and_key(tmp_path: Path, slurm: str, message: str) -> None:
    config = config_with(tmp_path, slurm)
    with pytest.raises(ConfigError, match=message) as info:
        slurm_options(config, {})
    assert info.value.line == 4


def test_a_bad_value_on_the_command_line_names_the_option(tmp_path: Path) -> None:
    config = config_with(tmp_path, "")
    with pytest.raises(UsageError, match="--max-parallel: expected a whole number of at least 1"):
        slurm_options(config, {"max_parallel": 0})
    with pytest.raises(UsageError, match="--partition: 'a b' holds characters"):
        slurm_options(config, {"partition": "a b"})


def test_requeue_is_the_clusters_unless_asked(tmp_path: Path) -> None:
    assert "--requeue" not in " ".join(slurm_options(config_with(tmp_path, ""), {}).directives())
    assert slurm_options(config_with(tmp_path, "requeue = false\n"), {}).directives()[-1] == "--no-requeue"
    assert slurm_options(config_with(tmp_path, "requeue = false\n"), {"requeue": True}).directives()[-1] == "--requeue"
    with pytest.raises(ConfigError, match="expected true or false"):
        slurm_options(config_with(tmp_path, 'requeue = "yes"\n'), {})


def test_retries_imply_requeue_and_reach_the_task(tmp_path: Path) -> None:
    from benchdoc.cluster.script import render_script

    options = slurm_options(config_with(tmp_path, "retries = 2\n"), {})
    assert options.retries == 2 and options.directives()[-1] == "--requeue"
    assert slurm_options(config_with(tmp_path, "retries = 2\nrequeue = false\n"), {}).directives()[-1] == "--no-requeue"
    with pytest.raises(UsageError, match="--retries: expected a whole number of at least 0"):
        slurm_options(config_with(tmp_path, ""), {"retries": -1})
    from datetime import datetime, timezone

    text = render_script(names=["a"], options=options, config_path=tmp_path / "benchdoc.toml", folder=tmp_path,
                         submitted_at=datetime(2026, 5, 4, tzinfo=timezone.utc), sweeps={})
    assert "export BENCHDOC_TASK_RETRIES=2" in text.splitlines()


def test_experiments_get_their_own_resources_and_one_array_per_set(tmp_path: Path) -> None:
    from benchdoc.cluster.options import options_by_experiment

    config = config_with(tmp_path, 'partition = "gpu"\ngres = "gpu:1"\ntime = "01:00:00"\n'
                                   '[slurm.experiments."big-*"]\ngres = "gpu:8"\ntime = "04:00:00"\n'
                                   '[slurm.experiments."big-long"]\ntime = "1-00:00:00"\n')
    assert slurm_options(config, {}, "big-long") == SlurmOptions(partition="gpu", gres="gpu:8", time="1-00:00:00")
    assert slurm_options(config, {"time": "30"}, "big-a").time == "30"  # the command line wins
    groups = options_by_experiment(config, ["small", "big-a", "big-long", "big-b", "small2"], {})
    assert [names for _, names in groups] == [["small", "small2"], ["big-a", "big-b"], ["big-long"]]
    assert [o.gres for o, _ in groups] == ["gpu:1", "gpu:8", "gpu:8"]
    bad = config_with(tmp_path, '[slurm.experiments."big-*"]\nmax_parallel = 2\n')
    with pytest.raises(ConfigError, match=r'slurm\.experiments\.big-\*\.max_parallel: unknown key'):
        slurm_options(bad, {}, "big-a")
