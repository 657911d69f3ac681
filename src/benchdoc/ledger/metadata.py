"""A run's metadata, typed: every key benchdoc writes, with its type and meaning.

The ledger stores metadata as JSON. :class:`RunMetadata` owns that JSON form
(:meth:`RunMetadata.to_json`, :meth:`RunMetadata.from_json`) and stamps it with
``version``. Rows written before the version existed (version 1) still read: their
``log`` key is the server log, their ``server`` key held the launch when it had an
``argv``, and keys nobody knows are kept as another tool's fields.

:data:`METADATA_KEYS` is the registry: each key of the JSON form, its type and what
it means. docs/running.md shows :func:`metadata_table`, generated from it (a test holds the
page to it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

METADATA_VERSION = 2


@dataclass(frozen=True)
class MetadataKey:
    """One key of a run's metadata: its name in the JSON form, its type, its meaning."""

    key: str
    type: str
    meaning: str


METADATA_KEYS: tuple[MetadataKey, ...] = (
    MetadataKey("version", "int", "layout of this metadata; rows without it are version 1"),
    MetadataKey("log_path", "str", "the server log of a run's first start, relative to the project root"),
    MetadataKey("logs", "{server: [str], workload: [str]}", "every server log and workload log of the run"),
    MetadataKey("repetitions", "int", "repetitions completed"),
    MetadataKey("planned_repetitions", "int", "repetitions planned before the run started"),
    MetadataKey("interleaved", "bool", "experiments took turns repetition by repetition (`run --interleave`)"),
    MetadataKey("per_repetition", "[object]", "each repetition's bookkeeping, one entry per repetition, with `start`: "
                "the server start it came from (index into launch.pids)"),
    MetadataKey("launch", "object", "how `run` started the server, each start, and how each ended"),
    MetadataKey("server", "object", "the server that answered the load generator (run, bench): url, api, model, owned_by"),
    MetadataKey("workload", "object", "the workload as `run` ran it: name, kind and its settings or argv"),
    MetadataKey("settings", "object", "the load generator's settings as it ran them (bench, run)"),
    MetadataKey("provenance", "object", "where the counts came from: output and prompt tokens and tokens per chunk by source (summed over repetitions), the accept length's source"),
    MetadataKey("duration_s", "float", "wall time of the measured phase in seconds, summed over repetitions"),
    MetadataKey("requests", "int", "requests of the measured phase, summed over repetitions"),
    MetadataKey("cut_short", "int", "of the failed requests, those whose stream ended before the request was complete"),
    MetadataKey("failures", "{str: int}", "failed requests by cause, summed over repetitions"),
    MetadataKey("until_decided", "object", "the sequential plan, each look and the decision (`run --until-decided`)"),
    MetadataKey("simulator", "bool", "measured against benchdoc's simulator: simulated, not hardware, numbers"),
    MetadataKey("traceback", "str", "the end of the traceback of a harness error"),
    MetadataKey("import", "object", "where an imported run came from: format, file, entry, label, fingerprint"),
    MetadataKey("figures", "object", "every figure a project benchmark script printed"),
    MetadataKey("tool", "object", "fields of another tool's results file, kept as found"),
    MetadataKey("config_fingerprint", "str",
                "hash of the configuration `run` ran: argv, added env, cwd, workload settings (see \"Which results are current\")"),
    MetadataKey("record_id", "str",
                "the one event the run records (`slurm:JOB_TASK` for an array task): recorded once, whoever records it (docs/cluster.md)"),
    MetadataKey("slurm", "object",
                "the Slurm array task that ran it: `job`, `task`, `node`; `state` and `ended_by` when Slurm ended it"),
    MetadataKey("load", "{of: str, kind: str, value: float}", "the level of a load sweep this run measured (`EXP@rate=R`)"),
    MetadataKey("capacity", "object",
                "a capacity search: target, resolution, the levels tried and why it stopped (for `run`, the last repetition's, and every repetition's in `searches`)"),
    MetadataKey("client", "{bound: bool, repetitions: int, of: int, reasons: [str]}",
                "the client verdict: whether the load generator was the bottleneck, in how many of the repetitions "
                "that watched it, and why (each repetition's own load, lag, CPU and send delay: per_repetition)"),
    MetadataKey("server_metrics", "object", "the server's `/metrics` scraped every second of each measured phase: "
                "`repetitions[]` of `{repetition, dialect, interval_s, times_s, series, summary}`, series `running`, "
                "`waiting`, `kv_cache_usage`, `prefix_cache_hit_rate`, `spec_accept_length` "
                "([metrics.md](metrics.md#server-metrics-over-the-run))"),
    MetadataKey("interrupted", "bool", "Ctrl-C stopped it: only the repetitions that finished are kept (`bench --repetitions`)"),
)


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool)) if isinstance(value, list) else ()


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _opt(value: Any, kind: type | tuple[type, ...]) -> Any:
    """``value`` when it has the expected type (a bool is not a number), else None."""
    if isinstance(value, bool) and kind is not bool:
        return None
    return value if isinstance(value, kind) else None


def _dict(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


def _drop_empty(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None and v != [] and v != {} and v is not False}


@dataclass(frozen=True)
class ServerStop:
    """How one server start ended."""

    returncode: int | None
    killed: bool = False  # it needed SIGKILL after the grace period
    exited_before_stop: bool = False  # it was already gone when benchdoc came to stop it

    def to_json(self) -> dict[str, Any]:
        return {"returncode": self.returncode, "killed": self.killed, "exited_before_stop": self.exited_before_stop}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ServerStop:
        return cls(_opt(data.get("returncode"), int), bool(data.get("killed")), bool(data.get("exited_before_stop")))


@dataclass(frozen=True)
class ServerLaunch:
    """How `run` started the server under test, each time it started it, and how it ended."""

    name: str
    argv: tuple[str, ...]  # the first start's argv, secrets redacted when stored
    env: dict[str, str]  # variables set on top of the inherited environment
    cwd: str
    ready_url: str
    ports: tuple[int, ...] = ()
    pids: tuple[int, ...] = ()  # each start's process group leader, for forensics
    ready_s: tuple[float, ...] = ()  # seconds each start took to answer its readiness URL
    stops: tuple[ServerStop, ...] = ()
    restarted_per_repetition: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "argv": list(self.argv), "env": dict(self.env), "cwd": self.cwd,
            "ready_url": self.ready_url, "ports": list(self.ports), "pids": list(self.pids),
            "ready_s": list(self.ready_s), "stops": [s.to_json() for s in self.stops],
            "restarted_per_repetition": self.restarted_per_repetition,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ServerLaunch:
        env = data.get("env")
        ready = data.get("ready_s")
        return cls(
            name=str(data.get("name") or ""),
            argv=_strs(data.get("argv")),
            env={str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {},
            cwd=str(data.get("cwd") or ""),
            ready_url=str(data.get("ready_url") or ""),
            ports=_ints(data.get("ports")),
            pids=_ints(data.get("pids")),
            ready_s=tuple(float(v) for v in ready if isinstance(v, (int, float))) if isinstance(ready, list) else (),
            stops=tuple(ServerStop.from_json(s) for s in data.get("stops") or [] if isinstance(s, Mapping)),
            restarted_per_repetition=bool(data.get("restarted_per_repetition")),
        )


@dataclass(frozen=True)
class RepetitionRecord:
    """One repetition's bookkeeping, as `run` keeps it."""

    repetition: int  # 0-based, as the samples number them
    seed: int | None = None  # the prompts' seed (load generator)
    requests: int | None = None  # requests of the measured phase
    failed_requests: int | None = None
    cut_short_requests: int | None = None  # of the failed: streams that ended before the request was complete
    failure_reasons: dict[str, int] = field(default_factory=dict)
    warmup_requests: int | None = None  # warm-up requests before this repetition (once per server start)
    duration_s: float | None = None
    aborted: str | None = None  # why the load generator stopped sending early
    results: str | None = None  # the file a command workload's numbers were read from
    client: dict[str, Any] | None = None  # the load generator's own load and its verdict
    provenance: dict[str, Any] | None = None  # where this repetition's counts came from
    start: int = 0  # the server start it came from: the index into the run's launch.pids

    def to_json(self) -> dict[str, Any]:
        data = {
            "repetition": self.repetition, "start": self.start, "seed": self.seed, "requests": self.requests,
            "failed_requests": self.failed_requests, "cut_short_requests": self.cut_short_requests,
            "failure_reasons": dict(self.failure_reasons),
            "warmup_requests": self.warmup_requests, "duration_s": self.duration_s,
            "aborted": self.aborted, "results": self.results, "client": self.client, "provenance": self.provenance,
        }
        return {"repetition": self.repetition, **_drop_empty(data)}  # "start" kept even when 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepetitionRecord:
        reasons = data.get("failure_reasons")
        return cls(
            repetition=_opt(data.get("repetition"), int) or 0,
            seed=_opt(data.get("seed"), int),
            requests=_opt(data.get("requests"), int),
            failed_requests=_opt(data.get("failed_requests"), int),
            cut_short_requests=_opt(data.get("cut_short_requests"), int),
            failure_reasons={str(k): int(v) for k, v in reasons.items()} if isinstance(reasons, Mapping) else {},
            warmup_requests=_opt(data.get("warmup_requests"), int),
            duration_s=_opt(data.get("duration_s"), (int, float)),
            aborted=_opt(data.get("aborted"), str),
            results=_opt(data.get("results"), str),
            client=_dict(data.get("client")),
            provenance=_dict(data.get("provenance")),
            start=_opt(data.get("start"), int) or 0,
        )


@dataclass(frozen=True)
class RunMetadata:
    """Everything a run records beyond its samples and its environment (keys in METADATA_KEYS)."""

    log_path: str | None = None
    server_logs: tuple[str, ...] = ()
    workload_logs: tuple[str, ...] = ()
    repetitions: int | None = None
    planned_repetitions: int | None = None
    interleaved: bool = False
    per_repetition: tuple[RepetitionRecord, ...] = ()
    launch: ServerLaunch | None = None
    server: dict[str, Any] | None = None
    workload: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None
    provenance: dict[str, Any] | None = None
    duration_s: float | None = None
    requests: int | None = None
    cut_short: int | None = None
    failures: dict[str, int] = field(default_factory=dict)
    until_decided: dict[str, Any] | None = None
    simulator: bool = False
    traceback: str | None = None
    imported: dict[str, Any] | None = None  # JSON key "import"
    figures: dict[str, Any] | None = None
    tool: dict[str, Any] = field(default_factory=dict)
    config_fingerprint: str | None = None
    record_id: str | None = None
    slurm: dict[str, Any] | None = None
    load: dict[str, Any] | None = None
    capacity: dict[str, Any] | None = None
    client: dict[str, Any] | None = None
    server_metrics: dict[str, Any] | None = None
    interrupted: bool = False

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in the ledger and shown by `history --json`."""
        logs = {"server": list(self.server_logs), "workload": list(self.workload_logs)}
        data = {
            "log_path": self.log_path,
            "logs": logs if self.server_logs or self.workload_logs else None,
            "repetitions": self.repetitions,
            "planned_repetitions": self.planned_repetitions,
            "interleaved": self.interleaved,
            "per_repetition": [r.to_json() for r in self.per_repetition],
            "launch": self.launch.to_json() if self.launch else None,
            "server": self.server, "workload": self.workload, "settings": self.settings,
            "provenance": self.provenance, "duration_s": self.duration_s, "requests": self.requests,
            "cut_short": self.cut_short,
            "failures": dict(self.failures), "until_decided": self.until_decided,
            "simulator": self.simulator, "traceback": self.traceback,
            "import": self.imported, "figures": self.figures, "tool": dict(self.tool),
            "config_fingerprint": self.config_fingerprint, "record_id": self.record_id, "slurm": self.slurm,
            "load": self.load, "capacity": self.capacity, "client": self.client,
            "server_metrics": self.server_metrics, "interrupted": self.interrupted,
        }
        return {"version": METADATA_VERSION, **_drop_empty(data)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> RunMetadata:
        """Read any version's JSON form; values of the wrong type are left out, never fatal."""
        data = dict(data or {})
        if _opt(data.get("version"), int) is None:
            data = _from_version_1(data)
        found_logs = data.get("logs")
        logs: Mapping[str, Any] = found_logs if isinstance(found_logs, Mapping) else {}
        launch = data.get("launch")
        failures = data.get("failures")
        return cls(
            log_path=_opt(data.get("log_path"), str),
            server_logs=_strs(logs.get("server")),
            workload_logs=_strs(logs.get("workload")),
            repetitions=_opt(data.get("repetitions"), int),
            planned_repetitions=_opt(data.get("planned_repetitions"), int),
            interleaved=bool(data.get("interleaved")),
            per_repetition=tuple(
                RepetitionRecord.from_json(r) for r in data.get("per_repetition") or [] if isinstance(r, Mapping)
            ),
            launch=ServerLaunch.from_json(launch) if isinstance(launch, Mapping) else None,
            server=_dict(data.get("server")),
            workload=_dict(data.get("workload")),
            settings=_dict(data.get("settings")),
            provenance=_dict(data.get("provenance")),
            duration_s=_opt(data.get("duration_s"), (int, float)),
            requests=_opt(data.get("requests"), int),
            cut_short=_opt(data.get("cut_short"), int),
            failures={str(k): v for k, v in failures.items() if isinstance(v, int)} if isinstance(failures, Mapping) else {},
            until_decided=_dict(data.get("until_decided")),
            simulator=bool(data.get("simulator")),
            traceback=_opt(data.get("traceback"), str),
            imported=_dict(data.get("import")),
            figures=_dict(data.get("figures")),
            tool=_dict(data.get("tool")) or {},
            config_fingerprint=_opt(data.get("config_fingerprint"), str),
            record_id=_opt(data.get("record_id"), str),
            slurm=_dict(data.get("slurm")),
            load=_dict(data.get("load")),
            capacity=_dict(data.get("capacity")),
            client=_dict(data.get("client")),
            server_metrics=_dict(data.get("server_metrics")),
            interrupted=bool(data.get("interrupted")),
        )


_KNOWN = frozenset(key.key for key in METADATA_KEYS)


def metadata_table() -> str:
    """The registry as the Markdown table docs/running.md shows (a test holds them equal)."""
    lines = ["| Key | Type | Meaning |", "|---|---|---|"]
    lines += [f"| `{key.key}` | {key.type} | {key.meaning} |" for key in METADATA_KEYS]
    return "\n".join(lines) + "\n"


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (no ``version`` key): ``log`` was the server log, ``server`` held the launch
    when it had an argv, and an import's tool fields sat beside benchdoc's own keys."""
    upgraded = dict(data)
    if "log" in upgraded:
        upgraded.setdefault("log_path", upgraded.pop("log"))
    server = upgraded.get("server")
    if isinstance(server, Mapping) and "argv" in server:
        upgraded["launch"] = upgraded.pop("server")
    tool = {k: upgraded.pop(k) for k in list(upgraded) if k not in _KNOWN}
    if "import" in upgraded:
        # An importer's own keys (duration_s of guidellm, command of hyperfine...) are the tool's.
        tool.update({k: upgraded.pop(k) for k in list(upgraded) if k != "import"})
    if tool:
        upgraded["tool"] = tool
    return upgraded
