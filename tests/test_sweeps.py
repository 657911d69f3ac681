"""[sweeps.NAME]: a matrix expanded into ordinary experiments; mistakes named by file:line:key."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Project

from benchdoc.config import load_config
from benchdoc.errors import ConfigError

BASE = """\
[servers.sim]
argv = ["benchdoc", "sim", "--port", "{port}"]

[workloads.quick]
requests = 4

[experiments.baseline]
label = "Baseline"
role = "reference"
server = "sim"
workload = "quick"

[experiments.eagle3]
label = "EAGLE-3"
server = "sim"
workload = "quick"
compare_to = "baseline"
args = ["--speculative-algorithm", "EAGLE3"]
env = { NCCL_ALGO = "Ring" }
variables = { draft = "small" }
"""

GRID = """
[sweeps.eagle3-grid]
base = "eagle3"
name = "eagle3-s{steps}-k{topk}"
matrix = { steps = [1, 2, 3, 4], topk = [1, 4] }
args = ["--speculative-num-steps", "{steps}", "--speculative-eagle-topk", "{topk}"]
"""


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "benchdoc.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def error_of(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return info.value


def line_of(text: str, needle: str) -> int:
    """The last line holding ``needle`` (sweeps come last in these files)."""
    return max(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_matrix_expands_into_experiments_that_copy_their_base(tmp_path: Path) -> None:
    config = load(tmp_path, BASE + GRID)
    members = [name for name, exp in config.experiments.items() if exp.sweep == "eagle3-grid"]
    assert members == [f"eagle3-s{s}-k{k}" for s in (1, 2, 3, 4) for k in (1, 4)]
    exp = config.experiments["eagle3-s2-k4"]
    assert exp.label == "EAGLE-3, steps=2, topk=4"
    assert exp.args == ("--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "2", "--speculative-eagle-topk", "4")
    assert (exp.server, exp.workload, exp.compare_to) == ("sim", "quick", "baseline")
    assert exp.env == {"NCCL_ALGO": "Ring"}
    assert exp.variables == {"draft": "small", "steps": 2, "topk": 4}
    assert exp.role is None  # a member is never a second reference
    sweep = config.sweeps["eagle3-grid"]
    assert sweep.members == tuple(members) and sweep.describe() == "8 experiments: steps x topk = 4 x 2, from base eagle3"


def test_exclude_labels_env_and_run_placeholders(tmp_path: Path) -> None:
    config = load(tmp_path, BASE + """
[sweeps.nccl]
base = "eagle3"
name = "nccl-{algo}-c{channels}"
label = "NCCL {algo} ({channels} channels)"
matrix = { algo = ["Ring", "Tree"], channels = [4, 8] }
exclude = [{ algo = "Tree", channels = 8 }]
env = { NCCL_ALGO = "{algo}", NCCL_MIN_NCHANNELS = "{channels}" }
args = ["--port-hint", "{port}", "--draft", "{draft}", "--literal", "{{algo}}"]
""")
    names = [n for n, e in config.experiments.items() if e.sweep == "nccl"]
    assert names == ["nccl-Ring-c4", "nccl-Ring-c8", "nccl-Tree-c4"]
    exp = config.experiments["nccl-Tree-c4"]
    assert exp.label == "NCCL Tree (4 channels)"
    assert exp.env == {"NCCL_ALGO": "Tree", "NCCL_MIN_NCHANNELS": "4"}
    # {port} and {draft} are the run's to fill; {{algo}} stays a literal for the run too.
    assert exp.args[-6:] == ("--port-hint", "{port}", "--draft", "{draft}", "--literal", "{{algo}}")
    assert config.sweeps["nccl"].describe() == "3 experiments: algo x channels = 2 x 2, 1 excluded, from base eagle3"


@pytest.mark.parametrize(
    ("sweep", "needle", "message"),
    [
        ('name = "eagle3-s{steps}"\nmatrix = { steps = [1], topk = [1, 4] }', "name =",
         "sweeps.g.name: the name must hold every matrix key.*add {topk}"),
        ('name = "g-{steps}-{draft_len}"\nmatrix = { steps = [1] }', "name =",
         r"sweeps.g.name: unknown placeholder \{draft_len\}"),
        ('name = "g-{steps}"\nmatrix = { steps = [1] }\nargs = ["--x", "{stesp}"]', "args =",
         r"sweeps.g.args: unknown placeholder \{stesp\}"),
        ('name = "g-{steps}"\nmatrix = {}', "matrix =", "sweeps.g.matrix: the matrix is empty"),
        ('name = "g-{steps}"\nmatrix = { steps = [] }', "matrix =", "sweeps.g.matrix: steps: expected a non-empty list"),
        ('name = "g-{steps}"', "[sweeps.g]", "sweeps.g.matrix: the matrix is empty"),
        ('name = "g-{steps}"\nmatrix = { steps = [1] }\nexclude = [{ steps = 1 }]', "exclude =",
         "sweeps.g.exclude: every combination of the matrix is excluded"),
        ('name = "g-{steps}"\nmatrix = { steps = [1] }\nexclude = [{ topk = 1 }]', "exclude =",
         "sweeps.g.exclude: 'topk' is not a key of the matrix"),
        ('name = "eagle{steps}"\nmatrix = { steps = [2, 3] }', "name =",
         r"sweeps.g.name: 'eagle3' is already an experiment \(\[experiments.eagle3\]\)"),
        ('name = "g-{steps}"\nmatrix = { steps = ["a b"] }', "name =", "sweeps.g.name: the name 'g-a b' holds ' '"),
        ('base = "egle3"\nname = "g-{steps}"\nmatrix = { steps = [1] }', "base =",
         "sweeps.g.base: unknown experiment 'egle3' \\(did you mean 'eagle3'\\?\\)"),
        ('name = "g-{steps}"\nmatrix = { steps = [1] }\nrepeat = 3', "repeat =", "sweeps.g.repeat: unknown key"),
    ],
)
def test_mistakes_name_file_line_and_key(tmp_path: Path, sweep: str, needle: str, message: str) -> None:
    text = BASE.replace('[experiments.eagle3]', '[experiments.eagle]\nlabel = "x"\n\n[experiments.eagle3]') + (
        f"\n[sweeps.g]\nbase = \"eagle3\"\n{sweep}\n" if "base =" not in sweep else f"\n[sweeps.g]\n{sweep}\n"
    )
    err = error_of(tmp_path, text)
    assert err.file and err.file.endswith("benchdoc.toml")
    assert err.line == line_of(text, needle), (err, text)
    assert __import__("re").search(message, err.message), err.message


def test_two_sweeps_colliding_name_the_other_sweep(tmp_path: Path) -> None:
    text = BASE + GRID + '\n[sweeps.again]\nbase = "eagle3"\nname = "eagle3-s{s}-k1"\nmatrix = { s = [4] }\n'
    err = error_of(tmp_path, text)
    assert err.line == len(text.splitlines()) - 1
    assert "'eagle3-s4-k1' is already an experiment (from sweep 'eagle3-grid')" in err.message


def test_a_later_error_in_a_member_points_into_its_sweep(tmp_path: Path) -> None:
    text = BASE + GRID.replace('base = "eagle3"', 'base = "eagle3"\ncompare_to = "nope"')
    err = error_of(tmp_path, text)
    assert err.line == line_of(text, 'compare_to = "nope"')
    assert "unknown experiment 'nope'" in err.message


def test_members_are_experiments_everywhere(project: Project) -> None:
    """show, table patterns and run --dry-run all see the expanded experiments."""
    project.write_config(BASE + GRID + """
[metrics.output_tok_s]
label = "tok/s"
primary = true

[documents]
paths = ["log.md"]
""")
    (project.root / "log.md").write_text(
        '<!-- benchdoc:table experiments="eagle3-s2-*" metric=output_tok_s columns="label status value" -->\n'
        "<!-- benchdoc:end -->\n", encoding="utf-8")
    assert project.run("record", "baseline", "--each-start", "--metric", "output_tok_s=90,91,92,90,91").returncode == 0
    assert project.run("record", "eagle3-s2-k4", "--each-start", "--metric", "output_tok_s=99,98,99,98,97").returncode == 0
    show = project.run("show", "eagle3-s2-k4")
    assert show.returncode == 0 and "EAGLE-3, steps=2, topk=4" in show.stdout, show.stderr
    assert project.run("sync", "--write").returncode == 0
    log = (project.root / "log.md").read_text()
    assert "| EAGLE-3, steps=2, topk=1 | Untested |" in log
    assert "| EAGLE-3, steps=2, topk=4 | Works | **98.0** |" in log
    dry = project.run("run", "--dry-run", "eagle3-s4-*")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("sweep eagle3-grid: 8 experiments: steps x topk = 4 x 2, from base eagle3 (2 selected)\n")
    assert "--speculative-num-steps 4 --speculative-eagle-topk 1" in dry.stdout
