"""Headless Chromium for tests: a screenshot run, and a page driven over the DevTools protocol.

Chromium is started with the flags that keep it offline and quiet, a fresh profile
folder, and its own process group, which is torn down when the test is done.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

OFFLINE_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)")


def chromium_path() -> str:
    """The Chromium binary; a clear failure (not a skip) when it is missing."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if not found:
        raise AssertionError(
            "chromium not found: install Debian's chromium package (scripts/test does when run as root)"
        )
    return found


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End Chromium and every child process it started (its own process group)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def screenshot(page: Path, out: Path, profile: Path, size: tuple[int, int] = (1400, 2400), timeout: float = 30) -> None:
    """Open ``page`` and write a PNG screenshot of it with Chromium's own --screenshot."""
    argv = [
        chromium_path(), *OFFLINE_FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
        f"--screenshot={out}", page.as_uri(),
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=timeout)
    finally:
        _stop(proc)


class DevTools:
    """A minimal client of the Chrome DevTools protocol over one page's websocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    async def send(self, method: str, timeout: float = 15, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        wanted = self.next_id
        await self.ws.send_str(json.dumps({"id": wanted, "method": method, "params": params}))
        while True:
            message = await asyncio.wait_for(self.ws.receive_json(), timeout)
            if message.get("id") == wanted:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    async def wait_event(self, method: str, timeout: float = 15) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                self.events.remove(event)
                return event
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.ws.receive_json(), max(0.1, deadline - time.monotonic()))
            if message.get("method") == method:
                return message
            self.events.append(message)

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the centre of the element."""
        box = await self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.scrollIntoView({{block: 'center'}});"
            " const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def screenshot(self) -> bytes:
        result = await self.send("Page.captureScreenshot", format="png", timeout=30)
        return base64.b64decode(result["data"])


@asynccontextmanager
async def devtools_page(page: Path, profile: Path, size: tuple[int, int] = (1400, 1800)) -> AsyncIterator[DevTools]:
    """Chromium with remote debugging on a loopback port, its page loaded with ``page``."""
    import aiohttp

    log = profile.parent / f"{profile.name}-stderr.log"
    argv = [
        chromium_path(), *OFFLINE_FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
        "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank",
    ]
    with log.open("wb") as stderr:  # a file, not a pipe: Chromium never blocks on a full pipe
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    try:
        port = _devtools_port(proc, log)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = await response.json()
            target = next(t for t in targets if t.get("type") == "page")
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                tools = DevTools(ws)
                for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
                    await tools.send(domain)
                await tools.send("Page.navigate", url=page.as_uri())
                await tools.wait_event("Page.loadEventFired", timeout=20)
                yield tools
    finally:
        _stop(proc)


def _devtools_port(proc: subprocess.Popen[bytes], log: Path, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = DEVTOOLS_LINE.search(log.read_text(errors="replace"))
        if match:
            return int(match.group(2))
        if proc.poll() is not None:
            raise AssertionError(f"chromium exited ({proc.returncode}) before DevTools listened:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)
    raise AssertionError(f"chromium did not start DevTools within {timeout} s")
