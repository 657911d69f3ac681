"""Every verdict is worded by benchdoc.results (words.py): no other module writes a verdict
sentence ('no significant difference', 'inconclusive', 'N% faster than X') into its output.

Read from the source: string constants that are not docstrings, outside ``results`` and the
``lint`` (which reads such sentences in documents). The few left are no verdict, each with why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import benchdoc

PACKAGE = Path(benchdoc.__file__).parent
VERDICT = re.compile(
    r"\b(no significant difference|no difference|inconclusive|significantly (faster|slower|better|worse)"
    r"|(faster|slower|better|worse) than)\b", re.IGNORECASE)

ALLOWED: dict[str, str] = {
    "cli/compare.py": "its --help says what the verdict column means",
    "cli/lint.py": "its --help quotes the kind of prose claim the lint checks",
    "demo.py": "the demo's experiment log, written as a person would, with the claim the check then finds stale",
    "docs/render.py": "a table's legend says what its bold marks, no verdict of its own",
    "ledger/metadata.py": "a metadata key's meaning names the hypothesis a p-value tests",
    "report/assets.py": "the report's style sheet names the inconclusive status's colours",
}


def _sentences(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and VERDICT.search(node.value)]


def test_no_module_outside_results_words_a_verdict() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if not name.startswith(("results/", "lint/")) and (lines := _sentences(path)):
            found[name] = lines
    assert sorted(set(found) - set(ALLOWED)) == [], f"word verdicts in benchdoc.results.words, not in: {found}"
    assert sorted(set(ALLOWED) - set(found)) == []  # an allowance nobody needs any more is removed
