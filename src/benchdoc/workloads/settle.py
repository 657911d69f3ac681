"""Settling what a finished request and a finished run say: token counts with their
provenance, completeness, the client's TTFT error, speculative decoding's accept length.

Pure functions over records and a stream decoder's final state; the client calls them
once per request or per run, never per chunk.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from benchdoc.workloads import records as rec
from benchdoc.workloads.aggregate import accept_length_from_meta_info
from benchdoc.workloads.prometheus import accept_length_from_counters
from benchdoc.workloads.protocols import API_SGLANG, StreamDecoder
from benchdoc.workloads.records import RequestRecord

if TYPE_CHECKING:
    from benchdoc.workloads.spec import WorkloadSpec
    from benchdoc.workloads.tokenizer import Tokenizer


def finish_counts(
    record: RequestRecord,
    decoder: StreamDecoder,
    input_source: str = rec.INPUT_FROM_PROMPT,
    tokenizer: Tokenizer | None = None,
) -> None:
    """Settle the request's token counts and their provenance, never inventing one.

    Output tokens: the server's usage or meta_info count when it sent one, else the
    output text counted with the tokenizer given, else, when the server said it stopped
    at the length limit having sent no more chunks than that, the limit itself, else the
    number of output-carrying chunks (a lower bound: a chunk may carry several tokens).
    """
    chunks = len(record.chunk_tokens)
    wanted = record.requested_output_tokens
    if decoder.completion_tokens is not None:
        record.output_tokens = decoder.completion_tokens
        record.output_token_source = decoder.completion_source
    elif tokenizer is not None:
        record.output_tokens = tokenizer.count(decoder.output_text())
        record.output_token_source = rec.TOKENS_FROM_TOKENIZER
    elif decoder.finish_reason == "length" and 0 < chunks <= wanted:
        record.output_tokens = wanted
        record.output_token_source = rec.TOKENS_FROM_MAX_TOKENS
    else:
        record.output_tokens = chunks
        record.output_token_source = rec.TOKENS_FROM_CHUNKS
    if decoder.prompt_tokens is not None:
        record.input_tokens = decoder.prompt_tokens
        record.input_token_source = decoder.prompt_source
    else:
        record.input_tokens = record.requested_input_tokens
        record.input_token_source = input_source
    record.spec_verify_ct = decoder.spec_verify_ct
    record.server_ttft_ms = decoder.server_ttft_ms
    record.finish_reason = decoder.finish_reason
    _chunk_counts(record, decoder, tokenizer)


def _chunk_counts(record: RequestRecord, decoder: StreamDecoder, tokenizer: Tokenizer | None) -> None:
    """Per-chunk tokens: the server's cumulative counts when every chunk carried one; else
    one per chunk when that adds up; else each chunk's text through the tokenizer given;
    else the total spread over the chunks, an assumption (each labelled)."""
    chunks = len(record.chunk_tokens)
    total = record.output_tokens or 0
    if (
        decoder.counts_on_every_chunk
        and decoder.completion_source is not None
        and sum(record.chunk_tokens) == total
    ):
        record.chunk_token_source = rec.CHUNK_TOKENS_FROM_COUNTS
    elif total == chunks:
        record.chunk_token_source = rec.CHUNK_TOKENS_ONE_EACH
        record.chunk_tokens = array("q", [1] * chunks)
    elif tokenizer is not None and len(decoder.pieces) == chunks:
        record.chunk_token_source = rec.CHUNK_TOKENS_FROM_TOKENIZER
        record.chunk_tokens = array("q", tokenizer.count_pieces(decoder.pieces))
    else:
        record.chunk_token_source = rec.CHUNK_TOKENS_SPREAD
        record.chunk_tokens = array("q", _spread(total, chunks))


def incomplete(record: RequestRecord, decoder: StreamDecoder, forced: bool) -> str | None:
    """Why a stream that ended without an error is not a complete request, or None.

    Complete means the server said why it stopped (``finish_reason``) and, when the
    length was forced (ignore_eos/min_tokens), the output is consistent with it: the
    server's own count reached it, or, counted otherwise (the tokenizer's recount, the
    chunks' lower bound), it reached it or the server said it stopped at the limit.
    A complete output longer than the limit is flagged (``over_length``), not failed.
    """
    got, wanted = record.output_tokens or 0, record.requested_output_tokens
    source = record.output_token_source
    closed = "" if decoder.done else " (closed without [DONE])"
    if decoder.finish_reason is None:
        return f"stream ended after {got} of {wanted} tokens without finish_reason{closed}"
    exact = source in rec.EXACT_TOKEN_SOURCES
    if forced and got < wanted and (exact or decoder.finish_reason != "length"):
        least = "" if exact or source == rec.TOKENS_FROM_TOKENIZER else "at least "
        return (
            f"stream ended after {least}{got} of {wanted} forced tokens "
            f"(finish_reason {decoder.finish_reason}){closed}"
        )
    record.over_length = got > wanted
    return None


def over_length_reason(record: RequestRecord) -> str:
    """The one line saying a complete output ran past its limit, and how it was counted."""
    return (
        f"{record.output_tokens} output tokens ({record.output_token_source}) for max_tokens "
        f"{record.requested_output_tokens}: the server did not hold to the limit"
    )


def _spread(total: int, chunks: int) -> list[int]:
    """``total`` tokens over ``chunks`` chunks: one in the first, the rest as evenly as
    integers allow over the others. An assumption, labelled ``spread`` wherever the
    inter-token latency built on it is shown."""
    if chunks == 0:
        return []
    if chunks == 1:
        return [total]
    first = 1 if total >= 1 else 0
    rest = total - first
    base, extra = divmod(rest, chunks - 1)
    return [first] + [base + (1 if i < extra else 0) for i in range(chunks - 1)]


def ttft_errors(records: list[RequestRecord]) -> list[float]:
    """The client's TTFT less the server's own, for the requests the server stamped."""
    return [r.ttft_ms - r.server_ttft_ms for r in records if r.ttft_ms is not None and r.server_ttft_ms is not None]


def ttfts(records: list[RequestRecord]) -> list[float]:
    """The TTFT of each request that has one (what the send delay is weighed against)."""
    return [r.ttft_ms for r in records if r.ttft_ms is not None]


def accept_length(
    spec: WorkloadSpec,
    records: list[RequestRecord],
    before: dict[str, float] | None,
    after: dict[str, float] | None,
) -> tuple[float | None, str | None]:
    """Speculative decoding's accept length and a sentence saying where it came from."""
    if spec.api == API_SGLANG:
        value = accept_length_from_meta_info(records)
        if value is not None:
            n = sum(1 for r in records if r.ok and r.spec_verify_ct)
            return value, (
                f"meta_info: sum(completion_tokens) / sum(spec_verify_ct) over {n} successful measured requests"
            )
    if before is not None and after is not None:
        value = accept_length_from_counters(before, after)
        if value is not None:
            return value, (
                "prometheus: 1 + delta(vllm:spec_decode_num_accepted_tokens_total) / "
                "delta(vllm:spec_decode_num_drafts_total), scraped before and after the measured phase "
                "(counts any other traffic the server served meanwhile)"
            )
    return None, None
