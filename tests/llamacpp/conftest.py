"""The real llama.cpp server (llama-cpp-python's `python -m llama_cpp.server`), run from its
own virtual environment as an engine is in practice, serving a tiny model these tests write.

scripts/test builds that environment (``.venv-llama`` in the project, or the interpreter
named by ``BENCHDOC_LLAMA_PYTHON``). Without it the tests fail in CI (``CI=true``) with what
to do, and are skipped with that reason elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .tiny_gguf import write_tiny_llama

ROOT = Path(__file__).resolve().parents[2]
LLAMA_PYTHON_VAR = "BENCHDOC_LLAMA_PYTHON"
DEFAULT_LLAMA_PYTHON = ROOT / ".venv-llama" / "bin" / "python"


def llama_python_path() -> Path:
    named = os.environ.get(LLAMA_PYTHON_VAR)
    return Path(named) if named else DEFAULT_LLAMA_PYTHON


def _missing(why: str) -> None:
    message = (f"the real llama.cpp server is not installed: {why}; run scripts/test (it builds "
               f".venv-llama with llama-cpp-python[server]) or set {LLAMA_PYTHON_VAR} to a Python that has it")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def llama_python() -> Path:
    """The interpreter of the engine's own venv, checked to run llama_cpp.server."""
    python = llama_python_path()
    if not python.exists():
        _missing(f"{python} does not exist")
    ask = ("import json, importlib.metadata as m, llama_cpp.server.app; "
           "print(json.dumps(m.version('llama_cpp_python')))")
    done = subprocess.run([str(python), "-c", ask], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        _missing(f"{python} cannot import llama_cpp.server ({last})")
    return python


@pytest.fixture(scope="session")
def llama_version(llama_python: Path) -> str:
    """llama-cpp-python's version as its own venv reports it."""
    ask = "import importlib.metadata as m; print(m.version('llama_cpp_python'))"
    return subprocess.run([str(llama_python), "-c", ask], capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random llama model in GGUF (written once per session)."""
    return write_tiny_llama(tmp_path_factory.mktemp("model") / "tiny-llama.gguf")


def llama_server(name: str, python: Path, model: Path | str, *, ready_path: str = "/v1/models") -> str:
    """A [servers.NAME] table launching the real server. llama_cpp.server has no /health:
    it is ready when /v1/models answers."""
    argv = [str(python), "-m", "llama_cpp.server", "--model", "{model}", "--host", "{host}", "--port", "{port}",
            "--n_ctx", "512", "--n_threads", "1"]
    return f"""
[servers.{name}]
argv = {json.dumps(argv)}
model = {json.dumps(str(model))}
ready_url = "http://{{host}}:{{port}}{ready_path}"
ready_timeout = 120
shutdown_grace = 5
"""
