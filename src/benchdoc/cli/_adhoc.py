"""`benchdoc run --command 'CMD {port}'`: a server benchmarked from the command line alone.

The command and its parameter scan (``--scan bs=8,16,32``, repeatable: every combination)
become ordinary ``[servers]``, ``[workloads]`` and ``[experiments]`` tables appended to the
project's benchdoc.toml text in memory and read by the one config reader, so each
combination is launched, measured, recorded and reported exactly as a declared experiment
is. benchdoc.toml itself is not changed; the runs keep their experiment names
(``NAME-bs8``), which every command then accepts.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError

if TYPE_CHECKING:
    from benchdoc.config import Config

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VALUE = re.compile(r"[A-Za-z0-9._-]+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("a server from the command line (no benchdoc.toml edit)")
    group.add_argument("--command", metavar="CMD",
                       help="the server's command line, with {port} (and {host}) where it listens and {KEY} for "
                       "each --scan parameter, e.g. 'python -m sglang.launch_server --port {port} --max-running {bs}'")
    group.add_argument("--scan", action="append", default=[], metavar="KEY=V1,V2",
                       help="with --command: run the command once per value of KEY (repeatable: every combination), "
                       "each recorded as NAME-KEYVALUE and compared with the first")
    group.add_argument("--name", metavar="NAME",
                       help="with --command: the experiment name, NAME-KEYVALUE per combination (default: cmd)")
    group.add_argument("--ready-url", metavar="URL",
                       help="with --command: answered 200 when the server is ready (default: http://{host}:{port}/health)")
    group.add_argument("--workload", metavar="NAME",
                       help="with --command: a [workloads] table of benchdoc.toml (default: the load generator, "
                       "closed loop of 4, 64 requests of 128 in / 64 out tokens)")


def adhoc_config(config: Config, args: argparse.Namespace) -> tuple[Config, list[str]]:
    """``config`` with the command's server, workload and one experiment per combination; and
    the names of those experiments, in scan order."""
    from benchdoc.config import EXPERIMENT_NAME, EXPERIMENT_NAME_RULE, parse_config

    if args.experiments:
        raise UsageError("--command runs the command itself: name no experiment beside it")
    argv = shlex.split(args.command)
    if not argv or "{port}" not in args.command:
        raise UsageError("--command needs the server's command line with {port} where it listens, "
                         "e.g. --command 'llama-server -m model.gguf --port {port}'")
    scan = parse_scan(args.scan)
    missing = [key for key in scan if "{" + key + "}" not in args.command]
    if missing:
        raise UsageError(f"--scan {missing[0]}: the command has no {{{missing[0]}}} to put its values in")
    name = args.name or "cmd"
    if not EXPERIMENT_NAME.fullmatch(name):
        raise UsageError(f"--name '{name}' cannot be an experiment name: {EXPERIMENT_NAME_RULE}")
    tables = [f"[servers.{name}]", f"argv = {_array(argv)}"]
    if args.ready_url:
        tables.append(f"ready_url = {json.dumps(args.ready_url)}")
    workload = args.workload or name
    if args.workload is None:
        tables += ["", f"[workloads.{name}]", "concurrency = 4", "requests = 64", "input_tokens = 128",
                   "output_tokens = 64"]
    combos = [dict(zip(scan, values)) for values in itertools.product(*scan.values())] or [{}]
    names = [name + "".join(f"-{key}{value}" for key, value in combo.items()) for combo in combos]
    clash = [n for n in [name, *names] if n in config.experiments or n in config.servers]
    if clash or (args.workload is None and name in config.workloads):
        raise UsageError(f"--name {name}: benchdoc.toml already declares '{(clash or [name])[0]}'; choose another --name")
    for experiment, combo in zip(names, combos):
        label = name + "".join(f" {key}={value}" for key, value in combo.items())
        tables += ["", f"[experiments.{experiment}]", f"label = {json.dumps(label)}", f"server = {json.dumps(name)}",
                   f"workload = {json.dumps(workload)}"]
        if combo:
            tables.append("variables = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in combo.items()) + " }")
        if experiment != names[0]:
            tables.append(f"compare_to = {json.dumps(names[0])}")
    text = config.path.read_text(encoding="utf-8") + "\n\n# benchdoc run --command\n" + "\n".join(tables) + "\n"
    return parse_config(text, config.path), names


def parse_scan(items: list[str]) -> dict[str, list[str]]:
    """``["bs=8,16", "tp=1,2"]`` -> ``{"bs": ["8", "16"], "tp": ["1", "2"]}``, or a usage error."""
    scan: dict[str, list[str]] = {}
    for item in items:
        key, _, values = item.partition("=")
        parts = [v.strip() for v in values.split(",") if v.strip()]
        if not _KEY.fullmatch(key) or not parts:
            raise UsageError(f"--scan {item!r}: expected KEY=V1,V2,... (a KEY of letters, digits and _)")
        bad = [v for v in parts if not _VALUE.fullmatch(v)]
        if bad:
            raise UsageError(f"--scan {key}: value {bad[0]!r} cannot be part of an experiment name "
                             "(letters, digits, '.', '_' and '-')")
        if key in scan or len(set(parts)) != len(parts):
            raise UsageError(f"--scan {key}: a key or a value is given twice")
        scan[key] = parts
    return scan


def _array(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"
