"""Environment capture against real programs: git repositories, stand-in nvidia-smi and nvcc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import benchdoc
from benchdoc.environment import GitInfo, capture_environment, git_info, gpu_info, package_versions

OPENAI_KEY = "sk-test-4f9aQ27bXcD81eFgH3iJ"
HF_TOKEN = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm12"
DB_PASSWORD = "s3cretpw"
PLAIN_VLLM_KEY = "vllmplainkey42"

HOST_FIELDS = {"hostname", "os", "kernel", "arch", "python", "cpu_model", "cpu_count", "memory_gb"}
GPU_FIELDS = {"count", "models", "driver", "cuda", "cuda_source", "memory_mib"}


def write_executable(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


@pytest.fixture
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """git sees no user or system configuration and never climbs above tmp_path."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def test_snapshot_without_gpu_is_well_formed_json(tmp_path: Path) -> None:
    # An empty PATH directory: no nvidia-smi anywhere, whatever machine runs this.
    environment = {"PATH": str(tmp_path), "NCCL_ALGO": "Tree", "CUDA_VISIBLE_DEVICES": "0,1", "HOME": "/nowhere"}
    started = time.monotonic()
    snapshot = capture_environment(env=environment, cwd=tmp_path)
    elapsed = time.monotonic() - started

    assert set(snapshot) == {"host", "gpu", "packages", "env_vars", "git"}
    assert snapshot["gpu"] is None
    host = snapshot["host"]
    assert set(host) == HOST_FIELDS
    assert host["hostname"] and host["os"] and host["kernel"] and host["arch"]
    assert host["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert isinstance(host["cpu_count"], int) and host["cpu_count"] >= 1
    assert isinstance(host["memory_gb"], float) and host["memory_gb"] > 0
    assert snapshot["packages"]["benchdoc"] == benchdoc.__version__
    assert snapshot["env_vars"] == {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_ALGO": "Tree"}
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert elapsed < 3.0  # a few milliseconds in practice; tolerant of a loaded machine


def test_snapshot_of_this_process_has_the_documented_shape() -> None:
    snapshot = capture_environment()
    assert set(snapshot["host"]) == HOST_FIELDS
    assert snapshot["gpu"] is None or set(snapshot["gpu"]) == GPU_FIELDS
    assert snapshot["git"] is None or set(snapshot["git"]) == {"commit", "dirty", "branch"}
    assert all(name.startswith(("NCCL_", "CUDA_", "TORCH_", "PYTORCH_", "SGLANG_", "VLLM_", "NVIDIA_", "FLASHINFER_", "TRITON_")) or name == "OMP_NUM_THREADS" for name in snapshot["env_vars"])
    json.dumps(snapshot)


def test_no_secret_reaches_the_snapshot(tmp_path: Path) -> None:
    environment = {
        "PATH": str(tmp_path),
        "OPENAI_API_KEY": OPENAI_KEY,
        "HF_TOKEN": HF_TOKEN,
        "VLLM_API_KEY": PLAIN_VLLM_KEY,
        "SGLANG_LEDGER_URL": f"postgresql://bench:{DB_PASSWORD}@db/ledger",
        "TORCH_NOTE": f"launched with --api-key {PLAIN_VLLM_KEY} and {HF_TOKEN}",
        "NCCL_ALGO": "Tree",
    }
    snapshot = capture_environment(env=environment, cwd=tmp_path)
    dumped = json.dumps(snapshot)
    for secret in (OPENAI_KEY, HF_TOKEN, DB_PASSWORD, PLAIN_VLLM_KEY):
        assert secret not in dumped
    assert snapshot["env_vars"] == {
        "NCCL_ALGO": "Tree",
        "SGLANG_LEDGER_URL": "postgresql://bench:***@db/ledger",
        "TORCH_NOTE": "launched with --api-key *** and hf_***",
        "VLLM_API_KEY": "***",
    }


def test_git_info_follows_a_real_repository(tmp_path: Path, isolated_git: None) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git_info(repo) is None  # not a repository
    git(repo, "init", "-q", "-b", "main")
    assert git_info(repo) is None  # a repository with no commit yet
    (repo / "server.toml").write_text("tp = 2\n")
    git(repo, "add", "server.toml")
    git(repo, "commit", "-q", "-m", "first")
    head = git(repo, "rev-parse", "HEAD")

    assert git_info(repo) == GitInfo(commit=head, dirty=False, branch="main")
    (repo / "results.json").write_text("{}")  # untracked files do not make the tree dirty
    assert git_info(repo) == GitInfo(commit=head, dirty=False, branch="main")
    (repo / "server.toml").write_text("tp = 4\n")
    assert git_info(repo) == GitInfo(commit=head, dirty=True, branch="main")
    subdirectory = repo / "nested"
    subdirectory.mkdir()
    assert git_info(subdirectory) == GitInfo(commit=head, dirty=True, branch="main")

    git(repo, "commit", "-q", "-am", "second")
    second = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach", head)
    assert git_info(repo) == GitInfo(commit=head, dirty=False, branch=None)
    assert second != head

    snapshot = capture_environment(env={"PATH": str(tmp_path)}, cwd=repo)
    assert snapshot["git"] == {"commit": head, "dirty": False, "branch": None}


def test_git_info_of_a_missing_directory_is_none(tmp_path: Path) -> None:
    assert git_info(tmp_path / "does-not-exist") is None


FAKE_NVIDIA_SMI = """\
    printf '%s\\n' "$*" >> "$(dirname "$0")/calls.log"
    case "$1" in
      --query-gpu=*)
        printf 'NVIDIA H100 80GB HBM3, 550.54.15, 81559 MiB\\n'
        printf 'NVIDIA H100 80GB HBM3, 550.54.15, [N/A]\\n'
        ;;
      *)
        printf '+---------------------------------------------------------------------------+\\n'
        printf '| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\\n'
        ;;
    esac
"""


def test_fake_nvidia_smi_is_parsed(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_executable(bin_dir, "nvidia-smi", FAKE_NVIDIA_SMI)

    snapshot = capture_environment(env={"PATH": str(bin_dir)}, cwd=tmp_path)

    assert snapshot["gpu"] == {
        "count": 2,
        "models": ["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"],
        "driver": "550.54.15",
        "cuda": "12.4",
        "cuda_source": "driver",
        "memory_mib": [81559, None],
    }
    calls = (bin_dir / "calls.log").read_text().splitlines()
    assert calls == ["--query-gpu=name,driver_version,memory.total --format=csv,noheader", ""]


def test_cuda_version_falls_back_to_nvcc(tmp_path: Path) -> None:
    write_executable(tmp_path, "nvidia-smi", """\
        case "$1" in
          --query-gpu=*) printf 'NVIDIA GH200 480GB, 560.35.03, 97871 MiB\\n' ;;
          *) printf 'no version in this header\\n' ;;
        esac
    """)  # fmt: skip
    write_executable(tmp_path, "nvcc", """\
        printf 'nvcc: NVIDIA (R) Cuda compiler driver\\n'
        printf 'Cuda compilation tools, release 12.6, V12.6.77\\n'
    """)  # fmt: skip
    gpu = gpu_info(str(tmp_path), timeout=10.0)
    assert gpu is not None
    assert (gpu.count, gpu.models, gpu.driver, gpu.memory_mib) == (1, ["NVIDIA GH200 480GB"], "560.35.03", [97871])
    assert (gpu.cuda, gpu.cuda_source) == ("12.6", "nvcc")


def test_failing_nvidia_smi_means_no_gpu(tmp_path: Path) -> None:
    write_executable(tmp_path, "nvidia-smi", """\
        echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
        exit 9
    """)  # fmt: skip
    assert gpu_info(str(tmp_path)) is None
    write_executable(tmp_path, "nvidia-smi", "printf 'No devices were found\\n'\n")
    assert gpu_info(str(tmp_path)) is None


def _process_is_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in {"Z", "X"}  # killed, waiting to be reaped by init


def test_hanging_nvidia_smi_is_cut_off_and_killed(tmp_path: Path) -> None:
    # The script starts a child that would outlive it; the whole group must die.
    write_executable(tmp_path, "nvidia-smi", """\
        sleep 60 &
        echo $! > "$(dirname "$0")/child.pid"
        wait
    """)  # fmt: skip
    started = time.monotonic()
    snapshot = capture_environment(env={"PATH": str(tmp_path)}, cwd=tmp_path, timeout=0.5)
    elapsed = time.monotonic() - started

    assert snapshot["gpu"] is None
    assert elapsed < 5.0
    child = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 5.0
    while not _process_is_gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _process_is_gone(child)


def test_package_versions_read_metadata_without_importing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for distribution, version in (("flashinfer_python", "0.2.5"), ("triton", "3.1.0")):
        info = site / f"{distribution}-{version}.dist-info"
        info.mkdir(parents=True)
        name = distribution.replace("_", "-")
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    # Importing this triton would fail loudly: a version read must not import it.
    (site / "triton").mkdir()
    (site / "triton" / "__init__.py").write_text("raise RuntimeError('imported triton')\n")
    script = (
        "import json, sys\n"
        "from benchdoc.environment import package_versions\n"
        "versions = package_versions()\n"
        "print(json.dumps({'versions': versions, 'imported': 'triton' in sys.modules}))\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["imported"] is False
    assert report["versions"]["flashinfer"] == "0.2.5"
    assert report["versions"]["triton"] == "3.1.0"
    assert report["versions"]["benchdoc"] == benchdoc.__version__


def test_package_versions_lists_only_installed_packages() -> None:
    versions = package_versions()
    assert versions["benchdoc"] == benchdoc.__version__
    assert all(isinstance(version, str) and version for version in versions.values())
