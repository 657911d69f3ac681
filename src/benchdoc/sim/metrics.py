"""The server's counters and their Prometheus text rendering, in both dialects: named as
vLLM names them (``vllm:``) and as SGLang does (``sglang:``), so a client can be tested
against either."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchdoc.sim.cache import KV_CACHE_TOKENS


@dataclass
class Counters:
    """Live counts of one server; mutated only from its event loop."""

    running: int = 0
    waiting: int = 0
    prompt_tokens: int = 0
    generation_tokens: int = 0
    requests_finished: dict[str, int] = field(default_factory=dict)  # by finish reason
    requests_failed: int = 0  # answered 500 (injected errors)
    requests_aborted: int = 0  # the client went away mid-request
    requests_preempted: int = 0  # ended early by a newer request (--preempt-on-arrival)
    spec_drafts: int = 0  # verify steps
    spec_draft_tokens: int = 0
    spec_accepted_tokens: int = 0
    spec_accepted_per_position: list[int] = field(default_factory=list)
    kv_tokens: int = 0  # held by the running requests (prompt and max_tokens each)
    prefix_queries: int = 0  # prompt tokens looked up in the prefix cache
    prefix_hits: int = 0  # of which found cached
    last_prefix_hit_rate: float = 0.0
    ttft_sum_s: float = 0.0  # the server's own TTFT (arrival to first token written), summed
    ttft_count: int = 0

    def record_step(self, drafted: int, accepted: int) -> None:
        self.spec_drafts += 1
        self.spec_draft_tokens += drafted
        self.spec_accepted_tokens += accepted
        if len(self.spec_accepted_per_position) < drafted:
            self.spec_accepted_per_position.extend([0] * (drafted - len(self.spec_accepted_per_position)))
        for position in range(accepted):
            self.spec_accepted_per_position[position] += 1

    def mean_accept_length(self) -> float | None:
        """Tokens per verify step since start, as 1 + accepted / drafts."""
        if not self.spec_drafts:
            return None
        return 1.0 + self.spec_accepted_tokens / self.spec_drafts


def render(counters: Counters, model: str, speculative: bool) -> str:
    """Prometheus text exposition (format 0.0.4)."""
    label = f'model_name="{_escape(model)}"'
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            lines.append(f"{name}{{{labels}}} {float(value)!r}")

    metric("vllm:num_requests_running", "gauge", "Requests in the running batch (simulated).",
           [(label, counters.running)])
    metric("vllm:num_requests_waiting", "gauge", "Requests waiting for a batch slot (simulated).",
           [(label, counters.waiting)])
    usage = min(1.0, counters.kv_tokens / KV_CACHE_TOKENS)
    metric("vllm:kv_cache_usage_perc", "gauge", "Fraction of the KV cache in use, 0 to 1 (simulated).",
           [(label, usage)])
    metric("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache (simulated).",
           [(label, counters.prefix_queries)])
    metric("vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache (simulated).",
           [(label, counters.prefix_hits)])
    metric("sglang:num_running_reqs", "gauge", "Running requests (simulated).", [(label, counters.running)])
    metric("sglang:num_queue_reqs", "gauge", "Queued requests (simulated).", [(label, counters.waiting)])
    metric("sglang:token_usage", "gauge", "KV-cache token usage, 0 to 1 (simulated).", [(label, usage)])
    metric("sglang:cache_hit_rate", "gauge", "Prefix-cache hit rate of the last prompt admitted (simulated).",
           [(label, counters.last_prefix_hit_rate)])
    if speculative:
        accept = counters.mean_accept_length()
        metric("sglang:spec_accept_length", "gauge", "Mean accepted tokens per verify step (simulated).",
               [(label, accept if accept is not None else 1.0)])
    metric("vllm:prompt_tokens_total", "counter", "Prefill tokens processed (simulated).",
           [(label, counters.prompt_tokens)])
    metric("vllm:generation_tokens_total", "counter", "Generation tokens produced (simulated).",
           [(label, counters.generation_tokens)])
    reasons = dict(counters.requests_finished)
    for reason in ("length", "stop", "abort"):
        reasons.setdefault(reason, 0)
    reasons["abort"] += counters.requests_aborted
    metric("vllm:request_success_total", "counter", "Finished requests by finish reason (simulated).",
           [(f'{label},finished_reason="{reason}"', count) for reason, count in sorted(reasons.items())])
    metric("vllm:num_preemptions_total", "counter", "Streams ended early by a newer request (simulated).",
           [(label, counters.requests_preempted)])
    metric("benchdoc_sim:request_errors_total", "counter", "Requests answered with an injected HTTP 500.",
           [(label, counters.requests_failed)])
    if speculative:
        metric("vllm:spec_decode_num_drafts_total", "counter", "Speculative verify steps (simulated).",
               [(label, counters.spec_drafts)])
        metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Draft tokens proposed (simulated).",
               [(label, counters.spec_draft_tokens)])
        metric("vllm:spec_decode_num_accepted_tokens_total", "counter", "Draft tokens accepted (simulated).",
               [(label, counters.spec_accepted_tokens)])
        metric("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter",
               "Draft tokens accepted at each draft position (simulated).",
               [(f'{label},position="{position}"', count)
                for position, count in enumerate(counters.spec_accepted_per_position)])
    # As vLLM's histogram of the same name, its sum and count only: a client that cannot read
    # the stamps in the stream can still set its mean TTFT beside the server's own.
    lines.append("# HELP vllm:time_to_first_token_seconds Arrival to first token written, the server's own stamps.")
    lines.append("# TYPE vllm:time_to_first_token_seconds summary")
    lines.append(f"vllm:time_to_first_token_seconds_sum{{{label}}} {counters.ttft_sum_s!r}")
    lines.append(f"vllm:time_to_first_token_seconds_count{{{label}}} {float(counters.ttft_count)!r}")
    lines.append("# benchdoc simulator: these figures are simulated, not measured on hardware")
    return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
