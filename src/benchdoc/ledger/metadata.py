"""A run's metadata, typed: every key benchdoc writes, with its type and meaning.

The ledger stores metadata as JSON. Each key, of :class:`RunMetadata` and of each record
it holds (the server launch, a repetition, the client's load and verdict, the load level,
the capacity search, the import source, the Slurm task...), is declared once, on its field,
with :func:`~benchdoc.ledger.declared.key`: its type is the field's, its meaning is said
there. The JSON form (``to_json``, ``from_json``), the registry :data:`METADATA_KEYS` and
the tables docs/running.md shows (:func:`metadata_docs`, a test holds the page to it) all
come from that one declaration.

The JSON form is stamped with ``version``. Rows written before the version existed
(version 1) still read: their ``log`` key is the server log, their ``server`` key held the
launch when it had an ``argv``, and keys nobody knows are kept as another tool's fields.
Keys a nested record does not declare are kept as found (``other``), never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from benchdoc.ledger.declared import declared, from_json, is_record, key, to_json, type_text, unknown

METADATA_VERSION = 2

P = TypeVar("P", bound="Part")

# Why the few open values are open (each key says it on its declaration).
_LOADGEN_SETTINGS = ("the load generator's own settings, keyed as its WorkloadSpec names them: declared there, "
                     "not a second time here")
_PROVENANCE = ("the load generator's sources and descriptions of its dataset and tokenizer, each as that part "
               "describes itself; over repetitions a description that differs becomes the list of each")


@dataclass(frozen=True)
class MetadataKey:
    """One key of a run's metadata: its name in the JSON form, its type, its meaning."""

    key: str
    type: str
    meaning: str


@dataclass(frozen=True)
class Part:
    """A record inside a run's metadata; keys it does not declare are kept in ``other``."""

    other: dict[str, Any] = field(default_factory=dict, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        return to_json(self, self.other)

    @classmethod
    def from_json(cls: type[P], data: Mapping[str, Any]) -> P:
        return from_json(cls, data, other=unknown(cls, data))


@dataclass(frozen=True)
class RunLogs(Part):
    """Every log a run left, relative to the project root."""

    server: tuple[str, ...] = key("each server start's log", factory=tuple, keep=True)
    workload: tuple[str, ...] = key("each repetition's workload stdout and stderr logs (a command workload)",
                                    factory=tuple, keep=True)


@dataclass(frozen=True)
class ServerStop(Part):
    """How one server start ended."""

    returncode: int | None = key("its exit code (negative: the signal that ended it)", keep=True)
    killed: bool = key("it needed SIGKILL after the grace period", False, keep=True)
    exited_before_stop: bool = key("it was already gone when benchdoc came to stop it", False, keep=True)


@dataclass(frozen=True)
class ServerLaunch(Part):
    """How `run` started the server under test, each time it started it, and how it ended."""

    name: str = key("the server's name in benchdoc.toml", "", keep=True)
    argv: tuple[str, ...] = key("the first start's argv, secrets redacted", factory=tuple, keep=True)
    env: dict[str, str] = key("variables set on top of the inherited environment", factory=dict, keep=True)
    cwd: str = key("the directory it ran in", "", keep=True)
    ready_url: str = key("the URL that answered when it was ready", "", keep=True)
    ports: tuple[int, ...] = key("each start's port", factory=tuple, keep=True)
    pids: tuple[int, ...] = key("each start's process group leader, for forensics", factory=tuple, keep=True)
    ready_s: tuple[float, ...] = key("seconds each start took to answer its readiness URL", factory=tuple, keep=True)
    stops: tuple[ServerStop, ...] = key("how each start ended", factory=tuple, keep=True)
    restarted_per_repetition: bool = key("a fresh server for each repetition", False, keep=True)


@dataclass(frozen=True)
class ServedBy(Part):
    """The server that answered the load generator."""

    url: str | None = key("its base URL")
    api: str | None = key("the API spoken: openai-chat, openai-completions...")
    model: str | None = key("the model asked for")
    owned_by: tuple[str, ...] = key("the `owned_by` of the models it lists (the simulator names itself here)",
                                    factory=tuple)


@dataclass(frozen=True)
class ClientLoad(Part):
    """How loaded the load generator was during one repetition's measured phase."""

    cpu_share: float | None = key("CPU time of the client over its wall time (1.0 = one core; per process, the largest)")
    loop_busy_share: float | None = key("the share of the wall time its event loop was not waiting")
    lag_ms_mean: float | None = key("mean lateness of the probe timer, ms")
    lag_ms_p99: float | None = key("p99 lateness of the probe timer, ms")
    lag_ms_max: float | None = key("largest lateness of the probe timer, ms")
    probes: int | None = key("probe timer ticks watched")
    workers: int | None = key("client processes")
    send_delay_ms_p99: float | None = key("p99 of how late requests were sent beside their schedule, ms")
    smallest_gap_ms: float | None = key("the smallest gap between two scheduled sends, ms")
    send_delay_ms_p50: float | None = key("median send delay, ms")
    send_delay_ms_max: float | None = key("largest send delay, ms")
    smallest_ttft_ms: float | None = key("the smallest TTFTs the send delay is weighed against, ms")
    ttft_error_ms_mean: float | None = key("mean of the client's TTFT less the server's own, ms")
    ttft_error_ms_p99: float | None = key("p99 of the client's TTFT less the server's own, ms")
    bound: bool = key("the client was the bottleneck", False, keep=True)
    reasons: tuple[str, ...] = key("why it was", factory=tuple, keep=True)
    notes: tuple[str, ...] = key("lateness not of the client's making", factory=tuple, keep=True)


@dataclass(frozen=True)
class ClientVerdict(Part):
    """The run's client verdict, over the repetitions that watched the client."""

    bound: bool = key("the load generator was the bottleneck in some repetition", False, keep=True)
    repetitions: int = key("the repetitions in which it was", 0, keep=True)
    of: int = key("the repetitions that watched it", 0, keep=True)
    reasons: tuple[str, ...] = key("why, as the first bound repetition says", factory=tuple, keep=True)


@dataclass(frozen=True)
class LevelRecord(Part):
    """The level of a load sweep a run measured (`EXP@rate=R`)."""

    of: str = key("the experiment swept", "", keep=True)
    kind: str = key("`rate` (requests per second) or `concurrency` (requests in flight)", "", keep=True)
    value: float = key("the level", 0.0, keep=True)


@dataclass(frozen=True)
class CapacityLevel(Part):
    """One level a capacity search tried."""

    rate: float | None = key("the offered rate, requests per second")
    slo_attainment: float | None = key("the share of requests within the SLO", keep=True)
    achieved_req_s: float | None = key("the rate delivered: successful requests over the measured duration", keep=True)
    met_target: bool = key("it met the target", False, keep=True)
    why: str | None = key("why not, or why it says nothing (a client-bound miss)")
    client_bound: bool = key("the client was the bottleneck at this level", False, keep=True)


@dataclass(frozen=True)
class CapacitySearch(Part):
    """A capacity search: the highest rate that keeps the SLO target."""

    capacity_req_s: float | None = key("the answer, the highest rate that met the target (when found)", keep=True)
    resolution: tuple[float | None, ...] = key("the bracket [met, missed] it stopped in", factory=tuple, keep=True)
    achieved_max_req_s: float | None = key("the highest rate any level achieved", keep=True)
    target: float | None = key("the SLO attainment a level must keep")
    stopped: str | None = key("why the search stopped")
    sentence: str | None = key("the answer in words")
    levels: tuple[CapacityLevel, ...] = key("each level tried, in order", factory=tuple, keep=True)
    searches: tuple[CapacitySearch, ...] = key("`run`: every repetition's search (the record itself is the last's)",
                                               factory=tuple)


@dataclass(frozen=True)
class ImportSource(Part):
    """Where an imported run came from."""

    format: str | None = key("the importer: vllm-serve, guidellm, hyperfine...")
    file: str | None = key("the file read")
    entry: str | None = key("where in the file: `line 3`, `benchmarks[1]`")
    label: str | None = key("the entry's own name in the file")
    fingerprint: str | None = key("digest of the entry's content, to notice a file imported twice")


@dataclass(frozen=True)
class SlurmTask(Part):
    """The Slurm array task that ran a run, or that Slurm ended."""

    job: str | None = key("the array job id", keep=True)
    task: int | None = key("the array task id", keep=True)
    job_id: str | None = key("the task's own job id")
    node: str | None = key("the node it ran on")
    attempt: int | None = key("how many times Slurm had requeued it", keep=True)
    state: str | None = key("Slurm's state of the task, when Slurm ended it")
    ended_by: str | None = key("`slurm` when Slurm ended it")
    reconciled: bool = key("recorded by `status`, not by the task (it left no run)", False)
    log: str | None = key("the task's log, relative to the project root (a reconciled task)")


@dataclass(frozen=True)
class SequentialLook(Part):
    """One look of a sequential test at the candidate's values so far."""

    repetitions: int | None = key("the candidate's values so far")
    starts: int | None = key("the candidate's server starts so far")
    p: float | None = key("p of 'no difference' at this look, against the per-look level")
    equivalence_p: float | None = key("p of equivalence at this look (an equivalence margin set)")
    delta_pct: float | None = key("the candidate's change against the baseline, percent")
    decision: str | None = key("`significant` or `equivalent` when this look decided")


@dataclass(frozen=True)
class SequentialTest(Part):
    """`run --until-decided`'s sequential test: its plan, each look and the decision."""

    method: str | None = key("how alpha is spent over the looks")
    compare_to: str | None = key("the baseline experiment")
    metric: str | None = key("the metric it decides on (the primary metric)")
    baseline_n: int | None = key("the baseline's values it compared with")
    baseline_runs: tuple[int, ...] = key("the baseline's runs it looked at", factory=tuple)
    baseline_starts: int | None = key("the baseline's server starts at the last look")
    alpha: float | None = key("the level of the whole test")
    alpha_per_look: float | None = key("the level of each look")
    shares: int | None = key("how many equal shares alpha was split into")
    looks_planned: tuple[int, ...] = key("the server start counts at which it may look", factory=tuple)
    max_repetitions: int | None = key("the most server starts (`--max-starts`; named before looks counted starts)")
    looks: tuple[SequentialLook, ...] = key("each look taken, in order", factory=tuple)
    decision: str | None = key("`significant` or `equivalent`; none: not decided")
    notes: tuple[str, ...] = key("what stopped it early or changed its course", factory=tuple)


@dataclass(frozen=True)
class CommandResults(Part):
    """Where a command workload's numbers are read from."""

    kind: str | None = key("`format` (an importer reads the output), `json` (a path per metric) or `regex`")
    format: str | None = key("the importer, for `format`")
    fields: dict[str, str] = key("each metric's JSON path or pattern", factory=dict)
    source: str | None = key("`{output}` (the file the command writes) or `stdout`", json="from")


@dataclass(frozen=True)
class CapacityPlan(Part):
    """A workload's capacity search as configured (`find_capacity`)."""

    target: float | None = key("the SLO attainment a rate must keep")
    start_rate: float | None = key("the first rate tried, requests per second")
    precision: float | None = key("how tight the bracket must be before the search stops")
    time_budget_s: float | None = key("the time one search may take, seconds")


@dataclass(frozen=True)
class WorkloadRecord(Part):
    """The workload as `run` ran it."""

    name: str | None = key("its name in benchdoc.toml")
    kind: str | None = key("`loadgen` (benchdoc's load generator) or `command`")
    settings: dict[str, Any] | None = key("loadgen: the load generator's settings as it ran them (as `settings`)",
                                          open_because=_LOADGEN_SETTINGS)
    level: LevelRecord | None = key("loadgen: the level of a sweep this run measured")
    capacity: CapacityPlan | None = key("loadgen: the capacity search configured")
    argv: tuple[str, ...] = key("command: its argv, secrets redacted, `{output}` for the results file", factory=tuple)
    env: dict[str, str] = key("command: the variables set for it, secret values as `***`", factory=dict)
    timeout_s: float | None = key("command: how long one run of it may take, seconds")
    warmup: int | None = key("command: runs before the measured ones, results discarded")
    results: CommandResults | None = key("command: where its numbers are read from")


@dataclass(frozen=True)
class ServerSeries(Part):
    """The server's own `/metrics` over one repetition's measured phase."""

    repetition: int = key("the repetition, from 0", 0)
    dialect: str | None = key("whose metric names were read: `vllm`, `sglang`...")
    interval_s: float | None = key("seconds between two scrapes")
    times_s: tuple[float, ...] = key("each scrape's time from the phase's start, seconds", factory=tuple)
    series: dict[str, tuple[float | None, ...]] = key(
        "each series found (`running`, `waiting`, `kv_cache_usage`, `prefix_cache_hit_rate`, `spec_accept_length`), "
        "a value per scrape (none where the server gave none)", factory=dict)
    summary: dict[str, dict[str, float]] = key("each series' `mean`, `max` and `points`", factory=dict)


@dataclass(frozen=True)
class ServerMetrics(Part):
    """The server's `/metrics` scraped every second of each measured phase."""

    repetitions: tuple[ServerSeries, ...] = key("each repetition's series", factory=tuple)


@dataclass(frozen=True)
class RepetitionRecord(Part):
    """One repetition's bookkeeping, as `run` keeps it."""

    repetition: int = key("its index, from 0, as the samples number them", 0, keep=True)
    start: int = key("the server start it came from (an index into `launch.pids`; 0 when benchdoc did not "
                     "start the server)", 0, keep=True)
    seed: int | None = key("the prompts' seed (load generator)")
    requests: int | None = key("requests of the measured phase")
    failed_requests: int | None = key("of those, the failed")
    cut_short_requests: int | None = key("of the failed, streams that ended before the request was complete")
    failure_reasons: dict[str, int] = key("failed requests by cause", factory=dict)
    warmup_requests: int | None = key("warm-up requests before it (once per server start)")
    duration_s: float | None = key("wall time of its measured phase, seconds")
    aborted: str | None = key("why the load generator stopped sending early")
    results: str | None = key("the file a command workload's numbers were read from")
    client: ClientLoad | None = key("the load generator's own load and its verdict")
    provenance: dict[str, Any] | None = key("where its counts came from: output and prompt tokens and tokens per "
                                            "chunk by source, the accept length's source", open_because=_PROVENANCE)


@dataclass(frozen=True)
class RunMetadata:
    """Everything a run records beyond its samples and its environment."""

    version: int = key("layout of this metadata; rows without it are version 1", METADATA_VERSION, keep=True)
    log_path: str | None = key("the server log of a run's first start, relative to the project root")
    logs: RunLogs = key("every server log and workload log of the run", factory=RunLogs)
    repetitions: int | None = key("repetitions completed")
    planned_repetitions: int | None = key("repetitions planned before the run started")
    interleaved: bool = key("experiments took turns repetition by repetition (`run --interleave`)", False)
    per_repetition: tuple[RepetitionRecord, ...] = key("each repetition's bookkeeping, one entry per repetition",
                                                      factory=tuple)
    launch: ServerLaunch | None = key("how `run` started the server, each start, and how each ended")
    server: ServedBy | None = key("the server that answered the load generator (run, bench)")
    workload: WorkloadRecord | None = key("the workload as `run` ran it: name, kind and its settings or argv")
    settings: dict[str, Any] | None = key("the load generator's settings as it ran them (bench, run)",
                                          open_because=_LOADGEN_SETTINGS)
    provenance: dict[str, Any] | None = key(
        "where the counts came from: output and prompt tokens and tokens per chunk by source (summed over "
        "repetitions), the accept length's source", open_because=_PROVENANCE)
    duration_s: float | None = key("wall time of the measured phase in seconds, summed over repetitions")
    requests: int | None = key("requests of the measured phase, summed over repetitions")
    cut_short: int | None = key("of the failed requests, those whose stream ended before the request was complete")
    failures: dict[str, int] = key("failed requests by cause, summed over repetitions", factory=dict)
    until_decided: SequentialTest | None = key("the sequential plan, each look and the decision (`run --until-decided`)")
    simulator: bool = key("measured against benchdoc's simulator: simulated, not hardware, numbers", False)
    traceback: str | None = key("the end of the traceback of a harness error")
    imported: ImportSource | None = key("where an imported run came from", json="import")
    figures: dict[str, Any] | None = key("every figure a project benchmark script printed",
                                         open_because="each benchmark script prints figures of its own making")
    tool: dict[str, Any] = key("fields of another tool's results file, kept as found", factory=dict,
                               open_because="another tool's fields, whatever that tool wrote")
    config_fingerprint: str | None = key(
        "hash of the configuration `run` ran: argv, added env, cwd, workload settings (see \"Which results are current\")")
    record_id: str | None = key(
        "the one event the run records (`slurm:JOB_TASK` for an array task): recorded once, whoever records it "
        "(docs/cluster.md)")
    slurm: SlurmTask | None = key("the Slurm array task that ran it")
    load: LevelRecord | None = key("the level of a load sweep this run measured (`EXP@rate=R`)")
    capacity: CapacitySearch | None = key("a capacity search: the levels tried, why it stopped, its answer")
    client: ClientVerdict | None = key(
        "the client verdict: whether the load generator was the bottleneck, in how many of the repetitions that "
        "watched it, and why (each repetition's own load, lag, CPU and send delay: per_repetition)")
    server_metrics: ServerMetrics | None = key(
        "the server's `/metrics` scraped every second of each measured phase "
        "([metrics.md](metrics.md#server-metrics-over-the-run))")
    interrupted: bool = key("Ctrl-C stopped it: only the repetitions that finished are kept (`bench --repetitions`)",
                            False)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in the ledger and shown by `history --json`."""
        return to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> RunMetadata:
        """Read any version's JSON form; values of the wrong type are left out, never fatal."""
        found = dict(data or {})
        if not isinstance(found.get("version"), int) or isinstance(found.get("version"), bool):
            found = _from_version_1(found)
        return from_json(cls, found, version=METADATA_VERSION)


METADATA_KEYS: tuple[MetadataKey, ...] = tuple(
    MetadataKey(item.json, type_text(item.type), item.meaning) for item in declared(RunMetadata)
)
_KNOWN = frozenset(item.key for item in METADATA_KEYS)

# The records inside a run's metadata, each with its own table in docs/running.md.
PARTS: tuple[tuple[str, type], ...] = (
    ("logs", RunLogs), ("per_repetition[]", RepetitionRecord), ("per_repetition[].client", ClientLoad),
    ("launch", ServerLaunch), ("launch.stops[]", ServerStop), ("server", ServedBy), ("import", ImportSource),
    ("slurm", SlurmTask), ("load", LevelRecord), ("capacity", CapacitySearch), ("capacity.levels[]", CapacityLevel),
    ("client", ClientVerdict), ("workload", WorkloadRecord), ("workload.results", CommandResults),
    ("workload.capacity", CapacityPlan), ("until_decided", SequentialTest), ("until_decided.looks[]", SequentialLook),
    ("server_metrics", ServerMetrics), ("server_metrics.repetitions[]", ServerSeries),
)


def _table(rows: Any) -> str:
    lines = ["| Key | Type | Meaning |", "|---|---|---|"]
    lines += [f"| `{item.json}` | {type_text(item.type)} | {item.meaning} |" for item in rows]
    return "\n".join(lines) + "\n"


def metadata_table() -> str:
    """The registry as the Markdown table docs/running.md shows (a test holds them equal)."""
    return _table(declared(RunMetadata))


def metadata_docs() -> str:
    """The registry's tables as docs/running.md shows them: the run's keys, then each record's."""
    parts = [metadata_table()]
    for path, cls in PARTS:
        assert is_record(cls)
        parts.append(f"`{path}`: {(cls.__doc__ or '').splitlines()[0]}\n\n{_table(declared(cls))}")
    return "\n".join(parts)


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
