"""Mutation testing of benchdoc's core: would the tests notice if the code were wrong?

A small AST mutator (mutmut skips decorated functions, such as ``lru_cache``d and
``@property`` code, which holds much of the statistics). Each mutant changes one place
in one module:

- comparisons: ``<`` and ``<=``, ``>`` and ``>=`` swapped, ``==``/``!=``, ``is``/``is not``,
  ``in``/``not in`` turned round;
- arithmetic: ``+``/``-``, ``*``/``/``, ``//`` to ``/``, ``**`` to ``*``;
- boolean operators: ``and``/``or``; a condition negated (``if``, ``while``, ``x if c else y``),
  a ``not`` dropped;
- constants off by one (a number ``n`` becomes ``n + 1``; ``True``/``False`` swapped);
- returns: ``return x`` becomes ``return None``;
- deleted statements: an expression, assignment, augmented assignment or ``raise``
  becomes ``pass``.

Each mutant is run against the test files that cover its module (``COVERING`` below), in a
forked child that serves the mutated module from memory (the source on disk is never
touched), with ``pytest -x``; it is killed when any test fails, errors or the run times
out. Mutants are taken in a seeded random order until the module's share of the time
budget is spent, so a short budget gives a sample, said as "tested N of M".
Hypothesis runs derandomized and without its example database.

    nice -n 10 .venv/bin/python benchmarks/mutation.py --budget 1800
    nice -n 10 .venv/bin/python benchmarks/mutation.py --module benchdoc.redact --budget 600

writes per-module scores and every surviving mutant (module:line, what changed, its
number) to ``benchmarks/mutation_results.md`` (``--out``), and prints each survivor as it
is found. ``--mutant N`` (with one ``--module``) runs only the mutants so numbered.
``--retest FILE`` runs again only the survivors an earlier report lists (tests
added since can only kill more; a module whose source changed since is refused, as its
mutants are numbered differently) and writes that report's figures updated.
Not part of CI's test command: it runs the covering tests once per mutant, minutes to
hours on a small machine.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import importlib.abc
import importlib.util
import os
import random
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType

ROOT = Path(__file__).resolve().parent.parent

# Each core module and the test files that cover it.
COVERING: dict[str, tuple[str, ...]] = {
    "benchdoc.stats.compare": (
        "tests/stats/test_verdict_invariants.py", "tests/stats/test_stats_compare.py",
        "tests/stats/test_stats_multiple.py", "tests/stats/test_stats_sequential.py",
        "tests/stats/test_starts_needed_power.py", "tests/stats/test_compare_boundaries.py",
        "tests/stats/test_compare_design_edges.py", "tests/results/test_words_match_numbers.py",
    ),
    "benchdoc.stats.welch": (
        "tests/stats/test_verdict_invariants.py", "tests/stats/test_stats_compare.py",
        "tests/stats/test_stats_multiple.py", "tests/stats/test_compare_boundaries.py",
    ),
    "benchdoc.stats.starts": (
        "tests/stats/test_starts.py", "tests/stats/test_stats_compare.py", "tests/stats/test_compare_boundaries.py",
    ),
    "benchdoc.stats.summary": (
        "tests/stats/test_verdict_invariants.py", "tests/stats/test_stats_summary.py", "tests/stats/test_summary_starts.py",
        "tests/stats/test_summary_start_interval.py",
    ),
    "benchdoc.results.words": (
        "tests/stats/test_verdict_invariants.py", "tests/results/test_words.py",
        "tests/results/test_words_notes.py", "tests/results/test_words_match_numbers.py",
    ),
    "benchdoc.docs.markers": (
        "tests/docs/test_marker_quotes.py", "tests/docs/test_markers.py", "tests/docs/test_document.py",
    ),
    "benchdoc.docs.sync": (
        "tests/docs/test_sync_selfcheck.py", "tests/docs/test_sync_statuses.py", "tests/docs/test_sync.py",
    ),
    "benchdoc.redact": ("tests/test_redact_random.py", "tests/test_redact_rules.py", "tests/test_redact.py"),
    "benchdoc.lint.quantities": (
        "tests/lint/test_quantities.py", "tests/lint/test_quantities_reading.py", "tests/lint/test_claim_reading.py",
    ),
    "benchdoc.lint.claim_reading": (
        "tests/lint/test_claim_reading_rules.py", "tests/lint/test_claim_reading.py", "tests/lint/test_reading_classes.py",
        "tests/lint/test_claims.py", "tests/lint/test_claim_classes.py", "tests/lint/test_claim_probes.py",
        "tests/lint/test_attribution.py", "tests/lint/test_stale_claims.py", "tests/lint/test_stale_values.py",
        "tests/lint/test_tables.py",
    ),
    "benchdoc.workloads.sse": ("tests/workloads/test_sse.py", "tests/workloads/test_sse_properties.py"),
}

_COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_BINOP_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult, ast.Mod: ast.Mult,
}
_DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.Raise)


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int
    line: int
    change: str


@dataclass
class Score:
    module: str
    total: int
    tested: int = 0
    killed: int = 0
    seconds: float = 0.0
    survivors: list[Mutant] = field(default_factory=list)
    source: str = ""  # the sha-256 of the module's source the mutants were made from (12 digits)


class _Mutator(ast.NodeTransformer):
    """Counts the places a mutation applies, in a fixed order; applies the ``target``-th."""

    def __init__(self, target: int = -1) -> None:
        self.target = target
        self.count = 0
        self.sites: list[tuple[int, str]] = []

    def _site(self, node: ast.AST, change: str) -> bool:
        """Record a site; True when it is the one to mutate."""
        hit = self.count == self.target
        self.sites.append((getattr(node, "lineno", 0), change))
        self.count += 1
        return hit

    # Annotations and type-checking imports are not behaviour.
    def visit_arg(self, node: ast.arg) -> ast.AST:
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.args = self.visit(node.args)
        node.body = self._body(node.body)
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return node
        node.test = self.visit(node.test)
        if self._site(node, "condition negated"):
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        if self._site(node, "loop condition negated"):
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if self._site(node, "conditional expression negated"):
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        for position, op in enumerate(node.ops):
            swap = _COMPARE_SWAP.get(type(op))
            if swap is not None and self._site(node, f"{type(op).__name__} -> {swap.__name__}"):
                node.ops[position] = swap()
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        swap = _BINOP_SWAP.get(type(node.op))
        if swap is not None and self._site(node, f"{type(node.op).__name__} -> {swap.__name__}"):
            node.op = swap()
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._site(node, f"{type(node.op).__name__} -> {other.__name__}"):
            node.op = other()
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._site(node, "not dropped"):
            return node.operand
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool):
            if self._site(node, f"{value} -> {not value}"):
                return ast.copy_location(ast.Constant(not value), node)
        elif isinstance(value, int | float) and self._site(node, f"{value!r} -> {value + 1!r}"):
            return ast.copy_location(ast.Constant(value + 1), node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        returns_something = node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None
        )
        if returns_something and self._site(node, "return None"):
            node.value = ast.Constant(None)
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for position, statement in enumerate(body):
            docstring = (position == 0 and isinstance(statement, ast.Expr)
                         and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str))
            if docstring:
                result.append(statement)
                continue
            if isinstance(statement, _DELETABLE) and self._site(statement, f"{type(statement).__name__} deleted"):
                result.append(ast.copy_location(ast.Pass(), statement))
                continue
            visited = self.visit(statement)
            result.extend(visited if isinstance(visited, list) else [visited])
        return result

    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = self._body(node.body)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        node.iter = self.visit(node.iter)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        node.items = [self.visit(item) for item in node.items]
        node.body = self._body(node.body)
        return node

    def visit_Try(self, node: ast.Try) -> ast.AST:
        node.body = self._body(node.body)
        for handler in node.handlers:
            handler.body = self._body(handler.body)
        node.orelse = self._body(node.orelse)
        node.finalbody = self._body(node.finalbody)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = self._body(node.body)  # decorators (dataclass options) and bases stay
        return node


def module_path(module: str) -> Path:
    """The module's file, found without importing it (the children import it, mutated)."""
    return ROOT / "src" / (module.replace(".", "/") + ".py")


def mutants(module: str, tree: ast.Module) -> list[Mutant]:
    counter = _Mutator()
    counter.visit(copy.deepcopy(tree))
    return [Mutant(module, index, line, change) for index, (line, change) in enumerate(counter.sites)]


def mutated_code(tree: ast.Module, mutant: Mutant, path: Path) -> object:
    changed = _Mutator(mutant.index).visit(copy.deepcopy(tree))
    return compile(ast.fix_missing_locations(changed), str(path), "exec")


class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module's mutated code in place of its file."""

    def __init__(self, name: str, path: Path, code: object) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)  # noqa: S102 - the module's own code, one place changed


class _Lines:
    """A pytest plugin recording which lines of one file each test runs (``<import>``:
    the lines run while test files are imported). Caches of the module's functions are
    cleared before each test, so a cached call still counts for the test that makes it."""

    def __init__(self, module: str, path: Path, record: Path) -> None:
        self.module, self.path, self.record = module, str(path), record
        self.current = "<import>"
        self.lines: dict[str, set[int]] = {}
        self.seconds: dict[str, float] = {}
        self.started = time.monotonic()

    def trace(self, frame: FrameType, event: str, arg: object) -> object:
        if frame.f_code.co_filename != self.path:
            return None
        self.lines.setdefault(self.current, set()).add(frame.f_lineno)
        return self._line

    def _line(self, frame: FrameType, event: str, arg: object) -> object:
        if event == "line":
            self.lines.setdefault(self.current, set()).add(frame.f_lineno)
        return self._line

    def _close(self) -> None:
        self.seconds[self.current] = time.monotonic() - self.started
        self.started = time.monotonic()

    def pytest_runtest_protocol(self, item: object) -> None:
        self._close()
        self.current = item.nodeid  # type: ignore[attr-defined]
        self.lines.setdefault(self.current, set())
        for value in vars(sys.modules.get(self.module, sys)).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()

    def pytest_sessionfinish(self) -> None:
        sys.settrace(None)
        self._close()
        rows = [f"{test}\t{self.seconds.get(test, 0.0):.4f}\t{' '.join(map(str, sorted(lines)))}"
                for test, lines in self.lines.items()]
        self.record.write_text("\n".join(rows), encoding="utf-8")


class _Select:
    """A pytest plugin keeping only the named tests, the quickest first (``-x`` then stops
    a killed mutant's run soon)."""

    def __init__(self, seconds: dict[str, float]) -> None:
        self.seconds = seconds

    def pytest_collection_modifyitems(self, config: object, items: list[object]) -> None:
        dropped = [item for item in items if item.nodeid not in self.seconds]  # type: ignore[attr-defined]
        kept = [item for item in items if item.nodeid in self.seconds]  # type: ignore[attr-defined]
        items[:] = sorted(kept, key=lambda item: self.seconds[item.nodeid])  # type: ignore[attr-defined]
        config.hook.pytest_deselected(items=dropped)  # type: ignore[attr-defined]


def run_tests(tests: tuple[str, ...], serve: _Serve | None, timeout: float, log: str = os.devnull,
              plugin: object = None) -> tuple[bool, float]:
    """(passed, seconds) of the tests in a forked child, with ``serve`` installed and
    ``plugin`` given to pytest; the child's output goes to ``log``."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: quiet, derandomized, then pytest
        output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(output, 1)
        os.dup2(output, 2)
        code = 3
        try:
            import pytest
            from hypothesis import settings

            settings.register_profile("mutation", database=None, derandomize=True, deadline=None)
            settings.load_profile("mutation")
            if serve is not None:
                sys.meta_path.insert(0, serve)
            if isinstance(plugin, _Lines):
                sys.settrace(plugin.trace)
            plugins = [plugin] if plugin is not None else []
            code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *tests], plugins=plugins)
        finally:
            os._exit(int(code))
    deadline = start + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0, time.monotonic() - start
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return False, time.monotonic() - start
        time.sleep(0.02)


def statement_spans(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """Each line's innermost statement, as (first, last) line; of a compound statement
    (if, for, def, ...) only its header, so a mutant in a condition is reached by the
    tests that evaluate that condition."""
    spans: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        last = max(node.lineno, body[0].lineno - 1) if isinstance(body, list) and body else (node.end_lineno or node.lineno)
        for line in range(node.lineno, last + 1):
            if line not in spans or spans[line][1] - spans[line][0] > last - node.lineno:
                spans[line] = (node.lineno, last)
    return spans


def reaching(coverage: dict[str, set[int]], span: tuple[int, int] | None) -> list[str] | None:
    """The tests that run a line of ``span``; None (every test) when it runs on import
    or is not a statement's."""
    if span is None or coverage.get("<import>", set()) & set(range(span[0], span[1] + 1)):
        return None
    lines = set(range(span[0], span[1] + 1))
    return [test for test, ran in coverage.items() if test != "<import>" and ran & lines]


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def score_module(module: str, budget: float, seed: int, only: list[int] | None = None,
                 earlier: Score | None = None, limit: int | None = None) -> Score:
    """Run ``module``'s mutants (in a seeded order, within ``budget`` seconds, at most
    ``limit`` of them: the same seed and limit give the same sample) or, given
    ``only``, those numbered mutants, counted on top of the ``earlier`` score."""
    path = module_path(module)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    tests = COVERING[module]
    # Named per run, so that runs of several modules at once keep their baselines apart.
    log = ROOT / f".mutation-baseline-{module}-{os.getpid()}.log"
    record = ROOT / f".mutation-lines-{module}-{os.getpid()}.tsv"
    passed, baseline = run_tests(tests, None, timeout=1200, log=str(log), plugin=_Lines(module, path, record))
    if not passed:
        raise SystemExit(f"mutation: the tests of {module} fail without a mutant: {' '.join(tests)} (their output: {log})")
    log.unlink()
    coverage: dict[str, set[int]] = {}
    seconds: dict[str, float] = {}
    for row in record.read_text(encoding="utf-8").splitlines():
        test, took, lines = row.split("\t")
        coverage[test], seconds[test] = {int(line) for line in lines.split()}, float(took)
    record.unlink()
    spans = statement_spans(tree)
    found = mutants(module, tree)
    if only is None:
        random.Random(seed).shuffle(found)
        score = Score(module, total=len(found), source=source_hash(path))
    else:
        assert earlier is not None
        found = [found[index] for index in only]
        score = Score(module, total=earlier.total, source=earlier.source,
                      tested=earlier.tested - len(found), killed=earlier.killed)
    start = time.monotonic()
    for mutant in found:
        if only is None and (time.monotonic() - start > budget or (limit is not None and score.tested >= limit)):
            break  # a retest runs every survivor it was given
        chosen = reaching(coverage, spans.get(mutant.line))
        if chosen == []:  # no covering test runs its line
            survived = True
        else:
            files = tests if chosen is None else tuple(dict.fromkeys(test.split("::")[0] for test in chosen))
            select = None if chosen is None else _Select({test: seconds[test] for test in chosen})
            serve = _Serve(module, path, mutated_code(tree, mutant, path))
            # Allowed: three times what these tests took in the traced baseline (a mutant that
            # loops is killed by the timeout without waiting for the whole file set's time).
            took = baseline if chosen is None else sum(seconds[test] for test in chosen) + seconds.get("<import>", 0.0)
            survived, _ = run_tests(files, serve, timeout=max(30.0, 3 * took), plugin=select)
        score.tested += 1
        if survived:
            score.survivors.append(mutant)
            print(f"  survived: {_survivor(mutant)}", flush=True)
        else:
            score.killed += 1
        if score.tested % 25 == 0:
            print(f"  {score.tested} run, {score.killed} killed ({time.monotonic() - start:.0f} s)", flush=True)
    score.seconds = time.monotonic() - start
    score.survivors.sort(key=lambda m: (m.line, m.change))
    return score


def _survivor(m: Mutant) -> str:
    return f"{m.module.replace('.', '/')}.py:{m.line}: {m.change} (#{m.index})"


_ROW = re.compile(r"^\| (?P<module>[\w.]+) \| (?P<total>\d+) \| (?P<tested>\d+) \| (?P<killed>\d+) \| [^|]+ \| (?P<source>\w+) \|$")
_SURVIVOR = re.compile(r"^- (?P<file>[\w/]+)\.py:\d+: .* \(#(?P<index>\d+)\)$")


def read_report(path: Path) -> dict[str, tuple[Score, list[int]]]:
    """An earlier report's scores and, per module, the numbers of its survivors."""
    found: dict[str, tuple[Score, list[int]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if row := _ROW.match(line):
            score = Score(row["module"], int(row["total"]), int(row["tested"]), int(row["killed"]), source=row["source"])
            found[score.module] = (score, [])
        elif survivor := _SURVIVOR.match(line):
            found[survivor["file"].replace("/", ".")][1].append(int(survivor["index"]))
    return found


def report(scores: list[Score], how: str) -> str:
    lines = [
        "# Mutation scores (benchmarks/mutation.py)",
        "",
        how,
        "",
        "| module | mutants | tested | killed | score | source |",
        "|---|---|---|---|---|---|",
    ]
    for s in scores:
        value = f"{s.killed / s.tested:.2f}" if s.tested else "—"
        lines.append(f"| {s.module} | {s.total} | {s.tested} | {s.killed} | {value} | {s.source} |")
    lines += ["", "## Surviving mutants", ""]
    for s in scores:
        lines += [f"- {_survivor(m)}" for m in s.survivors]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--module", action="append", choices=sorted(COVERING), help="a module (repeatable; default all)")
    parser.add_argument("--budget", type=float, default=1800.0, help="seconds in all, split across modules")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--limit", type=int, metavar="N",
                        help="at most N mutants a module, the first N of the seed's order (a sample that can be repeated)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "mutation_results.md"))
    parser.add_argument("--list", action="store_true", help="list the mutants and run nothing")
    parser.add_argument("--retest", metavar="REPORT", help="run again only the survivors an earlier report lists")
    parser.add_argument("--mutant", action="append", type=int, metavar="N",
                        help="run only mutant number N (as --list and a report number them) of the one --module (repeatable)")
    args = parser.parse_args(argv)
    if args.mutant and (args.retest or not args.module or len(args.module) != 1):
        parser.error("--mutant takes exactly one --module and no --retest")
    earlier = read_report(Path(args.retest)) if args.retest else {}
    modules = args.module or (sorted(earlier) if earlier else sorted(COVERING))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))  # as `python -m pytest` from the root: tests import each other as tests.*
    if args.list:
        for module in modules:
            path = module_path(module)
            for m in mutants(module, ast.parse(path.read_text(encoding="utf-8"))):
                print(f"{module}:{m.line}: {m.change} (#{m.index})")
        return 0
    import hypothesis  # noqa: F401 - loaded once here, shared by every forked child
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import scipy.integrate  # noqa: F401 - the power checks' references (seconds of import per child otherwise)
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401

    how = (f"The survivors of {args.retest} run again (budget {args.budget:g} s), counted on top of its figures."
           if args.retest else
           f"Only the mutants numbered {', '.join(map(str, args.mutant))}." if args.mutant else
           f"Budget {args.budget:g} s, split evenly across modules; mutants in a seeded random order (seed {args.seed})"
           + (f", at most {args.limit} a module." if args.limit else "."))
    scores = []
    for module in modules:
        if args.retest:
            if module not in earlier:
                raise SystemExit(f"mutation: {args.retest} has no figures for {module}")
            before, survivors = earlier[module]
            if before.source != source_hash(module_path(module)):
                raise SystemExit(f"mutation: {module_path(module)} changed since {args.retest}: run it in full")
            score = score_module(module, args.budget / len(modules), args.seed, only=survivors, earlier=before)
        elif args.mutant:
            path = module_path(module)
            total = len(mutants(module, ast.parse(path.read_text(encoding="utf-8"))))
            if max(args.mutant) >= total:
                raise SystemExit(f"mutation: {module} has {total} mutants (0 to {total - 1})")
            chosen = Score(module, total, tested=len(args.mutant), source=source_hash(path))
            score = score_module(module, args.budget, args.seed, only=args.mutant, earlier=chosen)
        else:
            score = score_module(module, args.budget / len(modules), args.seed, limit=args.limit)
        scores.append(score)
        print(f"{module}: {score.killed}/{score.tested} killed of {score.total} mutants "
              f"({score.seconds:.0f} s)", flush=True)
        Path(args.out).write_text(report(scores, how), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
