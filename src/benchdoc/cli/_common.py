"""Helpers shared by the command modules: loading the project, opening the ledger, output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.errors import BenchdocError, LedgerError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.workloads import WorkloadResult


def load_project(args: argparse.Namespace) -> Config:
    from benchdoc.config import load_config

    return load_config(getattr(args, "config", None))


def metric_name(config: Config, name: str) -> str:
    """A declared metric's name for a name or label; any other name as given, checked once measured."""
    from benchdoc.naming import SelectionError
    from benchdoc.selection import find_metric

    try:
        return find_metric(name, config.metrics).name
    except SelectionError:
        return name


def recording_experiment(config: Config, name: str, allow_new: bool) -> str:
    """The experiment a recording command records under: a declared name or alias (or a level
    of one, EXP@rate=4); an undeclared name only with ``allow_new``, else the fix, as a usage error."""
    try:
        return config.experiment(name).name
    except UsageError as err:
        if not allow_new:
            raise UsageError(
                f"{err.message} in {config.path.name}; declare it there ([experiments.{name}]), "
                "or pass --allow-new to record under a new name"
            ) from None
    from benchdoc.config import EXPERIMENT_NAME, EXPERIMENT_NAME_RULE

    if not EXPERIMENT_NAME.fullmatch(name):
        raise UsageError(f"'{name}' cannot be an experiment name: {EXPERIMENT_NAME_RULE}")
    return name


def open_ledger(config: Config, *, create: bool = True, write: bool = False) -> Ledger:
    """The project's ledger; read-only unless ``write`` (so that reading commands work on a
    read-only folder and never create or migrate anything). A ledger in memory is refused
    for writing: it would keep nothing."""
    from benchdoc.ledger.store import Ledger

    if write:
        from benchdoc.recording import refuse_in_memory

        refuse_in_memory(config.ledger_url)
    ledger = Ledger.open(config.ledger_url, create=create, read_only=not write)
    replay_spool(config, ledger if write else None)
    if write:
        from benchdoc.ledger.spool import SPOOL_DIR, RetryPolicy

        ledger.retry = RetryPolicy(budget_s=retry_budget_s())
        ledger.spool = config.root / SPOOL_DIR
    return ledger


RETRY_ENV = "BENCHDOC_LEDGER_RETRY_S"


def retry_budget_s() -> float:
    """How long a command that measured waits for an unreachable ledger before keeping the
    run in the spool: BENCHDOC_LEDGER_RETRY_S seconds, 60 by default."""
    text = os.environ.get(RETRY_ENV, "60")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise UsageError(f"{RETRY_ENV}={text!r}: expected seconds between 0 and 86400")
    return value


def replay_spool(config: Config, ledger: Ledger | None) -> None:
    """Record the runs kept in the project's spool while the ledger was unreachable, once,
    and say so on stderr; nothing when the spool is empty. ``ledger``: one opened for
    writing, else one is opened for the replay."""
    from benchdoc.ledger.spool import SPOOL_DIR, pending, replay
    from benchdoc.ledger.store import Ledger

    folder = config.root / SPOOL_DIR
    if not pending(folder):
        return

    try:
        writer = ledger or Ledger.open(config.ledger_url)
    except LedgerError as err:
        print(f"benchdoc: {len(pending(folder))} run(s) still kept in {SPOOL_DIR}/: {err}", file=sys.stderr)
        return
    try:
        done = replay(writer, folder)
    finally:
        if writer is not ledger:
            writer.close()
    for experiment, run_id in done.recorded:
        print(f"benchdoc: recorded run {run_id} of {experiment}, kept in {SPOOL_DIR}/ while the ledger was unreachable",
              file=sys.stderr)
    if done.kept:
        print(f"benchdoc: {len(done.kept)} run(s) still kept in {SPOOL_DIR}/ (the ledger cannot take them yet)",
              file=sys.stderr)


# Width for output that is not a terminal: wide enough that no table is ever cut or
# squeezed (a name or a path is never truncated in a pipe or a file), yet bounded.
PIPE_WIDTH = 10_000


def console(stderr: bool = False) -> Console:
    """A rich console; plain text when not a terminal or when NO_COLOR is set.

    At a terminal tables fit its width. Piped or redirected, they are drawn at their
    natural width: rich's default of 80 columns would cut names and paths with an ellipsis.

    Markup and emoji codes are off: every string printed or put in a table is shown as
    it is, so a reason like ``cannot open [/dev/nvidia0]`` or a note holding ``[bold]``
    can neither crash the output nor restyle it. Style comes only from ``style=`` and
    :class:`rich.text.Text` (see :func:`styled`).
    """
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    at_terminal = stream.isatty() or "COLUMNS" in os.environ
    return Console(stderr=stderr, highlight=False, markup=False, emoji=False, no_color="NO_COLOR" in os.environ,
                   soft_wrap=False, width=None if at_terminal else PIPE_WIDTH)


def progress_bars(out: Console, *lead: Any) -> Any:
    """A transient rich progress display: the caller's leading columns, then the bar, done of
    total, the time elapsed and the estimate of the time left, the same for every command."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(*lead, BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), console=out, transient=True)


def styled(*parts: str | tuple[str, str]) -> Any:
    """A rich Text from plain pieces and (text, style) pairs; no piece is read as markup."""
    from rich.text import Text

    return Text.assemble(*parts)


def write_output(target: Path, data: bytes) -> None:
    """Write a file the user named (-o): atomically, with one clear line for a missing
    folder, a folder given as the file, a device, FIFO or socket (never replaced), or a
    write the system refuses (full disk, quota)."""
    from benchdoc.textfile import NotRegularFileError, write_atomic

    if target.is_dir():
        raise UsageError(f"{target} is a folder: name the file to write in it")
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {target}: no such folder {target.parent}")
    try:
        write_atomic(target, data)
    except NotRegularFileError as err:
        raise UsageError(f"{err.strerror}; nothing was written") from None
    except OSError as err:
        raise BenchdocError(f"cannot write {target}: {err.strerror or err}; nothing was written") from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def warn(message: str) -> None:
    print(f"benchdoc: warning: {message}", file=sys.stderr)


def format_number(value: float | None, digits: int = 1) -> str:
    """Fixed-point text of a number; an em dash when there is none."""
    if value is None:
        return "—"
    return f"{float(value):.{digits}f}"


def format_when(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else "—"


def add_pooling_arguments(parser: argparse.ArgumentParser) -> None:
    """--all-runs / --runs N / --since DATE: which runs each result pools (default: [stats] pool)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--all-runs", action="store_true",
                       help="pool every successful run of each experiment (default: [stats] pool, else the latest run)")
    group.add_argument("--runs", type=int, metavar="N", help="pool the latest N successful runs of each experiment")
    group.add_argument("--since", metavar="DATE", help="pool every successful run since DATE (YYYY-MM-DD[THH:MM])")


def pooling_from_args(args: argparse.Namespace) -> Any:
    """The pooling the command line asks for, or None to keep the project's ([stats] pool)."""
    from benchdoc.pooling import Pooling, PoolingError, parse_moment

    if getattr(args, "all_runs", False):
        return Pooling("all")
    if getattr(args, "runs", None) is not None:
        if args.runs < 1:
            raise UsageError("--runs needs a positive number")
        return Pooling("runs", count=args.runs)
    if getattr(args, "since", None):
        try:
            return Pooling("since", since=parse_moment(args.since))
        except PoolingError:
            raise UsageError(f"--since {args.since!r}: expected a date like 2026-11-02 or 2026-11-02T14:30") from None
    return None


def format_summary(summary: Any, digits: int) -> str:
    """'96.1 ± 0.4%', or '40.0 [-2.5%, +50.0%]' when the interval's sides differ; the median alone
    when there is no interval (the words are :func:`benchdoc.results.words.summary_text`'s)."""
    from benchdoc.results.words import summary_text

    return "—" if summary is None else summary_text(summary, digits)


def unreliable_line(config: Any, requests: int, failed: int, cut_short: int) -> str | None:
    """'warning: unreliable: 95.0% of requests failed (...)' when too many requests failed
    ([stats] max_error_rate of the project, its default without one)."""
    from benchdoc.config.model import StatsConfig
    from benchdoc.results.reliability import counted
    from benchdoc.results.words import unreliable_note

    limit = config.stats.max_error_rate if config is not None else StatsConfig().max_error_rate
    trust = counted(requests, failed, cut_short, limit)
    if trust is None or not trust.unreliable:
        return None
    return f"warning: {unreliable_note(trust)}: the figures above come from the requests that succeeded"


def client_line(result: WorkloadResult, verbose: bool) -> str:
    """The client's verdict: a few words, or with ``verbose`` every figure behind it."""
    if result.client is None:
        return ""
    return result.client.sentence() if verbose else result.client.headline()
