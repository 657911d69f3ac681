"""What taking the HTTP/1.1 framing off a streamed response costs per read: httptools vs h11.

The lean reader's choice of parser. Each read holds one chunk of a chunked response
carrying one SSE event of about 250 bytes (the paced regime: one chunk per read); both
parsers are fed the same reads and hand back the same body bytes. Needs h11 besides
benchdoc's own httptools (``pip install h11``).

    python benchmarks/http_parsers.py          # microseconds per read, and the ratio
    python benchmarks/http_parsers.py --json   # {"httptools_us_per_read": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import sys
import time

EVENT = (
    b'data: {"id":"cmpl-0","object":"text_completion","created":1764770000,"model":"sim-llm",'
    b'"choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null}],'
    b'"usage":{"prompt_tokens":8,"completion_tokens":7,"total_tokens":15}}\n\n'
)
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
READS = [b"%x\r\n%s\r\n" % (len(EVENT), EVENT) for _ in range(256)] + [b"0\r\n\r\n"]
RESPONSES = 200


class _Body:
    def __init__(self) -> None:
        self.size = 0

    def on_body(self, body: bytes) -> None:
        self.size += len(body)


def with_httptools() -> tuple[float, int]:
    import httptools

    started, size = time.process_time(), 0
    for _ in range(RESPONSES):
        body = _Body()
        parser = httptools.HttpResponseParser(body)
        parser.feed_data(HEAD)
        for data in READS:
            parser.feed_data(data)
        size += body.size
    return time.process_time() - started, size


def with_h11() -> tuple[float, int]:
    import h11

    started, size = time.process_time(), 0
    for _ in range(RESPONSES):
        conn = h11.Connection(h11.CLIENT)
        conn.send(h11.Request(method="POST", target="/", headers=[("Host", "x"), ("Content-Length", "0")]))
        conn.send(h11.EndOfMessage())
        conn.receive_data(HEAD)
        conn.next_event()  # the response's head
        for data in READS:
            conn.receive_data(data)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or isinstance(event, h11.EndOfMessage):
                    break
                size += len(event.data)  # type: ignore[union-attr]
    return time.process_time() - started, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    try:
        import h11  # noqa: F401
    except ImportError:
        print("this benchmark needs h11: pip install h11", file=sys.stderr)
        return 2
    fast_s, fast_size = with_httptools()
    slow_s, slow_size = with_h11()
    if fast_size != slow_size or fast_size != RESPONSES * 256 * len(EVENT):
        print(f"the parsers disagree on the body: {fast_size} and {slow_size} bytes", file=sys.stderr)
        return 1
    reads = RESPONSES * len(READS)
    figures = {
        "httptools_us_per_read": round(fast_s / reads * 1e6, 3),
        "h11_us_per_read": round(slow_s / reads * 1e6, 3),
        "h11_over_httptools": round(slow_s / fast_s, 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"httptools {figures['httptools_us_per_read']:.2f} us per read, h11 {figures['h11_us_per_read']:.2f} us "
              f"({figures['h11_over_httptools']:.0f} times as much)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
