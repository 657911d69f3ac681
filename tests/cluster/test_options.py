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
