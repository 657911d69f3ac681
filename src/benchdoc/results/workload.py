"""Whether the runs a result pools measured the same workload.

The workload is part of what a result is: a median over runs at concurrency 4 and runs at
concurrency 16, or over 128- and 1024-token prompts, describes no configuration. A run
says what it ran in its metadata (`bench`'s ``settings``, `run`'s ``workload.settings``, the
fields an imported serving benchmark kept); a run that does not (numbers given to `record`,
most imports) is left out of the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchdoc.ledger.models import RunRecord

# The settings that make two runs different workloads, and how a sentence names each.
WORKLOAD_SETTINGS: tuple[tuple[str, str], ...] = (
    ("input_tokens", "input length"),
    ("input_tokens_max", "longest input"),
    ("output_tokens", "output length"),
    ("output_tokens_max", "longest output"),
    ("concurrency", "concurrency"),
    ("rate", "request rate"),
    ("dataset", "dataset"),
)


# The same settings as sglang's and vLLM's serving benchmarks write them (kept by `import`).
IMPORTED_SETTINGS: dict[str, str] = {
    "random_input_len": "input_tokens",
    "random_output_len": "output_tokens",
    "max_concurrency": "concurrency",
    "request_rate": "rate",
    "dataset_name": "dataset",
}


def workload_of(run: RunRecord) -> dict[str, Any] | None:
    """The workload settings a run recorded, or None when it recorded none."""
    metadata = run.metadata
    settings = metadata.settings or (metadata.workload.settings if metadata.workload is not None else None)
    if not isinstance(settings, dict):
        tool = metadata.tool or {}
        settings = {ours: tool[theirs] for theirs, ours in IMPORTED_SETTINGS.items() if theirs in tool}
        if not settings:
            return None
    found = {key: settings.get(key) for key, _ in WORKLOAD_SETTINGS}
    described = (metadata.provenance or {}).get("dataset")
    dataset = described.get("sha256") if isinstance(described, dict) else None
    if found["dataset"] and isinstance(dataset, str):  # one path may hold another file than it did
        found["dataset"] = f"{found['dataset']} (sha256 {dataset[:12]})"
    return found


@dataclass(frozen=True)
class WorkloadMix:
    """Runs of one experiment, pooled together, that measured different workloads."""

    experiment: str
    runs: int  # pooled runs that recorded their workload
    differences: tuple[tuple[str, tuple[str, ...]], ...]  # (what, each value seen, oldest first)

    def short(self) -> str:
        """'concurrency 4, 16; input length 128, 512'"""
        return "; ".join(f"{what} {', '.join(values)}" for what, values in self.differences)

    def sentence(self) -> str:
        """One line saying what differs and why it matters."""
        return (
            f"{self.experiment} pools {self.runs} runs of different workloads ({self.short()}); "
            "the workload is part of what a result is: pool fewer runs, or record each workload as its own experiment"
        )


def workload_mix(experiment: str, pooled: Sequence[RunRecord]) -> WorkloadMix | None:
    """What differs between the workloads of ``pooled`` (newest first), or None when they agree."""
    described = [w for w in (workload_of(run) for run in reversed(pooled)) if w is not None]
    if len(described) < 2:
        return None
    differences = []
    for key, what in WORKLOAD_SETTINGS:
        values = list(dict.fromkeys(_spell(w[key]) for w in described))
        if len(values) > 1:
            differences.append((what, tuple(values)))
    return WorkloadMix(experiment, len(described), tuple(differences)) if differences else None


def _spell(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)
