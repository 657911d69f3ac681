"""A project with the story's experiment log, and the MCP server driven by the SDK's own client over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from tests.conftest import STORY_CONFIG, Project  # noqa: E402

LOG = """\
# EAGLE-3 fast verify

## Abstract

EAGLE-3 is 40% slower than baseline on this stack.

## Results

<!-- benchdoc:table experiments="baseline eagle3*" metric=output_tok_s -->
<!-- benchdoc:end -->

Current baseline: <!-- benchdoc:value baseline.output_tok_s -->—<!-- benchdoc:end --> tok/s.

## Conclusion

Do not enable it: EAGLE-3 is 40% slower than baseline.
"""

# The story's figures: the old stack, then the upgrade (five repetitions each, tok/s).
OLD = {"baseline": [89.3, 89.5, 89.6, 89.4, 89.7], "eagle3": [54.0, 54.1, 54.3, 53.9, 54.2]}
NEW = {"baseline": [92.4, 92.6, 92.7, 92.5, 92.8], "eagle3-cuda13": [95.9, 96.1, 96.2, 96.0, 96.3]}


def story_project(root: Path) -> Project:
    """The story before the upgrade: the old stack recorded, its log synced, its prose written by hand."""
    project = Project(root)
    project.write_config(STORY_CONFIG + '\n[documents]\npaths = ["log.md"]\n')
    (root / "log.md").write_text(LOG, encoding="utf-8")
    for name, values in OLD.items():
        result = project.run("record", name, "--each-start", "--metric", "output_tok_s=" + ",".join(map(str, values)))
        assert result.returncode == 0, result.stderr
    assert project.run("sync", "--write", "--quiet").returncode == 0
    return project


@pytest.fixture
def story(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    return story_project(root)


@asynccontextmanager
async def connect(project: Project, *flags: str, cwd: Path | None = None) -> AsyncIterator[Client]:
    """`benchdoc --config PROJECT/benchdoc.toml mcp FLAGS` as an MCP client starts it, connected."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "benchdoc", "--config", str(project.root / "benchdoc.toml"), "mcp", *flags],
        cwd=str(cwd or project.root.parent),
    )
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured answer; the test fails with the tool's text if it answered with an error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    """The one line of a tool error (the test fails if the tool answered)."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert len(result.content) == 1
    return result.content[0].text  # type: ignore[union-attr]
