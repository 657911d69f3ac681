"""Reading requests: input token counts, output lengths, and refusals with clear messages."""

from __future__ import annotations

from typing import Any

import pytest

from benchdoc.sim import SimConfig
from benchdoc.sim.requests import CHAT, COMPLETIONS, GENERATE, BadRequest, parse

CONFIG = SimConfig(default_max_tokens=16, max_model_len=100)


def test_completion_prompt_counts_whitespace_separated_words() -> None:
    request = parse(COMPLETIONS, {"prompt": "  one two\tthree\nfour ", "max_tokens": 5}, CONFIG)
    assert request.input_tokens == 4
    assert request.max_tokens == 5
    assert request.output_tokens(CONFIG) == 5
    assert not request.stream


def test_completion_prompt_of_token_ids_counts_ids() -> None:
    assert parse(COMPLETIONS, {"prompt": [5, 6, 7]}, CONFIG).input_tokens == 3
    assert parse(COMPLETIONS, {"prompt": [[5, 6]]}, CONFIG).input_tokens == 2


def test_chat_counts_the_words_of_every_message() -> None:
    body: dict[str, Any] = {
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "a b c"}, {"type": "image_url", "image_url": {}}]},
        ],
        "max_completion_tokens": 7,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    request = parse(CHAT, body, CONFIG)
    assert request.input_tokens == 5
    assert request.max_tokens == 7
    assert request.stream and request.include_usage


def test_generate_reads_sampling_params() -> None:
    body = {"text": "x y", "sampling_params": {"max_new_tokens": 9, "min_new_tokens": 2, "ignore_eos": True}}
    request = parse(GENERATE, body, CONFIG)
    assert (request.input_tokens, request.max_tokens, request.min_tokens, request.ignore_eos) == (2, 9, 2, True)
    assert parse(GENERATE, {"input_ids": [1, 2, 3, 4]}, CONFIG).input_tokens == 4


def test_default_output_length_applies_when_unset() -> None:
    assert parse(COMPLETIONS, {"prompt": "x"}, CONFIG).max_tokens == 16


def test_natural_stop_unless_the_length_is_forced() -> None:
    config = SimConfig(natural_output_tokens=3)
    free = parse(COMPLETIONS, {"prompt": "x", "max_tokens": 10}, config)
    assert free.output_tokens(config) == 3 and free.finish_reason(config) == "stop"
    forced = parse(COMPLETIONS, {"prompt": "x", "max_tokens": 10, "ignore_eos": True}, config)
    assert forced.output_tokens(config) == 10 and forced.finish_reason(config) == "length"
    floored = parse(COMPLETIONS, {"prompt": "x", "max_tokens": 10, "min_tokens": 6}, config)
    assert floored.output_tokens(config) == 6
    short = parse(COMPLETIONS, {"prompt": "x", "max_tokens": 2}, config)
    assert short.output_tokens(config) == 2 and short.finish_reason(config) == "length"


@pytest.mark.parametrize(
    ("api", "body", "fragment"),
    [
        (COMPLETIONS, {"prompt": "x", "n": 2}, "n=1 only"),
        (COMPLETIONS, {"prompt": "x", "max_tokens": 0}, "'max_tokens' must be an integer >= 1"),
        (COMPLETIONS, {"prompt": "x", "max_tokens": 4, "min_tokens": 5}, "min_tokens (5) must be <= max_tokens (4)"),
        (COMPLETIONS, {"prompt": "x", "max_tokens": 100}, "maximum context length is 100"),
        (COMPLETIONS, {"prompt": ["a", "b"]}, "one prompt per request"),
        (COMPLETIONS, {}, "'prompt' is required"),
        (COMPLETIONS, {"prompt": "x", "stream": "yes"}, "'stream' must be true or false"),
        (COMPLETIONS, {"prompt": "x", "stream_options": {"include_usage": True}}, "only allowed when 'stream'"),
        (CHAT, {"messages": []}, "'messages' must be a non-empty list"),
        (CHAT, {"messages": [{"content": "x"}]}, "messages[0] must be an object with a 'role'"),
        (GENERATE, {"sampling_params": {}}, "either 'text' or 'input_ids'"),
        (GENERATE, {"text": ["a"]}, "'text' must be a string"),
    ],
)
def test_bad_requests_say_what_is_wrong(api: str, body: dict[str, Any], fragment: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse(api, body, CONFIG)
    assert caught.value.status == 400
    assert fragment in caught.value.message


def test_non_object_body_is_refused() -> None:
    with pytest.raises(BadRequest, match="JSON object"):
        parse(COMPLETIONS, [1, 2], CONFIG)
