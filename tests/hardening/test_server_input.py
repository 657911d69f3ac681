"""What a server sends is bounded before it reaches memory or the ledger: an event that
never ends, a token count no server could reach."""

from __future__ import annotations

import pytest
from aiohttp import web
from tests.workloads.conftest import canned_server  # noqa: F401 (a fixture)

from benchdoc.workloads import WorkloadSpec, run_workload


def _stream(*payloads: bytes):
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for payload in payloads:
            await response.write(payload)
        return response

    return handler


@pytest.mark.timeout(60)
@pytest.mark.parametrize("client", ["lean", "aiohttp"])
@pytest.mark.parametrize("head", [b"data: ", b"data: {\r"])
def test_an_event_that_never_ends_fails_the_request(canned_server, client: str, head: bytes) -> None:  # noqa: F811
    endless = (head, *([b"x" * (1 << 20)] * 20))  # 20 MiB, no line break after the first bytes
    server = canned_server({"POST /v1/completions": _stream(*endless)})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=1, output_tokens=3, http_client=client))
    (reason,) = result.failure_reasons()
    assert "MiB without" in reason


@pytest.mark.timeout(60)
@pytest.mark.parametrize("client", ["lean", "aiohttp"])
def test_a_count_beyond_any_server_fails_the_request_with_its_reason(canned_server, client: str) -> None:  # noqa: F811
    huge = b'data: {"choices":[{"text":"a","finish_reason":"length"}],"usage":{"prompt_tokens":4,' \
           b'"completion_tokens":' + str(10**30).encode() + b"}}\n\ndata: [DONE]\n\n"
    server = canned_server({"POST /v1/completions": _stream(huge)})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3, http_client=client))
    assert list(result.failure_reasons()) == [
        "the server reported completion_tokens = a 31-digit number, beyond any real count (0 to 1,000,000,000)"
    ]
