"""What differs between two environment snapshots, most consequential first.

A snapshot is the JSON-able dict recorded with each run::

    {"host": {"hostname", "os", "python", "cpu_model", "cpu_count", "memory_gb"},
     "gpu": {"count", "models", "driver", "cuda"} or None,
     "packages": {"torch": "2.5.1", ...},
     "env_vars": {"NCCL_ALGO": "Tree", ...},
     "git": {"commit", "dirty"},
     "load": {"state": "busy" or "quiet", "figures": {...}},
     "engine": {"python", "packages": {"sglang": "0.4.6", ...}} or {"endpoint", "version"}}

Every part may be missing. Nested keys are compared as dotted paths ("gpu.cuda"); a
missing key and a null value both count as absent; lists are compared whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

# The keys that most often explain a performance change, in the order they are listed.
# A key matching none of these comes after them, alphabetically.
IMPORTANT_KEYS: tuple[str, ...] = (
    "gpu.models",
    "gpu.model",
    "gpu.count",
    "gpu.driver",
    "gpu.cuda",
    "engine.version",
    "engine.packages.sglang",
    "engine.packages.vllm",
    "engine.packages.llama-cpp-python",
    "engine.packages.tensorrt_llm",
    "engine.packages.*",
    "packages.torch",
    "packages.sglang",
    "packages.vllm",
    "packages.flashinfer",
    "packages.flashinfer-python",
    "packages.transformers",
    "packages.triton",
    "env_vars.NCCL_*",
    "env_vars.CUDA_*",
    "git.commit",
    "git.dirty",
    "host.hostname",
    "load.state",
)

_LABELS: dict[str, str] = {
    "gpu.models": "GPU",
    "gpu.model": "GPU",
    "gpu.count": "GPU count",
    "gpu.driver": "driver",
    "gpu.cuda": "CUDA",
    "git.commit": "commit",
    "git.dirty": "uncommitted changes",
    "host.hostname": "host",
    "host.os": "OS",
    "host.python": "Python",
    "host.cpu_model": "CPU",
    "host.cpu_count": "CPU count",
    "host.memory_gb": "memory (GB)",
    "load.state": "machine load",
    "engine.version": "engine version",
    "engine.python": "engine's Python",
}
_LABELLED_PREFIXES: tuple[str, ...] = ("packages.", "env_vars.")
_ENGINE_PACKAGES = "engine.packages."
_SHORT_COMMIT = 12
ABSENT = "(none)"


@dataclass(frozen=True)
class EnvDifference:
    """One dotted key whose value differs; ``a``/``b`` are None where the key is absent."""

    key: str
    a: Any
    b: Any

    @property
    def important(self) -> bool:
        """True for the keys most likely to explain a performance change (GPU, CUDA, ...)."""
        return _rank(self.key) < len(IMPORTANT_KEYS)

    @property
    def label(self) -> str:
        """A short name for people: 'CUDA', 'torch', 'NCCL_ALGO', or the dotted key."""
        if self.key in _LABELS:
            return _LABELS[self.key]
        if self.key.startswith(_ENGINE_PACKAGES):  # the server's own venv: 'engine torch'
            return f"engine {self.key[len(_ENGINE_PACKAGES):]}"
        for prefix in _LABELLED_PREFIXES:
            if self.key.startswith(prefix):
                return self.key[len(prefix) :]
        return self.key

    def text(self) -> str:
        """'CUDA 12.8 -> 13.0.1'."""
        return f"{self.label} {self._show(self.a)} -> {self._show(self.b)}"

    def _show(self, value: Any) -> str:
        if value is None:
            return ABSENT
        if isinstance(value, tuple):
            return ", ".join(str(item) for item in value) or ABSENT
        if self.key == "git.commit" and isinstance(value, str):
            return value[:_SHORT_COMMIT]
        return str(value)


def flatten(snapshot: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as one level of dotted keys; None values dropped; lists as tuples."""
    flat: dict[str, Any] = {}
    if not snapshot:
        return flat
    for key, value in snapshot.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{dotted}."))
        elif isinstance(value, (list, tuple)):
            flat[dotted] = tuple(_frozen(item) for item in value)
        elif value is not None:
            flat[dotted] = value
    return flat


def environment_diff(
    env_a: Mapping[str, Any] | None,
    env_b: Mapping[str, Any] | None,
    *,
    ignore: Iterable[str] = (),
) -> list[EnvDifference]:
    """The keys whose values differ between two snapshots, important keys first.

    ``ignore`` holds glob patterns of dotted keys to leave out (e.g. "host.memory_gb").
    """
    patterns = tuple(ignore)
    flat_a = flatten(env_a)
    flat_b = flatten(env_b)
    differences = [
        EnvDifference(key, flat_a.get(key), flat_b.get(key))
        for key in set(flat_a) | set(flat_b)
        if flat_a.get(key) != flat_b.get(key) and not any(fnmatchcase(key, p) for p in patterns)
    ]
    return sorted(differences, key=lambda d: (_rank(d.key), d.key))


def hostnames(envs: Iterable[Mapping[str, Any] | None]) -> set[str]:
    """The distinct host names recorded in these snapshots (snapshots without one are skipped)."""
    names: set[str] = set()
    for env in envs:
        host = (env or {}).get("host")
        if isinstance(host, Mapping) and host.get("hostname"):
            names.add(str(host["hostname"]))
    return names


def mixes_machines(
    envs_a: Iterable[Mapping[str, Any] | None], envs_b: Iterable[Mapping[str, Any] | None] = ()
) -> bool:
    """True when the runs on both sides, taken together, come from more than one host."""
    return len(hostnames([*envs_a, *envs_b])) > 1


def _rank(key: str) -> int:
    for position, pattern in enumerate(IMPORTANT_KEYS):
        if fnmatchcase(key, pattern):
            return position
    return len(IMPORTANT_KEYS)


def _frozen(value: Any) -> Any:
    """A hashable, comparable stand-in for a list item (nested lists and dicts included)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    return value
