"""What the MCP server refuses: writes without --allow-write, run without --allow-run, any path outside
the project (symlinks included); errors are tool errors carrying the CLI's own line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import MCPError
from tests.agents.conftest import NEW, call, connect, refused
from tests.conftest import Project

from benchdoc.ledger.store import Ledger


def run_ids(project: Project) -> list[int]:
    with Ledger.open(project.ledger_url, read_only=True) as ledger:
        return [r.id for r in ledger.runs()]


def test_write_tools_are_refused_without_allow_write(story: Project) -> None:
    log = story.root / "log.md"
    before, runs = log.read_bytes(), run_ids(story)

    async def agent() -> None:
        async with connect(story) as client:
            plan = await call(client, "sync_plan")  # reading is allowed
            lines = [
                await refused(client, "record", experiment="baseline", metrics={"output_tok_s": NEW["baseline"]}),
                await refused(client, "retract", run_id=runs[0], reason="measured with the debug build"),
                await refused(client, "sync_write", plan_id=plan["plan_id"]),
                await refused(client, "apply_fix", fix_id="0" * 16),
            ]
            assert lines == [
                f"benchdoc: error: {tool} changes the project: the MCP server was started without --allow-write"
                for tool in ("record", "retract", "sync_write", "apply_fix")
            ]
            assert await refused(client, "run", experiments=["baseline"]) == (
                "benchdoc: error: run starts servers and records runs: the MCP server was started without --allow-run")

    anyio.run(agent)
    assert log.read_bytes() == before and run_ids(story) == runs


def test_paths_outside_the_project_are_refused_symlinks_included(story: Project, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Not the project's\n\nEAGLE-3 is 40% slower than baseline.\n", encoding="utf-8")
    (story.root / "notes").mkdir()
    (story.root / "notes" / "link.md").symlink_to(outside)
    (story.root / "inside.md").write_text("# Notes\n\nBaseline (no spec) reaches 89.5 tok/s.\n", encoding="utf-8")
    root = os.path.realpath(story.root)

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            for given in ("../elsewhere.md", str(outside), "notes/link.md", "notes/../../elsewhere.md"):
                for tool in ("lint", "check", "sync_plan"):
                    line = await refused(client, tool, documents=[given])
                    assert line == (f"benchdoc: error: {given}: outside the project folder {root}; "
                                    "the MCP server works only inside it"), line
            with pytest.raises(MCPError):  # a resource read answers with a protocol error (the SDK refuses '..')
                await client.read_resource("benchdoc://documents/../elsewhere.md")
            with pytest.raises(MCPError) as error:
                await client.read_resource("benchdoc://documents/notes/link.md")
            assert error.value.message == (f"benchdoc: error: notes/link.md: outside the project folder {root}; "
                                           "the MCP server works only inside it")
            inside = await call(client, "lint", documents=["inside.md"])
            assert inside["documents"] == ["inside.md"]
            listed = await client.list_resources()
            assert [str(r.uri) for r in listed.resources] == ["benchdoc://documents/log.md"]
            text = await client.read_resource("benchdoc://documents/log.md")
            assert text.contents[0].text == (story.root / "log.md").read_text(encoding="utf-8")  # type: ignore[union-attr]

    anyio.run(agent)


def test_a_listed_document_outside_the_project_is_refused_too(story: Project, tmp_path: Path) -> None:
    (tmp_path / "shared.md").write_text("# Shared\n", encoding="utf-8")
    config = (story.root / "benchdoc.toml").read_text(encoding="utf-8")
    story.write_config(config.replace('paths = ["log.md"]', 'paths = ["log.md", "../shared.md"]\noutside_project = true'))

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            line = await refused(client, "sync_plan")
            assert line.startswith("benchdoc: error: ../shared.md: outside the project folder ")

    anyio.run(agent)


def test_errors_are_the_lines_the_cli_prints(story: Project) -> None:
    """Bad input gives the CLI's one line, file:line included, and changes nothing."""
    cases = [
        (("record", "eagle4", "--metric", "output_tok_s=1"), "record", {"experiment": "eagle4", "metrics": {"output_tok_s": [1]}}),
        (("record", "baseline", "--metric", "tok_s=1"), "record", {"experiment": "baseline", "metrics": {"tok_s": [1]}}),
        (("record", "baseline", "--metric", "output_tok_s=-3"), "record", {"experiment": "baseline", "metrics": {"output_tok_s": [-3]}}),
        (("retract", "999", "--reason", "typo"), "retract", {"run_id": 999, "reason": "typo"}),
        (("compare", "baseline"), "compare", {"candidate": "baseline"}),
        (("history", "nope"), "history", {"experiment": "nope"}),
    ]
    expected = []
    for argv, _, _ in cases:
        result = story.run(*argv)
        assert result.returncode != 0
        expected.append(result.stderr.strip())
    (story.root / "log.md").write_text("# Log\n\n<!-- benchdoc:table experiments=\"nosuch\" -->\n<!-- benchdoc:end -->\n",
                                       encoding="utf-8")
    broken = story.run("sync", "--check").stderr.strip()
    assert broken.startswith("benchdoc: error: log.md:3: ")

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            for (argv, tool, arguments), line in zip(cases, expected):
                assert await refused(client, tool, **arguments) == line, argv
            plan = await call(client, "sync_plan")
            assert plan["errors"] == [broken.removeprefix("benchdoc: error: ")]
            assert await refused(client, "sync_write", plan_id=plan["plan_id"]) == broken

    anyio.run(agent)


def test_other_commands_do_not_import_the_sdk(story: Project) -> None:
    code = ("import sys; from benchdoc.cli import main; code = main(['check']); "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'benchdoc.mcp'))))")
    result = subprocess.run([sys.executable, "-c", code], cwd=story.root, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout + result.stderr
