"""A snapshot of the machine a run happened on, as JSON-able data with no secrets in it.

:func:`capture_environment` returns::

    {
      "host": {
        "hostname":  network name of the machine (socket.gethostname()),
        "os":        distribution name from /etc/os-release (PRETTY_NAME), else
                     platform.platform(terse=True), e.g. "Ubuntu 22.04.4 LTS",
        "kernel":    kernel release (platform.release()), e.g. "5.15.0-105-generic",
        "arch":      machine architecture (platform.machine()), e.g. "x86_64", "aarch64",
        "python":    version of the Python running benchdoc, e.g. "3.11.7",
        "cpu_model": first "model name" of /proc/cpuinfo, else platform.processor(),
                     else the architecture; None if nothing says,
        "cpu_count": logical CPUs (os.cpu_count()),
        "memory_gb": total physical memory in GiB (2**30 bytes), one decimal, from
                     /proc/meminfo MemTotal, else os.sysconf; None if unknown
      },
      "gpu": None when nvidia-smi is absent, fails, times out or lists no GPU; else {
        "count":       number of GPUs nvidia-smi lists,
        "models":      their names, one per GPU, in nvidia-smi's order,
        "driver":      NVIDIA driver version (of the first GPU; one driver serves all),
        "cuda":        the CUDA version, see "cuda_source"; None if neither source says,
        "cuda_source": "driver" -- the "CUDA Version" in plain nvidia-smi's header, i.e.
                       the newest CUDA the installed driver supports; or "nvcc" -- the
                       release of the CUDA toolkit whose nvcc is first on PATH, used only
                       when the header does not say; None when "cuda" is None,
        "memory_mib":  total memory of each GPU in MiB (None where nvidia-smi says N/A)
      },
      "packages": {name: version} of the inference packages that are installed, read
                  from their installed metadata (they are never imported); see PACKAGES,
      "env_vars": {name: value} of the variables that tune these stacks (names starting
                  with one of ENV_VAR_PREFIXES, or in ENV_VAR_NAMES), sorted by name,
                  values passed through benchdoc.redact.redact_env,
      "git": {"commit", "dirty", "branch"} of the repository around the working
             directory (see git_info), or None outside a repository
    }

`run` adds "engine": the versions of the inference engines as the launched server's own
interpreter sees them, or its version endpoint's answer (benchdoc.engine_version).
A run adds "load" once it has measured: the machine's load during its measurements
(benchdoc.machineload.environment_entry), "state" busy or quiet and the "figures".

External programs run as argument lists (never through a shell), in their own process
group, with a timeout: a hung nvidia-smi or git is killed and reported as absent, never
as an error. Without a GPU the capture takes a few milliseconds.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from benchdoc.redact import MARKER, redact_env

# (name in the snapshot, distribution names to look up, first found wins).
PACKAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("torch", ("torch",)),
    ("sglang", ("sglang",)),
    ("sgl-kernel", ("sgl-kernel",)),
    ("vllm", ("vllm",)),
    ("flashinfer", ("flashinfer-python", "flashinfer")),
    ("transformers", ("transformers",)),
    ("tensorrt_llm", ("tensorrt-llm", "tensorrt_llm")),
    ("triton", ("triton",)),
    ("nccl", ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11")),
    ("benchdoc", ("benchdoc",)),
)

ENV_VAR_PREFIXES: tuple[str, ...] = (
    "NCCL_",
    "CUDA_",
    "TORCH_",
    "PYTORCH_",  # PYTORCH_CUDA_ALLOC_CONF changes memory behaviour
    "SGLANG_",
    "VLLM_",
    "NVIDIA_",  # NVIDIA_VISIBLE_DEVICES inside containers
    "FLASHINFER_",
    "TRITON_",
)
ENV_VAR_NAMES: frozenset[str] = frozenset({"OMP_NUM_THREADS"})

DEFAULT_PROBE_TIMEOUT_S = 10.0  # nvidia-smi can take seconds to wake idle GPUs
DEFAULT_GIT_TIMEOUT_S = 5.0
_KILL_GRACE_S = 1.0

_GPU_QUERY = ("--query-gpu=name,driver_version,memory.total", "--format=csv,noheader")
_CUDA_IN_HEADER = re.compile(r"CUDA Version\s*:\s*([0-9][0-9.]*)")
_CUDA_IN_NVCC = re.compile(r"release\s+([0-9][0-9.]*)")
_MEMORY_MIB = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(MiB)?", re.IGNORECASE)


@dataclass(frozen=True)
class HostInfo:
    """The machine: see the module documentation for each field."""

    hostname: str
    os: str
    kernel: str
    arch: str
    python: str
    cpu_model: str | None
    cpu_count: int | None
    memory_gb: float | None


@dataclass(frozen=True)
class GpuInfo:
    """The GPUs nvidia-smi lists: see the module documentation for each field."""

    count: int
    models: list[str]
    driver: str | None
    cuda: str | None
    cuda_source: str | None
    memory_mib: list[int | None]


@dataclass(frozen=True)
class GitInfo:
    """The state of a git working tree: its HEAD commit, whether tracked files differ from
    it (untracked files do not count: a ledger or results kept inside the repository
    would otherwise mark every run dirty), and its branch (None when detached)."""

    commit: str
    dirty: bool
    branch: str | None


def _probe(argv: list[str], timeout: float, cwd: Path | None = None, extra_env: Mapping[str, str] | None = None) -> str | None:
    """Standard output of ``argv`` if it exits 0 within ``timeout`` seconds, else None.

    The program runs in its own process group so that on timeout the group, including
    anything it started, is killed; a program stuck in the kernel (a wedged GPU driver)
    cannot be reaped, and is then left behind rather than blocking the caller.
    """
    child_env = dict(os.environ)
    child_env["LC_ALL"] = "C"
    if extra_env:
        child_env.update(extra_env)
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            process.communicate(timeout=_KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            if process.stdout is not None:
                process.stdout.close()
        return None
    return output if process.returncode == 0 else None


probe_output = _probe  # the same bounded probe, for the engine's interpreter (engine_version)


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _os_name() -> str:
    os_release = _read_text("/etc/os-release")
    if os_release:
        match = re.search(r'^PRETTY_NAME=(["\']?)(.*)\1\s*$', os_release, re.MULTILINE)
        if match and match.group(2):
            return match.group(2)
    return platform.platform(terse=True)


def _cpu_model() -> str | None:
    cpuinfo = _read_text("/proc/cpuinfo")
    if cpuinfo:
        match = re.search(r"^model name\s*:\s*(.+?)\s*$", cpuinfo, re.MULTILINE)
        if match:
            return match.group(1)
    return platform.processor() or platform.machine() or None


def _memory_gb() -> float | None:
    meminfo = _read_text("/proc/meminfo")
    if meminfo:
        match = re.search(r"^MemTotal:\s*([0-9]+)\s*kB", meminfo, re.MULTILINE)
        if match:
            return round(int(match.group(1)) * 1024 / 2**30, 1)
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (AttributeError, ValueError, OSError):
        return None


def host_info() -> HostInfo:
    """Describe this machine (no external programs run)."""
    return HostInfo(
        hostname=socket.gethostname(),
        os=_os_name(),
        kernel=platform.release(),
        arch=platform.machine(),
        python=platform.python_version(),
        cpu_model=_cpu_model(),
        cpu_count=os.cpu_count(),
        memory_gb=_memory_gb(),
    )


def _parse_memory_mib(text: str) -> int | None:
    match = _MEMORY_MIB.fullmatch(text.strip())
    return round(float(match.group(1))) if match else None


def gpu_info(search_path: str | None = None, timeout: float = DEFAULT_PROBE_TIMEOUT_S) -> GpuInfo | None:
    """The GPUs ``nvidia-smi`` reports, or None if it is absent, fails, hangs past
    ``timeout`` seconds or lists none. ``search_path`` is the PATH to find ``nvidia-smi``
    and ``nvcc`` in (default: this process's)."""
    nvidia_smi = shutil.which("nvidia-smi", path=search_path)
    if nvidia_smi is None:
        return None
    listing = _probe([nvidia_smi, *_GPU_QUERY], timeout)
    if listing is None:
        return None
    models: list[str] = []
    drivers: list[str] = []
    memory_mib: list[int | None] = []
    for line in listing.splitlines():
        if not line.strip():
            continue
        fields = [field.strip() for field in line.rsplit(",", 2)]
        if len(fields) != 3:
            continue
        name, driver, memory = fields
        models.append(name)
        drivers.append(driver)
        memory_mib.append(_parse_memory_mib(memory))
    if not models:
        return None
    cuda, cuda_source = _cuda_version(nvidia_smi, search_path, timeout)
    return GpuInfo(
        count=len(models),
        models=models,
        driver=drivers[0] or None,
        cuda=cuda,
        cuda_source=cuda_source,
        memory_mib=memory_mib,
    )


def _cuda_version(nvidia_smi: str, search_path: str | None, timeout: float) -> tuple[str | None, str | None]:
    header = _probe([nvidia_smi], timeout)
    match = _CUDA_IN_HEADER.search(header or "")
    if match:
        return match.group(1), "driver"
    nvcc = shutil.which("nvcc", path=search_path)
    if nvcc is not None:
        match = _CUDA_IN_NVCC.search(_probe([nvcc, "--version"], timeout) or "")
        if match:
            return match.group(1), "nvcc"
    return None, None


def package_versions() -> dict[str, str]:
    """Versions of the installed packages listed in PACKAGES, from their metadata only."""
    versions: dict[str, str] = {}
    for name, distributions in PACKAGES:
        for distribution in distributions:
            try:
                versions[name] = metadata.version(distribution)
            except metadata.PackageNotFoundError:
                continue
            break
    return versions


def tuning_env_vars(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` that tune inference stacks, sorted, secrets redacted."""
    selected = {
        name: value
        for name, value in sorted(env.items())
        if is_tuning_variable(name)
    }
    return redact_env(selected)


def is_tuning_variable(name: str) -> bool:
    """Whether a variable tunes an inference stack (its value is worth recording)."""
    return name.startswith(ENV_VAR_PREFIXES) or name in ENV_VAR_NAMES


def recordable_env(env: Mapping[str, str], public: Collection[str] = ()) -> dict[str, str]:
    """The variables a config sets for a server or command, as shown and stored.

    Shown (secrets by name, shape or randomness still redacted): tuning variables, names
    listed in ``public`` (the table's ``public_env``) and numbers. Every other value is
    ``***``: a custom variable's value may be a credential whatever its name.
    """
    shown = {name: value for name, value in env.items() if is_tuning_variable(name) or name in public}
    redacted = redact_env(shown)
    for name, value in env.items():
        if name not in shown:
            redacted[name] = redact_env({name: value})[name] if _is_plain_number(value) else (MARKER if value else value)
    return {name: redacted[name] for name in env}


def _is_plain_number(value: str) -> bool:
    return bool(re.fullmatch(r"[-+]?\d+(?:\.\d+)?", value))


def git_info(cwd: Path | str | None = None, timeout: float = DEFAULT_GIT_TIMEOUT_S) -> GitInfo | None:
    """HEAD commit, dirty flag and branch of the git working tree containing ``cwd``
    (default: the current directory); None without git, outside a repository, in a
    repository with no commit yet, or if git takes longer than ``timeout`` seconds."""
    git = shutil.which("git")
    if git is None:
        return None
    directory = Path(cwd) if cwd is not None else None
    # One call answers all three; optional locks off so that a concurrent `git commit`
    # in the same tree never meets an index.lock taken by us.
    status = _probe(
        [git, "status", "--porcelain=v2", "--branch", "--untracked-files=no"],
        timeout,
        cwd=directory,
        extra_env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    if status is None:
        return None
    commit: str | None = None
    branch: str | None = None
    dirty = False
    for line in status.splitlines():
        if line.startswith("# branch.oid "):
            oid = line.removeprefix("# branch.oid ").strip()
            commit = oid if re.fullmatch(r"[0-9a-f]{40,64}", oid) else None
        elif line.startswith("# branch.head "):
            head = line.removeprefix("# branch.head ").strip()
            branch = None if head == "(detached)" else head
        elif line and not line.startswith("#"):
            dirty = True
    if commit is None:
        return None
    return GitInfo(commit=commit, dirty=dirty, branch=branch)


def capture_environment(
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    *,
    timeout: float = DEFAULT_PROBE_TIMEOUT_S,
) -> dict[str, Any]:
    """A JSON-able snapshot of this machine for a run (layout in the module documentation).

    ``env`` is the environment the run sees (default: this process's); its tuning variables
    are recorded, redacted, and its PATH is where ``nvidia-smi`` and ``nvcc`` are looked
    for. ``cwd`` is the directory whose git state is recorded (default: the current one).
    ``timeout`` bounds each external program, in seconds.
    """
    environment = os.environ if env is None else env
    search_path = environment.get("PATH", os.environ.get("PATH"))
    gpu = gpu_info(search_path, timeout)
    git = git_info(cwd, min(timeout, DEFAULT_GIT_TIMEOUT_S))
    return {
        "host": asdict(host_info()),
        "gpu": asdict(gpu) if gpu is not None else None,
        "packages": package_versions(),
        "env_vars": tuning_env_vars(environment),
        "git": asdict(git) if git is not None else None,
    }


__all__ = [
    "DEFAULT_GIT_TIMEOUT_S",
    "DEFAULT_PROBE_TIMEOUT_S",
    "ENV_VAR_NAMES",
    "ENV_VAR_PREFIXES",
    "PACKAGES",
    "GitInfo",
    "GpuInfo",
    "HostInfo",
    "capture_environment",
    "git_info",
    "gpu_info",
    "host_info",
    "package_versions",
    "tuning_env_vars",
]
