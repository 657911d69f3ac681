"""`benchdoc run`: launch each experiment's server, measure, tear down, record."""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.cli._common import console, format_summary, load_project, open_ledger
from benchdoc.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UsageError
from benchdoc.limits import whole_number
from benchdoc.outcome import Outcome

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger import RunMetadata
    from benchdoc.ledger.metadata import ServerMetrics
    from benchdoc.runner import PlannedRun, RunEvent, RunReport

ORDER = 25

DESCRIPTION = """\
Run experiments end to end. For each one: start its server (argv from [servers.NAME],
in its own process group, output kept in .benchdoc/logs/), wait until its readiness URL
answers 200, warm up, run the workload N times, stop the whole process group (SIGTERM,
then SIGKILL after the grace period) and record one run with every repetition, the
environment, the exact command and environment (secrets redacted) and the log's path.

A configuration that fails (never ready, crashes, out of memory...) is recorded as failed
with a reason read from its log: a failure is a result. Ctrl-C stops every server and
records nothing for the experiment it interrupted (a half-finished run would replace its
result); the message names it and the repetitions of it that had finished and were dropped.
"""

EPILOG = """\
examples:
  benchdoc run                          every experiment that has a server
  benchdoc run baseline 'eagle3-*'      these, in config order
  benchdoc run eagle3 --until-decided   add server starts until the comparison is decided
  benchdoc run --interleave a b         A B A B ...: drift hits both alike
  benchdoc run a b --starts 6 -n 3      6 server starts of 3 repetitions each (verdicts compare starts)
  benchdoc run a b --starts 6 --interleave   A B A B ... start by start
  benchdoc run base a --until-decided --starts 3 -n 2   rounds of one start each (2 repetitions) after 3
  benchdoc run baseline                 a workload with rate = [1, 2, 4]: every level, one server start
  benchdoc run --dry-run                print what would run (and what each sweep expanded into)
  benchdoc run 'eagle3-s*' --missing    only those without a successful run of their current config
  benchdoc run --command 'llama-server -m m.gguf --port {port} -b {b}' --scan b=256,512 --name llama
                                        a server from the command line alone, once per value of b

exit codes:
  0    everything ran and was recorded (failed configurations included)
  1    a setup or harness error: a run was recorded as "error" (a server program
       not found or not executable, a command line it refused...), or could not be recorded
  2    usage error
  130  interrupted (after every server was stopped)
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "run",
        help="launch servers, run workloads, record results (failures with their reasons)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT|GLOB",
                        help="experiments to run (default: every experiment with a server)")
    parser.add_argument("--repetitions", "-n", type=whole_number, metavar="N",
                        help="repetitions per server start (default: each experiment's own, else 5); without "
                        "--starts one start runs them all, or with --interleave or --until-decided each is a start of its own")
    parser.add_argument("--starts", type=whole_number, metavar="S",
                        help="server starts per experiment, each running -n repetitions (comparisons are made "
                        "between starts: several a side are needed for a verdict)")
    parser.add_argument("--until-decided", action="store_true",
                        help="add server starts (of -n repetitions with --starts, else of one) until the comparison "
                        "against compare_to is significant or equivalent at the level its family correction leaves "
                        "it; a compare_to selected too runs alongside, one start each a round (docs/running.md)")
    parser.add_argument("--max-starts", "--max-repetitions", type=whole_number, metavar="S", dest="max_starts",
                        help="with --until-decided: the most server starts per experiment (default 20)")
    parser.add_argument("--interleave", action="store_true",
                        help="alternate experiments start by start (with --starts), else repetition by repetition, "
                        "restarting each server every time")
    parser.add_argument("--wait-for-port", type=float, default=0.0, metavar="S",
                        help="a server's fixed port held by another process: wait up to S seconds for it to be "
                        "free (saying so) instead of recording a setup error at once (default 0)")
    parser.add_argument("--missing", action="store_true",
                        help="only the selected experiments without a successful run of their current configuration "
                        "(resume a half-failed sweep; rerun what benchdoc.toml changed)")
    parser.add_argument("--dry-run", action="store_true", help="print exactly what would run, and run nothing")
    # Set by the job script of `benchdoc submit --slurm`: tag runs with the task, record Slurm's end.
    parser.add_argument("--slurm-task", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress, only the final summary (for CI)")
    from benchdoc.cli._adhoc import add_arguments

    add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.runner import RunOptions, plan_runs, run_experiments, select_experiments

    config = load_project(args)
    if args.command is not None:
        from benchdoc.cli._adhoc import adhoc_config

        config, names = adhoc_config(config, args)
    else:
        _refuse_command_options(args)
        names = select_experiments(config, args.experiments)
    if args.missing:
        names = missing_only(config, names)
        if not names:
            print("nothing to run: every selected experiment has a successful run of its current configuration")
            return EXIT_OK
    options = RunOptions(
        repetitions=args.repetitions,
        starts=args.starts,
        until_decided=args.until_decided,
        max_starts=args.max_starts,
        interleave=args.interleave,
        tags=_slurm_tags() if args.slurm_task else None,
        port_wait_s=args.wait_for_port,
    )
    if args.dry_run:
        print_plan(plan_runs(config, names, options), config)
        return EXIT_OK
    _stop_survivors(config.root)
    display = _Display(quiet=args.quiet, root=config.root)
    started = datetime.now(timezone.utc)
    if options.tags and (beyond := _beyond_retries(options.tags)):  # submit --retries N: Slurm requeued it more
        with open_ledger(config, write=True) as ledger:
            _record_slurm_end(config, ledger, names, options.tags, started, beyond)
        return EXIT_FAILED
    from benchdoc.recording import prove_writable

    with open_ledger(config, write=True) as ledger:
        prove_writable(ledger)  # before any server starts: a measurement must not be thrown away
        try:
            with _signals_interrupt(), display:
                report = run_experiments(config, ledger, names, options, on_event=display.handle)
            if options.tags:  # a requeued task: this attempt's run counts, earlier ones become history
                _retire_earlier(ledger, report, options.tags)
        except KeyboardInterrupt:
            display.interrupted()
            if options.tags:  # Slurm is ending this task: its servers are stopped; say why it failed
                _record_slurm_end(config, ledger, [n for n in names if n not in display.finished], options.tags, started)
            return EXIT_INTERRUPTED
        print_summary(config, ledger, report)
    return EXIT_FAILED if report.errors else EXIT_OK


def _refuse_command_options(args: argparse.Namespace) -> None:
    given = [flag for flag, value in (("--scan", args.scan), ("--name", args.name), ("--ready-url", args.ready_url),
                                      ("--workload", args.workload)) if value]
    if given:
        raise UsageError(f"{given[0]} goes with --command (a server from the command line)")


def _stop_survivors(root: Path) -> None:
    """Stop, and say so, any server an earlier benchdoc run left running."""
    from benchdoc.runner.survivors import ServerRecords

    for survivor in ServerRecords.of_project(root).stop_survivors():
        print(f"benchdoc: {survivor.describe()}", file=sys.stderr)


def _slurm_tags() -> dict[str, Any]:
    from benchdoc.cluster.task import attempt_line, task_tags

    tags = task_tags(os.environ)
    if not tags:
        raise UsageError("--slurm-task is for the tasks of a job array (SLURM_ARRAY_JOB_ID is not set)")
    print(attempt_line(tags), file=sys.stderr, flush=True)  # to the task's log, which every attempt appends to
    return tags


def _retire_earlier(ledger: Any, report: Any, tags: Mapping[str, Any]) -> None:
    from benchdoc.cluster.task import retire_earlier_attempts

    for outcome in report.outcomes:
        if outcome.run_id is not None:
            retire_earlier_attempts(ledger, outcome.experiment, tags["record_id"], outcome.run_id)


def _beyond_retries(tags: Mapping[str, Any]) -> str | None:
    from benchdoc.cluster.task import beyond_retries

    log = os.environ.get("BENCHDOC_TASK_LOG")
    return beyond_retries(tags, os.environ, Path(log) if log else None)


def _record_slurm_end(config: Config, ledger: Any, names: list[str], tags: Mapping[str, Any], started: datetime,
                      reason: str | None = None) -> None:
    """The failed run of an array task Slurm ended (time limit, scancel, preemption), once."""
    from benchdoc.cluster import record_termination, termination_reason
    from benchdoc.cluster.slurm import time_limit
    from benchdoc.cluster.task import attempt_line

    log = os.environ.get("BENCHDOC_TASK_LOG")
    slurm = tags.get("slurm") or {}
    job_id = f"{slurm['job']}_{slurm['task']}" if slurm.get("job") else ""  # this task, not the whole array
    reason = reason or termination_reason(Path(log) if log else None, time_limit(job_id) if job_id else None,
                                          after=attempt_line(tags))
    for name in names:
        run_id = record_termination(config, ledger, name, reason, tags, started)
        if run_id is not None:
            print(f"benchdoc: {name}: recorded as failed: {reason} (run {run_id})", file=sys.stderr)


def missing_only(config: Config, names: list[str]) -> list[str]:
    """``names`` less those with a successful run of their current configuration."""
    from benchdoc.planning.fingerprint import missing_in_ledger

    with open_ledger(config) as ledger:
        return missing_in_ledger(config, names, ledger)


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP (a CI job cancelled, a terminal closed) tear down like Ctrl-C:
    the servers run in their own sessions and would otherwise outlive us."""

    def interrupt(signum: int, frame: Any) -> None:
        handler = signal.getsignal(signal.SIGINT)  # as Ctrl-C: a running workload's loop cancels it, no raise mid-read
        if not callable(handler):
            raise KeyboardInterrupt(f"signal {signum}")
        handler(signal.SIGINT, frame)

    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[signum] = signal.signal(signum, interrupt)
        except (ValueError, OSError):  # not the main thread: leave it
            pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# -- dry run -------------------------------------------------------------------------------


def print_plan(planned: Sequence[PlannedRun], config: Config) -> None:
    """What would run, one block per experiment (plain text: argv may hold brackets),
    after a line per sweep saying what it expanded into."""
    # A level of a load sweep (EXP@rate=4) belongs to whichever [sweeps] table made EXP.
    print_sweeps(list(dict.fromkeys((item.workload.get("level") or {}).get("of") or item.experiment for item in planned)),
                 config)
    for item in planned:
        reps = f"{item.starts} server starts x {item.repetitions} repetitions" if item.starts > 1 else f"{item.repetitions} repetitions"
        if item.max_starts is not None:
            reps += f", up to {item.max_starts} server starts until decided"
        print(f"{item.experiment}  (server {item.server}, {reps}{', interleaved' if item.interleave else ''})")
        print(f"  argv:     {shlex.join(item.argv)}")
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in item.env.items())
        print(f"  env:      {env or '(inherited, nothing added)'}")
        print(f"  cwd:      {item.cwd}")
        port = str(item.port) if item.port is not None else "a free port on 127.0.0.1, picked at start ({port})"
        print(f"  port:     {port}")
        print(f"  ready:    GET {item.ready_url} until it answers 200, at most {item.ready_timeout_s:g} s")
        print(f"  stop:     SIGTERM to the process group, SIGKILL after {item.shutdown_grace_s:g} s")
        for line in _workload_lines(item.workload):
            print(f"  {line}")
        print(f"  logs:     {_relative(item.log_dir, config)}/")
    print(f"dry run: nothing was started ({len(planned)} experiment{'s' if len(planned) != 1 else ''})")


def print_sweeps(names: Sequence[str], config: Config) -> None:
    """'sweep NAME: 7 experiments: steps x topk = 4 x 2, 1 excluded, from base eagle3' and
    the names selected from it."""
    for sweep in config.sweeps.values():
        chosen = [name for name in names if name in sweep.members]
        if not chosen:
            continue
        selected = "" if len(chosen) == len(sweep.members) else f" ({len(chosen)} selected)"
        print(f"sweep {sweep.name}: {sweep.describe()}{selected}")
        for name in chosen:
            print(f"  {name}  [{config.experiments[name].label}]")


def _workload_lines(workload: dict[str, Any]) -> list[str]:
    if workload["kind"] == "loadgen":
        s = workload["settings"]
        load = f"open loop at {s['rate']:g} req/s" if s.get("rate") is not None else f"concurrency {s['concurrency'] or 1}"
        if workload.get("capacity"):
            search = workload["capacity"]
            load = (f"capacity search from {search['start_rate']:g} req/s, SLO attainment >= {search['target']:g}, "
                    f"within {search['precision']:.0%}, at most {search['time_budget_s']:g} s; each level")
        size = f"{s['requests']} requests" if s.get("requests") is not None else (
            f"{s['duration_s']:g} s" if s.get("duration_s") is not None else "100 requests"
        )
        lengths = f"{s['input_tokens']} in / {s['output_tokens']} out tokens"
        lines = [
            f"workload: {workload['name']} (load generator): {s['api']} at {s['endpoint']}",
            f"          {load}, {size}, {lengths}, warm-up {s['warmup_requests']} requests per server start, "
            f"seed {s['seed']} + repetition",
        ]
        if workload.get("level"):
            lines.append(f"          one level of {workload['level']['of']}'s load sweep: its levels share one "
                         "server start (warm-up before the first)")
        return lines
    results = workload["results"]
    if results["kind"] == "format":
        how = f"importer '{results['format']}'"
    else:
        how = f"{results['kind']}: " + ", ".join(f"{m} = {p!r}" for m, p in results["fields"].items())
    lines = [
        f"workload: {workload['name']} (command): {shlex.join(workload['argv'])}",
        f"          results read from {results['from']} by {how}; timeout {workload['timeout_s']:g} s",
    ]
    if workload.get("env"):
        lines.append("          env: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in workload["env"].items()))
    if workload.get("warmup"):
        lines.append(f"          warm-up: {workload['warmup']} run(s) per server start, results discarded")
    return lines


def _relative(path: Path, config: Config) -> str:
    try:
        return str(path.relative_to(config.root))
    except ValueError:
        return str(path)


# -- progress ---------------------------------------------------------------------------------


class _Display:
    """Progress for people: rich bars on a terminal, one line per step otherwise (CI
    logs), nothing with --quiet. Everything goes to stderr; the summary goes to stdout."""

    def __init__(self, quiet: bool, root: Path) -> None:
        self.quiet = quiet
        self.root = root
        self.err = console(stderr=True)
        self.bars: Any = None
        self.tasks: dict[str, Any] = {}
        self.finished: list[str] = []
        self.current: set[str] = set()
        self.repetitions_done: dict[str, tuple[int, int]] = {}  # experiment -> (finished, planned)
        self.started: dict[str, float] = {}  # experiment -> when its first repetition began

    def _eta(self, name: str, event: Any) -> str:
        """`, about N s left` from the pace of this experiment's repetitions so far."""
        now = time.monotonic()
        first = self.started.setdefault(name, now)
        if event.repetition == 0:
            return ""
        left = (now - first) / event.repetition * (event.planned - event.repetition)
        return f", about {left:.0f} s left"

    def __enter__(self) -> _Display:
        if not self.quiet and self.err.is_terminal:
            from rich.progress import SpinnerColumn, TextColumn

            from benchdoc.cli._common import progress_bars

            self.bars = progress_bars(self.err, SpinnerColumn(), TextColumn("{task.description}", markup=False))
            self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars is not None:
            self.bars.stop()
            self.bars = None

    def say(self, text: str) -> None:
        if self.quiet:
            return
        if self.bars is not None:
            self.bars.console.print(text, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def handle(self, event: RunEvent) -> None:
        from benchdoc.runner import events as ev

        name = getattr(event, "experiment", "")
        if isinstance(event, ev.ExperimentStarted):
            self.current.add(name)
            self.repetitions_done[name] = (0, event.repetitions)
            self.say(f"[{event.index + 1}/{event.total}] {name}: up to {event.repetitions} repetitions")
            self._bar("experiments", "experiments", event.total, completed=len(self.finished))
        elif isinstance(event, ev.ServerStarting):
            self.say(f"{name}: starting server on port {event.port} (log {self._path(event.log_path)})")
            self._bar("server", f"{name}: starting server", None)
        elif isinstance(event, ev.WaitingForServer):
            self._bar("server", f"{name}: waiting for the server ({event.seconds:.0f}/{event.timeout_s:g} s)", None)
        elif isinstance(event, ev.ServerReady):
            self.say(f"{name}: server ready in {event.seconds:.1f} s")
            self._remove("server")
        elif isinstance(event, ev.RepetitionStarted):
            self.say(f"{name}: repetition {event.repetition + 1}/{event.planned}{self._eta(name, event)}")
            self._bar("repetitions", f"{name}: repetitions", event.planned, completed=event.repetition)
            self._bar("requests", f"{name}: requests", event.requests, completed=0)
        elif isinstance(event, ev.RequestsProgress):
            self._bar("requests", f"{name}: requests", event.total, completed=event.completed)
        elif isinstance(event, ev.RepetitionFinished):
            finished, planned = self.repetitions_done.get(name, (0, 0))
            self.repetitions_done[name] = (finished + 1, planned)
            self._bar("repetitions", f"{name}: repetitions", None, completed=event.repetition + 1)
        elif isinstance(event, ev.LookTaken):
            look = event.look
            state = f"decided ({look.decision})" if look.decision else "not decided yet"
            self.say(
                f"{name}: after {look.starts} server starts: {look.delta_pct:+.1f}%, p={look.p_value:.3g} "
                f"(decides at <= {event.plan.alpha_per_look:.3g}): {state}"
            )
        elif isinstance(event, ev.Notice):
            self.say(f"{name}: {event.message}")
        elif isinstance(event, ev.ExperimentFinished):
            result = event.result
            self.current.discard(name)
            self.finished.append(name)
            if result.outcome == Outcome.OK:
                self.say(f"{name}: done, {result.repetitions} repetitions recorded as run {result.run_id}")
            else:
                label = "FAILED" if result.outcome == Outcome.FAILED else "ERROR"
                log = self._path(result.log_path) if result.log_path else "none"
                self.say(f"{name}: {label}: {result.explanation} (run {result.run_id}, log {log})")
            self._bar("experiments", "experiments", None, completed=len(self.finished))
            for key in ("server", "repetitions", "requests"):
                self._remove(key)

    def _path(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def _bar(self, key: str, description: str, total: int | None, completed: int | None = None) -> None:
        if self.bars is None:
            return
        if key not in self.tasks:
            self.tasks[key] = self.bars.add_task(description, total=total)
        updates: dict[str, Any] = {"description": description}
        if total is not None:
            updates["total"] = total
        if completed is not None:
            updates["completed"] = completed
        self.bars.update(self.tasks[key], **updates)

    def _remove(self, key: str) -> None:
        if self.bars is not None and key in self.tasks:
            self.bars.remove_task(self.tasks.pop(key))

    def interrupted(self) -> None:
        lost = ", ".join(self._dropped(name) for name in sorted(self.current)) or "nothing"
        done = f"; recorded before the interrupt: {', '.join(self.finished)}" if self.finished else ""
        print(f"benchdoc: interrupted: every server was stopped; not recorded: {lost}{done}", file=sys.stderr)


    def _dropped(self, name: str) -> str:
        """'baseline (its 2 finished repetitions of 5 dropped)': exactly what an interrupt loses."""
        finished, planned = self.repetitions_done.get(name, (0, 0))
        if not finished:
            return f"{name} (no repetition had finished)"
        return f"{name} (its {finished} finished repetition{'s' if finished != 1 else ''} of {planned} dropped)"


# -- summary ------------------------------------------------------------------------------------


def print_summary(config: Config, ledger: Any, report: RunReport) -> None:
    """Each experiment run: its status and comparison (from benchdoc.results), its run and log."""
    from rich.table import Table
    from rich.text import Text

    from benchdoc.cli._showtable import vs_text
    from benchdoc.machineload import busy_note
    from benchdoc.results import build_results

    primary = config.primary_metric
    # Only the primary metric is summarised: comparing every recorded metric (error_rate is
    # often 0 on both sides) is neither needed here nor always defined.
    results = build_results(config, ledger, metrics=[primary] if primary else [])
    out = console()
    table = Table(title_justify="left", title=f"benchdoc run: {len(report.outcomes)} experiment(s)")
    table.add_column("experiment")
    table.add_column("status")
    table.add_column("reps", justify="right")
    if primary:
        spec = config.metric_or_default(primary)
        table.add_column(spec.label + (f" [{spec.unit}]" if spec.unit and spec.unit != spec.label else ""), justify="right")
    table.add_column("vs compare_to")
    table.add_column("run", justify="right")
    table.add_column("log")
    for outcome in report.outcomes:
        result = results.experiments.get(outcome.experiment)
        # A setup or harness error is not the experiment's result: its status stays what it was.
        status = str(result.status) if result and outcome.outcome != Outcome.ERROR else outcome.outcome
        if outcome.outcome != Outcome.OK:
            status = f"{status}: {outcome.explanation}"
        if outcome.decision:
            status += f" (decided: {outcome.decision})"
        cells = [outcome.experiment, status, str(outcome.repetitions)]
        vs = "—"
        if result is not None and primary:
            spec = config.metric_or_default(primary)
            cells.append(format_summary(result.summaries.get(primary), spec.digits) if outcome.outcome == Outcome.OK else "—")
            comparison = result.comparisons.get(primary)
            if comparison is not None and outcome.outcome == Outcome.OK:
                vs = vs_text(comparison, spec, result.compare_to or "")
            elif result.compare_to and outcome.outcome == Outcome.OK:
                vs = f"vs {result.compare_to}: no result yet"
        elif primary:
            cells.append("—")
        log = _relative(outcome.log_path, config) if outcome.log_path else "—"
        cells.extend([vs, str(outcome.run_id) if outcome.run_id is not None else "—", log])
        table.add_row(*(Text(cell) for cell in cells))  # plain text: reasons and paths may hold brackets
    out.print(table)
    busy: list[tuple[str, str]] = []
    for outcome in report.outcomes:
        if outcome.failure_log_line:
            print(f"{outcome.experiment}: log line: {outcome.failure_log_line}")
        if outcome.run_id is not None:
            run = ledger.run(outcome.run_id)
            for line in [*_unreliable(run, config), *_run_notes(run.metadata, run.environment)]:
                print(f"{outcome.experiment}: {line}")
            note = busy_note(run.environment.get("load"))
            busy.extend([(outcome.experiment, note)] if note else [])
    _print_busy(busy)


def _print_busy(busy: list[tuple[str, str]]) -> None:
    """A busy machine that starved no repetition, said once for the whole command."""
    if len(busy) == 1:
        print(f"{busy[0][0]}: {busy[0][1]}")
    elif busy:
        names = ", ".join(name for name, _ in busy)
        print(f"the machine was busy while {len(busy)} experiments ran ({names}); no repetition's server or load "
              "generator was starved of CPU, so none is singled out (each run keeps its figures: history --json)")


def _unreliable(run: Any, config: Config) -> list[str]:
    """'warning: unreliable: ...' when more of the run's requests failed than [stats] max_error_rate."""
    from benchdoc.results.reliability import run_reliability
    from benchdoc.results.words import unreliable_note

    trust = run_reliability(run, config.stats.max_error_rate)
    return [f"warning: {unreliable_note(trust)}"] if trust is not None and trust.unreliable else []


def _run_notes(metadata: RunMetadata, environment: dict[str, Any]) -> list[str]:
    """What the summary table cannot hold: requests cut short, a busy machine."""
    from benchdoc.machineload import busy_warning

    notes = []
    cut = sum(r.cut_short_requests or 0 for r in metadata.per_repetition)
    if cut:
        requests = sum(r.requests or 0 for r in metadata.per_repetition)
        notes.append(
            f"{cut} of {requests} requests were cut short (the stream ended before the request was complete); "
            "they count as failed, outside every latency and throughput figure"
        )
    warning = busy_warning(environment.get("load"))
    if warning:
        notes.append(f"warning: {warning}")
    server = server_metrics_line(metadata.server_metrics)
    if server:
        notes.append(server)
    capacity = metadata.capacity
    for search in (capacity.searches or (capacity,)) if capacity is not None else ():
        if search.sentence:
            notes.append(search.sentence)
    return notes


def server_metrics_line(kept: ServerMetrics | None) -> str | None:
    """The server's own figures over a run's repetitions, in one line: each series' mean
    (over the repetitions' means) and maximum."""
    from benchdoc.workloads.server_metrics import LABELS, SERIES

    repetitions = kept.repetitions if kept is not None else ()
    parts = []
    for name in SERIES:
        figures = [r.summary[name] for r in repetitions if name in r.summary]
        if figures:
            mean = sum(f["mean"] for f in figures) / len(figures)
            peak = max(f["max"] for f in figures)
            digits = 1 if name in ("running", "waiting") else 3
            parts.append(f"{LABELS[name]} mean {mean:.{digits}f}, max {peak:.{digits}f}")
    if not parts:
        return None
    dialect = repetitions[0].dialect or ""
    return f"server ({dialect} /metrics, every second): " + "; ".join(parts)
