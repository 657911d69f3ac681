"""The wire formats the load generator speaks: request bodies and streamed-event decoding.

Three APIs: OpenAI completions (``/v1/completions``), OpenAI chat
(``/v1/chat/completions``) and SGLang's native ``/generate``. Each event's data is
decoded once; a decoder keeps only running counts, never the text received so far.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchdoc.limits import MAX_SERVER_TOKENS

API_COMPLETIONS = "openai-completions"
API_CHAT = "openai-chat"
API_SGLANG = "sglang"
APIS: tuple[str, ...] = (API_COMPLETIONS, API_CHAT, API_SGLANG)

ENDPOINTS: dict[str, str] = {
    API_COMPLETIONS: "/v1/completions",
    API_CHAT: "/v1/chat/completions",
    API_SGLANG: "/generate",
}


# Where benchdoc's simulator reports its own stamps of a request (arrival, first token
# written) in the last event of a stream: lets the client's TTFT be set beside the server's.
SERVER_STAMPS_KEY = "benchdoc_sim_stamps"


# Between a shared prefix and the prompt, on the APIs that take one text.
PREFIX_SEPARATOR = "\n\n"


class StreamError(Exception):
    """The stream carried something that is not a valid event of its API."""


@dataclass(frozen=True)
class GenerationRequest:
    """What one request asks for, independent of the API that carries it."""

    prompt: str
    output_tokens: int
    model: str | None = None
    temperature: float = 0.0
    ignore_eos: bool = True
    continuous_usage: bool = True
    system: str | None = None  # a shared system prompt: a system message in chat, else a prefix
    # Multi-turn (chat): the earlier (user, assistant) turns of the conversation, sent first.
    history: tuple[tuple[str, str], ...] = ()

    @property
    def full_prompt(self) -> str:
        """The prompt as one text, the shared prefix first (for the non-chat APIs)."""
        return f"{self.system}{PREFIX_SEPARATOR}{self.prompt}" if self.system else self.prompt


def request_body(api: str, request: GenerationRequest) -> dict[str, Any]:
    """The JSON body of a streaming request that forces ``output_tokens`` of output.

    OpenAI-style: ``max_tokens`` with ``min_tokens`` and ``ignore_eos`` (vLLM and SGLang
    honour them; most other servers ignore unknown fields), and usage asked for on the
    final chunk and, with ``continuous_usage``, on every chunk (vLLM's and SGLang's
    ``continuous_usage_stats``; a strict server may refuse it). SGLang native:
    ``max_new_tokens`` with ``ignore_eos`` in ``sampling_params``.
    """
    if api == API_SGLANG:
        sampling: dict[str, Any] = {
            "max_new_tokens": request.output_tokens,
            "temperature": request.temperature,
        }
        if request.ignore_eos:
            sampling["ignore_eos"] = True
        return {"text": request.full_prompt, "sampling_params": sampling, "stream": True}
    body: dict[str, Any] = {
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.output_tokens,
        "temperature": request.temperature,
    }
    if request.continuous_usage:
        body["stream_options"]["continuous_usage_stats"] = True
    if request.model:
        body["model"] = request.model
    if request.ignore_eos:
        body["ignore_eos"] = True
        body["min_tokens"] = request.output_tokens
    if api == API_CHAT:
        system = [{"role": "system", "content": request.system}] if request.system else []
        earlier = [{"role": role, "content": text} for turn in request.history
                   for role, text in zip(("user", "assistant"), turn)]
        body["messages"] = [*system, *earlier, {"role": "user", "content": request.prompt}]
    elif api == API_COMPLETIONS:
        body["prompt"] = request.full_prompt
    else:
        raise ValueError(f"unknown API {api!r} (expected one of {', '.join(APIS)})")
    return body


# One JSON scanner for every stream (making one costs microseconds, a burst's requests
# each paid it as they were sent); it keeps no state between the values it scans.
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


class StreamDecoder:
    """Decodes the data of one stream's events, one event at a time.

    ``feed`` returns the number of output tokens the event carried when it carried new
    output text (0 when it carried text but no counted token), or ``None`` for an event
    with no new text (a role-only delta, the usage-only final chunk, a final event whose
    one choice has empty text): such an event is not a chunk, and tokens its count adds
    are carried by the next event that does bring text. After the terminating event
    ``done`` is true.
    """

    def __init__(self) -> None:
        self.done = False
        self.finish_reason: str | None = None
        self.completion_tokens: int | None = None  # the server's cumulative/final count
        self.completion_source: str | None = None  # "usage" or "meta_info"
        self.prompt_tokens: int | None = None
        self.prompt_source: str | None = None
        self.spec_verify_ct: int | None = None
        self.server_ttft_ms: float | None = None  # the server's own TTFT, when it reports its stamps
        # With keep_text, the output text is kept (to count its tokens when the server
        # sends no count); otherwise only counts are.
        self.keep_text = False
        self.pieces: list[str] = []
        self.counts_on_every_chunk = True  # every output event carried a cumulative count
        self._last_count = 0
        self._scan = _SCAN

    def feed(self, data: str) -> int | None:
        if self.done:
            raise StreamError(f"event after the end of the stream: {_excerpt(data)}")
        if data == "[DONE]":
            self.done = True
            return None
        # The C scanner straight away: json.loads would add three Python calls per event.
        try:
            event, end = self._scan(data, 0)
        except (StopIteration, ValueError):
            end = -1
        if end != len(data):  # leading or trailing spaces, or not JSON: json.loads decides
            try:
                event = json.loads(data)
            except ValueError:
                raise StreamError(f"malformed event: expected JSON after 'data:', got {_excerpt(data)}") from None
        if not isinstance(event, dict):
            raise StreamError(f"malformed event: expected a JSON object, got {_excerpt(data)}")
        error = event.get("error")
        if error or event.get("object") == "error":
            raise StreamError(f"server reported an error in the stream: {_error_message(event)}")
        return self._decode(event)

    def _decode(self, event: dict[str, Any]) -> int | None:
        raise NotImplementedError

    def output_text(self) -> str:
        """The output received, when ``keep_text`` was set."""
        return "".join(self.pieces)

    def _server_stamps(self, stamps: Any) -> None:
        if isinstance(stamps, dict):
            ttft = stamps.get("ttft_ms")
            if isinstance(ttft, (int, float)) and not isinstance(ttft, bool) and 0 <= ttft < 1e9:
                self.server_ttft_ms = float(ttft)

    @staticmethod
    def _count(value: Any, what: str) -> int | None:
        """A count the server reports, or None when it gave none; a count no server could
        reach (negative, or beyond benchdoc.limits.MAX_SERVER_TOKENS) fails the request."""
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if not 0 <= value <= MAX_SERVER_TOKENS:
            shown = f"{value:,}" if abs(value) < 10**15 else f"a {len(str(abs(value)))}-digit number"
            raise StreamError(f"the server reported {what} = {shown}, beyond any real count (0 to {MAX_SERVER_TOKENS:,})")
        return value

    def _count_delta(self, count: Any) -> int | None:
        """Tokens added since the last chunk's cumulative count, or None when none was given.

        Called for chunks only: a count seen on an event without new text stays pending
        until the next chunk takes it.
        """
        if not isinstance(count, int) or isinstance(count, bool):
            return None
        delta = count - self._last_count
        self._last_count = count
        return delta

    @property
    def chunked_tokens(self) -> int:
        """The server's cumulative count as of the last chunk (0 without counts)."""
        return self._last_count


class _OpenAIDecoder(StreamDecoder):
    content_keys: tuple[str, ...] = ()

    def _decode(self, event: dict[str, Any]) -> int | None:
        usage = event.get("usage")
        count = None
        if isinstance(usage, dict):
            count = self._count(usage.get("completion_tokens"), "completion_tokens")
            if isinstance(count, int):
                self.completion_tokens = count
                self.completion_source = "usage"
            prompt = self._count(usage.get("prompt_tokens"), "prompt_tokens")
            if isinstance(prompt, int):
                self.prompt_tokens = prompt
                self.prompt_source = "usage"
        choices = event.get("choices")
        if not choices:
            # The usage-only final chunk (or a keep-alive without choices).
            self._server_stamps(event.get(SERVER_STAMPS_KEY))
            return None
        if not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise StreamError(f"malformed event: 'choices' is not a list of objects: {_excerpt(json.dumps(event))}")
        choice = choices[0]
        reason = choice.get("finish_reason")
        if reason:
            self.finish_reason = str(reason)
        text = self._text_of(choice)
        if not text:
            return None
        if self.keep_text:
            self.pieces.append(text)
        delta = self._count_delta(count)
        if delta is None:
            self.counts_on_every_chunk = False
            return 1
        return max(delta, 0)

    def _text_of(self, choice: dict[str, Any]) -> str:
        """The output text a choice carries ("" for none)."""
        raise NotImplementedError


class CompletionsDecoder(_OpenAIDecoder):
    def _text_of(self, choice: dict[str, Any]) -> str:
        text = choice.get("text")
        return text if isinstance(text, str) else ""


class ChatDecoder(_OpenAIDecoder):
    def _text_of(self, choice: dict[str, Any]) -> str:
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return ""
        # Reasoning output and tool calls are output: the server generated and streamed those tokens.
        parts = [delta.get("reasoning_content"), delta.get("reasoning"), delta.get("content")]
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    parts += [function.get("name"), function.get("arguments")]
        return "".join(p for p in parts if isinstance(p, str))


class SGLangDecoder(StreamDecoder):
    """SGLang ``/generate``: each event holds the text so far (or only the new text on
    servers started with incremental output) and ``meta_info`` with cumulative counts."""

    def __init__(self) -> None:
        super().__init__()
        self._text = ""
        self._incremental = False  # the server sends only new text (incremental output)

    def _decode(self, event: dict[str, Any]) -> int | None:
        meta = event.get("meta_info")
        count = None
        if isinstance(meta, dict):
            count = self._count(meta.get("completion_tokens"), "completion_tokens")
            if isinstance(count, int):
                self.completion_tokens = count
                self.completion_source = "meta_info"
            prompt = self._count(meta.get("prompt_tokens"), "prompt_tokens")
            if isinstance(prompt, int):
                self.prompt_tokens = prompt
                self.prompt_source = "meta_info"
            verify = self._count(meta.get("spec_verify_ct"), "spec_verify_ct")
            if isinstance(verify, int):
                self.spec_verify_ct = verify
            self._server_stamps(meta.get(SERVER_STAMPS_KEY))
            reason = meta.get("finish_reason")
            if isinstance(reason, dict):
                self.finish_reason = str(reason.get("type") or reason)
            elif reason:
                self.finish_reason = str(reason)
        text = event.get("text")
        if not isinstance(text, str) or not self._new_text(text):
            return None
        delta = self._count_delta(count)
        if delta is None:
            self.counts_on_every_chunk = False
            return 1
        # Same count, longer text: characters held back earlier, no new token.
        return max(delta, 0)

    def _new_text(self, text: str) -> bool:
        """Whether ``text`` brings text not seen before. Each event holds the text so far
        unless the server streams increments, which shows as soon as one does not extend
        the text before it. With ``keep_text`` each chunk's new text is kept as its piece."""
        previous = self._text
        self._text = text
        if not text:
            return False
        if self._incremental:
            new = text
        elif text.startswith(previous):
            new = text[len(previous):]
            if not new:
                return False
        else:
            self._incremental = True
            new = text
        if self.keep_text:
            self.pieces.append(new)
        return True

    def output_text(self) -> str:
        return "".join(self.pieces) if self._incremental else self._text


def decoder_for(api: str, keep_text: bool = False) -> StreamDecoder:
    decoder: StreamDecoder
    if api == API_COMPLETIONS:
        decoder = CompletionsDecoder()
    elif api == API_CHAT:
        decoder = ChatDecoder()
    elif api == API_SGLANG:
        decoder = SGLangDecoder()
    else:
        raise ValueError(f"unknown API {api!r} (expected one of {', '.join(APIS)})")
    decoder.keep_text = keep_text
    return decoder



def _excerpt(text: str, limit: int = 120) -> str:
    from benchdoc.untrusted import safe_line  # the server's text: no escapes, no secrets

    text = safe_line(text.replace("\n", "\\n"))
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _error_message(event: dict[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, dict):
        message = error.get("message") or json.dumps(error)
    elif error:
        message = str(error)
    else:
        message = str(event.get("message") or json.dumps(event))
    from benchdoc.untrusted import safe_line

    return safe_line(message[:300])
