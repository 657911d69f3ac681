"""`run` over MCP against the simulator: progress while it measures, and a cancelled call that stops
the server under test like Ctrl-C (no server left, nothing recorded for it) while the MCP server serves on."""

from __future__ import annotations

import re
import time
from pathlib import Path

import anyio
from tests.agents.conftest import call, connect
from tests.conftest import Project, sim_config_head

from benchdoc.runner.process import live_group_members

CONFIG = sim_config_head() + """
[workloads.small]
requests = 6
concurrency = 2
input_tokens = 8
output_tokens = 8

[workloads.long]
requests = 5000
concurrency = 1
input_tokens = 8
output_tokens = 16

[experiments.quick]
server = "sim"
workload = "small"
repetitions = 2

[experiments.long-one]
server = "sim"
workload = "long"
repetitions = 3
"""


def sim_project(root: Path) -> Project:
    project = Project(root)
    project.write_config(CONFIG)
    return project


def recorded(project: Project) -> dict[str, str]:
    return {experiment: run.outcome for experiment, run in project.runs(read_only=True).items()}


def test_run_reports_progress_and_records(tmp_path: Path) -> None:
    project = sim_project(tmp_path)
    messages: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append((done, total, message))

    async def agent() -> None:
        async with connect(project, "--allow-run") as client:
            result = await client.call_tool("run", {"experiments": ["quick"]}, progress_callback=progress)
            assert not result.is_error, result.content
            outcomes = result.structured_content["outcomes"]  # type: ignore[index]
            assert [(o["experiment"], o["outcome"], o["repetitions"]) for o in outcomes] == [("quick", "ok", 2)]

    anyio.run(agent)
    assert recorded(project) == {"quick": "ok"}
    texts = [m for _, _, m in messages]
    assert "quick: repetition 1 of 2" in texts and "quick: repetition 2 done" in texts
    assert any(re.fullmatch(r"quick: server ready in [\d.]+ s \(pid \d+\)", t or "") for t in texts)
    assert messages[-1][0] == 2 and all(total == 2 for _, total, _ in messages)
    assert [done for done, _, _ in messages] == sorted(done for done, _, _ in messages)


def test_a_cancelled_run_leaves_no_server_and_the_mcp_server_serves_on(tmp_path: Path) -> None:
    project = sim_project(tmp_path)
    servers: list[int] = []
    measuring = anyio.Event()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        found = re.search(r"\(pid (\d+)\)", message or "")
        if found:
            servers.append(int(found.group(1)))
        if servers and re.search(r"repetition 1: \d+ of 5000 requests", message or ""):
            measuring.set()

    async def agent() -> None:
        async with connect(project, "--allow-run", "--allow-write") as client:
            async with anyio.create_task_group() as group:
                cancel = anyio.CancelScope()

                async def run_it() -> None:
                    with cancel:
                        await client.call_tool("run", {"experiments": ["long-one"]}, progress_callback=progress)
                    assert cancel.cancelled_caught, "the run ended before it was cancelled"

                group.start_soon(run_it)
                with anyio.fail_after(90):
                    await measuring.wait()
                assert live_group_members(servers[0]), "the server should be measuring"
                cancel.cancel()
            deadline = time.monotonic() + 30
            while live_group_members(servers[0]) and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            assert live_group_members(servers[0]) == [], "the server under test outlived the cancelled run"
            shown = await call(client, "experiments")  # the MCP server is still there, and answers
            assert {e["name"]: e["status"] for e in shown["experiments"]}["long-one"] == "Untested"

    anyio.run(agent)
    assert recorded(project) == {}  # nothing recorded for the interrupted experiment, as with Ctrl-C
    assert runjobs(project) == [], "the run's child process outlived the cancelled call"


def runjobs(project: Project) -> list[str]:
    """The command lines of live `benchdoc.mcp.runjob` children working on this project."""
    found = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            cmdline = path.read_bytes()
        except OSError:
            continue
        if b"benchdoc.mcp.runjob" in cmdline and str(project.root).encode() in cmdline:
            found.append(cmdline.decode(errors="replace"))
    return found
