"""Running experiments: launch the server under test, measure, tear down, record.

The public surface:

    from benchdoc.runner import RunOptions, run_experiments, plan_runs, select_experiments

    names = select_experiments(config, ["eagle3-*"])
    report = run_experiments(config, ledger, names, RunOptions(repetitions=5), on_event=print)

What a run will do (the [servers] and [workloads] tables, selection, placeholders, the
fingerprint) is decided in :mod:`benchdoc.planning`, below this package and ``results``.
Modules: ``process`` (process groups, readiness, teardown), ``failures`` (reasons
read from logs), ``reading`` (command workloads' numbers), ``bench`` (`bench` as a
library function, beside ``run_experiments``),
``sequential`` (the statistics of --until-decided) and ``deciding`` (its looks during a
run), ``events``, ``context`` (options and what a run's experiments share),
``session`` (one experiment's server), ``repetitions`` (one repetition of a workload),
``experiment`` (one experiment's phases and the run it records) and ``execute`` (the
order experiments run in, and dry runs).
"""

from __future__ import annotations

from benchdoc.planning.plan import runnable_experiments, select_experiments
from benchdoc.runner.events import ExperimentOutcome, RunEvent
from benchdoc.runner.execute import PlannedRun, RunOptions, RunReport, plan_runs, run_experiments

__all__ = [
    "ExperimentOutcome",
    "PlannedRun",
    "RunEvent",
    "RunOptions",
    "RunReport",
    "plan_runs",
    "run_experiments",
    "runnable_experiments",
    "select_experiments",
]
