"""Request bodies and the decoding of each API's streamed events."""

from __future__ import annotations

import json

import pytest

from benchdoc.workloads.protocols import (
    GenerationRequest,
    StreamError,
    decoder_for,
    request_body,
)

REQUEST = GenerationRequest(prompt="the of and", output_tokens=50, model="m", temperature=0.0)


def test_openai_completions_body_forces_length_and_asks_for_usage() -> None:
    body = request_body("openai-completions", REQUEST)
    assert body["prompt"] == "the of and"
    assert body["max_tokens"] == 50 and body["min_tokens"] == 50 and body["ignore_eos"] is True
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True, "continuous_usage_stats": True}
    assert body["temperature"] == 0.0 and body["model"] == "m"


def test_chat_body_sends_messages() -> None:
    body = request_body("openai-chat", REQUEST)
    assert body["messages"] == [{"role": "user", "content": "the of and"}]
    assert "prompt" not in body


def test_sglang_body_uses_sampling_params() -> None:
    body = request_body("sglang", REQUEST)
    assert body == {
        "text": "the of and",
        "sampling_params": {"max_new_tokens": 50, "temperature": 0.0, "ignore_eos": True},
        "stream": True,
    }


def test_length_is_not_forced_when_asked_not_to() -> None:
    body = request_body("openai-completions", GenerationRequest("x", 5, ignore_eos=False))
    assert "ignore_eos" not in body and "min_tokens" not in body and "model" not in body


def test_per_chunk_usage_can_be_left_out() -> None:
    body = request_body("openai-chat", GenerationRequest("x", 5, continuous_usage=False))
    assert body["stream_options"] == {"include_usage": True}


def feed_all(api: str, events: list[object]) -> tuple[list[int | None], object]:
    decoder = decoder_for(api)
    carried = [decoder.feed(e if isinstance(e, str) else json.dumps(e)) for e in events]
    return carried, decoder


def test_completions_stream_with_final_usage() -> None:
    carried, decoder = feed_all(
        "openai-completions",
        [
            {"choices": [{"text": "", "finish_reason": None}]},  # empty text is not output
            {"choices": [{"text": " a", "finish_reason": None}]},
            {"choices": [{"text": " b c", "finish_reason": "length"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
            "[DONE]",
        ],
    )
    assert carried == [None, 1, 1, None, None]
    assert decoder.done and decoder.finish_reason == "length"
    assert decoder.completion_tokens == 3 and decoder.completion_source == "usage"
    assert decoder.prompt_tokens == 3
    assert not decoder.counts_on_every_chunk


def test_continuous_usage_gives_tokens_per_chunk() -> None:
    carried, decoder = feed_all(
        "openai-completions",
        [
            {"choices": [{"text": " a"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
            {"choices": [{"text": " b c d"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
            "[DONE]",
        ],
    )
    assert carried == [1, 3, None, None]
    assert decoder.counts_on_every_chunk


def test_chat_role_chunk_is_not_output_but_reasoning_is() -> None:
    carried, _ = feed_all(
        "openai-chat",
        [
            {"choices": [{"delta": {"role": "assistant", "content": ""}}]},
            {"choices": [{"delta": {"reasoning_content": "hmm"}}]},
            {"choices": [{"delta": {"content": "yes"}}]},
            "[DONE]",
        ],
    )
    assert carried == [None, 1, 1, None]


def test_sglang_cumulative_text_and_meta_info() -> None:
    carried, decoder = feed_all(
        "sglang",
        [
            {"text": " a", "meta_info": {"prompt_tokens": 3, "completion_tokens": 1, "finish_reason": None}},
            {"text": " a b c", "meta_info": {"prompt_tokens": 3, "completion_tokens": 3, "spec_verify_ct": 1}},
            {"text": " a b c d", "meta_info": {"prompt_tokens": 3, "completion_tokens": 4, "spec_verify_ct": 2,
                                               "finish_reason": {"type": "length", "length": 4}}},
            "[DONE]",
        ],
    )
    assert carried == [1, 2, 1, None]
    assert decoder.completion_tokens == 4 and decoder.completion_source == "meta_info"
    assert decoder.spec_verify_ct == 2 and decoder.finish_reason == "length"
    assert decoder.counts_on_every_chunk


def test_malformed_json_is_a_clear_error() -> None:
    decoder = decoder_for("openai-completions")
    with pytest.raises(StreamError, match="malformed event: expected JSON after 'data:', got 'not json'"):
        decoder.feed("not json")


def test_error_event_in_stream_is_reported() -> None:
    decoder = decoder_for("openai-chat")
    with pytest.raises(StreamError, match="server reported an error in the stream: out of memory"):
        decoder.feed(json.dumps({"error": {"message": "out of memory", "code": 500}}))


def test_event_after_done_is_an_error() -> None:
    decoder = decoder_for("sglang")
    decoder.feed("[DONE]")
    with pytest.raises(StreamError, match="after the end"):
        decoder.feed("{}")


def test_unknown_api_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown API"):
        decoder_for("grpc")


def test_an_event_without_new_text_is_not_a_chunk_and_its_tokens_wait_for_the_next() -> None:
    carried, decoder = feed_all(
        "openai-completions",
        [
            {"choices": [{"text": " a"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
            # The count moves on an event with no text: not a chunk, the token waits.
            {"choices": [{"text": ""}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}},
            {"choices": [{"text": " b c"}], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
            {"choices": [{"text": "", "finish_reason": "length"}], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
            "[DONE]",
        ],
    )
    assert carried == [1, None, 2, None, None]
    assert decoder.finish_reason == "length" and decoder.completion_tokens == 3


def test_a_final_usage_event_with_one_empty_choice_is_not_a_chunk() -> None:
    events: list[object] = [{"choices": [{"text": " w", "finish_reason": None}]} for _ in range(4)]
    events.append({"choices": [{"text": "", "finish_reason": "length"}],
                   "usage": {"prompt_tokens": 3, "completion_tokens": 4}})
    carried, decoder = feed_all("openai-completions", [*events, "[DONE]"])
    assert carried == [1, 1, 1, 1, None, None]
    assert decoder.completion_tokens == 4 and not decoder.counts_on_every_chunk


def test_sglang_event_repeating_the_text_is_not_a_chunk() -> None:
    carried, decoder = feed_all(
        "sglang",
        [
            {"text": " a", "meta_info": {"completion_tokens": 1}},
            {"text": " a", "meta_info": {"completion_tokens": 2}},  # a token held back: no new text
            {"text": " a b c", "meta_info": {"completion_tokens": 3}},
            {"text": " a b c", "meta_info": {"completion_tokens": 3, "finish_reason": {"type": "length"}}},
            "[DONE]",
        ],
    )
    assert carried == [1, None, 2, None, None]
    assert decoder.finish_reason == "length"


def test_sglang_incremental_output_counts_each_piece() -> None:
    carried, _ = feed_all(
        "sglang",
        [
            {"text": " a", "meta_info": {"completion_tokens": 1}},
            {"text": " b", "meta_info": {"completion_tokens": 2}},
            {"text": " c d", "meta_info": {"completion_tokens": 4}},
            {"text": "", "meta_info": {"completion_tokens": 4, "finish_reason": {"type": "length"}}},
            "[DONE]",
        ],
    )
    assert carried == [1, 1, 2, None, None]
