"""The floors of the package, read from the source: who may import the statistics.

`benchdoc.results` is the one query layer: every view (commands, documents, charts, the
report, the lint) asks it for summaries, comparisons and verdicts, so they cannot drift
apart. This reads every module's imports (including those inside functions and under
TYPE_CHECKING) and fails when a module outside ``results`` and ``stats`` imports ``stats``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import benchdoc

PACKAGE = Path(benchdoc.__file__).parent

# Modules that may import benchdoc.stats directly, each with why.
STATS_ALLOWED: dict[str, str] = {
    # `run --until-decided` is itself a statistical procedure (alpha spending over interim
    # looks, each a test at alpha / K on the values so far). Its looks are not the
    # project's results and are never shown as verdicts; it needs the raw test at a level
    # of its own, which no question to `results` expresses.
    "runner/sequential.py": "sequential testing at a per-look level",
}


def imported_modules(path: Path) -> set[str]:
    """Every module a file of the package imports, anywhere in it, as absolute dotted names."""
    package = ".".join(("benchdoc", *path.relative_to(PACKAGE).parts[:-1]))
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> set[str]:
    """Every module ``source`` imports (relative ones resolved against ``package``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = parts[: len(parts) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def names_stats(modules: set[str]) -> bool:
    return any(name == "benchdoc.stats" or name.startswith("benchdoc.stats.") for name in modules)


def imports_stats(path: Path) -> bool:
    return names_stats(imported_modules(path))


def modules_outside_the_query_layer() -> list[Path]:
    inside = ("results", "results.py", "stats")
    return [path for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] not in inside]


def test_no_module_outside_results_imports_stats() -> None:
    offenders = [
        path.relative_to(PACKAGE).as_posix()
        for path in modules_outside_the_query_layer()
        if imports_stats(path) and path.relative_to(PACKAGE).as_posix() not in STATS_ALLOWED
    ]
    assert offenders == [], f"ask benchdoc.results instead of importing benchdoc.stats in: {', '.join(offenders)}"


def test_the_allowed_modules_still_need_it() -> None:
    """An allowance nobody uses any more is removed, not kept as a standing exception."""
    unused = [name for name in STATS_ALLOWED if not imports_stats(PACKAGE / name)]
    assert unused == []


def test_the_reader_sees_every_form_of_import() -> None:
    forms = {
        "import benchdoc.stats": True,
        "from benchdoc.stats import compare": True,
        "from benchdoc.stats.summary import summarize": True,
        "from benchdoc import stats": True,
        "from .. import stats": True,
        "from ..stats import compare": True,
        "def f():\n    from benchdoc.stats import format_p": True,
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from benchdoc.stats import Summary": True,
        "from benchdoc.results import Summary": False,
        "from . import render": False,
        "import benchdoc.statsd": False,
    }
    for source, expected in forms.items():
        assert names_stats(imports_in(source + "\n", "benchdoc.docs")) is expected, source
