"""A readiness URL with a user and password reaches a healthy server (the credentials go in
an Authorization header, not in the host name), and the password is never shown."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchdoc.runner.process import probe

EXPECTED = "Basic " + base64.b64encode(b"svc:p@ss word").decode()


class _Guarded(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        ok = self.headers.get("Authorization") == EXPECTED and self.path == "/health"
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def guarded() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Guarded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_credentials_in_the_readiness_url_are_sent_as_a_header(guarded: int) -> None:
    assert probe(f"http://svc:p%40ss%20word@127.0.0.1:{guarded}/health") == (True, "HTTP 200")
    assert probe(f"http://127.0.0.1:{guarded}/health") == (False, "HTTP 401")
    ok, said = probe(f"http://svc:wrong@127.0.0.1:{guarded}/health")
    assert not ok and "wrong" not in said
