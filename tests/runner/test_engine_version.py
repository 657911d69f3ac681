"""The engine's version as the server's own interpreter sees it: two real virtual
environments, each holding a small stand-in `sglang` distribution (its .dist-info written by
hand), serve the simulator; the environment diff of the two experiments names the change."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from tests.conftest import FAST_SIM, toml_list

from benchdoc.engine_version import endpoint_version, engine_entry, launched_interpreter
from benchdoc.ledger import Ledger
from benchdoc.results import build_results
from benchdoc.runner import run_experiments

from .conftest import write_project


def make_venv(root: Path, sglang: str) -> Path:
    """A real venv (no pip) whose site-packages holds a stand-in `sglang` distribution."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    site = next(root.glob("lib/python*/site-packages"))
    info = site / f"sglang-{sglang}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sglang\nVersion: {sglang}\n")
    (info / "RECORD").write_text("")
    (site / "sglang").mkdir()
    (site / "sglang" / "__init__.py").write_text(f'__version__ = "{sglang}"\n')
    return root / "bin" / "python"


def benchdoc_path() -> str:
    """Where this benchdoc and its dependencies live, for a venv that has only the stand-in."""
    import benchdoc

    return os.pathsep.join([str(Path(benchdoc.__file__).parents[1]), sysconfig.get_paths()["purelib"],
                            sysconfig.get_paths()["platlib"]])


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("venvs")
    return make_venv(root / "old", "0.4.1"), make_venv(root / "new", "0.4.6")


def test_the_interpreter_is_found_behind_scripts_wrappers_and_shells(tmp_path: Path, venvs: tuple[Path, Path]) -> None:
    old, _ = venvs
    env = {"PATH": f"{old.parent}{os.pathsep}{os.environ['PATH']}"}
    script = old.parent / "launch_server"
    script.write_text(f"#!{old}\nimport sys\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    assert launched_interpreter([str(old), "-m", "sglang.launch_server"], env, tmp_path) == old
    assert launched_interpreter(["launch_server", "--port", "1"], env, tmp_path) == old  # its #! line
    assert launched_interpreter(["taskset", "-c", "0", str(old), "-m", "x"], env, tmp_path) == old
    assert launched_interpreter(["/bin/sh", "-c", f"CUDA_VISIBLE_DEVICES=0 {old} -m x"], env, tmp_path) == old
    assert launched_interpreter(["/bin/sleep", "60"], env, tmp_path) is None  # not Python: nothing to ask
    entry = engine_entry([str(old), "-m", "sglang.launch_server"], env, tmp_path)
    assert entry == {"python": str(old), "packages": {"sglang": "0.4.1"}}


def test_the_engine_version_of_each_venv_is_recorded_and_diffed(tmp_path: Path, venvs: tuple[Path, Path]) -> None:
    old, new = venvs

    def server(name: str, python: Path) -> str:
        argv = [str(python), "-m", "benchdoc", "sim", "--port", "{port}", *FAST_SIM]
        return f"""
            [servers.{name}]
            argv = {toml_list(argv)}
            env = {{ PYTHONPATH = "{benchdoc_path()}" }}
            ready_timeout = 30
            shutdown_grace = 3
            """

    config = write_project(tmp_path, server("old", old) + server("new", new) + """
        [experiments.sglang-old]
        role = "reference"
        server = "old"
        workload = "small"
        repetitions = 1

        [experiments.sglang-new]
        server = "new"
        workload = "small"
        compare_to = "sglang-old"
        repetitions = 1
        """)
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, ["sglang-old", "sglang-new"])
        results = build_results(config, ledger)
    assert [o.outcome for o in report.outcomes] == ["ok", "ok"]
    engine = results["sglang-new"].pooled[0].environment["engine"]
    assert engine["python"] == str(new) and engine["packages"] == {"sglang": "0.4.6"}
    assert "sglang" not in results["sglang-new"].pooled[0].environment["packages"]  # benchdoc's own venv has none
    texts = [d.text() for d in results["sglang-new"].environment_diff]
    assert "engine sglang 0.4.1 -> 0.4.6" in texts
    assert texts.index("engine sglang 0.4.1 -> 0.4.6") < texts.index(f"engine's Python {old} -> {new}")


def test_without_an_engine_package_the_version_endpoint_is_asked(tmp_path: Path) -> None:
    """benchdoc's own interpreter has no engine installed: the ready simulator's server info
    (SGLang's /get_server_info) gives the version."""
    config = write_project(tmp_path, """
        [experiments.plain]
        server = "sim"
        workload = "small"
        repetitions = 1
        """)
    with Ledger.open(config.ledger_url) as ledger:
        run_experiments(config, ledger, ["plain"])
        (run,) = ledger.runs()
    engine = run.environment["engine"]
    assert engine["python"] == sys.executable and engine["packages"] == {}
    assert engine["endpoint"] == "/get_server_info" and engine["version"] == "sim-1"
    assert endpoint_version("http://127.0.0.1:9") is None  # nothing listens: no version, no error
