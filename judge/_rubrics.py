"""Rubrics by name: the built-in ones (``judge/rubrics/NAME@VERSION.yaml``), plugins' and any
file a user gives (``--rubric FILE``), validated with every problem at once as ``file:line``.

A rubric is immutable data with a content hash (:class:`rejudge.model.Rubric`), registered in
:mod:`rejudge.registry` under kind ``rubric`` as ``name@version``, like rule sets. A file is
checked for everything a judging would otherwise trip over later: fields of the wrong type, a
template that names a variable rendering does not know or lacks one the rubric needs, a reply
schema that is not a JSON schema or does not require what the scale reads.
"""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import yaml
from jsonschema import validators as _validators
from jsonschema.exceptions import SchemaError
from pydantic import ValidationError

from rejudge.errors import InvalidInputError
from rejudge.model import Rubric
from rejudge.registry import REGISTRY

from ._rulesets import _by_name_and_version, registered_by_ref

__all__ = [
    "DEFAULT_RUBRIC",
    "NL_ASSERTIONS_RUBRIC",
    "RUBRICS_DIR",
    "TEMPLATE_VARIABLES",
    "RubricError",
    "builtin_rubric_refs",
    "builtin_rubrics",
    "check_rubric",
    "load_rubric",
    "rubric_from_text",
    "template_variables",
]

RUBRICS_DIR = Path(__file__).parent / "rubrics"
# the rubric the shipped judge cassettes were recorded with (the demo's τ-bench run), so a
# plain `rejudge judge RUN --tier model-graded` replays them
DEFAULT_RUBRIC = "task-success-brief@1"
NL_ASSERTIONS_RUBRIC = "nl-assertions@1"

#: the variables a template may name (``{{name}}``) and what each holds
TEMPLATE_VARIABLES: dict[str, str] = {
    "criteria": "the rubric's criteria text",
    "instruction": "the case's instruction (the user's first message)",
    "transcript": "what of the trace the judge sees (the rubric's view), cut to its budget",
    "assertions": "the case's NL assertions, numbered from 1",
    "required_outputs": "the values the agent had to tell the user",
}
_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_FIELDS = set(Rubric.model_fields)


class RubricError(InvalidInputError):
    """A rubric file or reference is invalid; the message lists every problem, ``file:line``."""


def template_variables(template: str) -> list[str]:
    """The variables a template names, in order of first use."""
    return list(dict.fromkeys(m.group(1) for m in _VARIABLE.finditer(template)))


# --------------------------------------------------------------------------- checking


def check_rubric(rubric: Rubric | dict[str, Any]) -> list[tuple[str, str]]:
    """Every problem of a rubric (or of a rubric file's fields, before they validate) as
    ``(field, message)``; ``[]``: it is sound. Fields of the wrong type are pydantic's to name
    and are passed over here."""
    data = rubric.model_dump(mode="json") if isinstance(rubric, Rubric) else rubric
    problems: list[tuple[str, str]] = []
    template = data.get("template") if isinstance(data.get("template"), str) else None
    system = data.get("system") if isinstance(data.get("system"), str) else ""
    inputs = data.get("inputs", "none")
    scale = data.get("scale", "binary")
    if template is not None:
        used = template_variables(template)
        for name in used:
            if name not in TEMPLATE_VARIABLES:
                problems.append(
                    (
                        "template",
                        f"unknown template variable {{{{{name}}}}} "
                        f"(known: {', '.join(sorted(TEMPLATE_VARIABLES))})",
                    )
                )
        needed = ["transcript"]
        if inputs == "nl_assertions":
            needed.append("assertions")
        if inputs == "required_outputs":
            needed.append("required_outputs")
        for name in needed:
            if name not in used and name not in template_variables(system or ""):
                problems.append(("template", f"the template must show {{{{{name}}}}}"))
    schema = data.get("reply_schema")
    if isinstance(schema, dict):
        try:
            _validators.validator_for(schema).check_schema(schema)
        except SchemaError as exc:
            where = "/".join(str(p) for p in exc.path) or "(root)"
            problems.append(("reply_schema", f"not a valid JSON schema at {where}: {exc.message}"))
        else:
            required = (
                set(schema.get("required") or []) if schema.get("type") == "object" else set()
            )
            wanted = "assertions" if inputs == "nl_assertions" else _SCALE_FIELD.get(str(scale))
            if wanted is not None and wanted not in required:
                problems.append(
                    (
                        "reply_schema",
                        f"the rubric reads the reply's {wanted!r}: the schema must be an "
                        "object that requires it",
                    )
                )
    threshold = data.get("threshold")
    if scale == "graded" and threshold is None:
        problems.append(("threshold", "a graded rubric needs a threshold (score >= it passes)"))
    if scale == "binary" and threshold is not None:
        problems.append(("threshold", "a binary rubric has no threshold"))
    return problems


# the reply field each scale reads its verdict from
_SCALE_FIELD = {"binary": "success", "graded": "score"}


# --------------------------------------------------------------------------- files


def _lines(node: yaml.Node | None) -> dict[str, tuple[int, int]]:
    """Top-level key -> (line of the key, line where its value starts), 1-based."""
    out: dict[str, tuple[int, int]] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                out[str(key.value)] = (key.start_mark.line + 1, value.start_mark.line + 1)
    return out


def _template_line(text: str, value_line: int, variable: str | None) -> int:
    """The line of a template variable inside a block value (the key's line otherwise)."""
    if variable is None:
        return value_line
    lines = text.splitlines()
    needle = re.compile(r"\{\{\s*" + re.escape(variable) + r"\s*\}\}")
    for index in range(value_line - 1, len(lines)):
        if needle.search(lines[index]):
            return index + 1
    return value_line


def rubric_from_text(text: str, source: str) -> Rubric:
    """Parse and check a rubric file's text; every problem at once, each ``source:line: ...``."""
    # one parse: the node tree (for the lines) is the one the data is built from
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise RubricError(f"{source}:{line}: not valid YAML/JSON: {exc}", file=source) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise RubricError(f"{source}:1: a rubric is a mapping (name, version, criteria, ...)")
    where = _lines(node)
    problems: list[tuple[int, str]] = []

    def line_of(field: str) -> int:
        return where.get(field, (1, 1))[0]

    for key in data:
        if str(key) not in _FIELDS:
            problems.append((line_of(str(key)), f"unknown field {key!r}"))
    data = {k: v for k, v in data.items() if str(k) in _FIELDS}
    if "version" in data and not isinstance(data["version"], str):
        data["version"] = str(data["version"])
    rubric: Rubric | None = None
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = [str(p) for p in err.get("loc", ())]
            field = loc[0] if loc else ""
            label = ".".join(loc) or "(rubric)"
            problems.append((line_of(field), f"{label}: {err.get('msg')}"))
    # the template and the schema are checked even when another field is wrong: every
    # problem of the file at once
    for field, message in check_rubric(data):
        # a missing threshold is the scale's problem: point at the scale
        line = line_of("scale" if field == "threshold" and field not in where else field)
        if field == "template":
            found = _VARIABLE.search(message)
            variable = found.group(1) if found and "unknown" in message else None
            line = _template_line(text, where.get("template", (1, 1))[1], variable)
        problems.append((line, f"{field}: {message}"))
    if problems:
        problems.sort(key=lambda p: p[0])
        # one line per problem (the CLI joins them into its one error line)
        raise RubricError(
            "; ".join(f"{source}:{line}: {message}" for line, message in problems), file=source
        )
    assert rubric is not None
    return rubric


def _read_builtin(path: Path) -> Rubric:
    return rubric_from_text(path.read_text(encoding="utf-8"), str(path))


def builtin_rubric_refs() -> list[str]:
    """Every rubric known by name (the shipped files and plugins'), by name then version."""
    return _by_name_and_version(REGISTRY.names("rubric"))


def builtin_rubrics() -> list[Rubric]:
    out: list[Rubric] = [REGISTRY.get("rubric", ref) for ref in builtin_rubric_refs()]
    return out


def load_rubric(ref: str | Path) -> Rubric:
    """A rubric by ``name@version``, by ``name`` (its latest version) or by file path."""
    text = str(ref)
    path = Path(text)
    if isinstance(ref, Path) or text.endswith((".yaml", ".yml", ".json")) or path.is_file():
        try:
            content = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RubricError(
                f"cannot read rubric file {path}: {exc.strerror or exc}", field="rubric"
            ) from None
        if path.suffix == ".json":
            try:
                json.loads(content)
            except ValueError as exc:
                line = getattr(exc, "lineno", 1)
                raise RubricError(f"{path}:{line}: not valid JSON: {exc}", field="rubric") from None
        return rubric_from_text(content, str(path))
    if "@" not in text:
        # a bare name is its latest version; an unknown one gets the registry's one error
        matching = [r for r in builtin_rubric_refs() if r.split("@")[0] == text]
        text = matching[-1] if matching else text
    rubric: Rubric = REGISTRY.get("rubric", text)
    return rubric


REGISTRY.configure("rubric", check=registered_by_ref(Rubric, "rubric"))
for _path in sorted(RUBRICS_DIR.glob("*@*.yaml")):
    REGISTRY.register_factory("rubric", _path.stem, partial(_read_builtin, _path))
