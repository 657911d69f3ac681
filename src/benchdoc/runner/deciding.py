"""`run --until-decided` for one experiment: plan the looks against its baseline, take
each look as server starts complete, and stop once the comparison is decided.

The baseline is either what the ledger holds of ``compare_to`` when the run begins, or,
when ``compare_to`` is measured in the same run, that experiment running alongside (a
``live`` baseline): each round starts it and then each undecided candidate, and every
look compares the candidate's starts with the baseline's starts so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchdoc.errors import UsageError
from benchdoc.ledger.metadata import SequentialTest
from benchdoc.ledger.models import Sample
from benchdoc.planning.plan import ExperimentSetup
from benchdoc.runner.context import RunContext
from benchdoc.runner.events import LookTaken
from benchdoc.runner.sequential import Look, StoppingPlan, plan_stopping, stopping_record, take_look

if TYPE_CHECKING:
    from benchdoc.runner.experiment import ExperimentRun


class UntilDecided:
    """The stopping plan of one experiment, its looks and its decision."""

    def __init__(self, context: RunContext, setup: ExperimentSetup, planned_starts: int) -> None:
        self.context = context
        self.setup = setup
        self.name = setup.name
        self.planned = planned_starts  # the server starts run before the first look
        self.max_starts = context.options.max_starts_for(planned_starts)
        self.live: ExperimentRun | None = None  # compare_to measured alongside, in rounds
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
            self._note(f"no compare_to to decide against; running its {self.planned} server start(s)")
            return
        results = build_results(config, self.context.ledger, metrics=[self.metric])
        if self.live is not None:
            self._plan(results, self.max_starts, f"'{target}' running alongside, one start of each a round")
            return
        if target in results.experiments:
            from benchdoc.results.pairs import start_labels

            self.baseline = results[target].values(self.metric)
            self.baseline_runs = [run.id for run in results[target].pooled]
            self.baseline_starts = start_labels(results[target].pooled, self.metric)
        if not self.baseline:
            self._note(
                f"'{target}' has no successful {self.metric} result in the ledger to decide against; "
                f"running {self.planned} server start(s)"
            )
            return
        starts = len(set(self.baseline_starts))
        self._plan(results, starts, f"'{target}' (n={len(self.baseline)}, {starts} server start(s))")

    def _plan(self, results: Any, baseline_starts: int, against: str) -> None:
        """Plan the looks at the level the project's correction will leave this comparison."""
        level, family = self._family_level(results)
        plan = plan_stopping(level, self.planned, self.max_starts, baseline_starts)
        self.plan = plan
        stats = self.context.config.stats
        within = f"; at the level the {stats.correction} correction leaves it among {family}" if family > 1 else ""
        self._note(f"until decided against {against} on {self.metric}{within}: {plan.describe()}")

    def _family_level(self, results: Any) -> tuple[float, int]:
        """(level, family size): the level the project's correction leaves this comparison
        among the others on its metric, so that what the run decides is what every view,
        which corrects, will show. The others' p-values are the ledger's, except those of
        experiments this run measures too, which are taken as the worst they can become."""
        from benchdoc.results.sequential import family_level

        stats = self.context.config.stats
        running = [name for name in self.context.selected
                   if name != self.name and self.context.config.experiments.get(name) is not None
                   and self.context.config.experiments[name].compare_to]
        return family_level(results, self.name, self.metric, stats.correction, stats.alpha, running=running)

    def wants_more(self, starts: int) -> bool:
        """True while a planned look beyond ``starts`` server starts is still to come, undecided."""
        plan = self.plan
        if plan is None or not plan.looks or self.decision is not None or starts >= plan.looks[-1]:
            return False
        live = self.live
        if live is not None and (live.failure is not None or live.error is not None or live.run_id is not None):
            self.plan = None
            self._note(f"'{live.name}', the baseline running alongside, stopped; no more looks")
            return False
        return True

    def look(self, samples: Sequence[Sample], starts: int) -> None:
        """Take the look planned at ``starts`` server starts, if there is one."""
        plan = self.plan
        if plan is None or starts not in plan.looks:
            return
        config = self.context.config
        ordered = _ordered(samples, self.metric)
        if len({s.start for s in ordered}) != starts:
            self.plan = None
            self._note(f"the workload does not measure {self.metric} in every server start; no more looks")
            return
        if self.live is not None:  # the baseline's starts so far, this round's included
            theirs = _ordered(self.live.samples, self.metric)
            self.baseline = [s.value for s in theirs]
            self.baseline_starts = [(0, s.start) for s in theirs]
        spec = config.metric_or_default(self.metric)
        try:
            look = take_look(
                plan, [s.value for s in ordered], self.baseline, direction=spec.direction,
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
        elif starts == plan.looks[-1]:
            self._note(f"not decided after {starts} server starts, the most --max-starts allows ({self.max_starts}): "
                       "recorded as undecided, and every view says so")

    def record(self) -> SequentialTest:
        """The plan, each look and the decision, as the run's ``metadata.until_decided``."""
        config = self.context.config
        live = self.live
        runs = ([live.run_id] if live.run_id is not None else []) if live is not None else self.baseline_runs
        return stopping_record(
            self.plan, self.looks, self.decision, compare_to=self.setup.experiment.compare_to,
            metric=config.primary_metric, baseline_runs=runs, baseline_n=len(self.baseline),
            alpha=config.stats.alpha, max_repetitions=self.max_starts, notes=self.notes,
        )

    def _note(self, message: str) -> None:
        self.notes.append(message)
        self.context.notice(self.name, message)


def _ordered(samples: Sequence[Sample], metric: str) -> list[Sample]:
    """``metric``'s samples by repetition."""
    return [s for s in sorted(samples, key=lambda s: s.repetition) if s.metric == metric]
