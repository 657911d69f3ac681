"""The MCP server over stdio: benchdoc's tools and documents, registered with the official SDK.

Each tool calls the library (:mod:`benchdoc.mcp.reading`, :mod:`benchdoc.mcp.writing`) and
returns its JSON-ready answer, redacted as the terminal is. A refusal or a bad input comes back
as a tool error whose text is the line the CLI prints (``benchdoc: error: ...``, with its
file:line where there is one). Tools that block run on a worker thread (the SDK's way with a
plain function); `run` is asynchronous and drives a child process (:mod:`benchdoc.mcp.runjob`).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from benchdoc import __version__
from benchdoc.errors import BenchdocError
from benchdoc.mcp import reading, writing
from benchdoc.mcp.scope import Scope

INSTRUCTIONS = """\
benchdoc keeps an experiment log (Markdown) true to a ledger of benchmark results.
Read with experiments, compare, history, lint and check. Change documents only by plan:
sync_plan gives the unified diff and a plan_id; review the diff, then sync_write(plan_id)
writes exactly that plan (refused if anything changed since). lint gives each stale
statement with a fix_id and the diff of its fix; apply_fix(fix_id) writes one the same way.
Never edit a document by line number."""

# How long a cancelled `run` may take to stop its servers before its child is killed.
RUN_STOP_TIMEOUT_S = 60.0


def answer(call: Callable[[], Any]) -> Any:
    """The call's answer redacted, as structured content and as compact JSON text (the SDK's own
    conversion indents it, doubling what a 2,000-experiment answer sends), or its BenchdocError as
    a tool error with the CLI's line."""
    from benchdoc.redact import redact_obj, redact_text

    try:
        data = redact_obj(call())
    except BenchdocError as err:
        return error_result(redact_text(f"benchdoc: error: {err}"))
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


def build_server(scope: Scope) -> MCPServer:
    server = MCPServer("benchdoc", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    _read_tools(server, scope)
    _write_tools(server, scope)
    _run_tool(server, scope)
    _resources(server, scope)
    return server


def _read_tools(server: MCPServer, scope: Scope) -> None:
    @server.tool(annotations=READ)
    def experiments(names: list[str] | None = None, metrics: list[str] | None = None) -> dict[str, Any]:
        """Each experiment's current result, as `benchdoc show --json` gives it: status, reason, each
        metric's median with its interval, the comparison against its compare_to with delta, p-value
        and verdict. names: names, aliases or globs like 'eagle3-*' (default: all)."""
        return answer(lambda: reading.experiments(scope, names or (), metrics or ()))

    @server.tool(annotations=READ)
    def compare(candidate: str, baseline: str | None = None, metrics: list[str] | None = None) -> dict[str, Any]:
        """candidate against baseline (default: its compare_to), as `benchdoc compare --json` gives it."""
        return answer(lambda: reading.compare(scope, candidate, baseline, metrics or ()))

    @server.tool(annotations=READ)
    def history(experiment: str) -> dict[str, Any]:
        """Every run of an experiment (name, alias or glob), newest first, as `benchdoc history --json`."""
        return answer(lambda: reading.history(scope, experiment))

    @server.tool(annotations=READ)
    def lint(documents: list[str] | None = None) -> dict[str, Any]:
        """Stale numbers, claims and verdicts in the documents' prose, each with its fix; a fix that
        binds the words to a value region has a fix_id and the diff apply_fix would write."""
        return answer(lambda: reading.lint(scope, documents or ()))

    @server.tool(annotations=READ)
    def check(documents: list[str] | None = None) -> dict[str, Any]:
        """What `benchdoc check` decides: ok, or the stale documents and regions, problems and stale prose."""
        return answer(lambda: reading.check(scope, documents or ()))

    @server.tool(annotations=READ)
    def sync_plan(documents: list[str] | None = None) -> dict[str, Any]:
        """What `benchdoc sync` would write: the unified diff and a plan_id naming exactly this plan
        (a hash of the documents, benchdoc.toml and the ledger's state). Writes nothing."""
        return answer(lambda: writing.sync_plan(scope, documents or ()))


def _write_tools(server: MCPServer, scope: Scope) -> None:
    @server.tool(annotations=WRITE)
    def record(experiment: str, metrics: dict[str, list[float]] | None = None, failed: str | None = None,
               note: str | None = None, each_start: bool = False) -> dict[str, Any]:
        """Record one run measured elsewhere: metrics {name: [values, one per repetition]}, or failed
        with its reason. The values are one server start's repetitions, or with each_start each
        from a server start of its own (verdicts compare starts: one a side gives none). The
        run's source is "mcp". Needs --allow-write."""
        return answer(lambda: writing.record(scope, experiment, metrics, failed=failed, note=note,
                                             each_start=each_start))

    @server.tool(annotations=WRITE)
    def retract(run_id: int, reason: str) -> dict[str, Any]:
        """Take a run back: it stays in the ledger and its history, counted nowhere. Needs --allow-write."""
        return answer(lambda: writing.retract(scope, run_id, reason))

    @server.tool(annotations=WRITE)
    def sync_write(plan_id: str, documents: list[str] | None = None) -> dict[str, Any]:
        """Write the sync plan plan_id names (from sync_plan, same documents); refused, writing nothing,
        if the documents, benchdoc.toml or the ledger changed since. Needs --allow-write."""
        return answer(lambda: writing.sync_write(scope, plan_id, documents or ()))

    @server.tool(annotations=WRITE)
    def apply_fix(fix_id: str, documents: list[str] | None = None) -> dict[str, Any]:
        """Write one lint fix by its fix_id (from lint or check, same documents): its value region in place
        of the stale words, the document synced; refused if anything changed since. Needs --allow-write."""
        return answer(lambda: writing.apply_fix(scope, fix_id, documents or ()))


def _run_tool(server: MCPServer, scope: Scope) -> None:
    @server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
    async def run(experiments: list[str], ctx: Context, repetitions: int | None = None) -> dict[str, Any]:
        """Run experiments end to end as `benchdoc run` does (start each server, measure, stop it, record),
        reporting progress; cancelling the call stops every server like Ctrl-C. Needs --allow-run."""
        from benchdoc.redact import redact_text

        try:
            scope.require_run()
        except BenchdocError as err:
            return error_result(redact_text(f"benchdoc: error: {err}"))  # type: ignore[return-value]
        return await run_child(scope, experiments, repetitions, ctx)  # type: ignore[no-any-return]


async def run_child(scope: Scope, experiments: list[str], repetitions: int | None, ctx: Context) -> Any:
    """Drive the run child; on cancellation send it SIGINT and wait (shielded) until it has stopped its servers."""
    import anyio

    argv = [sys.executable, "-m", "benchdoc.mcp.runjob", "--config", str(scope.config_path)]
    argv += ["--repetitions", str(repetitions)] if repetitions is not None else []
    argv += ["--", *experiments]
    final: dict[str, Any] = {}
    process = await anyio.open_process(argv, cwd=str(scope.root), stdin=None, stderr=None)
    try:
        assert process.stdout is not None
        async for line in _lines(process.stdout):
            item = json.loads(line)
            if "progress" in item:
                await ctx.report_progress(item["progress"], item.get("total"), item.get("message"))
            else:
                final = item
        await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)
    if "result" in final:
        return {"outcomes": final["result"]}
    return error_result(final.get("error") or f"benchdoc: error: the run ended with exit code {process.returncode}")


async def _lines(stream: Any) -> Any:
    buffer = b""
    async for chunk in stream:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line.strip():
                yield line.decode("utf-8", errors="replace")


async def _stop(process: Any) -> None:
    """Ctrl-C for a child still running, then its exit awaited; killed if it outlives the timeout."""
    import anyio

    if process.returncode is not None:
        return
    process.send_signal(signal.SIGINT)
    with anyio.move_on_after(RUN_STOP_TIMEOUT_S):
        await process.wait()
        return
    process.kill()
    await process.wait()


def _resources(server: MCPServer, scope: Scope) -> None:
    @server.resource("benchdoc://documents/{+path}", name="document", mime_type="text/markdown",
                     description="A Markdown document of the project, by its path in the project folder")
    def document(path: str) -> str:
        try:
            return reading.read_document_text(scope, path)
        except BenchdocError as err:
            raise ResourceError(f"benchdoc: error: {err}") from None

    from mcp.server.mcpserver.resources import FunctionResource

    for listed in reading.document_list(scope):
        server.add_resource(FunctionResource.from_function(
            fn=lambda listed=listed: reading.read_document_text(scope, listed),
            uri=f"benchdoc://documents/{listed}", name=listed, mime_type="text/markdown",
            description=f"{listed}: a document listed in benchdoc.toml ([documents] paths)",
        ))


def serve(scope: Scope) -> None:
    """Serve over stdio until the client closes the connection; the results are computed meanwhile."""
    os.chdir(scope.root)  # paths in every answer read as in the CLI run from the project folder
    server = build_server(scope)
    threading.Thread(target=warm, args=(scope,), name="benchdoc-mcp-warm", daemon=True).start()
    server.run("stdio")


def warm(scope: Scope) -> None:
    """Compute the results for the ledger as it is, so the first read finds them ready (or waits
    for this computation rather than starting its own). A failure here is left for a call to report."""
    try:
        with reading.reading(scope, create=False) as (config, ledger):
            scope.memo.results(config, ledger)
    except Exception:  # noqa: BLE001 - an optimisation only; the tool that needs the results says what is wrong
        pass
