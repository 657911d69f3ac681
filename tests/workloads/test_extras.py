"""--header and --extra-body: sent with every request, recorded with secrets redacted."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from benchdoc.errors import UsageError
from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.extras import merge_body, parse_header


def _echo(bodies: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    async def handler(request: web.Request) -> web.StreamResponse:
        bodies.append(await request.json())
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        event = {"choices": [{"text": " w", "finish_reason": "length"}], "usage": {"completion_tokens": 1}}
        await response.write(b"data: " + json.dumps(event).encode() + b"\n\ndata: [DONE]\n\n")
        return response

    return handler


@pytest.mark.timeout(30)
@pytest.mark.parametrize("http_client", ["lean", "aiohttp"])
def test_headers_and_body_fields_go_with_every_request(canned_server, http_client: str) -> None:
    bodies: list[dict[str, object]] = []
    server = canned_server({"POST /v1/completions": _echo(bodies)})
    secret = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    spec = WorkloadSpec(
        url=server.url, model="m", requests=3, output_tokens=1, http_client=http_client,
        headers=(("X-Tenant", "team-a"), ("X-Upstream-Key", secret), ("X-Trace", secret)),
        extra_body=json.dumps({"top_p": 0.9, "stream_options": {"include_usage": False},
                               "chat_template_kwargs": {"enable_thinking": False}}),
    )
    result = run_workload(spec)
    assert result.succeeded == 3
    assert all(r["X-Tenant"] == "team-a" and r["X-Upstream-Key"] == secret for r in server.requests)
    for body in bodies:
        assert body["top_p"] == 0.9 and body["chat_template_kwargs"] == {"enable_thinking": False}
        # An object merges into the one of the same name: the rest of it stays.
        assert body["stream_options"] == {"include_usage": False, "continuous_usage_stats": True}
        assert body["max_tokens"] == 1 and body["stream"] is True
    settings = result.settings
    assert settings["headers"] == {"X-Tenant": "team-a", "X-Upstream-Key": "***", "X-Trace": "***"}
    assert settings["extra_body"]["top_p"] == 0.9
    assert secret not in json.dumps(result.to_dict(include_requests=True))


def test_bad_headers_and_bodies_are_one_line_each() -> None:
    with pytest.raises(ValueError, match="expected NAME:VALUE"):
        parse_header("no colon here")
    with pytest.raises(ValueError, match="not a valid header name"):
        parse_header("bad name: x")
    with pytest.raises(UsageError, match="extra_body: expected a JSON object, got list"):
        WorkloadSpec(url="http://127.0.0.1:9", extra_body="[1]").resolved()
    assert merge_body({"a": {"b": 1}, "c": 2}, {"a": {"d": 3}, "c": 4}) == {"a": {"b": 1, "d": 3}, "c": 4}
