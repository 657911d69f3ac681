"""What a workload asks of a server: API, load shape, lengths, timeouts, seed.

Every choice that changes the numbers is a field here and is recorded with the run
(``WorkloadSpec.settings``); the API key is the one field that is never recorded.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchdoc.errors import UsageError
from benchdoc.limits import (
    DEFAULT_REQUEST_TIMEOUT_S,
    MAX_CONCURRENCY,
    MAX_PREFIX_TOKENS,
    MAX_PROMPT_TOKENS_TOTAL,
    MAX_TOKENS,
)
from benchdoc.workloads.loops import default_event_loop
from benchdoc.workloads.metrics import percentile_suffix
from benchdoc.workloads.protocols import APIS, ENDPOINTS

DEFAULT_REQUESTS = 100
EVENT_LOOPS: tuple[str, ...] = ("asyncio", "uvloop")
# What reads the streamed responses: the lean reader (an asyncio Protocol over httptools;
# plain http only, anything else falls back to aiohttp) or aiohttp's client.
HTTP_CLIENTS: tuple[str, ...] = ("lean", "aiohttp")
MAX_REQUESTS = 10_000_000  # one client, one process: a run it can hold in memory


@dataclass(frozen=True)
class Timeouts:
    """Bounds on each request, in seconds; a request past one fails with the reason.

    ``connect_s``: establishing the TCP connection. ``first_token_s``: from the send to
    the first chunk carrying output. ``idle_s``: longest silence between two reads once
    output has started. ``request_s``: the whole request (600 s unless set: a stream that
    never ends, trickling a token now and then, must not hold a run forever; None: no bound).
    """

    connect_s: float = 10.0
    first_token_s: float = 120.0
    idle_s: float = 60.0
    request_s: float | None = DEFAULT_REQUEST_TIMEOUT_S

    def problems(self) -> list[str]:
        found = []
        for name in ("connect_s", "first_token_s", "idle_s", "request_s"):
            value = getattr(self, name)
            if value is None and name == "request_s":
                continue
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                found.append(f"timeout {name} must be a number of seconds > 0 (got {value!r})")
        return found


@dataclass(frozen=True)
class WorkloadSpec:
    """One streaming workload against one server.

    Load shape: a closed loop of ``concurrency`` requests in flight (the default, with
    concurrency 1), or an open loop at ``rate`` requests per second with gamma arrivals
    of shape ``burstiness`` (1 = Poisson), optionally capped at ``max_concurrency`` in
    flight (requests over the cap wait in the client; that wait is ``queue_ms``). Size:
    ``requests`` (default 100) or ``duration_s`` of sending. ``warmup_requests`` run
    first and are excluded from every metric.

    Lengths: ``input_tokens`` words of synthetic prompt and ``output_tokens`` forced
    output tokens; a ``*_max`` turns either into a uniform range (opt-in). With a
    ``tokenizer`` (a local tokenizer.json) lengths are exact tokens. Prompts can come from
    a ``dataset`` file (see ``benchdoc.workloads.datasets``): as written, or cut to
    ``input_tokens`` with ``truncate_prompts``; its output lengths are used unless
    ``dataset_output_len`` is off. ``shared_prefix_groups`` groups of requests each share a
    system prompt of ``shared_prefix_tokens`` tokens.

    Goodput: ``slo`` is a tuple of (latency metric, threshold in ms) pairs; a request
    counts as good when it meets every one (see :data:`SLO_METRICS`).
    """

    url: str
    api: str = "openai-completions"
    model: str | None = None  # None: the first model the server lists
    concurrency: int | None = None
    rate: float | None = None
    burstiness: float = 1.0
    max_concurrency: int | None = None
    requests: int | None = None
    duration_s: float | None = None
    warmup_requests: int = 0
    input_tokens: int = 128
    input_tokens_max: int | None = None
    output_tokens: int = 128
    output_tokens_max: int | None = None
    temperature: float = 0.0
    ignore_eos: bool = True
    # OpenAI routes: ask for usage on every chunk (exact tokens per chunk for itl_ms).
    continuous_usage: bool = True
    timeouts: Timeouts = field(default_factory=Timeouts)
    seed: int = 0
    percentiles: tuple[float, ...] = ()
    # Prometheus endpoint scraped before and after the measured phase for speculative
    # decoding counters; None means the server's /metrics, "" turns scraping off.
    metrics_url: str | None = None
    # Stop sending after this many consecutive requests could not even connect.
    abort_after_connect_errors: int = 3
    dataset: str | None = None
    dataset_format: str | None = None  # None: from the file's extension
    truncate_prompts: bool = False
    dataset_output_len: bool = True
    # Dataset entries kept only within these lengths (prompt and answer each at least the
    # minimum; the prompt at most max_input; both together at most max_total). Off by default.
    dataset_min_tokens: int = 0
    dataset_max_input: int | None = None
    dataset_max_total: int | None = None
    tokenizer: str | None = None
    shared_prefix_groups: int = 0
    shared_prefix_tokens: int = 0
    slo: tuple[tuple[str, float], ...] = ()
    # Client processes, each with its own event loop (None: chosen from the load and the
    # cores free; see benchdoc.workloads.workers).
    workers: int | None = None
    # The event loop: "uvloop" (the default where it is installed: a dependency on Linux and
    # macOS) or "asyncio" (the default elsewhere); None until resolved.
    event_loop: str | None = None
    # The HTTP client that reads the streams (see HTTP_CLIENTS).
    http_client: str = "lean"
    # Added to every request: HTTP headers, and fields of the JSON body (a JSON object's text).
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    extra_body: str | None = None
    # Open loop: the rate climbs linearly from 0 to ``rate`` over this many seconds.
    ramp_up_s: float | None = None
    # A JSONL trace of arrivals (timestamp, input and output lengths) replayed instead of a rate.
    trace: str | None = None
    # Chat on a ShareGPT dataset: each stream holds a conversation, every turn sent with the
    # conversation so far (the server's own answers as the assistant's turns).
    multi_turn: bool = False
    api_key: str | None = field(default=None, repr=False, compare=False)

    @property
    def open_loop(self) -> bool:
        return self.rate is not None

    @property
    def base_url(self) -> str:
        """The server's base URL: ``url`` without a trailing slash or the API's path."""
        url = self.url.rstrip("/")
        endpoint = ENDPOINTS.get(self.api, "")
        if endpoint and url.endswith(endpoint):
            url = url[: -len(endpoint)]
        return url

    @property
    def endpoint_url(self) -> str:
        return self.base_url + ENDPOINTS[self.api]

    def resolved(self) -> WorkloadSpec:
        """This spec with its defaults made explicit, after checking it; raises
        :class:`UsageError` naming every problem."""
        problems = self.problems()
        if problems:
            raise UsageError("invalid workload: " + "; ".join(problems))
        if self.trace is not None:  # its requests, at its own times (rate: its mean, for the record)
            from benchdoc.workloads.trace import load_trace

            trace = load_trace(self.trace)
            return replace(self, rate=self.rate or trace.mean_rate(), requests=len(trace.times_s),
                           event_loop=self.event_loop or default_event_loop())
        concurrency = self.concurrency
        if not self.open_loop and concurrency is None:
            concurrency = 1
        requests = self.requests
        if requests is None and self.duration_s is None:
            requests = DEFAULT_REQUESTS
        return replace(self, concurrency=concurrency, requests=requests, event_loop=self.event_loop or default_event_loop())

    def problems(self) -> list[str]:
        """Every setting that cannot run, each in one line (the url's, the load's and its
        bounds, the amount's, the prompts', the client's, the SLO's), before anything is sent."""
        return [
            *self._url_problems(),
            *self._load_problems(),
            *self._amount_problems(),
            *self.timeouts.problems(),
            *self._prompt_problems(),
            *self._extra_problems(),
            *self._client_problems(),
            *slo_problems(self.slo),
        ]

    def _url_problems(self) -> list[str]:
        found: list[str] = []
        try:
            parts = urlsplit(self.url)
            parts.port  # noqa: B018 - a port that is no number raises here, not mid-run
        except ValueError as err:
            found.append(f"url {redact_url(self.url)!r} is not a valid address: {err}")
        else:
            if parts.scheme not in ("http", "https") or not parts.netloc:
                found.append(f"url must be an http:// or https:// address (got {redact_url(self.url)!r})")
            if (parts.username or parts.password) and self.api_key is not None:
                found.append("the url carries a user and password and an API key is given too: use one of them")
        if self.api not in APIS:
            found.append(f"api must be one of {', '.join(APIS)} (got {self.api!r})")
        return found

    def _load_problems(self) -> list[str]:
        found: list[str] = []
        if self.concurrency is not None and self.rate is not None:
            found.append("give either concurrency (closed loop) or rate (open loop), not both")
        if self.concurrency is not None and self.concurrency < 1:
            found.append(f"concurrency must be >= 1 (got {self.concurrency})")
        found.extend(self._size_problems())
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            found.append(f"rate must be > 0 requests/s (got {self.rate})")
        if not (math.isfinite(self.burstiness) and self.burstiness > 0):
            found.append(f"burstiness must be > 0 (got {self.burstiness})")
        if self.max_concurrency is not None:
            if self.rate is None:
                found.append("max_concurrency applies to an open loop (rate); use concurrency for a closed loop")
            elif self.max_concurrency < 1:
                found.append(f"max_concurrency must be >= 1 (got {self.max_concurrency})")
        return found

    def _amount_problems(self) -> list[str]:
        found: list[str] = []
        if self.requests is not None and self.duration_s is not None:
            found.append("give either requests or duration_s, not both")
        if self.requests is not None and self.requests < 1:
            found.append(f"requests must be >= 1 (got {self.requests})")
        if self.requests is not None and self.requests > MAX_REQUESTS:
            found.append(f"requests must be at most {MAX_REQUESTS:,} for one client (got {self.requests})")
        if self.duration_s is not None and not (math.isfinite(self.duration_s) and self.duration_s > 0):
            found.append(f"duration_s must be > 0 (got {self.duration_s})")
        if self.warmup_requests < 0:
            found.append(f"warmup_requests must be >= 0 (got {self.warmup_requests})")
        for name in ("input_tokens", "output_tokens"):
            low, high = getattr(self, name), getattr(self, name + "_max")
            if low < 1:
                found.append(f"{name} must be >= 1 (got {low})")
            if high is not None and high < low:
                found.append(f"{name}_max ({high}) must be >= {name} ({low})")
        if not (math.isfinite(self.temperature) and self.temperature >= 0):
            found.append(f"temperature must be >= 0 (got {self.temperature})")
        return found

    def _client_problems(self) -> list[str]:
        found: list[str] = []
        for pct in self.percentiles:
            try:
                percentile_suffix(pct)
            except (ValueError, TypeError):
                found.append(f"percentiles must be strictly between 0 and 100 (got {pct!r})")
        if self.abort_after_connect_errors < 1:
            found.append(f"abort_after_connect_errors must be >= 1 (got {self.abort_after_connect_errors})")
        if self.event_loop is not None and self.event_loop not in EVENT_LOOPS:
            found.append(f"event_loop must be one of {', '.join(EVENT_LOOPS)} (got {self.event_loop!r})")
        if self.http_client not in HTTP_CLIENTS:
            found.append(f"http_client must be one of {', '.join(HTTP_CLIENTS)} (got {self.http_client!r})")
        if self.workers is not None and self.workers < 1:
            found.append(f"workers must be >= 1 (got {self.workers})")
        return found

    def _extra_problems(self) -> list[str]:
        from benchdoc.workloads.extras import parse_extra_body, parse_header

        found: list[str] = []
        for name, value in self.headers:
            try:
                parse_header(f"{name}:{value}")
            except ValueError as err:
                found.append(f"header: {err}")
        if self.extra_body is not None:
            try:
                parse_extra_body(self.extra_body)
            except ValueError as err:
                found.append(f"extra_body: {err}")
        if self.ramp_up_s is not None:
            if self.rate is None or self.trace is not None:
                found.append("ramp_up_s applies to an open loop at a rate, not to a closed loop or a trace")
            if not (math.isfinite(self.ramp_up_s) and self.ramp_up_s > 0):
                found.append(f"ramp_up_s must be > 0 seconds (got {self.ramp_up_s})")
        if self.multi_turn and (self.api != "openai-chat" or self.rate is not None or not self.dataset
                                or self.trace is not None):
            found.append("multi_turn needs the openai-chat API, a ShareGPT dataset and a closed loop (concurrency)")
        if self.trace is not None and (self.concurrency is not None or self.duration_s is not None):
            found.append("a trace sets the arrivals and their number itself: give no concurrency or duration")
        return found

    def _size_problems(self) -> list[str]:
        """Bounds that keep one client's memory in check (see benchdoc.limits)."""
        found: list[str] = []
        for name in ("concurrency", "max_concurrency"):
            value = getattr(self, name)
            if value is not None and value > MAX_CONCURRENCY:
                found.append(f"{name} must be at most {MAX_CONCURRENCY:,} (got {value:,})")
        for name in ("input_tokens", "input_tokens_max", "output_tokens", "output_tokens_max", "shared_prefix_tokens"):
            value = getattr(self, name)
            if value is not None and value > MAX_TOKENS:
                found.append(f"{name} must be at most {MAX_TOKENS:,} tokens (got {value:,})")
        per_prompt = self.input_tokens_max or self.input_tokens
        prompts = (self.requests or 0) + max(0, self.warmup_requests)
        if self.dataset is None and per_prompt * prompts > MAX_PROMPT_TOKENS_TOTAL:
            found.append(f"the prompts, built before timing starts, must hold at most {MAX_PROMPT_TOKENS_TOTAL:,} "
                         f"tokens together (got {prompts:,} requests of up to {per_prompt:,})")
        prefix_tokens = self.shared_prefix_groups * self.shared_prefix_tokens
        if self.shared_prefix_groups > MAX_CONCURRENCY or prefix_tokens > MAX_PREFIX_TOKENS:
            found.append(f"shared prefixes must hold at most {MAX_PREFIX_TOKENS:,} tokens together "
                         f"(got {self.shared_prefix_groups:,} groups of {self.shared_prefix_tokens:,})")
        if self.api_key is not None and not self.api_key.isprintable():
            found.append("the API key holds a control character (a line break or CR pasted with it?)")
        return found

    def _prompt_problems(self) -> list[str]:
        from benchdoc.workloads.datasets import FORMATS

        found: list[str] = []
        if self.dataset_format is not None and self.dataset_format not in FORMATS:
            found.append(f"dataset_format must be one of {', '.join(FORMATS)} (got {self.dataset_format!r})")
        if self.dataset_format is not None and not self.dataset:
            found.append("dataset_format applies to a dataset")
        if self.truncate_prompts and not self.dataset:
            found.append("truncate_prompts applies to a dataset")
        filters = (self.dataset_min_tokens, self.dataset_max_input, self.dataset_max_total)
        if any(filters) and not self.dataset:
            found.append("the dataset length filters apply to a dataset")
        if self.dataset_min_tokens < 0 or any(v is not None and v < 1 for v in filters[1:]):
            found.append("dataset length filters must be whole numbers >= 1 (the minimum >= 0)")
        if self.shared_prefix_groups < 0:
            found.append(f"shared_prefix_groups must be >= 0 (got {self.shared_prefix_groups})")
        if self.shared_prefix_groups and self.shared_prefix_tokens < 1:
            found.append(f"shared_prefix_tokens must be >= 1 with shared_prefix_groups (got {self.shared_prefix_tokens})")
        if self.shared_prefix_tokens and not self.shared_prefix_groups:
            found.append("shared_prefix_tokens needs shared_prefix_groups >= 1")
        return found

    def prompt_description(self) -> str:
        """Where the prompts come from, in a few words (the files are not read here)."""
        if self.dataset:
            from benchdoc.workloads.datasets import guess_format

            fmt = self.dataset_format or guess_format(self.dataset)
            what = "text corpus slices" if fmt == "text" else f"{fmt} dataset"
            if self.truncate_prompts:
                what += ", truncated"
        else:
            what = "random token ids decoded" if self.tokenizer else "synthetic words"
        if self.shared_prefix_groups:
            what += f", {self.shared_prefix_groups} shared prefixes of {self.shared_prefix_tokens} tokens"
        return what

    def settings(self) -> dict[str, Any]:
        """Every setting of the workload, JSON-ready, for the record of the run. The API
        key is left out, and so are any credentials written into the URLs."""
        from benchdoc.workloads.extras import parse_extra_body, recorded_body, recorded_headers

        data = asdict(self)
        data.pop("api_key", None)
        data["headers"] = recorded_headers(self.headers)
        data["extra_body"] = recorded_body(parse_extra_body(self.extra_body)) if self.extra_body else None
        data["url"] = redact_url(self.url)
        data["endpoint"] = redact_url(self.endpoint_url) if self.api in APIS else None
        if self.metrics_url:
            data["metrics_url"] = redact_url(self.metrics_url)
        data["percentiles"] = list(self.percentiles)
        data["load"] = "open" if self.open_loop else "closed"
        data["arrivals"] = (
            ("poisson" if self.burstiness == 1.0 else f"gamma(shape={self.burstiness:g})") if self.open_loop else None
        )
        if self.trace is not None:
            data["arrivals"] = "trace"
        elif self.ramp_up_s and self.open_loop:
            data["arrivals"] += f", linear ramp-up over {self.ramp_up_s:g} s"
        data["prompt"] = self.prompt_description()
        data["slo"] = {name: value for name, value in self.slo}
        data["streaming"] = True
        data["authenticated"] = self.api_key is not None
        if self.api == "sglang":
            data["forced_length_fields"] = ["max_new_tokens", "ignore_eos"] if self.ignore_eos else ["max_new_tokens"]
        else:
            data["forced_length_fields"] = (
                ["max_tokens", "min_tokens", "ignore_eos"] if self.ignore_eos else ["max_tokens"]
            )
        return data


# Per-request latencies an SLO can bound (vLLM's goodput: ttft, tpot and e2e latency).
SLO_METRICS: tuple[str, ...] = ("ttft_ms", "tpot_ms", "e2e_ms")


def parse_slo(text: str) -> tuple[tuple[str, float], ...]:
    """``"ttft_ms:200,tpot_ms:50"`` -> ``(("ttft_ms", 200.0), ("tpot_ms", 50.0))``;
    raises :class:`UsageError` naming the bad part."""
    pairs: list[tuple[str, float]] = []
    for part in text.split(","):
        name, sep, value = part.strip().partition(":")
        if not sep:
            raise UsageError(f"SLO part {part.strip()!r} should look like ttft_ms:200 (metric:milliseconds)")
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"SLO part {part.strip()!r}: {value.strip()!r} is not a number of milliseconds") from None
        pairs.append((name.strip(), number))
    pairs_tuple = tuple(pairs)
    problems = slo_problems(pairs_tuple)
    if problems:
        raise UsageError("; ".join(problems))
    return pairs_tuple


def slo_problems(slo: tuple[tuple[str, float], ...]) -> list[str]:
    found: list[str] = []
    seen: set[str] = set()
    for name, value in slo:
        if name not in SLO_METRICS:
            found.append(f"SLO metric must be one of {', '.join(SLO_METRICS)} (got {name!r})")
        elif name in seen:
            found.append(f"SLO metric {name} given twice")
        seen.add(name)
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            found.append(f"SLO threshold for {name} must be > 0 ms (got {value!r})")
    return found


def redact_url(url: str) -> str:
    """``url`` without a user name or password in it."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL urllib can split: hide what looks like a password in it
        from benchdoc.redact import redact_text

        return redact_text(url)
    try:
        if parts.username is None and parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:  # a port that is no number: keep what follows the last '@' of the authority
        host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
