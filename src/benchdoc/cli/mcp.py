"""`benchdoc mcp`: serve the project to a coding agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchdoc.errors import UsageError

ORDER = 90

DESCRIPTION = """\
Serve this project to a coding agent over the Model Context Protocol, on standard input and
output: its experiments, comparisons, history, the prose lint and check as tools that answer
with data (never the terminal's tables), and its documents as resources. The agent changes a
document only by plan: sync_plan gives the diff and a plan id, sync_write(plan_id) writes
exactly that plan and refuses if anything changed; a lint fix is applied by its id the same way.

It works inside the project folder only (no path outside it, symlinks included) and runs no
shell. Its write tools (record, retract, sync_write, apply_fix) are refused unless started with
--allow-write, and run unless --allow-run. Needs the optional SDK: pip install 'benchdoc[mcp]'.
See docs/agents.md.
"""

EPILOG = """\
register it with an MCP client (its JSON configuration):
  {"mcpServers": {"benchdoc": {"command": "benchdoc",
                               "args": ["--config", "/path/to/project/benchdoc.toml", "mcp", "--allow-write"]}}}
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the project to a coding agent over the Model Context Protocol (stdio)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--allow-write", action="store_true",
                        help="allow record, retract, sync_write and apply_fix (default: read-only)")
    parser.add_argument("--allow-run", action="store_true",
                        help="allow run: start the experiments' servers and record their runs")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.config import find_config

    path = Path(args.config) if getattr(args, "config", None) else find_config()
    try:
        from benchdoc.mcp.server import serve
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] != "mcp":
            raise
        raise UsageError("benchdoc mcp needs the MCP SDK: pip install 'benchdoc[mcp]'") from None
    from benchdoc.mcp.scope import Scope

    scope = Scope(path.resolve(), allow_write=args.allow_write, allow_run=args.allow_run)
    scope.config()  # read once here: a broken benchdoc.toml is its one line before any client connects
    serve(scope)
    return 0
