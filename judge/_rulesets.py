"""Rule sets: named, versioned, immutable judging rules.

A rule set is a :class:`rejudge.model.RuleSet` whose ``settings`` this module defines
(:class:`RuleSettings`). Settings are always stored *fully explicit*: loading fills every default
in, so the content hash covers the whole meaning and a later change of a code default can never
silently change what an old version means.

Built-in versions live as YAML files in ``judge/rulesets/`` (``<name>@<version>.yaml``) and are
never edited once released (``tests/judge/test_pinned.py`` pins their verdicts). Each is an entry
of kind ``rule_set`` in the one extension registry (:mod:`rejudge.registry`) under its
``name@version``, read from its file on first lookup; a plugin adds its own the same way
(``registry.register("rule_set", "mine@1", rule_set_from_dict({...}))``), and ``load_rule_set``
finds it by name like a built-in. User rule sets are YAML or JSON files with the same shape;
``extends: standard@2`` starts from another rule set and deep-merges the file's ``settings``
over it.

Settings (see docs/judge.md for the full reference):

- ``default_param_rule``: the rule for a golden parameter nobody names (``exact``).
- ``param_rules``: parameter name -> rule, used when the golden call does not name one.
- ``free_text_rule``: rule for *free-text* parameters (schema ``type: string`` with no
  ``enum``/``const``/``format``/``pattern`` and not fixture-backed) when neither the golden call
  nor ``param_rules`` names one; ``null`` keeps the default.
- ``whitelist``: domain -> read-only tools that may be called in addition to the golden calls
  (golden tier), with ``"*"`` for any other domain. The whitelist is per domain because tool names
  are; ``@read_only`` in a list stands for every read-only tool of the registry. A case's
  ``golden.allowed_extra`` replaces it. Mutations, unknown tools, schema-invalid calls and calls
  with unknown fixture ids are never whitelisted, whatever the list says.
- ``string_normalization``: switches for ``normalized_str``.
- ``partial_weights``: ``contract`` (tools/arguments/schema) and ``execution``
  (tools/arguments/schema/observed/success) weights of the diagnostic partial score.
- ``tolerance``: switches for tolerated extras (see :class:`Tolerance`).
- ``matchers``: aliases of registered matchers with their own string-normalization options.
- ``server_tools``: ``ignore`` (default) judges the client's calls only; ``as_calls`` lets every
  tier see the tools the provider ran itself (web search, code execution) as calls of their
  round, after the client's. Stored only when not the default, so rule sets written before it
  keep their hashes.
- ``terminal_tools``, ``judged_calls``, ``failed_calls``, ``outputs_from``: how a
  conversation is read (defaults: as before). ``tau-bench@1`` sets them as τ-bench rewards:
  tools that end the conversation ignored on both sides, only state-changing calls judged
  (on both sides), failed calls as no-ops, required outputs looked for in the replies sent without a
  tool call. Stored only when not the default.
- ``state_applies``: which cases the ``state`` tier judges. ``observable`` (default): only where
  there is something to observe (the golden calls change the world, the case requires
  outputs, or it is negative); elsewhere it SKIPs, so an agent that does nothing never passes.
  ``always``: every case of a world, as a benchmark whose reward checks the database of a
  read-only task too (τ-bench: an unchanged database is its pass); ``tau-bench@2`` sets it.
  Stored only when not the default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Literal, Protocol

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
)

from rejudge.errors import InvalidInputError
from rejudge.model import RuleSet
from rejudge.registry import REGISTRY

from ._matchers import MatchOptions, matcher_names

__all__ = [
    "RuleSetError",
    "RuleSettings",
    "Tolerance",
    "StringNormalization",
    "PartialWeights",
    "MatcherAlias",
    "BUILTIN_DIR",
    "DEFAULT_RULE_SET",
    "builtin_refs",
    "builtin_rule_sets",
    "load_rule_set",
    "rule_set_from_dict",
    "settings_of",
    "diff_rule_sets",
    "parse_ref",
    "EXTERNAL_RULE_SETS",
    "matching_rule_set",
]

BUILTIN_DIR = Path(__file__).parent / "rulesets"
DEFAULT_RULE_SET = "standard@2"


class RuleSetError(InvalidInputError):
    """A rule set file or reference is invalid; the message names the fix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StringNormalization(_Strict):
    trim: bool = True
    lowercase: bool = True
    collapse_whitespace: bool = False
    unicode_form: str | None = None

    @field_validator("unicode_form")
    @classmethod
    def _form(cls, value: str | None) -> str | None:
        if value is not None and value not in ("NFC", "NFD", "NFKC", "NFKD"):
            raise ValueError("unicode_form must be NFC, NFD, NFKC, NFKD or null")
        return value


class PartialWeights(_Strict):
    contract: dict[str, float] = Field(
        default_factory=lambda: {"tools": 0.45, "arguments": 0.35, "schema": 0.20}
    )
    execution: dict[str, float] = Field(
        default_factory=lambda: {
            "tools": 0.35,
            "arguments": 0.25,
            "schema": 0.15,
            "observed": 0.10,
            "success": 0.15,
        }
    )

    @field_validator("contract")
    @classmethod
    def _contract(cls, value: dict[str, float]) -> dict[str, float]:
        return _check_weights(value, {"tools", "arguments", "schema"})

    @field_validator("execution")
    @classmethod
    def _execution(cls, value: dict[str, float]) -> dict[str, float]:
        return _check_weights(value, {"tools", "arguments", "schema", "observed", "success"})


def _check_weights(value: dict[str, float], keys: set[str]) -> dict[str, float]:
    if set(value) != keys:
        raise ValueError(f"weights need exactly the keys {sorted(keys)}")
    if any(w < 0 for w in value.values()) or abs(sum(value.values()) - 1.0) > 1e-9:
        raise ValueError("weights must be non-negative and sum to 1")
    return value


class Tolerance(_Strict):
    """Which extra calls a tier lets pass."""

    # golden tier: an extra call identical (same tool, exactly equal arguments) to a matched
    # read-only golden call is tolerated even when the tool is not whitelisted
    duplicate_read_only_calls: bool = False
    # golden tier: a whitelisted extra whose execution result is unknown (ok is None, e.g. an
    # imported trace) may be tolerated; a failed one (ok is False) never is
    unexecuted_whitelisted_reads: bool = True
    # completion tiers: the three tolerated kinds of extra call of seed 000
    completion_read_only_extras: bool = True
    completion_repeat_instances: bool = True
    completion_follow_ups: bool = True


class MatcherAlias(_Strict):
    base: str
    string_normalization: StringNormalization = Field(default_factory=StringNormalization)


class RuleSettings(_Strict):
    default_param_rule: str = "exact"
    param_rules: dict[str, str] = Field(default_factory=dict)
    free_text_rule: str | None = None
    whitelist: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "retail": ["get_user", "list_orders", "get_return_policy"],
            "*": [],
        }
    )
    string_normalization: StringNormalization = Field(default_factory=StringNormalization)
    partial_weights: PartialWeights = Field(default_factory=PartialWeights)
    tolerance: Tolerance = Field(default_factory=Tolerance)
    matchers: dict[str, MatcherAlias] = Field(default_factory=dict)
    # how tiers see the tools a provider ran itself (a round's ``server_tools``): ``ignore``
    # (client calls only, as ever) or ``as_calls`` (each server tool use joins its round's
    # calls, after the client's, so golden calls may name them)
    server_tools: Literal["ignore", "as_calls"] = "ignore"
    # --- how a conversation is read (τ-bench's semantics: tau-bench@1) ---------------------
    # tools that end the conversation (the registry's ``terminal_tools``): ``judge`` them as
    # any call, or ``ignore`` them on both sides (a transfer changes no state)
    terminal_tools: Literal["judge", "ignore"] = "judge"
    # which calls are judged, on both sides: ``all``, or ``state_changing`` only (a read,
    # ``think`` or ``calculate`` changes nothing: a golden one documents the way, it is not
    # the task, and an agent's one is neither right nor wrong)
    judged_calls: Literal["all", "state_changing"] = "all"
    # a call that failed (``ok`` false): ``judge`` it, or a ``no_op`` (it changed nothing,
    # so it is neither an unexpected call nor a match)
    failed_calls: Literal["judge", "no_op"] = "judge"
    # where required outputs must appear: ``any_text`` the agent wrote, or ``replies`` (texts
    # sent without a tool call: what reached the user, as τ-bench reads them)
    outputs_from: Literal["any_text", "replies"] = "any_text"
    # which cases the state tier judges: ``observable`` (the golden calls change the world,
    # outputs are required, or the case is negative: elsewhere an agent that did nothing would
    # pass) or ``always`` (every case of a world: τ-bench rewards a read-only task by its
    # unchanged database, so a rule set reproducing its reward judges those too)
    state_applies: Literal["observable", "always"] = "observable"
    # --- what the state tier requires (τ-bench's reward by version) ------------------------
    # ``db-and-outputs``: the final database and the required outputs (τ-bench from 59a200c
    # on); ``outputs-else-db``: the outputs alone when the case requires any, else the
    # database (τ-bench up to 7362a17, which scored its published trajectories)
    reward: Literal["db-and-outputs", "outputs-else-db"] = "db-and-outputs"

    @model_serializer(mode="wrap")
    def _omit_later_defaults(self, handler: Any) -> dict[str, Any]:
        # a setting added after rule sets were released is stored only when it is not its
        # default: the default keeps the old meaning, so every released rule set keeps its
        # content hash (and its judgments their keys)
        body: dict[str, Any] = handler(self)
        for key, default in _LATER_DEFAULTS.items():
            if body.get(key) == default:
                body.pop(key, None)
        return body

    def match_options(self) -> MatchOptions:
        return _options(self.string_normalization)

    def alias(self, rule: str) -> tuple[str, MatchOptions]:
        """Resolve a rule name to (registered matcher, options); cached per settings object."""
        entry = _ALIASES.get(id(self))
        if entry is None or entry[0] is not self:
            if len(_ALIASES) > 256:
                _ALIASES.clear()
            entry = (self, {})
            _ALIASES[id(self)] = entry
        hit = entry[1].get(rule)
        if hit is None:
            alias = self.matchers.get(rule)
            if alias is None:
                hit = (rule, self.match_options())
            else:
                hit = (alias.base, _options(alias.string_normalization))
            entry[1][rule] = hit
        return hit

    def whitelist_for(self, domain: str) -> list[str]:
        if domain in self.whitelist:
            return list(self.whitelist[domain])
        return list(self.whitelist.get("*", []))

    def check_rules(self) -> None:
        known = set(matcher_names()) | set(self.matchers)
        named = [self.default_param_rule, *self.param_rules.values()]
        if self.free_text_rule is not None:
            named.append(self.free_text_rule)
        unknown = sorted({r for r in named if r not in known})
        if unknown:
            raise RuleSetError(
                f"unknown parameter rule(s) {unknown}; use one of {sorted(known)} "
                "or declare an alias under settings.matchers"
            )
        for name, alias in self.matchers.items():
            if alias.base not in matcher_names():
                raise RuleSetError(f"matcher alias {name!r} has unknown base {alias.base!r}")


# settings added after the first release, with the default that means "as before"
_LATER_DEFAULTS: dict[str, Any] = {
    "server_tools": "ignore",
    "terminal_tools": "judge",
    "judged_calls": "all",
    "failed_calls": "judge",
    "outputs_from": "any_text",
    "state_applies": "observable",
    "reward": "db-and-outputs",
}

# id(settings) -> (settings, rule -> (matcher name, options)); pydantic private attributes are
# slow to read, and this lookup runs for every compared parameter
_ALIASES: dict[int, tuple[RuleSettings, dict[str, tuple[str, MatchOptions]]]] = {}


def _options(norm: StringNormalization) -> MatchOptions:
    return MatchOptions(
        trim=norm.trim,
        lowercase=norm.lowercase,
        collapse_whitespace=norm.collapse_whitespace,
        unicode_form=norm.unicode_form,
    )


# --------------------------------------------------------------------------- loading

_REF_RE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)(@(?P<version>[A-Za-z0-9_.-]+))?$")


def parse_ref(ref: str) -> tuple[str, str | None]:
    match = _REF_RE.match(ref.strip())
    if match is None:
        raise RuleSetError(f"{ref!r} is not a rule-set reference; use NAME@VERSION or a file path")
    return match.group("name"), match.group("version")


def _version_key(version: str) -> tuple[Any, ...]:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.-]", version))


def _by_name_and_version(refs: list[str]) -> list[str]:
    """``name@version`` refs by name, then version by number (so a name's last ref is its
    latest version: 10 after 9); rubrics sort theirs with it too."""
    return sorted(refs, key=lambda r: (r.split("@")[0], _version_key(r.split("@")[1])))


def builtin_refs() -> list[str]:
    """Every rule set known by name (the shipped files and what plugins registered), by name
    and then version (so a name's last ref is its latest version)."""
    return _by_name_and_version(REGISTRY.names("rule_set"))


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RuleSetError(f"cannot read rule-set file {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise RuleSetError(f"{path} is not valid YAML/JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise RuleSetError(f"{path} must hold a mapping with name, version and settings")
    return data


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "whitelist":
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def rule_set_from_dict(data: dict[str, Any], *, source: str = "<dict>") -> RuleSet:
    """Build a rule set from its file content, filling every default in explicitly."""
    data = dict(data)
    extends = data.pop("extends", None)
    settings_raw = data.get("settings") or {}
    if not isinstance(settings_raw, dict):
        raise RuleSetError(f"{source}: settings must be a mapping")
    if extends is not None:
        parent = load_rule_set(str(extends))
        settings_raw = _deep_merge(parent.settings, settings_raw)
        data.setdefault("description", f"extends {parent.ref}")
    for key in ("name", "version"):
        if key not in data:
            raise RuleSetError(f"{source}: a rule set needs a {key!r} field")
    data["version"] = str(data["version"])
    parse_ref(f"{data['name']}@{data['version']}")
    try:
        settings = RuleSettings.model_validate(settings_raw)
    except ValidationError as exc:
        raise RuleSetError(f"{source}: invalid settings: {_first_error(exc)}") from exc
    settings.check_rules()
    data["settings"] = settings.model_dump(mode="json")
    try:
        return RuleSet.model_validate(data)
    except ValidationError as exc:
        raise RuleSetError(f"{source}: {_first_error(exc)}") from exc


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ()))
    return f"{loc}: {err.get('msg')}" if loc else str(err.get("msg"))


def _load_builtin(ref: str) -> RuleSet:
    rule_set: RuleSet = REGISTRY.get("rule_set", ref)
    return rule_set


def _read_builtin(path: Path) -> RuleSet:
    return rule_set_from_dict(_read_file(path), source=str(path))


class _Versioned(Protocol):
    @property
    def ref(self) -> str: ...


def registered_by_ref(
    cls: type[_Versioned], what: str, hint: str = ""
) -> Callable[[str, Any], None]:
    """The registry's check of a kind whose values are versioned (rule sets, rubrics): a
    ``cls`` registered under its own ``name@version`` (``what`` names the kind in the error,
    ``hint`` follows the wrong-type one)."""

    def check(ref: str, value: Any) -> None:
        if not isinstance(value, cls):
            raise ValueError(f"{what} {ref!r} is not a {cls.__name__}{hint}")
        if value.ref != ref:
            raise ValueError(f"{what} {value.ref!r} registered as {ref!r}: use its name@version")

    return check


def builtin_rule_sets() -> list[RuleSet]:
    return [_load_builtin(ref) for ref in builtin_refs()]


def load_rule_set(ref: str | Path) -> RuleSet:
    """A rule set by ``name@version``, by ``name`` (its latest built-in version) or by file path."""
    text = str(ref)
    path = Path(text)
    if isinstance(ref, Path) or text.endswith((".yaml", ".yml", ".json")) or path.is_file():
        if not path.is_file():
            raise RuleSetError(
                f"rule-set file {path} does not exist", file=str(path), field="rules"
            )
        return rule_set_from_dict(_read_file(path), source=str(path))
    name, version = parse_ref(text)
    if version is None:
        # a bare name is its latest version; an unknown one gets the registry's one error
        matching = [r for r in builtin_refs() if r.split("@")[0] == name]
        return _load_builtin(matching[-1] if matching else name)
    return _load_builtin(f"{name}@{version}")


_SETTINGS_CACHE: dict[int, tuple[RuleSet, RuleSettings]] = {}


def settings_of(rule_set: RuleSet) -> RuleSettings:
    """The parsed settings of a rule set (cached per object; rule sets are immutable)."""
    hit = _SETTINGS_CACHE.get(id(rule_set))
    if hit is not None and hit[0] is rule_set:
        return hit[1]
    settings = RuleSettings.model_validate(rule_set.settings)
    if len(_SETTINGS_CACHE) > 256:
        _SETTINGS_CACHE.clear()
    _SETTINGS_CACHE[id(rule_set)] = (rule_set, settings)
    return settings


# --------------------------------------------------------------------------- external rewards

#: (source of external verdicts, version) -> the built-in rule set whose state tier follows that
#: source's reward at that version (``None``: any version). Agreement reports use it by default.
EXTERNAL_RULE_SETS: dict[tuple[str, str | None], str] = {
    ("tau-bench", "7362a17"): "tau-bench-7362a17@1",
    ("tau-bench", "59a200c"): "tau-bench-59a200c@1",
    # τ² declares each task's reward basis (read from the case); its default DB + COMMUNICATE
    # is τ-bench's later reward, read as τ-bench reads a conversation
    ("tau2-bench", None): "tau-bench@2",
}


def matching_rule_set(source: str, versions: set[str | None]) -> tuple[str | None, str]:
    """The rule set that follows ``source``'s reward at the version(s) its verdicts were given
    by, and a sentence saying why (or why there is none)."""
    if (source, None) in EXTERNAL_RULE_SETS:
        any_version = EXTERNAL_RULE_SETS[(source, None)]
        return any_version, f"{any_version} follows {source}'s reward (each task's reward basis)"
    known = {v for (s, v) in EXTERNAL_RULE_SETS if s == source}
    if not known:
        return None, f"no built-in rule set follows {source}'s reward"
    if versions == {None} or not versions:
        return None, f"the version of {source}'s reward that gave these verdicts is not recorded"
    if len(versions) > 1:
        shown = ", ".join(sorted(str(v) for v in versions))
        return None, f"the verdicts come from several versions of {source}'s reward ({shown})"
    (version,) = versions
    ref = EXTERNAL_RULE_SETS.get((source, version))
    if ref is None:
        return None, f"no built-in rule set follows {source}'s reward at version {version}"
    return ref, f"{ref} follows {source}'s reward at {version}, the version that gave its verdicts"


# --------------------------------------------------------------------------- diff


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        # an empty mapping contributes no leaf: its absence on the other side is no difference
        for key in sorted(value, key=str):
            _flatten(value[key], f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value


def diff_rule_sets(a: RuleSet, b: RuleSet) -> list[dict[str, Any]]:
    """Every setting that differs: ``[{"path", "a", "b"}]`` sorted by path (missing = None)."""
    fa: dict[str, Any] = {}
    fb: dict[str, Any] = {}
    _flatten({"description": a.description, "settings": a.settings}, "", fa)
    _flatten({"description": b.description, "settings": b.settings}, "", fb)
    rows = []
    for path in sorted(set(fa) | set(fb)):
        va, vb = fa.get(path), fb.get(path)
        if va != vb or type(va) is not type(vb):
            rows.append({"path": path, "a": va, "b": vb})
    return rows


# the shipped rule sets: one registry entry per file (each declared in the registry's BUILTINS),
# read and validated on first lookup (then kept: rule sets are immutable). An unknown one is
# reported as given by ``--rules``.
REGISTRY.configure(
    "rule_set",
    check=registered_by_ref(RuleSet, "rule set", " (build one with rule_set_from_dict)"),
    field="rules",
)
for _path in sorted(BUILTIN_DIR.glob("*@*.yaml")):
    REGISTRY.register_factory("rule_set", _path.stem, partial(_read_builtin, _path))
