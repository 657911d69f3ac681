"""`run` for the MCP server: the runner in a child process, its progress as JSON lines, Ctrl-C to stop it.

The server starts ``python -m benchdoc.mcp.runjob`` (an argv, no shell) and reads one JSON object
a line from it: ``{"progress", "total", "message"}`` while it works, then ``{"result": [...]}``
(each experiment's outcome) or ``{"error": "..."}``. Cancelling the tool call sends the child
SIGINT, exactly what Ctrl-C sends `benchdoc run`: the runner stops every server it started
(SIGTERM to the process group, SIGKILL after the grace period), records nothing for the
experiment it interrupted, and the child exits; the server waits for that before it answers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchdoc.runner import RunEvent


class Progress:
    """Turns the runner's events into progress: repetitions done of those planned, and a sentence."""

    def __init__(self, write: Any) -> None:
        self.write = write
        self.done = 0.0
        self.total = 0.0
        self.finished: dict[str, int] = {}

    def __call__(self, event: RunEvent) -> None:
        from benchdoc.runner import events as ev

        message: str | None = None
        if isinstance(event, ev.ExperimentStarted):
            if not self.total:
                self.total = float(event.total * event.repetitions)
            message = f"{event.experiment}: starting ({event.index + 1} of {event.total}), {event.repetitions} repetitions"
        elif isinstance(event, ev.ServerReady):
            message = f"{event.experiment}: server ready in {event.seconds:.1f} s (pid {event.pid})"
        elif isinstance(event, ev.RepetitionStarted):
            message = f"{event.experiment}: repetition {event.repetition + 1} of {event.planned}"
        elif isinstance(event, ev.RequestsProgress) and event.total:
            done = self.done + min(event.completed / event.total, 1.0)
            self.write({"progress": done, "total": self.total or None,
                        "message": f"{event.experiment}: repetition {event.repetition + 1}: {event.completed} of {event.total} requests"})
            return
        elif isinstance(event, ev.RepetitionFinished):
            self.done += 1
            message = f"{event.experiment}: repetition {event.repetition + 1} done"
        elif isinstance(event, ev.ExperimentFinished):
            message = f"{event.experiment}: {event.result.outcome}" + (
                f" ({event.result.explanation})" if event.result.explanation else "")
        elif isinstance(event, ev.Notice):
            message = f"{event.experiment}: {event.message}"
        if message is not None:
            self.write({"progress": self.done, "total": self.total or None, "message": message})


def outcome_json(outcome: Any) -> dict[str, Any]:
    data = asdict(outcome)
    data["log_path"] = str(outcome.log_path) if outcome.log_path else None
    data["explanation"] = outcome.explanation
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchdoc.mcp.runjob")
    parser.add_argument("--config", required=True)
    parser.add_argument("--repetitions", type=int)
    parser.add_argument("experiments", nargs="*")
    args = parser.parse_args(argv)
    wire = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr, never into the JSON lines

    def write(item: dict[str, Any]) -> None:
        from benchdoc.redact import redact_obj

        wire.write(json.dumps(redact_obj(item), default=str) + "\n")

    from benchdoc.errors import EXIT_INTERRUPTED, BenchdocError

    try:
        write({"result": _run(args, Progress(write))})
    except BenchdocError as err:
        write({"error": f"benchdoc: error: {err}"})
        return err.exit_code
    except KeyboardInterrupt:
        write({"error": "benchdoc: interrupted"})
        return EXIT_INTERRUPTED
    return 0


def _run(args: argparse.Namespace, progress: Progress) -> list[dict[str, Any]]:
    from benchdoc.config import load_config
    from benchdoc.ledger.store import Ledger
    from benchdoc.runner import RunOptions, run_experiments, select_experiments
    from benchdoc.runner.survivors import ServerRecords

    config = load_config(args.config)
    names = select_experiments(config, args.experiments)
    options = RunOptions(repetitions=args.repetitions)
    options.check()
    for survivor in ServerRecords.of_project(config.root).stop_survivors():
        progress.write({"progress": 0, "total": None, "message": survivor.describe()})
    with Ledger.open(config.ledger_url, create=True, read_only=False) as ledger:
        report = run_experiments(config, ledger, names, options, on_event=progress)
    return [outcome_json(o) for o in report.outcomes]


if __name__ == "__main__":
    sys.exit(main())
