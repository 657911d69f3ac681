"""Reading generation requests of the three APIs into one shape the server can run.

Input length: the simulator has no tokenizer. A text prompt counts one token per
whitespace-separated word (``len(text.split())``); a prompt given as token ids counts
one per id; a chat request counts the words of every message's text content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchdoc.sim.config import SimConfig

COMPLETIONS = "completions"
CHAT = "chat"
GENERATE = "generate"


class BadRequest(Exception):
    """The request cannot be served as asked; answered with `status` and this message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class GenerationRequest:
    api: str
    model: str | None
    input_tokens: int
    max_tokens: int
    min_tokens: int
    ignore_eos: bool
    stream: bool
    include_usage: bool

    def output_tokens(self, config: SimConfig) -> int:
        """How many tokens the simulated model produces for this request."""
        if self.ignore_eos or config.natural_output_tokens is None:
            return self.max_tokens
        return min(self.max_tokens, max(self.min_tokens, config.natural_output_tokens))

    def finish_reason(self, config: SimConfig) -> str:
        return "length" if self.output_tokens(config) >= self.max_tokens else "stop"


def count_words(text: str) -> int:
    return len(text.split())


def parse(api: str, body: Any, config: SimConfig) -> GenerationRequest:
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    if api == COMPLETIONS:
        return _openai(api, body, config, _prompt_tokens(body.get("prompt")))
    if api == CHAT:
        return _openai(api, body, config, _chat_tokens(body.get("messages")))
    if api == GENERATE:
        return _generate(body, config)
    raise ValueError(f"unknown api {api!r}")


def _openai(api: str, body: dict[str, Any], config: SimConfig, input_tokens: int) -> GenerationRequest:
    n = body.get("n", 1)
    if n != 1:
        raise BadRequest(f"the simulator serves n=1 only (got n={n!r})")
    limit_key = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    max_tokens = _int_field(body, limit_key, config.default_max_tokens, minimum=1)
    min_tokens = _int_field(body, "min_tokens", 0, minimum=0)
    stream = _bool_field(body, "stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise BadRequest("'stream_options' must be an object")
    if options and not stream:
        raise BadRequest("'stream_options' is only allowed when 'stream' is true")
    request = GenerationRequest(
        api=api,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        input_tokens=input_tokens,
        max_tokens=max_tokens,
        min_tokens=min_tokens,
        ignore_eos=_bool_field(body, "ignore_eos"),
        stream=stream,
        include_usage=config.stream_usage and bool(options.get("include_usage", False)),
    )
    _check(request, config)
    return request


def _generate(body: dict[str, Any], config: SimConfig) -> GenerationRequest:
    if "text" in body and body["text"] is not None:
        text = body["text"]
        if not isinstance(text, str):
            raise BadRequest("the simulator serves one prompt per request: 'text' must be a string")
        input_tokens = count_words(text)
    elif "input_ids" in body:
        input_tokens = _ids_length(body["input_ids"], "input_ids")
    else:
        raise BadRequest("either 'text' or 'input_ids' is required")
    params = body.get("sampling_params") or {}
    if not isinstance(params, dict):
        raise BadRequest("'sampling_params' must be an object")
    request = GenerationRequest(
        api=GENERATE,
        model=None,
        input_tokens=input_tokens,
        max_tokens=_int_field(params, "max_new_tokens", config.default_max_tokens, minimum=1),
        min_tokens=_int_field(params, "min_new_tokens", 0, minimum=0),
        ignore_eos=_bool_field(params, "ignore_eos"),
        stream=_bool_field(body, "stream"),
        include_usage=False,
    )
    _check(request, config)
    return request


def _check(request: GenerationRequest, config: SimConfig) -> None:
    if request.min_tokens > request.max_tokens:
        raise BadRequest(
            f"min_tokens ({request.min_tokens}) must be <= max_tokens ({request.max_tokens})"
        )
    total = request.input_tokens + request.max_tokens
    if total > config.max_model_len:
        raise BadRequest(
            f"this model's maximum context length is {config.max_model_len} tokens; the request "
            f"asks for {total} ({request.input_tokens} in the prompt, {request.max_tokens} to generate)"
        )


def _prompt_tokens(prompt: Any) -> int:
    if isinstance(prompt, str):
        return count_words(prompt)
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        return count_words(prompt[0])
    if isinstance(prompt, list) and all(isinstance(x, int) for x in prompt) and prompt:
        return len(prompt)
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], list):
        return _ids_length(prompt[0], "prompt")
    if prompt is None:
        raise BadRequest("'prompt' is required")
    raise BadRequest("the simulator serves one prompt per request: 'prompt' must be a string or a list of token ids")


def _chat_tokens(messages: Any) -> int:
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list")
    total = 0
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message:
            raise BadRequest(f"messages[{position}] must be an object with a 'role'")
        content = message.get("content")
        if isinstance(content, str):
            total += count_words(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    total += count_words(part["text"])
        elif content is not None:
            raise BadRequest(f"messages[{position}].content must be a string or a list of parts")
    return total


def _ids_length(ids: Any, name: str) -> int:
    if not isinstance(ids, list) or not ids or not all(isinstance(x, int) for x in ids):
        raise BadRequest(f"'{name}' must be a non-empty list of token ids")
    return len(ids)


def _int_field(body: dict[str, Any], key: str, default: int, minimum: int) -> int:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise BadRequest(f"'{key}' must be an integer >= {minimum} (got {value!r})")
    return value


def _bool_field(body: dict[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise BadRequest(f"'{key}' must be true or false (got {value!r})")
    return value
