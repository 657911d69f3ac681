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
from benchdoc.workloads.metrics import percentile_suffix
from benchdoc.workloads.protocols import APIS, ENDPOINTS

DEFAULT_REQUESTS = 100


@dataclass(frozen=True)
class Timeouts:
    """Bounds on each request, in seconds; a request past one fails with the reason.

    ``connect_s``: establishing the TCP connection. ``first_token_s``: from the send to
    the first chunk carrying output. ``idle_s``: longest silence between two reads once
    output has started. ``request_s``: the whole request (None: no overall bound).
    """

    connect_s: float = 10.0
    first_token_s: float = 120.0
    idle_s: float = 60.0
    request_s: float | None = None

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
    output tokens; a ``*_max`` turns either into a uniform range (opt-in).
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
        concurrency = self.concurrency
        if not self.open_loop and concurrency is None:
            concurrency = 1
        requests = self.requests
        if requests is None and self.duration_s is None:
            requests = DEFAULT_REQUESTS
        return replace(self, concurrency=concurrency, requests=requests)

    def problems(self) -> list[str]:
        found: list[str] = []
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            found.append(f"url must be an http:// or https:// address (got {redact_url(self.url)!r})")
        if self.api not in APIS:
            found.append(f"api must be one of {', '.join(APIS)} (got {self.api!r})")
        if self.concurrency is not None and self.rate is not None:
            found.append("give either concurrency (closed loop) or rate (open loop), not both")
        if self.concurrency is not None and self.concurrency < 1:
            found.append(f"concurrency must be >= 1 (got {self.concurrency})")
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            found.append(f"rate must be > 0 requests/s (got {self.rate})")
        if not (math.isfinite(self.burstiness) and self.burstiness > 0):
            found.append(f"burstiness must be > 0 (got {self.burstiness})")
        if self.max_concurrency is not None:
            if self.rate is None:
                found.append("max_concurrency applies to an open loop (rate); use concurrency for a closed loop")
            elif self.max_concurrency < 1:
                found.append(f"max_concurrency must be >= 1 (got {self.max_concurrency})")
        if self.requests is not None and self.duration_s is not None:
            found.append("give either requests or duration_s, not both")
        if self.requests is not None and self.requests < 1:
            found.append(f"requests must be >= 1 (got {self.requests})")
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
        for pct in self.percentiles:
            try:
                percentile_suffix(pct)
            except (ValueError, TypeError):
                found.append(f"percentiles must be strictly between 0 and 100 (got {pct!r})")
        if self.abort_after_connect_errors < 1:
            found.append(f"abort_after_connect_errors must be >= 1 (got {self.abort_after_connect_errors})")
        found.extend(self.timeouts.problems())
        return found

    def settings(self) -> dict[str, Any]:
        """Every setting of the workload, JSON-ready, for the record of the run. The API
        key is left out, and so are any credentials written into the URLs."""
        data = asdict(self)
        data.pop("api_key", None)
        data["url"] = redact_url(self.url)
        data["endpoint"] = redact_url(self.endpoint_url) if self.api in APIS else None
        if self.metrics_url:
            data["metrics_url"] = redact_url(self.metrics_url)
        data["percentiles"] = list(self.percentiles)
        data["load"] = "open" if self.open_loop else "closed"
        data["arrivals"] = (
            ("poisson" if self.burstiness == 1.0 else f"gamma(shape={self.burstiness:g})") if self.open_loop else None
        )
        data["prompt"] = "synthetic words"
        data["streaming"] = True
        data["authenticated"] = self.api_key is not None
        if self.api == "sglang":
            data["forced_length_fields"] = ["max_new_tokens", "ignore_eos"] if self.ignore_eos else ["max_new_tokens"]
        else:
            data["forced_length_fields"] = (
                ["max_tokens", "min_tokens", "ignore_eos"] if self.ignore_eos else ["max_tokens"]
            )
        return data


def redact_url(url: str) -> str:
    """``url`` without a user name or password in it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
