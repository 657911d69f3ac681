"""The floors of the package, read from the source: one test of every import in benchdoc.

Every module's imports are read with ``ast``, those inside functions included (an import
placed in a function to dodge a cycle is still a cycle); imports under ``if TYPE_CHECKING:``
never run and do not count, except where a rule says so. The rules:

- no two modules import each other, directly or round a loop;
- the bottom floors import nothing above them: ``naming`` only ``errors`` and ``limits``, the simulator
  nothing of benchdoc, and the ground (config, ledger, stats, workloads, importers, the
  recorder, planning...) none of the floors built on it;
- ``results`` is the one query layer: it imports no runner, and nothing outside it imports
  ``stats`` (but the allowed, each with why);
- ``stats`` knows no storage and no configuration;
- a command module imports no other command (the ``_`` modules are their shared helpers).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

import benchdoc

PACKAGE = Path(benchdoc.__file__).parent

# The floors that others stand on: none of them imports a floor above it.
GROUND = ("errors", "outcome", "naming", "reasons", "redact", "untrusted", "textfile", "mdtable", "limits", "procfs",
          "machineload", "environment", "engine_version", "provenance", "metricbounds", "sweeps", "pooling",
          "config", "ledger", "stats", "recording", "workloads", "importers", "planning", "sim")
ABOVE_GROUND = ("cli", "runner", "results", "docs", "lint", "report", "plots", "cluster", "mcp", "demo", "check",
                "serialize", "measured", "export", "cache", "selection")

# Modules that may import benchdoc.stats directly, each with why.
STATS_ALLOWED: dict[str, str] = {
    # `run --until-decided` is itself a statistical procedure (alpha spending over interim
    # looks, each a test at alpha / K on the values so far). Its looks are not the
    # project's results and are never shown as verdicts; it needs the raw test at a level
    # of its own, which no question to `results` expresses.
    "runner/sequential.py": "sequential testing at a per-look level",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (getattr(test, "id", None) or getattr(test, "attr", None)) == "TYPE_CHECKING"


def imports_in(source: str, package: str, *, typing_too: bool = False) -> set[str]:
    """Every module ``source`` imports anywhere (inside functions too), as absolute names:
    ``from pkg import sub`` names ``pkg.sub`` when that is a module, else ``pkg``."""
    found: set[str] = set()
    pending: list[ast.AST] = [ast.parse(source)]
    while pending:
        node = pending.pop()
        if _type_checking(node) and not typing_too:
            pending.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names]
            submodules = [name for name in names if name in MODULES]
            found.update(submodules)
            if len(submodules) < len(names):
                found.add(base)
    return found


def imports_of(module: str, *, typing_too: bool = False) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return {m for m in imports_in(path.read_text(encoding="utf-8"), package, typing_too=typing_too) if m in MODULES}


def floor(module: str) -> str:
    """``benchdoc.results.compute`` -> ``results``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _offenders(modules: Iterable[str], forbidden: Iterable[str], **kw: bool) -> list[str]:
    banned = set(forbidden)
    return sorted(f"{m} -> {i}" for m in modules for i in imports_of(m, **kw) if floor(i) in banned)


def test_no_module_imports_itself_round_a_loop() -> None:
    graph = {module: imports_of(module) - {module} for module in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    assert cycles == [], f"import cycles (counting imports inside functions): {cycles}"


def test_naming_is_the_bottom_floor() -> None:
    # limits: the bounded number reader every outside input goes through (it imports no benchdoc).
    assert {floor(m) for m in imports_of("benchdoc.naming", typing_too=True)} <= {"errors", "limits"}
    assert {floor(m) for m in imports_of("benchdoc.limits", typing_too=True)} <= {"errors", "textfile"}


def test_the_simulator_knows_nothing_of_benchdoc() -> None:
    """It is a server under test: it may share a leaf helper (one that imports nothing of
    benchdoc, such as the child-process environment), never benchdoc's logic."""
    sim = [m for m in MODULES if floor(m) == "sim"]
    used = [(m, i) for m in sim for i in imports_of(m, typing_too=True) if floor(i) != "sim"]
    assert [f"{m} -> {i}" for m, i in used if imports_of(i, typing_too=True)] == []


def test_the_ground_imports_no_floor_above_it() -> None:
    ground = [m for m in MODULES if floor(m) in GROUND]
    assert _offenders(ground, ABOVE_GROUND) == []


def test_results_import_no_runner_and_stats_no_storage() -> None:
    assert _offenders([m for m in MODULES if floor(m) == "results"], ["runner", "cli"]) == []
    assert _offenders([m for m in MODULES if floor(m) == "stats"], ["ledger", "config", "results"], typing_too=True) == []


def test_no_module_outside_results_imports_stats() -> None:
    offenders = [
        MODULES[m].relative_to(PACKAGE).as_posix()
        for m in MODULES
        if floor(m) not in ("results", "stats")
        and any(floor(i) == "stats" for i in imports_of(m, typing_too=True))
        and MODULES[m].relative_to(PACKAGE).as_posix() not in STATS_ALLOWED
    ]
    assert offenders == [], f"ask benchdoc.results instead of importing benchdoc.stats in: {', '.join(offenders)}"


def test_the_allowed_modules_still_need_it() -> None:
    """An allowance nobody uses any more is removed, not kept as a standing exception."""
    unused = [name for name in STATS_ALLOWED
              if not any(floor(i) == "stats" for i in imports_of(module_name(PACKAGE / name), typing_too=True))]
    assert unused == []


COMMANDS = sorted(m for m in MODULES if m.startswith("benchdoc.cli.") and not m.rpartition(".")[2].startswith("_"))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_imports_no_other_command(command: str) -> None:
    assert sorted(i for i in imports_of(command, typing_too=True) if i in COMMANDS and i != command) == []


def test_the_reader_sees_every_form_of_import() -> None:
    forms = {
        "import benchdoc.stats": {"benchdoc.stats"},
        "from benchdoc.stats import compare": {"benchdoc.stats.compare"},  # a module: named as itself
        "from benchdoc.stats.summary import summarize": {"benchdoc.stats.summary"},
        "from benchdoc import stats": {"benchdoc.stats"},
        "from .. import stats": {"benchdoc.stats"},
        "from ..stats import compare": {"benchdoc.stats.compare"},
        "from benchdoc.stats import format_p, compare": {"benchdoc.stats", "benchdoc.stats.compare"},
        "def f():\n    from benchdoc.stats import format_p": {"benchdoc.stats"},
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from benchdoc.stats import Summary": {"typing"},
        "import benchdoc.statsd": {"benchdoc.statsd"},
    }
    for source, expected in forms.items():
        assert imports_in(source + "\n", "benchdoc.docs") == expected, source
    assert "benchdoc.stats" in imports_in("if TYPE_CHECKING:\n    from benchdoc import stats\n", "benchdoc.docs",
                                          typing_too=True)


# benchdoc's own imports placed inside functions, counted over the package. None makes a
# cycle (the test above counts them); they are kept where a command's start-up would
# otherwise load every floor it might use. The rule is the module top: this count may fall,
# never grow (lower it when it falls).
OWN_IMPORTS_IN_FUNCTIONS = 334
# The standard library's, likewise. The few left load a heavier module only one path needs
# (urllib.request, ctypes, multiprocessing), or are Python 3.10's fallback (tomllib).
STDLIB_IMPORTS_IN_FUNCTIONS = 8

# The only third-party libraries imported inside a function, each with why.
LAZY_LIBRARIES: dict[str, str] = {
    "numpy": "heavy (about 0.1 s); only a comparison or a summary computes with it",
    "scipy": "heavy (about 0.3 s with its special functions); only a test of significance needs it",
    "matplotlib": "heavy (about 0.5 s); only plot, report and a document's chart draw",
    "rich": "its tables, progress bars and rules cost a command that prints plain lines",
    "markdown_it": "the Markdown parser: only commands that read documents pay for it",
    "argcomplete": "shell completion only, on a completing shell's request",
    "anyio": "the MCP server's own event-loop library: only `benchdoc mcp` loads it",
    "mcp": "an optional extra (benchdoc[mcp]); only `benchdoc mcp` needs it",
    "uvloop": "optional; loaded only when a workload runs on it",
    "aiohttp": "the load generator's HTTP client: loaded when a workload runs",
    "prometheus_client": "its parser only when a server's /metrics is read",
    "tokenizers": "an optional extra (benchdoc[tokenizer]), heavy; only a dataset or tokenizer option loads it",
    "tomli": "Python 3.10's TOML reader, in place of tomllib",
}


def imports_inside_functions(source: str) -> list[tuple[str, int]]:
    """(module, line) of every import inside a function body (relative ones as '.name'),
    those under ``if TYPE_CHECKING:`` left out."""
    found: list[tuple[str, int]] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            nested = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if inside and isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno) for alias in child.names[:1])
            elif inside and isinstance(child, ast.ImportFrom):
                found.append(("." * child.level + (child.module or ""), child.lineno))
            walk(child, nested)

    walk(ast.parse(source), False)
    return found


def _kind(module: str) -> str:
    top = module.split(".")[0]
    if module.startswith(".") or top == "benchdoc":
        return "own"
    return "stdlib" if top in sys.stdlib_module_names else top


def _in_functions() -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for path in MODULES.values():
        for module, line in imports_inside_functions(path.read_text(encoding="utf-8")):
            where = f"{path.relative_to(PACKAGE).as_posix()}:{line} {module}"
            kinds.setdefault(_kind(module), []).append(where)
    return kinds


def test_imports_inside_functions_do_not_grow() -> None:
    found = _in_functions()
    own, stdlib = found.pop("own", []), found.pop("stdlib", [])
    assert len(own) <= OWN_IMPORTS_IN_FUNCTIONS, (
        f"{len(own)} of benchdoc's own imports inside functions (at most {OWN_IMPORTS_IN_FUNCTIONS}): "
        "import at the module top; the layering test says if that makes a cycle")
    assert len(stdlib) <= STDLIB_IMPORTS_IN_FUNCTIONS, f"{len(stdlib)} standard-library imports inside functions"
    unexplained = sorted(where for library, places in found.items() if library not in LAZY_LIBRARIES
                         for where in places)
    assert unexplained == [], "a third-party import inside a function needs a reason in LAZY_LIBRARIES"


def test_each_lazy_library_is_still_imported_lazily() -> None:
    """An allowance nobody uses any more is removed, not kept as a standing exception."""
    assert sorted(set(LAZY_LIBRARIES) - set(_in_functions())) == []


def test_the_counter_finds_imports_inside_functions_only() -> None:
    source = ("import os\nfrom typing import TYPE_CHECKING\n"
              "def f():\n    import json\n    from . import naming\n    if TYPE_CHECKING:\n        import numpy\n"
              "    def g():\n        from benchdoc.stats import compare\n"
              "class C:\n    import re\n    def m(self):\n        import scipy.special\n")
    assert imports_inside_functions(source) == [("json", 4), (".", 5), ("benchdoc.stats", 9), ("scipy.special", 13)]
