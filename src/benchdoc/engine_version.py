"""The inference engine's version, as the server under test sees it.

A server usually runs in a virtual environment of its own (SGLang, vLLM and llama.cpp's
Python server each pin their own torch), so benchdoc's own installed packages say nothing
about it. This finds the Python interpreter the launched command runs, and asks *that*
interpreter for the distribution versions of the engines (never importing them: it reads
their installed metadata, in milliseconds):

- the command's program when it is a Python interpreter (``/venv/bin/python -m sglang...``);
- else the interpreter of its ``#!`` line, when the program is a Python script (the
  console scripts ``vllm``, ``sglang``... that a venv installs);
- after a wrapper (``env``, ``taskset``, ``numactl``, ``nice``...), the command it wraps;
  with ``shell = true``, the first word of the command line.

Where no interpreter is found (a compiled server, a container), the server's version
endpoint is asked once it is ready (:func:`endpoint_version`: vLLM's ``/version``, SGLang's
``/get_server_info``). The run's environment keeps the answer as ``engine``::

    {"python": "/opt/sglang/.venv/bin/python", "packages": {"sglang": "0.4.6", "torch": "2.6.0"}}
    {"endpoint": "/version", "version": "0.8.5"}
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# (name in the record, distribution names to look up in order).
ENGINE_DISTRIBUTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sglang", ("sglang",)),
    ("vllm", ("vllm",)),
    ("llama-cpp-python", ("llama_cpp_python", "llama-cpp-python")),
    ("tensorrt_llm", ("tensorrt-llm", "tensorrt_llm")),
    ("torch", ("torch",)),
    ("flashinfer", ("flashinfer-python", "flashinfer")),
)
WRAPPERS = frozenset({"env", "taskset", "numactl", "nice", "ionice", "stdbuf", "chrt", "nohup", "setsid", "time"})
SHELLS = frozenset({"sh", "bash", "dash", "zsh"})
VERSION_ENDPOINTS = ("/version", "/get_server_info")
PROBE_TIMEOUT_S = 10.0
ENDPOINT_TIMEOUT_S = 2.0
MAX_SCANNED_WORDS = 12

_ASK = (
    "import json, sys\n"
    "from importlib import metadata\n"
    "found = {}\n"
    "for name, dists in json.loads(sys.argv[1]):\n"
    "    for dist in dists:\n"
    "        try:\n"
    "            found[name] = metadata.version(dist)\n"
    "            break\n"
    "        except metadata.PackageNotFoundError:\n"
    "            pass\n"
    "print(json.dumps({'python': sys.executable, 'packages': found}))\n"
)


def _resolve(word: str, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The executable file ``word`` names (a path, or a name on the environment's PATH)."""
    if "/" in word:
        path = Path(word) if os.path.isabs(word) else cwd / word
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(word, path=env.get("PATH", os.environ.get("PATH")))
    return Path(found) if found else None


def _is_python(path: Path) -> bool:
    name = path.name
    return name.startswith("python") and name[6:].replace(".", "").isdigit() or name in ("python", "python3")


def _shebang_python(path: Path, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The Python interpreter of a script's ``#!`` line, when it has one."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(512).decode("utf-8", errors="replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if words and Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if not words:
        return None
    target = _resolve(words[0], env, cwd)
    return target if target is not None and _is_python(target) else None


def launched_interpreter(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> Path | None:
    """The Python interpreter the launched command runs, or None (see the module's doc)."""
    words = list(argv)
    if len(words) >= 3 and Path(words[0]).name in SHELLS and words[1] == "-c":
        try:
            words = shlex.split(words[2])
        except ValueError:
            return None
    for word in words[:MAX_SCANNED_WORDS]:
        if "=" in word and not word.startswith("-") and "/" not in word.split("=", 1)[0]:
            continue  # VAR=value before the program (env, a shell line)
        path = _resolve(word, env, cwd)
        if path is None:
            continue  # a wrapper's option or value
        if _is_python(path):
            return path
        interpreter = _shebang_python(path, env, cwd)
        if interpreter is not None:
            return interpreter
        if path.name not in WRAPPERS:
            return None  # a program that is not Python: no interpreter to ask
    return None


def interpreter_packages(python: Path, env: Mapping[str, str], cwd: Path) -> dict[str, Any] | None:
    """``{"python": path, "packages": {name: version}}`` as ``python`` sees them, or None
    when it cannot be asked (it fails, or takes longer than PROBE_TIMEOUT_S)."""
    from benchdoc.environment import probe_output

    wanted = json.dumps([[name, list(dists)] for name, dists in ENGINE_DISTRIBUTIONS])
    output = probe_output([str(python), "-c", _ASK, wanted], PROBE_TIMEOUT_S, cwd=cwd, extra_env=env)
    if output is None:
        return None
    try:
        data = json.loads(output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict):
        return None
    return {"python": str(python), "packages": {str(k): str(v) for k, v in packages.items()}}


def engine_entry(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> dict[str, Any] | None:
    """What the run's environment keeps as ``engine`` from the launched command, or None."""
    python = launched_interpreter(argv, env, cwd)
    if python is None:
        return None
    return interpreter_packages(python, env, cwd)


def endpoint_version(base_url: str) -> dict[str, Any] | None:
    """``{"endpoint": "/version", "version": "0.8.5"}`` from a ready server's version
    endpoint (vLLM's ``/version``, SGLang's ``/get_server_info``), or None."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for path in VERSION_ENDPOINTS:
        try:
            with opener.open(base_url.rstrip("/") + path, timeout=ENDPOINT_TIMEOUT_S) as response:
                data = json.loads(response.read(65536))
        except (OSError, ValueError, urllib.error.URLError):
            continue
        version = data.get("version") if isinstance(data, dict) else None
        if isinstance(version, str) and version:
            return {"endpoint": path, "version": version[:100]}
    return None
