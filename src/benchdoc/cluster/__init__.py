"""Submitting the same plan to a scheduler: Slurm job arrays, one task per experiment.

benchdoc never schedules. ``submit`` writes one sbatch script and submits one job array
whose task i runs ``benchdoc run <experiment i>`` on the node Slurm gives it, writing to
the team's PostgreSQL ledger; ``sweep_status`` says where each experiment stands and
records, once, the failure of tasks Slurm ended before they could record it.
"""

from benchdoc.cluster.options import SLURM_KEYS, SlurmOptions, slurm_options
from benchdoc.cluster.shared import load_submission
from benchdoc.cluster.slurm import SlurmError, TaskState, task_states
from benchdoc.cluster.status import ExperimentState, SweepStatus, sweep_status
from benchdoc.cluster.submit import SLURM_DIR, Submission, refuse_sqlite, script_text, submit
from benchdoc.cluster.task import record_key, record_termination, task_tags, termination_reason

__all__ = [
    "SLURM_DIR",
    "SLURM_KEYS",
    "ExperimentState",
    "SlurmError",
    "SlurmOptions",
    "Submission",
    "SweepStatus",
    "TaskState",
    "load_submission",
    "record_key",
    "record_termination",
    "refuse_sqlite",
    "script_text",
    "slurm_options",
    "submit",
    "sweep_status",
    "task_states",
    "task_tags",
    "termination_reason",
]
