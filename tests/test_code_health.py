"""Code-health gates that run with the suite: ruff and mypy are clean, no module or function
outgrows the size a reader can hold at once, and every command is documented in the README and
answers ``--help``.

ruff and mypy are pinned in the ``test`` extra (pyproject.toml), where their settings live
too, so the same tree gives the same answer on every machine.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchdoc.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extra (pip install -e '.[test]')")
    return found


def test_ruff_is_clean() -> None:
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", "src", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.timeout(600)
def test_mypy_is_clean() -> None:
    result = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _commands() -> list[str]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(subparsers.choices)  # type: ignore[attr-defined]


@pytest.mark.timeout(600)  # one interpreter start per command: minutes on a loaded 2-core machine
def test_every_command_is_in_the_readme_and_has_help() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`benchdoc ([a-z][a-z-]*)", readme))
    missing = [c for c in _commands() if c not in documented]
    assert not missing, f"commands not in README.md: {missing}"
    for command in _commands():
        result = subprocess.run([sys.executable, "-m", "benchdoc", command, "--help"], capture_output=True, text=True)
        assert result.returncode == 0, (command, result.stderr)
        assert f"benchdoc {command}" in result.stdout, command


MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted((ROOT / "src" / "benchdoc").rglob("*.py"))


def test_no_module_is_over_600_lines() -> None:
    too_long = {}
    for path in _modules():
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_FILE_LINES:
            too_long[str(path.relative_to(ROOT))] = lines
    assert not too_long, f"modules over {MAX_FILE_LINES} lines (split them by responsibility): {too_long}"


def test_no_function_is_over_80_lines() -> None:
    too_long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = length
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines: {too_long}"


def test_the_size_gates_can_fail(tmp_path: Path) -> None:
    """The measure the gates use counts a long function and a long file as long."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    tree = ast.parse(f"def long():\n{body}\n")
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)
    assert (node.end_lineno or 0) - node.lineno + 1 == MAX_FUNCTION_LINES + 1


# The flags each command's row of the README's command table names: what a reader needs to
# know the command can do (every other option is in its --help and the docs).
MAIN_FLAGS: dict[str, tuple[str, ...]] = {
    # (--max-starts is spelled longest by its older name, --max-repetitions: the README may name either.)
    "run": ("--repetitions", "--until-decided", "--starts", "--max-repetitions", "--interleave", "--missing", "--dry-run", "--quiet"),
    "submit": ("--slurm", "--partition", "--gres", "--time", "--max-parallel", "--missing", "--dry-run"),
    "record": ("--metric", "--failed", "--note"),
    "import": ("--format", "--experiment", "--select", "--metric", "--allow-new", "--dry-run"),
    "bench": ("--url", "--api", "--concurrency", "--rate", "--requests", "--duration", "--input-tokens",
              "--output-tokens", "--dataset", "--tokenizer", "--slo", "--repetitions", "--find-capacity", "--workers",
              "--record", "--json"),
    "sim": ("--port", "--ttft-ms", "--step-ms", "--draft-steps", "--accept-prob", "--fail-start", "--error-rate"),
    "show": ("--markdown", "--metric", "--all-metrics", "--json", "--runs", "--since", "--all-runs"),
    "compare": ("--markdown", "--metric", "--json", "--runs", "--since", "--all-runs"),
    "history": ("--requests", "--all-metrics", "--json"),
    "retract": ("--reason",),
    "export": ("--format", "--output", "--experiment", "--requests"),
    "sync": ("--write", "--check", "--force", "--quiet", "--runs", "--since", "--all-runs"),
    "lint": ("--changed-since", "--changed", "--json"),
    "check": ("--diff", "--no-lint", "--runs", "--since", "--all-runs"),
    "plot": ("--output", "--kind", "--metric", "--runs", "--since", "--all-runs"),
    "report": ("--output", "--history-charts", "--runs", "--since", "--all-runs"),
    "mcp": ("--allow-write", "--allow-run"),
}


def _command_rows(readme: str) -> dict[str, str]:
    """The README's command table: each command's row, by the command it starts with."""
    rows = {}
    for line in readme.splitlines():
        found = re.match(r"\| `benchdoc ([a-z][a-z-]*)", line)
        if found:
            rows[found.group(1)] = line
    return rows


def _options(command: str) -> dict[str, set[str]]:
    """Each option of a command: its longest spelling -> every spelling."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    sub = subparsers.choices[command]  # type: ignore[attr-defined]
    return {max(a.option_strings, key=len): set(a.option_strings) for a in sub._actions if a.option_strings}


def test_the_readme_command_table_has_a_row_per_command_naming_its_main_flags() -> None:
    rows = _command_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    assert sorted(rows) == _commands(), "the command table should have one row per command"
    for command, flags in MAIN_FLAGS.items():
        options = _options(command)
        for flag in flags:
            assert flag in options, f"{command} has no option {flag}: update MAIN_FLAGS"
            spelled = [s for s in options[flag] if re.search(re.escape(s) + r"(?![\w-])", rows[command])]
            assert spelled, f"README's row of `benchdoc {command}` does not name {flag}"
    # Every chart kind `plot --kind` takes is named in its row.
    kind = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    plot_kinds = next(a.choices for a in kind.choices["plot"]._actions if "--kind" in a.option_strings)  # type: ignore[attr-defined]
    assert all(f"`{k}`" in rows["plot"] or f"--kind {k}" in rows["plot"] for k in plot_kinds)
