"""Untrusted text is never rendered as live Rich markup (issue 39), checked on the CLI's source.

Every module of ``rejudge/cli`` is read with ``ast``. A console ``print(...)`` (``c.print``,
``console.print``, ``app.console.print``), ``Text.from_markup(...)`` or a progress bar's
``add_task(...)`` (its description column reads markup) whose argument is markup
text built from values (an f-string, a ``+``, ``%`` or ``.format`` of strings) must not
interpolate a value that could hold ``[brackets]``: each value is wrapped in ``escape(...)``,
or the call passes ``markup=False``, or the value is known safe:

- a number formatted with a numeric spec (``{x:.1f}``, ``{n:d}``, ``{p:.0%}``), or ``len(...)``
  or ``sum(...)``;
- a local name whose every assignment in the function is itself markup text of safe values
  (``head = f"... {escape(run)}"``), or one of :data:`ALLOWED` below, each with its reason.

The reverse mistake is checked too: ``escape(...)`` where nothing reads markup (a print with
``markup=False``, a :func:`rejudge.cli._context.table`, whose title and cells print literally)
shows its backslash: ``\\[bold]``. A finding names the module, the line and the value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "rejudge" / "cli"

# (module, value as ast.unparse writes it) -> why it can never hold markup
ALLOWED: dict[tuple[str, str], str] = {
    ("_context.py", "thing.hash"): "a sha256 hex digest the code computes",
    ("judge.py", "head.get('evaluation')"): "an evaluation id (int)",
    ("judge.py", "data['a']"): "an evaluation id (int)",
    ("judge.py", "data['b']"): "an evaluation id (int)",
    ("judge.py", "verdict_rate(comparison.verdict_counts_a)"): "a rate the code formats",
    ("judge.py", "verdict_rate(comparison.verdict_counts_b)"): "a rate the code formats",
    ("judge.py", "lock.evaluation"): "an evaluation id (int)",
    ("judge.py", "_lock_accuracy(lock)"): "a rate the code formats",
    ("judge.py", "lock.report_sha256[:19]"): "a sha256 hex digest the code computes",
    ("record.py", "data['recorded']"): "a count (int)",
    ("record.py", "data['skipped']"): "a count (int)",
    ("record.py", "data['agent_errors']"): "a count (int)",
    ("record.py", "r.repetition"): "a repetition number (int)",
    ("record.py", "r.round"): "a round number (int)",
    ("record.py", "j.repetition"): "a repetition number (int)",
    ("record.py", "j.evaluation"): "an evaluation id (int)",
    ("record.py", "report.matched"): "a count (int)",
    ("record.py", "report.traces"): "a count (int)",
    ("record.py", "report.source.kind"): "the code's own word for a source ('results file', ...)",
    ("review.py", "cal['reviewed']"): "a count (int)",
    ("review.py", "cal['judgments']"): "a count (int)",
    ("review.py", "rate(fails['reviewed'], fails['total'])"): "a rate the code formats",
    ("review.py", "rate(passes['reviewed'], passes['total'])"): "a rate the code formats",
    ("suite.py", "result.cases"): "a count (int)",
}
# calls that return a number
_NUMBERS = ("len", "sum")
# a format spec that only a number takes: {x:.1f}, {n:d}, {p:.0%}, {n:,}
_NUMERIC_SPEC = re.compile(r"[^a-zA-Z{}]*[dfeEgGn%,]")


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_escape(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _name(node.func) == "escape"


def _markup_off(call: ast.Call) -> bool:
    return any(
        k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


class _Function:
    """The assignments of one function (``name = value``), to read a local's text from."""

    def __init__(self, module: str, scope: ast.AST) -> None:
        self.module = module
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(node.value)

    def parts(self, node: ast.expr, seen: frozenset[str]) -> Iterator[ast.expr]:
        """The values markup text ``node`` interpolates that are not known safe."""
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.JoinedStr):
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    spec = v.format_spec
                    text = "".join(
                        p.value if isinstance(p, ast.Constant) else "{}"
                        for p in (spec.values if isinstance(spec, ast.JoinedStr) else [])
                    )
                    if not (text and _NUMERIC_SPEC.fullmatch(text)):
                        yield from self.value(v.value, seen)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            yield from self.parts(node.left, seen)
            yield from self.parts(node.right, seen)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            yield from self.parts(node.left, seen)
            items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            for item in items:
                yield from self.value(item, seen)
        elif isinstance(node, ast.Call) and _name(node.func) == "format":
            assert isinstance(node.func, ast.Attribute)
            yield from self.parts(node.func.value, seen)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                yield from self.value(arg, seen)
        elif isinstance(node, ast.IfExp):
            yield from self.parts(node.body, seen)
            yield from self.parts(node.orelse, seen)
        else:
            yield from self.value(node, seen)

    def value(self, node: ast.expr, seen: frozenset[str]) -> Iterator[ast.expr]:
        """``node`` itself when it is interpolated and not known safe."""
        if isinstance(node, ast.Constant) or _is_escape(node):
            return
        if isinstance(node, ast.Call) and _name(node.func) in _NUMBERS:
            return
        if (self.module, ast.unparse(node)) in ALLOWED:
            return
        if isinstance(node, ast.BinOp) and not isinstance(node.op, (ast.Add, ast.Mod)):
            yield from self.value(node.left, seen)  # arithmetic: its operands are the values
            yield from self.value(node.right, seen)
            return
        if isinstance(node, (ast.JoinedStr, ast.BinOp, ast.IfExp)):
            yield from self.parts(node, seen)
            return
        if isinstance(node, ast.Name) and node.id in self.assigned and node.id not in seen:
            # a local built in the function: safe when everything it is ever set to is
            values = self.assigned[node.id]
            if not any(any(self.parts(v, seen | {node.id})) for v in values):
                return
        yield node


def _scopes(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.Call]]:
    """Every call with its innermost enclosing function (the module for a top-level one)."""

    def visit(node: ast.AST, scope: ast.AST) -> Iterator[tuple[ast.AST, ast.Call]]:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
            if isinstance(child, ast.Call):
                yield scope, child
            yield from visit(child, inner)

    yield from visit(tree, tree)


def _findings() -> list[str]:
    found: list[str] = []
    for path in sorted(CLI.rglob("*.py")):
        module = path.relative_to(CLI).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions: dict[int, _Function] = {}
        for scope, call in _scopes(tree):
            name = _name(call.func)
            literal = name == "table" or (name == "print" and _markup_off(call))
            if literal:
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    for node in ast.walk(arg):
                        if _is_escape(node):
                            found.append(
                                f"{module}:{node.lineno}: {ast.unparse(node)} is printed "
                                "literally (its backslash shows): drop the escape"
                            )
                continue
            if name not in ("print", "from_markup", "add_task"):
                continue
            if not isinstance(call.func, ast.Attribute):
                continue
            function = functions.setdefault(id(scope), _Function(module, scope))
            for arg in call.args if name == "print" else call.args[:1]:
                if not isinstance(arg, (ast.JoinedStr, ast.BinOp, ast.Call)):
                    continue  # a renderable or a plain string: not text built here
                if isinstance(arg, ast.Call) and _name(arg.func) != "format":
                    continue
                for node in function.parts(arg, frozenset()):
                    found.append(
                        f"{module}:{node.lineno}: {ast.unparse(node)} is read as Rich markup: "
                        "escape(...) it, or print with markup=False"
                    )
    return found


def test_cli_prints_no_untrusted_value_as_markup() -> None:
    assert _findings() == []


def test_every_allowed_value_is_still_printed() -> None:
    """An allow-list entry whose value no longer appears is dead and goes."""
    sources = {
        p.relative_to(CLI).as_posix(): p.read_text(encoding="utf-8") for p in CLI.rglob("*.py")
    }
    stale = [key for key in ALLOWED if key[1] not in _unparsed(sources[key[0]])]
    assert stale == []


def _unparsed(source: str) -> str:
    return "\n".join(ast.unparse(n) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.expr))
