"""The runner's modules import each other without a cycle, at module level or inside functions
(imports only for type checking do not run, and do not count)."""

from __future__ import annotations

import ast
from pathlib import Path

import benchdoc.runner

PACKAGE = Path(benchdoc.runner.__file__).parent


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:``."""
    nodes: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return nodes


def _imports(path: Path) -> set[str]:
    """Runner modules ``path`` imports anywhere in its body, when it runs."""
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchdoc.runner"):
            found.add(node.module.split(".")[2] if node.module.count(".") >= 2 else "__init__")
            if node.module == "benchdoc.runner":
                found.update(alias.name for alias in node.names if (PACKAGE / f"{alias.name}.py").exists())
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("benchdoc.runner."))
    return found - {"__init__"}


def test_runner_modules_form_no_import_cycle() -> None:
    graph = {path.stem: _imports(path) for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert "spec" not in graph["jsonpath"] and "reading" not in graph["spec"]
    visiting: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> None:
        if module in done:
            return
        assert module not in visiting, f"import cycle: {' -> '.join([*visiting[visiting.index(module):], module])}"
        visiting.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        visiting.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
