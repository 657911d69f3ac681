"""`benchdoc submit --slurm`: one job array, one task per experiment; `--status` to follow it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from benchdoc.cli._common import console, load_project, open_ledger
from benchdoc.errors import EXIT_OK, LedgerError, UsageError

if TYPE_CHECKING:
    from benchdoc.cluster import SweepStatus

ORDER = 26

DESCRIPTION = """\
Submit experiments to Slurm as ONE job array: array task i runs `benchdoc run <experiment i>`
on its node, with the same project file and the team's PostgreSQL ledger. The script is
written under .benchdoc/slurm/ (the project folder must be on a file system the nodes
share) and submitted with `sbatch --parsable`; the job id is printed. Every option can
also live in a [slurm] table of benchdoc.toml; the command line wins.

The ledger's password is never written into the script, the logs or the job's command
line: tasks read the URL from the project file or BENCHDOC_LEDGER_URL in the environment
sbatch exports (or keep the password in ~/.pgpass; see docs/cluster.md).
"""

EPILOG = """\
examples:
  benchdoc submit 'eagle3-s*' --slurm --partition gpu --gres gpu:8 --time 02:00:00
  benchdoc submit --slurm --max-parallel 4 --dry-run     print the script, submit nothing
  benchdoc submit --status                              the latest submission, per experiment
  benchdoc submit --slurm --missing                     resubmit what has no successful run

exit codes:
  0  submitted (or printed, or status shown)
  1  the cluster refused the job (unknown partition, QOS or account limits), or a Slurm
     command failed; nothing was submitted or recorded
  2  usage: a SQLite ledger, sbatch not on PATH, no experiment, a bad option
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "submit", help="submit experiments to Slurm as one job array; --status to follow it",
        description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT|GLOB",
                        help="experiments to submit (default: every experiment with a server)")
    parser.add_argument("--slurm", action="store_true", help="submit to Slurm (the scheduler benchdoc submits to)")
    parser.add_argument("--status", nargs="?", const="", metavar="JOBID",
                        help="show where a submission stands (default: the latest), reconciling ended tasks")
    parser.add_argument("--partition", help="sbatch --partition")
    parser.add_argument("--gres", help="generic resources per task, e.g. gpu:8")
    parser.add_argument("--time", help="time limit per task, e.g. 02:00:00")
    parser.add_argument("--account", help="sbatch --account")
    parser.add_argument("--qos", help="sbatch --qos")
    parser.add_argument("--exclusive", action=argparse.BooleanOptionalAction, default=None,
                        help="a node to each task alone (default: on; benchmarks need the node to themselves)")
    parser.add_argument("--requeue", action=argparse.BooleanOptionalAction, default=None,
                        help="let Slurm run a task again after a node failure or preemption (default: the cluster's "
                        "JobRequeue); the attempt that finishes counts, earlier ones stay as history, and each "
                        "attempt appends to the task's log")
    parser.add_argument("--retries", type=int, metavar="N",
                        help="let Slurm requeue a task at most N times (node failure, preemption; implies --requeue): "
                        "an attempt beyond N records its failure and does not run")
    parser.add_argument("--max-parallel", type=int, metavar="K", help="at most K tasks at once (the array's %%K)")
    parser.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                        help="any other sbatch option, e.g. --sbatch-arg=--mem=64G (repeatable)")
    parser.add_argument("--missing", action="store_true",
                        help="only experiments without a successful run of their current configuration")
    parser.add_argument("--dry-run", action="store_true", help="print the sbatch script; submit nothing")
    parser.set_defaults(func=run)

    status = subparsers.add_parser(
        "status",
        help="where a Slurm submission stands, per experiment (same as submit --status)",
        description="Per experiment of a submission (default: the latest): pending, running, done or failed, "
        "from squeue/sacct and the ledger, with a progress bar. A task Slurm ended without recording its run "
        "(time limit, scancel, node failure, out of memory) is recorded as failed with Slurm's reason, once.",
    )
    status.add_argument("job_id", nargs="?", metavar="JOBID", help="the job id (default: the latest submission)")
    status.set_defaults(func=lambda args: show_status(args, args.job_id))


def run(args: argparse.Namespace) -> int:
    if args.status is not None:
        return show_status(args, args.status or None)
    if not args.slurm:
        raise UsageError("say where to submit: --slurm (Slurm is the scheduler benchdoc submits to)")
    from benchdoc.cluster import refuse_sqlite, script_text, slurm_options, submit
    from benchdoc.cluster.options import options_by_experiment
    from benchdoc.runner import select_experiments

    config = load_project(args)
    refuse_sqlite(config)
    overrides = {
        "partition": args.partition, "gres": args.gres, "time": args.time, "account": args.account,
        "qos": args.qos, "exclusive": args.exclusive, "requeue": args.requeue, "retries": args.retries,
        "max_parallel": args.max_parallel, "sbatch_args": tuple(args.sbatch_arg),
    }
    slurm_options(config, overrides)  # every setting checked before anything is selected or written
    names = select_experiments(config, args.experiments)
    if args.missing:
        from benchdoc.planning.fingerprint import missing_in_ledger

        with open_ledger(config) as ledger:
            names = missing_in_ledger(config, names, ledger)
            names = _not_queued(config, ledger, names)
        if not names:
            print("nothing to submit: every selected experiment has a successful run of its current configuration, "
                  "or is queued or running")
            return EXIT_OK
    # One job array per set of resources ([slurm.experiments."GLOB"] gives some experiments their own).
    for options, group in options_by_experiment(config, names, overrides):
        submission = submit(config, group, options, dry_run=args.dry_run)
        if args.dry_run:
            print(script_text(config, submission), end="")
            continue
        print(submission.job_id)
        _share(config, submission)
        console(stderr=True).print(
            f"submitted job {submission.job_id}: {len(group)} experiment(s), script "
            f"{_relative(submission.script, config.root)}; follow it with: benchdoc status {submission.job_id}",
            markup=False, highlight=False,
        )
    return EXIT_OK


def _not_queued(config: Any, ledger: Any, names: list[str]) -> list[str]:
    """``names`` less those a submission (this clone's or the team's) still has queued or
    running, each said on stderr."""
    from benchdoc.cluster.shared import local_submissions, still_active, team_submissions

    known = {s.job_id: s for s in [*team_submissions(ledger), *local_submissions(config)]}
    active = still_active(list(known.values()), names)
    for name, job in active.items():
        print(f"benchdoc: {name}: skipped, still queued or running in job {job}", file=sys.stderr)
    return [name for name in names if name not in active]


def _share(config: Any, submission: Any) -> None:
    """Keep the submission in the ledger, so that any clone's `status` sees it."""
    from benchdoc.cluster.shared import publish

    try:
        with open_ledger(config, write=True) as ledger:
            publish(ledger, submission)
    except LedgerError as err:
        print(f"benchdoc: job {submission.job_id} is submitted but not shared in the ledger ({err}); "
              "`status` finds it in this clone only", file=sys.stderr)


def show_status(args: argparse.Namespace, job_id: str | None) -> int:
    from benchdoc.cluster import load_submission, sweep_status

    config = load_project(args)
    with open_ledger(config) as ledger:
        submission = load_submission(config, job_id, ledger)
        status = sweep_status(config, ledger, submission)
    present(status)
    return EXIT_OK


def present(status: SweepStatus) -> None:
    from rich.table import Table
    from rich.text import Text

    submission = status.submission
    total = len(status.experiments)
    out = console()
    out.print(
        Text(f"job {submission.job_id}, submitted {submission.submitted_at:%Y-%m-%d %H:%M} UTC: {total} experiment(s)")
    )
    width = 30
    filled = round(width * status.finished / total) if total else width
    counts = ", ".join(f"{status.count(s)} {s}" for s in ("done", "failed", "running", "pending", "unknown") if status.count(s))
    out.print(Text(f"[{'#' * filled}{'.' * (width - filled)}] {status.finished}/{total} finished: {counts}"))
    table = Table(title_justify="left")
    for column in ("experiment", "task", "state", "detail"):
        table.add_column(column, justify="right" if column == "task" else "left")
    for item in status.experiments:
        detail = item.detail + (" (recorded now, from Slurm)" if item.reconciled else "")
        table.add_row(Text(item.experiment), str(item.task), item.state, Text(detail))
    out.print(table)


def _relative(path: Any, root: Any) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
