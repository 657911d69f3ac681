"""What was observed for one request, and the per-request metrics derived from it.

Times are kept as offsets in milliseconds from the moment the request was sent, taken
with ``time.perf_counter``; nothing is rounded.
"""

from __future__ import annotations

from array import array
from collections.abc import MutableSequence
from dataclasses import dataclass, field
from typing import Any

# Where a request's output token count came from.
TOKENS_FROM_USAGE = "usage"  # the OpenAI-style usage block sent by the server
TOKENS_FROM_META_INFO = "meta_info"  # SGLang's meta_info.completion_tokens
TOKENS_FROM_CHUNKS = "chunks"  # no server count: the number of output-carrying chunks
TOKENS_FROM_TOKENIZER = "tokenizer"  # no server count: the output text counted with the tokenizer given
# No server count and no tokenizer, but the server said it stopped at the length limit
# (finish_reason "length") having sent no more chunks than max_tokens: max_tokens itself.
TOKENS_FROM_MAX_TOKENS = "max_tokens"
# Sources that give the exact count (the server's own), as opposed to a recount or an inference.
EXACT_TOKEN_SOURCES = frozenset({TOKENS_FROM_USAGE, TOKENS_FROM_META_INFO})

# How the tokens of a request were attributed to its chunks (for itl_ms).
CHUNK_TOKENS_FROM_COUNTS = "server-counts"  # cumulative server counts on every chunk, differenced
CHUNK_TOKENS_ONE_EACH = "one-per-chunk"  # no per-chunk counts, and total == number of chunks
CHUNK_TOKENS_FROM_TOKENIZER = "tokenizer"  # each chunk's text counted with the tokenizer given
CHUNK_TOKENS_SPREAD = "spread"  # no per-chunk counts; the total spread evenly over the chunks (assumed)

# Where a request's prompt token count came from.
INPUT_FROM_USAGE = "usage"
INPUT_FROM_META_INFO = "meta_info"
INPUT_FROM_PROMPT = "prompt-words"  # the server reported none: the synthetic prompt's word count


@dataclass
class RequestRecord:
    """One request of a workload: when it was due and sent, what arrived, how it ended."""

    index: int
    due_s: float  # when the request was due, seconds from the start of its phase
    requested_input_tokens: int
    requested_output_tokens: int
    sent_s: float | None = None  # when it was sent, seconds from the start of its phase
    ok: bool = False
    error: str | None = None
    # The response stream began but ended before the request was complete (no
    # finish_reason, or short of the forced length): a failure, counted apart.
    cut_short: bool = False
    http_status: int | None = None
    # Output-carrying chunks: arrival (ms since send) and tokens carried. Compact arrays:
    # a long run keeps millions of these.
    chunk_ms: MutableSequence[float] = field(default_factory=lambda: array("d"))
    chunk_tokens: MutableSequence[int] = field(default_factory=lambda: array("q"))
    end_ms: float | None = None  # end of the response stream, ms since send
    output_tokens: int | None = None
    output_token_source: str | None = None
    chunk_token_source: str | None = None
    input_tokens: int | None = None
    input_token_source: str | None = None
    finish_reason: str | None = None
    spec_verify_ct: int | None = None  # SGLang meta_info: verify steps of this request
    # From the send stamp to the moment the request's bytes were handed to the socket.
    send_delay_ms: float | None = None
    # The server's own TTFT of this request, when it reports its stamps (the simulator does).
    server_ttft_ms: float | None = None
    # Complete, but longer than the max_tokens it was sent with (the server ignored the limit).
    over_length: bool = False

    @property
    def queue_ms(self) -> float | None:
        if self.sent_s is None:
            return None
        return max(0.0, (self.sent_s - self.due_s) * 1000.0)

    @property
    def ttft_ms(self) -> float | None:
        return self.chunk_ms[0] if self.chunk_ms else None

    @property
    def e2e_ms(self) -> float | None:
        return self.end_ms

    @property
    def tpot_ms(self) -> float | None:
        ttft, e2e, out = self.ttft_ms, self.end_ms, self.output_tokens
        if ttft is None or e2e is None or out is None or out < 2:
            return None
        return (e2e - ttft) / (out - 1)

    def chunk_gaps_ms(self) -> list[float]:
        """Raw gaps between consecutive output-carrying chunks."""
        times = self.chunk_ms
        return [times[i] - times[i - 1] for i in range(1, len(times))]

    def itl_ms(self) -> list[float]:
        """Per-token gaps: a chunk carrying k tokens gives k values of gap/k.

        A chunk that carried text but no counted token (a server holding back a partial
        character) passes its gap on to the next chunk that does carry tokens.
        """
        values: list[float] = []
        times, tokens = self.chunk_ms, self.chunk_tokens
        carried = 0.0
        for i in range(1, len(times)):
            gap = times[i] - times[i - 1] + carried
            k = tokens[i]
            if k <= 0:
                carried = gap
                continue
            carried = 0.0
            share = gap / k
            values.extend([share] * k)
        return values

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view with the derived metrics alongside the raw observations."""
        return {
            "index": self.index,
            "ok": self.ok,
            "error": self.error,
            "cut_short": self.cut_short,
            "http_status": self.http_status,
            "due_s": self.due_s,
            "sent_s": self.sent_s,
            "queue_ms": self.queue_ms,
            "ttft_ms": self.ttft_ms,
            "tpot_ms": self.tpot_ms,
            "e2e_ms": self.e2e_ms,
            "requested_input_tokens": self.requested_input_tokens,
            "requested_output_tokens": self.requested_output_tokens,
            "input_tokens": self.input_tokens,
            "input_token_source": self.input_token_source,
            "output_tokens": self.output_tokens,
            "output_token_source": self.output_token_source,
            "chunk_token_source": self.chunk_token_source,
            "finish_reason": self.finish_reason,
            "spec_verify_ct": self.spec_verify_ct,
            "send_delay_ms": self.send_delay_ms,
            "server_ttft_ms": self.server_ttft_ms,
            "over_length": self.over_length,
            "chunk_ms": list(self.chunk_ms),
            "chunk_tokens": list(self.chunk_tokens),
        }
