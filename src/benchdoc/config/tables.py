"""`[servers.NAME]` and `[workloads.NAME]` of benchdoc.toml, validated into dataclasses.

Loading keeps these tables raw (a project may hold tables a run never uses); this module
checks every key, value and type of the one a run asks for and raises a ConfigError
located at the offending key through :meth:`Config.error`, as the rest of the file's
validation does (``benchdoc.toml:LINE: servers.NAME.KEY: message``), with a did-you-mean
for unknown keys. Nothing here starts a process.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from benchdoc.config.model import Config
from benchdoc.errors import ConfigError
from benchdoc.naming import did_you_mean
from benchdoc.planning.jsonpath import parse_json_path

if TYPE_CHECKING:
    from benchdoc.naming import LoadLevel

DEFAULT_READY_URL = "http://{host}:{port}/health"
DEFAULT_READY_TIMEOUT_S = 600.0  # a large model can take minutes to load and capture graphs
DEFAULT_SHUTDOWN_GRACE_S = 10.0
DEFAULT_COMMAND_TIMEOUT_S = 3600.0
DEFAULT_REPETITIONS = 5
DEFAULT_LOADGEN_URL = "http://{host}:{port}"
LOOPBACK = "127.0.0.1"

SERVER_KEYS = ("argv", "ready_url", "ready_timeout", "cwd", "env", "public_env", "shutdown_grace", "port", "model", "shell")
COMMAND_KEYS = ("kind", "argv", "timeout", "cwd", "env", "public_env", "format", "json", "regex", "warmup", "output_suffix")
TIMEOUT_KEYS = ("connect_s", "first_token_s", "idle_s", "request_s")
# The load generator's settings, with the TOML types each accepts (bool is never a number).
LOADGEN_SETTINGS: dict[str, tuple[type, ...]] = {
    "api": (str,),
    "model": (str,),
    "concurrency": (int,),
    "rate": (int, float),
    "burstiness": (int, float),
    "max_concurrency": (int,),
    "requests": (int,),
    "duration_s": (int, float),
    "warmup_requests": (int,),
    "input_tokens": (int,),
    "input_tokens_max": (int,),
    "output_tokens": (int,),
    "output_tokens_max": (int,),
    "temperature": (int, float),
    "ignore_eos": (bool,),
    "continuous_usage": (bool,),
    "seed": (int,),
    "percentiles": (list,),
    "metrics_url": (str,),
    "abort_after_connect_errors": (int,),
    "workers": (int,),
    "event_loop": (str,),
    "http_client": (str,),
    "dataset": (str,),
    "dataset_min_tokens": (int,),
    "dataset_max_input": (int,),
    "dataset_max_total": (int,),
    "ramp_up_s": (int, float),
    "trace": (str,),
    "multi_turn": (bool,),
    "headers": (dict,),
    "extra_body": (dict,),
    "dataset_format": (str,),
    "truncate_prompts": (bool,),
    "dataset_output_len": (bool,),
    "tokenizer": (str,),
    "shared_prefix_groups": (int,),
    "shared_prefix_tokens": (int,),
}
# Settings naming a local file, read relative to the project's folder.
LOADGEN_PATHS = ("dataset", "tokenizer", "trace")
_KIND_WORDS: dict[tuple[type, ...], str] = {
    (str,): "a string",
    (int,): "a whole number",
    (int, float): "a number",
    (bool,): "true or false",
    (list,): "a list",
    (dict,): "a table",
}
LOADGEN_KEYS = ("kind", "url", "api_key_env", "timeouts", "slo", "find_capacity", *LOADGEN_SETTINGS)
# The keys of a `find_capacity = { ... }` table, with their defaults (those of `bench --find-capacity`).
CAPACITY_KEYS: dict[str, float] = {"target": 0.99, "start_rate": 1.0, "precision": 0.05, "time_budget_s": 600.0}
WORKLOAD_KINDS = ("loadgen", "command")


@dataclass(frozen=True)
class ServerSpec:
    """How to launch one server under test.

    ``argv`` holds placeholders (``{port}``, ``{host}``, ``{model}`` and experiment
    variables); with ``shell`` it is one command line for ``/bin/sh -c`` instead.
    ``port`` is fixed when set, else a free loopback port is picked at each start.
    """

    name: str
    argv: tuple[str, ...]
    ready_url: str = DEFAULT_READY_URL
    ready_timeout_s: float = DEFAULT_READY_TIMEOUT_S
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    public_env: tuple[str, ...] = ()  # variables whose values may be shown and stored as they are
    shutdown_grace_s: float = DEFAULT_SHUTDOWN_GRACE_S
    port: int | None = None
    model: str | None = None
    shell: bool = False


@dataclass(frozen=True)
class CapacitySearch:
    """`find_capacity` of a workload: the SLO attainment a rate must keep, the first rate
    tried, when the bracket is tight enough, and the time budget of one search."""

    target: float = CAPACITY_KEYS["target"]
    start_rate: float = CAPACITY_KEYS["start_rate"]
    precision: float = CAPACITY_KEYS["precision"]
    time_budget_s: float = CAPACITY_KEYS["time_budget_s"]


@dataclass(frozen=True)
class LoadgenWorkload:
    """The built-in load generator: ``settings`` are `WorkloadSpec` fields (url excepted).

    ``levels`` is a sweep (``rate = [1, 2, 4]`` or ``concurrency = [1, 8]``): each level is
    run and recorded as its own experiment, ``EXP@rate=4``, and ``settings`` then hold no
    rate or concurrency. ``capacity`` is a capacity search instead of a fixed load.
    """

    name: str
    settings: dict[str, Any]
    url: str = DEFAULT_LOADGEN_URL
    api_key_env: str | None = None  # the name of the variable holding the key, never the key
    levels: tuple[LoadLevel, ...] = ()
    capacity: CapacitySearch | None = None
    kind: Literal["loadgen"] = "loadgen"

    @property
    def warmup_requests(self) -> int:
        return int(self.settings.get("warmup_requests", 0))


@dataclass(frozen=True)
class ResultReader:
    """How a command workload's numbers are read.

    ``format``: an importer reads the output. ``json``: each metric is a path into the
    JSON output (``a.b[0].c``). ``regex``: each metric is the one group of a pattern over
    stdout (its last match).
    """

    kind: Literal["format", "json", "regex"]
    format: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CommandWorkload:
    """A program that measures the server: placeholders ``{port}``, ``{url}``, ``{output}``."""

    name: str
    argv: tuple[str, ...]
    reader: ResultReader
    timeout_s: float = DEFAULT_COMMAND_TIMEOUT_S
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    public_env: tuple[str, ...] = ()  # variables whose values may be shown and stored as they are
    warmup: int = 0  # runs of the command before the measured ones, results discarded
    output_suffix: str = ".json"
    kind: Literal["command"] = "command"

    @property
    def uses_output_file(self) -> bool:
        return any("{output}" in arg for arg in self.argv)


WorkloadConfig = LoadgenWorkload | CommandWorkload


# -- the tables ---------------------------------------------------------------------------


class _Table:
    """One raw table with the helpers that check its keys and values in place."""

    def __init__(self, config: Config, section: str, name: str) -> None:
        self.config = config
        self.where = (section, name)
        raw = (config.servers if section == "servers" else config.workloads).get(name)
        if raw is None:
            choices = config.servers if section == "servers" else config.workloads
            raise ConfigError(f"no [{section}.{name}] table{did_you_mean(name, choices)}", config.path)
        self.data: dict[str, Any] = raw

    def error(self, message: str, *key: str) -> ConfigError:
        return self.config.error(message, *self.where, *key)

    def check_keys(self, allowed: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.error(f"unknown key '{key}'{did_you_mean(key, allowed)}", key)

    def string(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.error(f"expected a string, got {value!r}", key)
        return value

    def seconds(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise self.error(f"expected a number of seconds > 0, got {value!r}", key)
        return float(value)

    def argv(self, key: str = "argv", *, allow_string: bool = False) -> tuple[str, ...]:
        if key not in self.data:
            raise self.error(f"missing '{key}' (the command as a list of arguments)")
        value = self.data[key]
        if isinstance(value, str):
            if allow_string:
                return (value,)
            raise self.error(
                "expected a list of arguments like [\"python\", \"-m\", \"server\"] "
                "(or set shell = true to run a command line through a shell)",
                key,
            )
        if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
            raise self.error("expected a non-empty list of strings", key)
        return tuple(value)

    def env(self, key: str = "env") -> dict[str, str]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.error("expected a table of environment variables", key)
        result: dict[str, str] = {}
        for name, item in value.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise self.error(f"'{name}' is not a valid environment variable name", key)
            if isinstance(item, (dict, list)):
                raise self.error(f"{name}: expected a string or number, got {item!r}", key)
            result[name] = _as_text(item)
        return result

    def public_env(self, key: str = "public_env") -> tuple[str, ...]:
        """Names of variables whose values are not secret (shown and stored as they are)."""
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(n, str) and n for n in value):
            raise self.error("expected a list of environment variable names whose values are not secret", key)
        return tuple(value)


def _as_text(value: Any) -> str:
    """A TOML scalar as the text a command line or an environment gets."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def server_spec(config: Config, name: str) -> ServerSpec:
    """``[servers.NAME]``, validated."""
    table = _Table(config, "servers", name)
    table.check_keys(SERVER_KEYS)
    shell = table.data.get("shell", False)
    if not isinstance(shell, bool):
        raise table.error(f"expected true or false, got {shell!r}", "shell")
    argv = table.argv(allow_string=shell)
    port = table.data.get("port")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        raise table.error(f"expected a port number between 1 and 65535, got {port!r}", "port")
    return ServerSpec(
        name=name,
        argv=argv,
        ready_url=table.string("ready_url", DEFAULT_READY_URL) or DEFAULT_READY_URL,
        ready_timeout_s=table.seconds("ready_timeout", DEFAULT_READY_TIMEOUT_S),
        cwd=table.string("cwd"),
        env=table.env(),
        public_env=table.public_env(),
        shutdown_grace_s=table.seconds("shutdown_grace", DEFAULT_SHUTDOWN_GRACE_S),
        port=port,
        model=table.string("model"),
        shell=shell,
    )


def workload_config(config: Config, name: str) -> WorkloadConfig:
    """``[workloads.NAME]``, validated: the load generator or a command."""
    table = _Table(config, "workloads", name)
    kind = table.data.get("kind", "loadgen")
    if kind not in WORKLOAD_KINDS:
        raise table.error(
            f"kind must be \"loadgen\" or \"command\", got {kind!r}{did_you_mean(str(kind), WORKLOAD_KINDS)}", "kind"
        )
    if kind == "command":
        return _command_workload(table, name)
    return _loadgen_workload(table, name)


def _loadgen_workload(table: _Table, name: str) -> LoadgenWorkload:
    from benchdoc.workloads.spec import WorkloadSpec

    table.check_keys(LOADGEN_KEYS)
    levels = _levels(table)
    settings = _typed_settings(table, levels)
    if "percentiles" in settings:
        values = settings["percentiles"]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise table.error("expected a list of numbers like [95, 99.9]", "percentiles")
        settings["percentiles"] = tuple(float(v) for v in values)
    for key in LOADGEN_PATHS:
        if key in settings:
            settings[key] = str(table.config.root / settings[key])
    if "headers" in settings:  # headers = { "X-Tenant" = "a" }: name and value strings
        if not all(isinstance(v, str) for v in settings["headers"].values()):
            raise table.error("expected a table of strings like { \"X-Tenant\" = \"team-a\" }", "headers")
        settings["headers"] = tuple((str(k), v) for k, v in settings["headers"].items())
    if "extra_body" in settings:  # merged into every request body, as bench --extra-body
        settings["extra_body"] = json.dumps(settings["extra_body"], default=str)
    if "slo" in table.data:
        settings["slo"] = _slo(table)
    timeouts = _timeouts(table) if "timeouts" in table.data else None
    if timeouts is not None and table.data["timeouts"]:
        settings["timeouts"] = timeouts
    api_key_env = table.string("api_key_env")
    if api_key_env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", api_key_env):
        raise table.error(
            f"expected the name of an environment variable holding the key, got {api_key_env!r}", "api_key_env"
        )
    url = table.string("url", DEFAULT_LOADGEN_URL) or DEFAULT_LOADGEN_URL
    capacity = _capacity(table, settings) if "find_capacity" in table.data else None
    # The load generator's own checks, run now so a bad setting stops everything before a server starts
    # (a sweep's settings are checked with its first level in place).
    load: dict[str, Any] = {}
    if levels:
        first = levels[0]
        load[first.kind] = first.value if first.kind == "rate" else int(first.value)
    problems = WorkloadSpec(url="http://127.0.0.1:1", **settings, **load).problems()
    if problems:
        raise table.error("; ".join(problems))
    return LoadgenWorkload(name=name, settings=settings, url=url, api_key_env=api_key_env, levels=levels,
                           capacity=capacity)


def _typed_settings(table: _Table, levels: tuple[LoadLevel, ...]) -> dict[str, Any]:
    """The load generator's settings the table gives, each of its declared type (a swept
    key's list is the sweep's, not a setting)."""
    settings: dict[str, Any] = {}
    for key, kinds in LOADGEN_SETTINGS.items():
        if key not in table.data or (levels and key == levels[0].kind):
            continue
        value = table.data[key]
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise table.error(f"expected {_KIND_WORDS[kinds]}, got {value!r}", key)
        settings[key] = value
    return settings


def _timeouts(table: _Table) -> Any:
    """``timeouts = { first_token_s = 120, idle_s = 60 }`` as the load generator's Timeouts."""
    from benchdoc.workloads.spec import Timeouts

    raw = table.data.get("timeouts", {})
    if not isinstance(raw, dict):
        raise table.error("expected a table like { first_token_s = 120, idle_s = 60 }", "timeouts")
    for key, value in raw.items():
        if key not in TIMEOUT_KEYS:
            raise table.error(f"unknown key '{key}'{did_you_mean(key, TIMEOUT_KEYS)}", "timeouts")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise table.error(f"{key}: expected a number of seconds, got {value!r}", "timeouts")
    return Timeouts(**{k: float(v) for k, v in raw.items()})


def _levels(table: _Table) -> tuple[LoadLevel, ...]:
    """``rate = [1, 2, 4, 8]`` or ``concurrency = [1, 8, 32]``: the levels of a sweep (none
    for a single number, checked with the other settings)."""
    from benchdoc.naming import LoadLevel

    swept = [key for key in ("rate", "concurrency") if isinstance(table.data.get(key), list)]
    if not swept:
        return ()
    if len(swept) > 1 or ("rate" in table.data and "concurrency" in table.data):
        raise table.error("sweep either rate or concurrency, and give no value of the other", swept[-1])
    kind = swept[0]
    values = table.data[kind]
    example = "[1, 2, 4, 8]" if kind == "rate" else "[1, 8, 32]"
    if not values:
        raise table.error(f"expected at least one level, like {kind} = {example}", kind)
    levels: list[LoadLevel] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise table.error(f"expected a list of numbers like {example}, got {value!r}", kind)
        try:
            level = LoadLevel(kind, float(value))
        except ValueError as err:
            raise table.error(str(err), kind) from None
        if level in levels:
            raise table.error(f"the level {value!r} is given twice", kind)
        levels.append(level)
    return tuple(levels)


def _capacity(table: _Table, settings: dict[str, Any]) -> CapacitySearch:
    """``find_capacity = true`` or ``find_capacity = { target = 0.99, start_rate = 1,
    precision = 0.05, time_budget_s = 600 }``, with the workload's ``slo``."""
    value = table.data["find_capacity"]
    if value is True:
        value = {}
    if not isinstance(value, dict):
        raise table.error("expected true or a table like { target = 0.99, start_rate = 1 }", "find_capacity")
    found: dict[str, float] = {}
    for key, item in value.items():
        if key not in CAPACITY_KEYS:
            raise table.error(f"unknown key '{key}'{did_you_mean(key, CAPACITY_KEYS)}", "find_capacity")
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item) or item <= 0:
            raise table.error(f"{key}: expected a number > 0, got {item!r}", "find_capacity")
        found[key] = float(item)
    search = CapacitySearch(**found)
    if search.target > 1:
        raise table.error(f"target: the SLO attainment to keep is within (0, 1], got {search.target:g}", "find_capacity")
    if "slo" not in settings:
        raise table.error("a capacity search needs the workload's slo, like slo = \"ttft_ms:200,tpot_ms:50\"",
                          "find_capacity")
    for key in ("rate", "concurrency", "max_concurrency"):
        if key in table.data:
            raise table.error(f"a capacity search chooses the rates itself: give no {key}", key)
    return search


def _slo(table: _Table) -> tuple[tuple[str, float], ...]:
    """``slo = "ttft_ms:200,tpot_ms:50"`` or ``slo = { ttft_ms = 200, tpot_ms = 50 }``."""
    from benchdoc.errors import UsageError
    from benchdoc.workloads.spec import parse_slo, slo_problems

    value = table.data["slo"]
    if isinstance(value, str):
        try:
            return parse_slo(value)
        except UsageError as err:
            raise table.error(err.message, "slo") from None
    if not isinstance(value, dict) or not value:
        raise table.error("expected a table like { ttft_ms = 200, tpot_ms = 50 } (milliseconds)", "slo")
    pairs = []
    for name, limit in value.items():
        if isinstance(limit, bool) or not isinstance(limit, (int, float)):
            raise table.error(f"{name}: expected a number of milliseconds, got {limit!r}", "slo")
        pairs.append((name, float(limit)))
    problems = slo_problems(tuple(pairs))
    if problems:
        raise table.error("; ".join(problems), "slo")
    return tuple(pairs)


def _command_workload(table: _Table, name: str) -> CommandWorkload:
    table.check_keys(COMMAND_KEYS)
    argv = table.argv()
    readers = [key for key in ("format", "json", "regex") if key in table.data]
    if len(readers) != 1:
        found = f" (found {', '.join(readers)})" if readers else ""
        raise table.error(
            "a command workload needs exactly one way to read its results: "
            "format = \"<importer>\", json = { metric = \"path\" } or regex = { metric = \"pattern\" }" + found
        )
    reader = _reader(table, readers[0])
    warmup = table.data.get("warmup", 0)
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise table.error(f"expected a whole number of runs >= 0, got {warmup!r}", "warmup")
    default_suffix = ".jsonl" if reader.format and reader.format.startswith("sglang") else ".json"
    suffix = table.string("output_suffix", default_suffix) or default_suffix
    if not re.fullmatch(r"\.[A-Za-z0-9_.-]{1,20}", suffix):
        raise table.error(f"expected a file suffix like \".json\", got {suffix!r}", "output_suffix")
    return CommandWorkload(
        name=name,
        argv=argv,
        reader=reader,
        timeout_s=table.seconds("timeout", DEFAULT_COMMAND_TIMEOUT_S),
        cwd=table.string("cwd"),
        env=table.env(),
        public_env=table.public_env(),
        warmup=warmup,
        output_suffix=suffix,
    )


def _reader(table: _Table, kind: str) -> ResultReader:
    value = table.data[kind]
    if kind == "format":
        from benchdoc.errors import UsageError
        from benchdoc.importers import resolve_format

        if not isinstance(value, str):
            raise table.error(f"expected the name of an importer, got {value!r}", "format")
        try:
            return ResultReader("format", format=resolve_format(value))
        except UsageError as err:
            raise table.error(err.message, "format") from None
    example = "{ output_tok_s = \"results.throughput\" }" if kind == "json" else "{ output_tok_s = 'throughput: ([0-9.]+)' }"
    if not isinstance(value, dict) or not value:
        raise table.error(f"expected a table of metric = {'path' if kind == 'json' else 'pattern'}, like {example}", kind)
    fields_: dict[str, str] = {}
    for metric, text in value.items():
        if not isinstance(text, str) or not text:
            raise table.error(f"{metric}: expected a non-empty string, got {text!r}", kind)
        if kind == "json":
            try:
                parse_json_path(text)
            except ValueError as err:
                raise table.error(f"{metric}: {err}", kind) from None
        else:
            try:
                groups = re.compile(text).groups
            except re.error as err:
                raise table.error(f"{metric}: invalid regular expression {text!r}: {err}", kind) from None
            if groups != 1:
                raise table.error(
                    f"{metric}: the pattern {text!r} needs exactly one group (the number), it has {groups}", kind
                )
        fields_[metric] = text
    return ResultReader(kind, fields=fields_)  # type: ignore[arg-type]

