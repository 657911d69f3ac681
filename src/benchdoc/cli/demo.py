"""`benchdoc demo`: the whole product, end to end, against the simulator, in about a minute."""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Literal

from benchdoc.cli._common import console, styled
from benchdoc.errors import RunError, UsageError

ORDER = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play an experiment log's story end to end against the simulator",
        description="Build a small experiment project in DIR (default: a new temporary folder) and play the "
        "story of an experiment log against benchdoc's simulator: runs on an old and a new stack, a "
        "configuration that runs out of memory, one left untested, the comparison with its significance, "
        "the diff sync applies to the log, and the check that finds the prose still quoting old numbers. "
        "Every number it shows comes from the simulator, not from hardware.",
    )
    parser.add_argument("dir", nargs="?", help="folder for the demo project (default: a new temporary folder)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.demo import write_narrative, write_project

    out = console()
    started = time.perf_counter()
    if args.dir and Path(args.dir).exists() and not Path(args.dir).is_dir():
        raise UsageError(f"{args.dir} is a file: give a folder for the demo project (it is created if missing)")
    folder = Path(args.dir).resolve() if args.dir else Path(tempfile.mkdtemp(prefix="benchdoc-demo-"))
    try:
        project = write_project(folder)
    except OSError as err:
        raise UsageError(f"cannot make the demo project in {args.dir or folder}: {err.strerror or err}") from None
    previous = Path.cwd()
    os.chdir(folder)  # so every path the commands print is short and relative
    try:
        rule(out, styled(("benchdoc demo", "bold")), align="center")
        out.print(styled(
            "An engineer tunes an LLM server and keeps an experiment log. This demo plays her story against ",
            ("benchdoc's simulator", "bold"),
            ": every number below is simulated, not measured on hardware.\n",
        ))
        out.print(f"Project: {folder}\n  benchdoc.toml        metrics, a simulated server, a workload, six experiments\n"
                  "  eagle-fast-verify.md the experiment log, with managed regions\n")

        step(out, 1, "The old stack (CUDA 12.8): run the baseline and EAGLE-3 speculative decoding")
        benchdoc(out, "run", "baseline-cuda12", "eagle3", "--repetitions", "5", "--interleave")
        benchdoc(out, "sync", "--write", "--quiet")
        base, eagle = _values("baseline-cuda12", "eagle3")
        abstract = write_narrative(project, base, eagle)
        out.print(styled("\nShe writes her conclusion into the log by hand:\n  ", (abstract, "italic"), "\n"))

        step(out, 2, "The stack upgrade (CUDA 13 + fusion): the new baseline, EAGLE-3 again, "
             "and an NCCL setting that runs out of memory")
        benchdoc(out, "run", "baseline", "eagle3-cuda13", "nccl-fewer-channels", "--repetitions", "5", "--interleave")

        step(out, 3, "Is EAGLE-3 faster now, or is that noise?")
        benchdoc(out, "compare", "eagle3-cuda13")

        step(out, 4, "The log is now stale. `sync` shows the exact diff, then writes it")
        benchdoc(out, "sync", "--check", expect=(1,))
        benchdoc(out, "sync", "--write", "--quiet")

        step(out, 5, "CI runs `benchdoc check`: the tables are fresh, but the prose still tells the old story")
        code = benchdoc(out, "check", expect=(0, 1))
        if code == 1:
            out.print(styled("\n", ("That failure is the point:", "bold"), " the abstract and conclusion still quote the old "
                             "numbers. Rewrite them (or bind each number with a value marker) and `benchdoc check` passes."))

        elapsed = time.perf_counter() - started
        rule(out, styled(f"done in {elapsed:.0f} s"), align="center")
        out.print(
            f"The experiment log:  {project.log}\n"
            f"The ledger:          {folder / '.benchdoc' / 'ledger.db'}\n"
            f"Server logs:         {folder / '.benchdoc' / 'logs'}\n\n"
            f"Try next (cd {folder}):\n"
            "  benchdoc show                      every experiment's status and comparison\n"
            "  benchdoc history eagle3-cuda13     every run, with its environment\n"
            "  benchdoc run eagle3-cuda13 --until-decided   repeat until the verdict is decided\n"
            "  benchdoc report -o report.html     a self-contained HTML report\n"
            "  benchdoc sim --help                the simulator behind all of this\n"
            "Numbers above come from the simulator, not from real hardware."
        )
    finally:
        os.chdir(previous)
    return 0


def step(out, number: int, title: str) -> None:  # type: ignore[no-untyped-def]
    out.print()
    rule(out, styled((f"{number}. {title}", "bold")), align="left")


def rule(out, title, *, align: Literal["left", "center", "right"]) -> None:  # type: ignore[no-untyped-def]
    """A heading rule as wide as a terminal, or 80 columns when piped (the console is unbounded there)."""
    from rich.rule import Rule

    out.print(Rule(title, align=align), width=min(out.width, 80) if not out.is_terminal else None)


def benchdoc(out, *argv: str, expect: tuple[int, ...] = (0,)) -> int:  # type: ignore[no-untyped-def]
    """Run one benchdoc command as the user would type it, showing it first."""
    from benchdoc.cli import main

    out.print(styled("\n", (f"$ benchdoc {' '.join(argv)}", "bold cyan")))
    code = main(list(argv))
    if code not in expect:
        raise RunError(f"the demo's `benchdoc {' '.join(argv)}` exited {code}; see the output above")
    return code


def _values(*names: str) -> list[float]:
    from benchdoc.config import load_config
    from benchdoc.ledger.store import Ledger
    from benchdoc.results import build_results

    config = load_config()
    with Ledger.open(config.ledger_url) as ledger:
        results = build_results(config, ledger, metrics=["output_tok_s"])
    values = []
    for name in names:
        value = results[name].value("output_tok_s")
        if value is None:
            raise RunError(f"the demo's {name} run has no result; see its log under .benchdoc/logs/")
        values.append(value)
    return values
