"""What every chart says the same way: a metric's unit label, and whether a run was simulated.

The bottom of ``plots``: the chart models (``model``, ``latency_cdf``, ``latency_throughput``)
import it and it imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdoc.config import MetricConfig
    from benchdoc.ledger.models import RunRecord


def unit_label(metric: MetricConfig) -> str:
    """'TTFT p50 (ms)', or just 'tok/s' when the label already is the unit."""
    if not metric.unit or metric.unit in metric.label:
        return metric.label
    return f"{metric.label} ({metric.unit})"


def is_simulated(run: RunRecord) -> bool:
    """True when the run measured the built-in simulator, not real hardware."""
    return run.metadata.simulator
