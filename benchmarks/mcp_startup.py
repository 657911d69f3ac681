"""How fast does `benchdoc mcp` start and answer on a large project, relative to `benchdoc --version`?

Builds the project of benchmarks/sync_large.py (2,000 experiments, 20,000 runs of 5 repetitions
in a SQLite ledger, a 10,000-line log with 200 managed regions) and, in the same run, times:

- ``benchdoc --version`` (the unit: an interpreter start and benchdoc's CLI);
- the server's start: spawning ``benchdoc mcp`` until it has answered the MCP handshake, through
  the SDK's own client over stdio;
- the first read tool call (``experiments`` of one experiment: every result is computed, cold)
  and the same call again; ``experiments`` of all 2,000, twice; ``check``;
- for comparison, the CLI's ``benchdoc show --json exp-0001`` and ``benchdoc check``, and
  ``python -c "import mcp.server.mcpserver"`` (what the SDK's import alone costs).

Machines here are noisy: each figure is the median of --repeat tries (each try a fresh server),
reported as a ratio to the unit.

    python benchmarks/mcp_startup.py            # a small table
    python benchmarks/mcp_startup.py --json     # {"version_s": ..., "mcp_start_ratio": ..., ...}
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sync_large import EXPERIMENTS, RUNS_PER_EXPERIMENT, build_project


def command_s(root: Path, *argv: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchdoc", *argv], cwd=root, capture_output=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"benchdoc {' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return time.perf_counter() - start


def python_s(root: Path, code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, check=True)
    return time.perf_counter() - start


async def one_server(root: Path) -> dict[str, float]:
    """One fresh server: its start, then the read calls, each timed from the client."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "benchdoc", "mcp"], cwd=str(root))
    times: dict[str, float] = {}
    start = time.perf_counter()
    async with Client(params, read_timeout_seconds=600) as client:
        times["start"] = time.perf_counter() - start
        for name, tool, arguments in (
            ("read_first", "experiments", {"names": ["exp-0001"]}),
            ("read_again", "experiments", {"names": ["exp-0001"]}),
            ("read_all", "experiments", {}),
            ("read_all_again", "experiments", {}),
            ("check", "check", {}),
        ):
            start = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            times[name] = time.perf_counter() - start
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
    return times


def measure(root: Path, repeat: int) -> dict[str, Any]:
    import anyio

    units: list[float] = []
    tries: list[dict[str, float]] = []
    for _ in range(repeat):  # interleaved, so load on the machine hits all alike
        units.append(command_s(root, "--version"))
        cli = {"cli_show_one": command_s(root, "show", "--json", "exp-0001"), "cli_check": command_s(root, "check"),
               "sdk_import": python_s(root, "import mcp.server.mcpserver")}
        tries.append(anyio.run(one_server, root) | cli)
    unit = statistics.median(units)
    figures: dict[str, Any] = {"experiments": EXPERIMENTS, "runs": EXPERIMENTS * RUNS_PER_EXPERIMENT,
                               "version_s": round(unit, 4)}
    for name in tries[0]:
        median = statistics.median(t[name] for t in tries)
        figures[f"mcp_{name}_s"] = round(median, 4)
        figures[f"mcp_{name}_ratio"] = round(median / unit, 2)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="benchdoc-mcp-large-"))
    try:
        build_project(root)
        subprocess.run([sys.executable, "-m", "benchdoc", "sync", "--write", "--quiet"], cwd=root, capture_output=True)
        figures = measure(root, args.repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"project: {EXPERIMENTS} experiments, {EXPERIMENTS * RUNS_PER_EXPERIMENT} runs; "
          f"unit: `benchdoc --version` {figures['version_s']:.3f} s (median of {args.repeat})")
    print(f"{'what':<46} ratio to the unit")
    for name, what in (("start", "server started, MCP handshake answered"),
                       ("read_first", "experiments (one), first call (results cold)"),
                       ("read_again", "experiments (one), again"),
                       ("read_all", "experiments (all 2,000), first time"),
                       ("read_all_again", "experiments (all 2,000), again"),
                       ("check", "check (tool)"),
                       ("sdk_import", "the SDK's import alone (python -c)"),
                       ("cli_show_one", "CLI: benchdoc show --json exp-0001"),
                       ("cli_check", "CLI: benchdoc check")):
        print(f"{what:<46} {figures[f'mcp_{name}_ratio']:>6}x   ({figures[f'mcp_{name}_s']:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
