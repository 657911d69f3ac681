"""Results as plain JSON-ready data, for `--json` output and machine consumers."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from benchdoc.results.words import Wording, verdict_text

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from benchdoc.config import Config
    from benchdoc.envdiff import EnvDifference
    from benchdoc.ledger import RunRecord
    from benchdoc.results import Change, Comparison, ExperimentResult, PairComparison, ResultSet, Summary


def summary_to_dict(summary: Summary) -> dict[str, Any]:
    data = asdict(summary)
    data["values"] = list(summary.values)
    data["outliers"] = list(summary.outliers)
    return data


def comparison_to_dict(comparison: Comparison, metric: Wording | None = None) -> dict[str, Any]:
    """A comparison's numbers and verdict; ``metric`` gives the verdict's words ("faster")."""
    return {
        "candidate": summary_to_dict(comparison.candidate),
        "baseline": summary_to_dict(comparison.baseline),
        "direction": comparison.direction,
        "ratio": comparison.ratio,
        "delta_pct": comparison.delta_pct,
        "delta_ci_low_pct": comparison.delta_ci_low,
        "delta_ci_high_pct": comparison.delta_ci_high,
        "delta_ci_level": comparison.delta_ci_level,
        "delta_ci_reason": comparison.delta_ci_reason,
        "median_delta_pct": comparison.median_delta_pct,
        "scale": comparison.scale,
        "confidence": comparison.confidence,
        "test": comparison.test,
        "test_method": comparison.test_method,
        "p_value": comparison.p_value,
        "sequential": asdict(comparison.sequential) if comparison.sequential else None,
        "p_sequential": comparison.p_sequential,
        "p_adjusted": comparison.p_adjusted,
        "correction": comparison.correction,
        "alpha": comparison.alpha,
        "alpha_left": comparison.alpha_left,
        "level": comparison.level,
        "starts_candidate": comparison.starts_candidate,
        "starts_baseline": comparison.starts_baseline,
        "between_start_cv": comparison.components.between_cv,
        "within_start_cv": comparison.components.within_cv,
        "significant": comparison.significant,
        "equivalence_margin": comparison.equivalence_margin,
        "equivalent": comparison.equivalent,
        "starts_needed": comparison.starts_needed,
        "verdict": comparison.verdict,
        "verdict_text": verdict_text(comparison, metric),
    }


def change_to_dict(change: Change) -> dict[str, Any]:
    return asdict(change)


def result_to_dict(result: ExperimentResult, config: Config) -> dict[str, Any]:
    return {
        "name": result.name,
        "label": result.label,
        "status": result.status,
        "reason": result.reason,
        "failure_log_line": result.failure_log_line,
        "compare_to": result.compare_to,
        "supersedes": result.supersedes,
        "superseded_by": result.superseded_by,
        "runs_recorded": len(result.runs),
        "runs_pooled": [r.id for r in result.pooled],
        "measured_at": result.measured_at.isoformat() if result.measured_at else None,
        "summaries": {m: summary_to_dict(s) for m, s in result.summaries.items()},
        "comparisons": {m: comparison_to_dict(c, config.metric_or_default(m)) for m, c in result.comparisons.items()},
        "changes": {m: change_to_dict(c) for m, c in result.changes.items()},
        "environment_diff": [{"key": d.key, "a": d.a, "b": d.b, "text": d.text()} for d in result.environment_diff],
        "warnings": list(result.warnings),
        "unreliable": result.unreliable,
        "failed_share": round(result.reliability.rate, 6) if result.reliability is not None else None,
        "setup_error": result.setup_error,
        "config_changed": result.config_changed,
        "mixed_workloads": (
            {"runs": mix.runs, "differences": {what: list(values) for what, values in mix.differences}}
            if (mix := result.mixed_workloads) else None
        ),
    }


def show_to_dict(
    results: ResultSet, chosen: Sequence[ExperimentResult],
    convert: Callable[[ExperimentResult], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """What `show --json` prints: the pooling, the correction and each chosen experiment's result
    (``convert``: :func:`result_to_dict` by default; a caller may remember its answers)."""
    return {
        "pooling": results.pooling.describe(),
        "correction": results.correction,
        "experiments": [(convert or (lambda r: result_to_dict(r, results.config)))(r) for r in chosen],
    }


def pairs_to_dict(
    results: ResultSet, a: ExperimentResult, b: ExperimentResult, pairs: Sequence[PairComparison],
    env: Sequence[EnvDifference],
) -> dict[str, Any]:
    """What `compare --json` prints: each metric's comparison of ``a`` against ``b``, and how their environments differ."""
    config = results.config
    return {
        "candidate": a.name,
        "baseline": b.name,
        "pooling": results.pooling.describe(),
        "comparisons": {
            pair.metric: {
                **comparison_to_dict(pair.comparison, config.metric_or_default(pair.metric)),
                "corrected": pair.corrected,
                "correction_note": pair.note,
            }
            for pair in pairs
        },
        "environment_diff": [d.text() for d in env],
    }


def history_to_list(config: Config, runs: Sequence[RunRecord], pooled: set[int]) -> list[dict[str, Any]]:
    """What `history --json` prints (without requests): every run, whether the current result pools it,
    and, for a run with requests, the share that failed and whether that makes it unreliable."""
    return [r.to_json() | {"pooled": r.id in pooled, **_reliability_json(config, r)} for r in runs]


def _reliability_json(config: Config, run: RunRecord) -> dict[str, Any]:
    from benchdoc.results.reliability import run_reliability

    trust = run_reliability(run, config.stats.max_error_rate)
    if trust is None:
        return {}
    return {"failed_share": round(trust.rate, 6), "unreliable": trust.unreliable}
