"""`run --until-decided` for one experiment: plan the looks against its baseline, take
each look as repetitions complete, and stop once the comparison is decided."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchdoc.errors import UsageError
from benchdoc.ledger.models import Sample
from benchdoc.planning.plan import ExperimentSetup
from benchdoc.runner.context import RunContext
from benchdoc.runner.events import LookTaken
from benchdoc.runner.sequential import Look, StoppingPlan, plan_stopping, stopping_record, take_look


class UntilDecided:
    """The stopping plan of one experiment, its looks and its decision."""

    def __init__(self, context: RunContext, setup: ExperimentSetup) -> None:
        self.context = context
        self.setup = setup
        self.name = setup.name
        self.planned = setup.repetitions
        self.max_repetitions = context.options.max_repetitions_for(self.planned)
        self.metric = context.config.primary_metric or "output_tok_s"
        self.plan: StoppingPlan | None = None
        self.notes: list[str] = []
        self.baseline: list[float] = []
        self.baseline_runs: list[int] = []  # the ledger ids of the runs the baseline values come from
        self.baseline_starts: list[tuple[int, int]] = []  # the server start of each baseline value
        self.looks: list[Look] = []
        self.decision: str | None = None

    def start(self) -> None:
        """Read the baseline from the ledger and plan the looks (or say why there are none)."""
        from benchdoc.results import build_results

        config = self.context.config
        target = self.setup.experiment.compare_to
        if target is None:
            self._note(f"no compare_to to decide against; running its {self.planned} repetitions")
            return
        results = build_results(config, self.context.ledger, metrics=[self.metric])
        if target in results.experiments:
            from benchdoc.results.pairs import start_labels

            self.baseline = results[target].values(self.metric)
            self.baseline_runs = [run.id for run in results[target].pooled]
            self.baseline_starts = start_labels(results[target].pooled, self.metric)
        if not self.baseline:
            self._note(
                f"'{target}' has no successful {self.metric} result in the ledger to decide against; "
                f"running {self.planned} repetitions"
            )
            return
        # Each added repetition is a server start of its own; the baseline counts by its starts.
        starts = len(set(self.baseline_starts))
        level, family = self._family_level(results)
        plan = plan_stopping(level, self.planned, self.max_repetitions, starts)
        self.plan = plan
        within = f"; at the level the {config.stats.correction} correction leaves it among {family}" if family > 1 else ""
        self._note(f"until decided against '{target}' on {self.metric} (n={len(self.baseline)}, {starts} server "
                   f"start(s){within}): {plan.describe()}")

    def _family_level(self, results: Any) -> tuple[float, int]:
        """(level, family size): the level the project's correction leaves this comparison
        among the others on its metric (their p-values as the ledger has them now), so that
        what the run decides is what every view, which corrects, will show."""
        from benchdoc.results.sequential import family_level

        stats = self.context.config.stats
        return family_level(results, self.name, self.metric, stats.correction, stats.alpha)

    def wants_more(self, completed: int) -> bool:
        """True while a planned look beyond ``completed`` repetitions is still to come, undecided."""
        plan = self.plan
        return bool(plan and plan.looks and self.decision is None and completed < plan.looks[-1])

    def look(self, samples: Sequence[Sample], completed: int) -> None:
        """Take the look planned at ``completed`` repetitions, if there is one."""
        plan = self.plan
        if plan is None or completed not in plan.looks:
            return
        config = self.context.config
        ordered = [s for s in sorted(samples, key=lambda s: s.repetition) if s.metric == self.metric]
        values = [s.value for s in ordered]
        if len(values) != completed:
            self.plan = None
            self._note(f"the workload does not measure {self.metric} in every repetition; no more looks")
            return
        spec = config.metric_or_default(self.metric)
        try:
            look = take_look(
                plan, values, self.baseline, direction=spec.direction,
                equivalence_margin=spec.equivalence_margin,
                candidate_starts=[s.start for s in ordered], baseline_starts=self.baseline_starts,
            )
        except UsageError as err:
            self.plan = None
            self._note(f"cannot compare {self.metric}: {err.message}; no more looks")
            return
        self.looks.append(look)
        self.context.emit(LookTaken(self.name, look, plan))
        if look.decision is not None:
            self.decision = look.decision

    def to_json(self) -> dict[str, Any]:
        """The plan, each look and the decision, as the run's ``metadata.until_decided``."""
        config = self.context.config
        return stopping_record(
            self.plan, self.looks, self.decision, compare_to=self.setup.experiment.compare_to,
            metric=config.primary_metric, baseline_runs=self.baseline_runs, baseline_n=len(self.baseline),
            alpha=config.stats.alpha, max_repetitions=self.max_repetitions, notes=self.notes,
        )

    def _note(self, message: str) -> None:
        self.notes.append(message)
        self.context.notice(self.name, message)
