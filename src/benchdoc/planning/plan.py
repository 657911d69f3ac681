"""From benchdoc.toml to the exact command lines: which experiments run, with which
server, workload, argv, environment and readiness URL.

Placeholders are ``{name}``: ``{host}``, ``{port}``, ``{model}``, every variable of the
experiment, and for command workloads ``{url}`` and ``{output}``. Anything else between
braces that is not a name (JSON such as ``{"method": "eagle"}``) is left alone; an
unknown ``{name}`` is an error located at its key; ``{{name}}`` stands for a literal
``{name}``. Everything is resolved and checked before any process starts.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config import Config, ExperimentConfig
from benchdoc.config.tables import (
    DEFAULT_REPETITIONS,
    LOOPBACK,
    CommandWorkload,
    LoadgenWorkload,
    ServerSpec,
    WorkloadConfig,
    server_spec,
    workload_config,
)
from benchdoc.environment import recordable_env
from benchdoc.errors import RunError, UsageError
from benchdoc.naming import did_you_mean, is_glob, known_experiments, level_experiment, matches
from benchdoc.redact import redact_argv

if TYPE_CHECKING:
    from benchdoc.naming import LoadLevel

_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_-]*)\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")
RESERVED_NAMES = ("host", "port", "url", "output")


@dataclass(frozen=True)
class ExperimentSetup:
    """A runnable experiment: its server, workload and repetition count, validated.

    A setup with a ``level`` is one level of a sweep: its ``experiment`` is ``EXP@rate=4``
    (see :func:`level_setups`) and ``swept`` names ``EXP``.
    """

    experiment: ExperimentConfig
    server: ServerSpec
    workload: WorkloadConfig
    repetitions: int
    level: LoadLevel | None = None
    swept: str | None = None

    @property
    def name(self) -> str:
        return self.experiment.name


def level_setups(config: Config, setup: ExperimentSetup) -> list[ExperimentSetup]:
    """A sweep's setup as one setup per level, ``EXP@rate=R`` each, in the order given;
    any other setup as itself."""
    from dataclasses import replace

    workload = setup.workload
    if not isinstance(workload, LoadgenWorkload) or not workload.levels:
        return [setup]
    expanded = []
    for level in workload.levels:
        experiment = config.level_experiment(level_experiment(setup.name, level))
        assert experiment is not None  # the base is declared: it is being run
        expanded.append(replace(setup, experiment=experiment, level=level, swept=setup.name))
    return expanded


@dataclass(frozen=True)
class Launch:
    """How one start of an experiment's server looks, placeholders filled in.

    ``env`` holds only what benchdoc sets on top of the inherited environment (the
    server's ``env`` then the experiment's); ``values`` are the placeholder values the
    workload is filled with too. ``port`` is None in a plan made before a port is picked.
    """

    experiment: str
    server: str
    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    host: str
    port: int | None
    ready_url: str
    ready_timeout_s: float
    shutdown_grace_s: float
    values: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.values['port']}"

    def full_env(self, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
        return {**(os.environ if inherited is None else inherited), **self.env}


# -- selection ----------------------------------------------------------------------------


def runnable_experiments(config: Config) -> list[str]:
    """Experiments that name a server, in config order."""
    return [name for name, exp in config.experiments.items() if exp.server]


def select_experiments(config: Config, patterns: Sequence[str]) -> list[str]:
    """The experiments ``benchdoc run PATTERN...`` means, in config order.

    No pattern: every experiment with a server. A name (or alias) must have a server; a
    glob keeps the runnable experiments it matches and must match at least one.
    """
    runnable = runnable_experiments(config)
    if not patterns:
        if not runnable:
            raise UsageError(
                f"no experiment in {config.path.name} has a server to run "
                "(give one server = \"NAME\" and workload = \"NAME\"; see docs/running.md)"
            )
        return runnable
    known = known_experiments(config.experiments.values())
    chosen: set[str] = set()
    for pattern in patterns:
        matched = matches(pattern, known)
        runnable_matched = [n for n in matched if n in runnable]
        if is_glob(pattern) and not runnable_matched:
            raise UsageError(f"'{pattern}' matches {', '.join(matched)}, none of which has a server to run")
        if not runnable_matched:
            raise UsageError(
                f"experiment '{matched[0]}' has no server to run; add server = \"NAME\" and workload = \"NAME\" "
                f"to [experiments.{matched[0]}] (or record its results with 'benchdoc record')"
            )
        chosen.update(runnable_matched)
    return [name for name in config.experiments if name in chosen]


def baselines_first(config: Config, names: Sequence[str]) -> list[str]:
    """``names`` reordered so that an experiment's ``compare_to``, when also selected,
    runs before it (so that a comparison made while running sees its fresh result)."""
    selected = set(names)
    ordered: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in ordered or name in visiting:
            return
        visiting.add(name)
        target = config.experiments[name].compare_to
        if target in selected:
            visit(target)  # type: ignore[arg-type]
        visiting.discard(name)
        ordered.append(name)

    for name in names:
        visit(name)
    return ordered


# -- setup ---------------------------------------------------------------------------------


def experiment_setup(config: Config, name: str, repetitions: int | None = None) -> ExperimentSetup:
    """The validated setup of a runnable experiment (ConfigError at the offending key)."""
    exp = config.experiments[name]
    if not exp.server:
        raise UsageError(f"experiment '{name}' has no server to run")
    if exp.server not in config.servers:
        raise config.error(f"no [servers.{exp.server}] table{did_you_mean(exp.server, config.servers)}",
                           "experiments", name, "server")
    if not exp.workload:
        raise config.error("an experiment with a server needs a workload = \"NAME\" too", "experiments", name)
    if exp.workload not in config.workloads:
        raise config.error(f"no [workloads.{exp.workload}] table{did_you_mean(exp.workload, config.workloads)}",
                           "experiments", name, "workload")
    for key, value in exp.variables.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            raise config.error(f"'{key}' is not a valid variable name (letters, digits, _ and -)",
                               "experiments", name, "variables")
        if key in RESERVED_NAMES:
            raise config.error(f"'{key}' is set by benchdoc and cannot be a variable", "experiments", name, "variables")
        if isinstance(value, (dict, list)):
            raise config.error(f"{key}: expected a string or number, got {value!r}", "experiments", name, "variables")
    return ExperimentSetup(
        experiment=exp,
        server=server_spec(config, exp.server),
        workload=workload_config(config, exp.workload),
        repetitions=repetitions or exp.repetitions or DEFAULT_REPETITIONS,
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def placeholder_values(setup: ExperimentSetup, port: int | None) -> dict[str, str]:
    """host, port (or the literal ``{port}`` before one is picked), model and variables."""
    values = {key: _text(value) for key, value in setup.experiment.variables.items()}
    model = values.get("model", setup.server.model)
    if model is not None:
        values["model"] = model
    values["host"] = LOOPBACK
    values["port"] = str(port) if port is not None else "{port}"
    return values


def fill(
    template: str,
    values: Mapping[str, str],
    error: Callable[[str], Exception],
    quote: Callable[[str], str] | None = None,
) -> str:
    """``template`` with its ``{name}`` placeholders replaced; ``error(message)`` builds
    the exception for an unknown name. ``quote`` wraps each value (for a shell line)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return "{" + match.group(1) + "}"
        name = match.group(2)
        if name not in values:
            if name == "model":
                raise error("{model} has no value: set model = \"...\" in the server or a model variable in the experiment")
            raise error(f"unknown placeholder {{{name}}}{did_you_mean(name, values)}; known: "
                        + ", ".join("{" + v + "}" for v in sorted(values)))
        value = values[name]
        if value.startswith("{") and value.endswith("}") and value[1:-1] == name:
            return value  # a placeholder kept for a dry run (the port not picked yet)
        return quote(value) if quote else value

    return _PLACEHOLDER.sub(replace, template)


def plan_launch(config: Config, setup: ExperimentSetup, port: int | None) -> Launch:
    """The command line, environment and readiness URL of one start of the server."""
    server = setup.server
    exp = setup.experiment
    values = placeholder_values(setup, port)

    def at(*key: str) -> Callable[[str], Exception]:
        return lambda message: config.error(message, *key)

    where = ("servers", server.name)
    quote = shlex.quote if server.shell else None
    args = [fill(arg, values, at(*where, "argv"), quote) for arg in server.argv]
    extra = [fill(arg, values, at("experiments", exp.name, "args")) for arg in exp.args]
    if server.shell:
        line = " ".join([*args, *(shlex.quote(arg) for arg in extra)])
        argv: tuple[str, ...] = ("/bin/sh", "-c", line)
    else:
        argv = (*args, *extra)
    env = {key: fill(value, values, at(*where, "env")) for key, value in server.env.items()}
    env.update({key: fill(value, values, at("experiments", exp.name, "env")) for key, value in exp.env.items()})
    cwd = config.root / fill(server.cwd, values, at(*where, "cwd")) if server.cwd else config.root
    return Launch(
        experiment=exp.name,
        server=server.name,
        argv=argv,
        env=env,
        cwd=cwd,
        host=LOOPBACK,
        port=port,
        ready_url=fill(server.ready_url, values, at(*where, "ready_url")),
        ready_timeout_s=server.ready_timeout_s,
        shutdown_grace_s=server.shutdown_grace_s,
        values=values,
    )


# -- workloads --------------------------------------------------------------------------------


def loadgen_spec(
    config: Config,
    workload: LoadgenWorkload,
    launch: Launch,
    *,
    environ: Mapping[str, str] | None = None,
    level: LoadLevel | None = None,
) -> Any:
    """The load generator's `WorkloadSpec` against this start of the server (at ``level``
    of a sweep: the sweep's own reading of a level)."""
    from benchdoc.workloads.spec import WorkloadSpec

    where = ("workloads", workload.name)
    url = fill(workload.url, launch.values, lambda message: config.error(message, *where, "url"))
    settings = dict(workload.settings)
    if "model" not in settings and "model" in launch.values:
        settings["model"] = launch.values["model"]
    api_key = None
    if workload.api_key_env:
        source = os.environ if environ is None else environ
        api_key = {**source, **launch.env}.get(workload.api_key_env)
        if not api_key:
            raise RunError(
                f"workloads.{workload.name}.api_key_env: the environment variable {workload.api_key_env} is not set",
                config.path,
                config.line_of(*where, "api_key_env"),
            )
    spec = WorkloadSpec(url=url, api_key=api_key, **settings)
    if level is None:
        return spec
    from benchdoc.workloads.sweep import at_level

    return at_level(spec, level)


def command_values(launch: Launch, output: str) -> dict[str, str]:
    return {**launch.values, "url": f"http://{launch.host}:{launch.values['port']}", "output": output}


def command_argv(config: Config, workload: CommandWorkload, launch: Launch, output: str) -> tuple[str, ...]:
    """The workload command's argv for one run, writing its results to ``output``."""
    values = command_values(launch, output)
    where = ("workloads", workload.name)
    return tuple(fill(arg, values, lambda message: config.error(message, *where, "argv")) for arg in workload.argv)


def command_env(config: Config, workload: CommandWorkload, launch: Launch, output: str) -> dict[str, str]:
    values = command_values(launch, output)
    where = ("workloads", workload.name, "env")
    return {key: fill(value, values, lambda message: config.error(message, *where)) for key, value in workload.env.items()}


def command_cwd(config: Config, workload: CommandWorkload, launch: Launch) -> Path:
    if not workload.cwd:
        return config.root
    return config.root / fill(workload.cwd, launch.values, lambda m: config.error(m, "workloads", workload.name, "cwd"))


def check_setups(config: Config, names: Iterable[str], repetitions: int | None = None) -> list[ExperimentSetup]:
    """Validate every selected experiment completely (placeholders included) before
    anything runs; the first problem raises."""
    setups = []
    for name in names:
        setup = experiment_setup(config, name, repetitions)
        launch = plan_launch(config, setup, setup.server.port)
        if isinstance(setup.workload, CommandWorkload):
            command_argv(config, setup.workload, launch, "{output}")
            command_env(config, setup.workload, launch, "{output}")
            command_cwd(config, setup.workload, launch)
        else:
            workload_name = setup.workload.name

            def url_error(message: str, name: str = workload_name) -> Exception:
                return config.error(message, "workloads", name, "url")

            fill(setup.workload.url, launch.values, url_error)
        setups.append(setup)
    return setups


def describe_workload(
    config: Config, setup: ExperimentSetup, launch: Launch, *, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The workload's settings as recorded with a run (and shown by a dry run)."""
    workload = setup.workload
    if isinstance(workload, LoadgenWorkload):
        spec = loadgen_spec(config, workload, launch, environ=environ, level=setup.level)
        described: dict[str, Any] = {"name": workload.name, "kind": "loadgen", "settings": spec.settings()}
        if setup.level is not None:
            described["level"] = setup.level.entry(setup.swept or setup.name)
        if workload.capacity is not None:
            described["capacity"] = asdict(workload.capacity)
        return described
    reader: dict[str, Any] = {"kind": workload.reader.kind}
    if workload.reader.format:
        reader["format"] = workload.reader.format
    if workload.reader.fields:
        reader["fields"] = dict(workload.reader.fields)
    reader["from"] = "{output}" if workload.uses_output_file else "stdout"
    return {
        "name": workload.name,
        "kind": "command",
        "argv": redact_argv(command_argv(config, workload, launch, "{output}")),
        "env": recordable_env(command_env(config, workload, launch, "{output}"), workload.public_env),
        "timeout_s": workload.timeout_s,
        "warmup": workload.warmup,
        "results": reader,
    }
