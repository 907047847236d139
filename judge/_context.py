"""What a tier sees: the analysed trace, the expanded golden calls and the registry's facts.

Everything here is pure and cached per immutable input object (registries and cases are frozen
pydantic models), so judging 100k traces against one registry compiles each JSON Schema once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import validators as _validators
from jsonschema.exceptions import SchemaError

from rejudge.model import (
    Case,
    GoldenCall,
    RuleSet,
    ServerToolUse,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
)

from . import _taxonomy as tx
from ._fasterrors import compile_errors
from ._fastschema import compile_fast
from ._matchers import MatchOptions, MatchResult, match_value, values_equal
from ._rulesets import RuleSettings, settings_of

__all__ = [
    "RegistryIndex",
    "registry_index",
    "ActualCall",
    "Slot",
    "ParamCheck",
    "JudgeContext",
    "build_context",
    "safe_value",
]

_MAX_SCHEMA_ERRORS = 5


def safe_value(value: Any, depth: int = 0) -> Any:
    """A JSON-safe copy for diffs: non-finite floats become strings, deep nesting is cut."""
    if type(value) in (str, int, bool) or value is None:
        return value
    if depth > 40:
        return "<nested too deep>"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {str(k): safe_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_value(v, depth + 1) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


# --------------------------------------------------------------------------- registry facts


class RegistryIndex:
    """Derived, cached facts about one registry: specs, compiled validators, groups, ids."""

    def __init__(self, registry: ToolRegistry, fast_errors: bool = True) -> None:
        # fast_errors=False keeps jsonschema's iter_errors for every message (the reference the
        # tests compare the fast error lists with)
        self.registry = registry
        self.domain = registry.domain
        self.specs: dict[str, ToolSpec] = {spec.name: spec for spec in registry.tools}
        self.read_only: frozenset[str] = frozenset(s.name for s in registry.tools if s.read_only)
        self.name_map = dict(registry.name_map)
        self.fixture_ids: dict[str, frozenset[str]] = {
            k: frozenset(str(v) for v in vs) for k, vs in registry.fixture_ids.items()
        }
        groups: dict[str, set[str]] = {}
        for group in registry.equivalences:
            members = set(group)
            for name in group:
                groups.setdefault(name, set()).update(members)
        self.equivalents: dict[str, frozenset[str]] = {
            k: frozenset(v - {k}) for k, v in groups.items()
        }
        self.validators: dict[str, Any] = {}
        self.fast: dict[str, Any] = {}
        self.fast_errors: dict[str, Any] = {}
        self.schema_problems: dict[str, str] = {}
        self.properties: dict[str, dict[str, Any]] = {}
        self.defaults: dict[str, dict[str, Any]] = {}
        self.free_text: dict[str, frozenset[str]] = {}
        for spec in registry.tools:
            schema = spec.parameters if isinstance(spec.parameters, dict) else {}
            try:
                cls = _validators.validator_for(schema)
                cls.check_schema(schema)
                self.validators[spec.name] = cls(schema)
                fast = compile_fast(schema)
                if fast is not None:
                    self.fast[spec.name] = fast
                    errors = compile_errors(schema, self.validators[spec.name])
                    if errors is not None and fast_errors:
                        self.fast_errors[spec.name] = errors
            except SchemaError as exc:
                self.schema_problems[spec.name] = f"registered schema is invalid: {exc.message}"
            raw_props = schema.get("properties")
            props = raw_props if isinstance(raw_props, dict) else {}
            self.properties[spec.name] = props
            self.defaults[spec.name] = {
                p: s["default"] for p, s in props.items() if isinstance(s, dict) and "default" in s
            }
            self.free_text[spec.name] = frozenset(
                p
                for p, s in props.items()
                if isinstance(s, dict)
                and s.get("type") == "string"
                and not ({"enum", "const", "format", "pattern"} & set(s))
                and p not in self.fixture_ids
            )

    def canonical(self, name: str) -> str:
        return self.name_map.get(name, name)

    def validate(self, tool: str, args: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
        """Schema errors (at most a few messages) and the top-level parameters they concern."""
        validator = self.validators.get(tool)
        if validator is None:
            return [], frozenset()
        fast = self.fast.get(tool)
        if fast is not None:
            if fast(args):
                return [], frozenset()
            # the fast check agrees with jsonschema: invalid, go straight to the messages
        elif validator.is_valid(args):
            return [], frozenset()
        messages: list[str] = []
        params: set[str] = set()
        fast_errors = self.fast_errors.get(tool)
        if fast_errors is not None:  # jsonschema's very (path, message) pairs, without it
            found = fast_errors(args)
        else:
            found = [(tuple(e.path), e.message) for e in validator.iter_errors(args)]
        if len(found) > 1:
            found.sort(key=lambda e: (list(map(str, e[0])), e[1]))
        for path, message in found:
            if path:
                params.add(str(path[0]))
            if len(messages) < _MAX_SCHEMA_ERRORS:
                where = "/".join(str(p) for p in path) or "(arguments)"
                messages.append(f"{where}: {message}")
        return messages, frozenset(params)

    def unknown_ids(self, args: dict[str, Any]) -> list[tuple[str, Any]]:
        """Fixture-backed arguments whose value names no known entity."""
        out: list[tuple[str, Any]] = []
        for key in sorted(args):
            known = self.fixture_ids.get(key)
            if known is None:
                continue
            value = args[key]
            values = value if isinstance(value, list) else [value]
            for v in values:
                if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) not in known:
                    out.append((key, v))
        return out

    def is_id_unknown(self, param: str, value: Any) -> bool:
        known = self.fixture_ids.get(param)
        if known is None:
            return False
        values = value if isinstance(value, list) else [value]
        return any(
            isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) not in known
            for v in values
        )


_INDEX_BY_ID: dict[int, tuple[ToolRegistry, RegistryIndex]] = {}
_INDEX_BY_HASH: dict[str, RegistryIndex] = {}


def registry_index(registry: ToolRegistry, registry_hash: str | None = None) -> RegistryIndex:
    """The cached index of a registry (per object, then per content hash)."""
    hit = _INDEX_BY_ID.get(id(registry))
    if hit is not None and hit[0] is registry:
        return hit[1]
    key = registry_hash or registry.hash
    index = _INDEX_BY_HASH.get(key)
    if index is None:
        if len(_INDEX_BY_HASH) > 64:
            _INDEX_BY_HASH.clear()
        index = RegistryIndex(registry)
        _INDEX_BY_HASH[key] = index
    if len(_INDEX_BY_ID) > 256:
        _INDEX_BY_ID.clear()
    _INDEX_BY_ID[id(registry)] = (registry, index)
    return index


# --------------------------------------------------------------------------- analysed calls


@dataclass
class ActualCall:
    index: int
    round: int
    name: str  # canonical (after the registry's name map)
    wire_name: str
    args: dict[str, Any] | None
    parse_error: str | None
    ok: bool | None
    error: str | None
    known: bool
    read_only: bool
    schema_errors: list[str] = field(default_factory=list)
    schema_params: frozenset[str] = frozenset()
    unknown_ids: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def parsed(self) -> bool:
        return self.args is not None

    @property
    def schema_valid(self) -> bool:
        return self.known and self.parsed and not self.schema_errors

    @property
    def clean(self) -> bool:
        """Known tool, parsed, schema-valid, no unknown fixture ids."""
        return self.schema_valid and not self.unknown_ids


@dataclass(frozen=True)
class Slot:
    """One expected call instance (a golden call with ``count: 3`` gives three slots)."""

    index: int
    golden_index: int
    instance: int
    call: GoldenCall

    @property
    def tool(self) -> str:
        return self.call.tool


@dataclass
class ParamCheck:
    name: str
    rule: str
    golden: Any
    actual: Any
    present: bool
    status: str  # ok | alternative_key | default | not_applicable | missing | mismatch | unparsable | unexpected
    code: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.code is None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "rule": self.rule,
            "golden": safe_value(self.golden),
            "status": self.status,
        }
        if self.present:
            out["actual"] = safe_value(self.actual)
        if self.code is not None:
            out["code"] = self.code
        if self.detail:
            out["detail"] = self.detail
        return out


_CASE_CACHE: dict[int, tuple[Case, list[Slot]]] = {}


def expand_slots(case: Case) -> list[Slot]:
    hit = _CASE_CACHE.get(id(case))
    if hit is not None and hit[0] is case:
        return hit[1]
    slots: list[Slot] = []
    for gi, call in enumerate(case.golden.calls):
        for k in range(call.count):
            slots.append(Slot(len(slots), gi, k, call))
    if len(_CASE_CACHE) > 4096:
        _CASE_CACHE.clear()
    _CASE_CACHE[id(case)] = (case, slots)
    return slots


# the schema key the recorder puts on a freeform (custom) tool's spec (the recorder's
# FREEFORM_SCHEMA_KEY; the judge never imports the recorder, so the name is repeated here)
FREEFORM_SCHEMA_KEY = "x-rejudge-freeform"


def _freeform(spec: ToolSpec) -> bool:
    return bool(spec.parameters.get(FREEFORM_SCHEMA_KEY))


def analyse_calls(trace: Trace, index: RegistryIndex) -> list[ActualCall]:
    calls: list[ActualCall] = []
    n = 0
    for rnd in trace.rounds:
        for call in rnd.calls:
            name = index.canonical(call.name)
            known = name in index.specs
            args = call.arguments if isinstance(call.arguments, dict) else None
            parse_error = call.parse_error
            if args is None and parse_error is None and known and _freeform(index.specs[name]):
                # a freeform (custom) tool's input is raw text by design: it is the tool's one
                # parameter ``input``, so golden params and schema checks apply to it as such
                args = {"input": call.arguments_raw}
            if args is None and parse_error is None:
                parse_error = "arguments missing or not a JSON object"
            ac = ActualCall(
                index=n,
                round=rnd.index,
                name=name,
                wire_name=call.name,
                args=args,
                parse_error=parse_error if args is None else None,
                ok=call.ok,
                error=call.error,
                known=known,
                read_only=name in index.read_only,
            )
            if known and args is not None:
                ac.schema_errors, ac.schema_params = index.validate(name, args)
                # a value of the wrong shape is a format error, not a hallucinated id
                ac.unknown_ids = [
                    (k, v) for k, v in index.unknown_ids(args) if k not in ac.schema_params
                ]
            calls.append(ac)
            n += 1
    return calls


# --------------------------------------------------------------------------- context


class JudgeContext:
    """What a tier sees. The inputs are plain attributes; the derived facts (``index``: the
    registry's compiled schemas and groups, ``calls``: every actual call analysed with its JSON
    Schema check, ``slots``: the expanded golden calls) are computed on first access and kept,
    so a tier that never reads them (``bfcl-ast``) never pays for them. They are pure functions
    of the inputs, so when they are computed changes no judgment."""

    __slots__ = (
        "trace",
        "stored_trace",
        "case",
        "stored_case",
        "registry",
        "rule_set",
        "settings",
        "_registry_hash",
        "_index",
        "_calls",
        "_slots",
        "_whitelist",
    )

    def __init__(
        self,
        trace: Trace,
        case: Case,
        registry: ToolRegistry,
        rule_set: RuleSet,
        settings: RuleSettings,
        registry_hash: str | None = None,
        stored_trace: Trace | None = None,
        stored_case: Case | None = None,
    ) -> None:
        self.trace = trace
        # the trace as stored, before the rule set's view (``trace`` is that view): what the
        # agent replied is read from it, since a round whose calls the rules drop still sent
        # its text alongside a call
        self.stored_trace = stored_trace if stored_trace is not None else trace
        self.case = case
        # the case as stored, before the rule set's view: every golden call, the reads too
        # (τ²'s action check reads them)
        self.stored_case = stored_case if stored_case is not None else case
        self.registry = registry
        self.rule_set = rule_set
        self.settings = settings
        self._registry_hash = registry_hash
        self._index: RegistryIndex | None = None
        self._calls: list[ActualCall] | None = None
        self._slots: list[Slot] | None = None
        self._whitelist: tuple[list[str], frozenset[str]] | None = None

    @property
    def index(self) -> RegistryIndex:
        index = self._index
        if index is None:
            index = self._index = registry_index(self.registry, self._registry_hash)
        return index

    @property
    def calls(self) -> list[ActualCall]:
        calls = self._calls
        if calls is None:
            calls = self._calls = analyse_calls(self.trace, self.index)
        return calls

    @property
    def slots(self) -> list[Slot]:
        slots = self._slots
        if slots is None:
            slots = self._slots = expand_slots(self.case)
        return slots

    # ---- equivalences, alternative keys, follow-ups (registry + case) ----

    def equivalent(self, expected: str, actual: str) -> bool:
        if expected == actual:
            return True
        if actual in self.index.equivalents.get(expected, ()):
            return True
        case_eq = self.case.equivalent_tools
        return actual in case_eq.get(expected, ()) or expected in case_eq.get(actual, ())

    def alternative_keys(self, tool: str, param: str) -> list[str]:
        keys = list(self.registry.alternative_keys.get(tool, {}).get(param, []))
        keys += self.case.alternative_keys.get(tool, {}).get(param, [])
        return keys

    def follow_ups(self, tool: str) -> set[str]:
        return set(self.registry.follow_ups.get(tool, [])) | set(self.case.follow_ups.get(tool, []))

    def effective_whitelist(self) -> list[str]:
        """The sorted whitelist (computed once per context: asked once per extra call)."""
        return list(self._whitelist_pair()[0])

    def whitelist_set(self) -> frozenset[str]:
        return self._whitelist_pair()[1]

    def _whitelist_pair(self) -> tuple[list[str], frozenset[str]]:
        pair = self._whitelist
        if pair is None:
            # the case, the settings and the registry decide it: kept per (case, settings,
            # index) across the traces of a batch (callers copy the list before handing it on)
            case, settings, index = self.case, self.settings, self.index
            key = (id(case), id(settings), id(index))
            hit = _WHITELISTS.get(key)
            if hit is not None and hit[0] is case and hit[1] is settings and hit[2] is index:
                pair = hit[3]
            else:
                names = self._compute_whitelist()
                pair = (names, frozenset(names))
                if len(_WHITELISTS) > 4096:
                    _WHITELISTS.clear()
                _WHITELISTS[key] = (case, settings, index, pair)
            self._whitelist = pair
        return pair

    def _compute_whitelist(self) -> list[str]:
        allowed = self.case.golden.allowed_extra
        names = (
            list(allowed) if allowed is not None else self.settings.whitelist_for(self.index.domain)
        )
        out: set[str] = set()
        for name in names:
            if name == "@read_only":
                out |= set(self.index.read_only)
            else:
                out.add(name)
        return sorted(out)

    # ---- parameter rules ----

    def rule_for(self, golden: GoldenCall, tool: str, param: str, value: Any) -> str:
        if param in golden.param_rules:
            return golden.param_rules[param]
        settings = self.settings
        if param in settings.param_rules:
            return settings.param_rules[param]
        if (
            settings.free_text_rule is not None
            and isinstance(value, str)
            and param in self.index.free_text.get(tool, ())
        ):
            return settings.free_text_rule
        return settings.default_param_rule

    def compare(self, rule: str, golden: Any, actual: Any) -> MatchResult:
        base, options = self.settings.alias(rule)
        return match_value(base, golden, actual, options)

    def param_plan(self, golden: GoldenCall) -> tuple[ParamPlan, ...]:
        """A golden call's parameters in sorted order, each with its golden value, its rule
        (:meth:`rule_for`) and that rule's matcher and options (``settings.alias``): what
        :meth:`check_params` compares every call against. It depends on the golden call, the
        settings and the registry only, so it is made once per golden call, not per trace."""
        index = self.index
        settings = self.settings
        key = (id(golden), id(settings), id(index))
        hit = _PARAM_PLANS.get(key)
        if hit is not None and hit[0] is golden and hit[1] is settings and hit[2] is index:
            return hit[3]
        plan = []
        for param in sorted(golden.params):
            gval = golden.params[param]
            rule = self.rule_for(golden, golden.tool, param, gval)
            plan.append((param, gval, rule, *settings.alias(rule)))
        if len(_PARAM_PLANS) > 4096:
            _PARAM_PLANS.clear()
        _PARAM_PLANS[key] = (golden, settings, index, tuple(plan))
        return _PARAM_PLANS[key][3]

    def check_params(self, slot: Slot, call: ActualCall, mode: str) -> list[ParamCheck]:
        """Compare a slot's golden parameters with a call's arguments.

        ``mode``: ``contract`` (exact keys: extra keys fail, no alternative keys or defaults),
        ``golden`` (golden keys only), ``completion`` (alternative keys, omitted schema
        defaults, parameters an equivalent tool does not have are not applicable).
        """
        golden = slot.call
        checks: list[ParamCheck] = []
        args = call.args
        for param, gval, rule, base, options in self.param_plan(golden):
            if args is None:
                checks.append(
                    ParamCheck(
                        param, rule, gval, None, False, "unparsable", tx.ARGUMENTS_UNPARSABLE
                    )
                )
                continue
            if param in args:
                aval = args[param]
                res = match_value(base, gval, aval, options)  # self.compare(rule, gval, aval)
                if res.ok:
                    checks.append(ParamCheck(param, rule, gval, aval, True, "ok"))
                    continue
                code = res.code or tx.PARAM_WRONG_VALUE
                if code != tx.RULE_ERROR:
                    if param in call.schema_params:
                        code = tx.PARAM_WRONG_FORMAT
                    elif self.index.is_id_unknown(param, aval):
                        code = tx.PARAM_HALLUCINATED_ID
                checks.append(
                    ParamCheck(param, rule, gval, aval, True, "mismatch", code, res.detail)
                )
                continue
            if mode == "completion":
                if call.name != slot.tool and call.known:
                    props = self.index.properties.get(call.name, {})
                    if props and param not in props:
                        checks.append(ParamCheck(param, rule, gval, None, False, "not_applicable"))
                        continue
                alts = [k for k in self.alternative_keys(slot.tool, param) if k in args]
                if call.name != slot.tool:
                    alts += [k for k in self.alternative_keys(call.name, param) if k in args]
                if alts:
                    checks.append(
                        ParamCheck(
                            param,
                            rule,
                            gval,
                            args[alts[0]],
                            True,
                            "alternative_key",
                            detail=f"satisfied by alternative key {alts[0]!r}",
                        )
                    )
                    continue
                defaults = self.index.defaults.get(call.name, {})
                if param in defaults and self.compare(rule, gval, defaults[param]).ok:
                    checks.append(
                        ParamCheck(
                            param,
                            rule,
                            gval,
                            None,
                            False,
                            "default",
                            detail="omitted; the schema default equals the golden value",
                        )
                    )
                    continue
            checks.append(ParamCheck(param, rule, gval, None, False, "missing", tx.PARAM_MISSING))
        if mode == "contract" and args is not None:
            for key in sorted(set(args) - set(golden.params)):
                checks.append(
                    ParamCheck(key, "-", None, args[key], True, "unexpected", tx.PARAM_UNEXPECTED)
                )
        return checks


def build_context(
    trace: Trace,
    case: Case,
    registry: ToolRegistry,
    rule_set: RuleSet,
    registry_hash: str | None = None,
    settings: RuleSettings | None = None,
) -> JudgeContext:
    """The context of one judgment; nothing derived is computed until a tier reads it.

    ``settings``: the rule set's parsed settings when the caller has them already (the engine
    validates them first), so they are not looked up twice per judgment."""
    settings = settings if settings is not None else settings_of(rule_set)
    return JudgeContext(
        trace_for_tiers(trace, settings, registry),
        case_for_tiers(case, settings, registry),
        registry,
        rule_set,
        settings,
        registry_hash,
        trace,
        case,
    )


def _reads_conversation_as_is(settings: RuleSettings) -> bool:
    return (
        settings.terminal_tools == "judge"
        and settings.judged_calls == "all"
        and settings.failed_calls == "judge"
    )


#: one golden parameter as checked: (name, golden value, rule, matcher name, match options)
ParamPlan = tuple[str, Any, str, str, MatchOptions]

# (id(golden call), id(settings), id(index)) -> (golden call, settings, index, its plan): held,
# so no id is reused while its entry is kept (see JudgeContext.param_plan)
_PARAM_PLANS: dict[
    tuple[int, int, int], tuple[GoldenCall, RuleSettings, RegistryIndex, tuple[ParamPlan, ...]]
] = {}

# (id(case), id(settings), id(index)) -> (case, settings, index, its whitelist as a sorted list
# and a set); held, as above
_WHITELISTS: dict[
    tuple[int, int, int],
    tuple[Case, RuleSettings, RegistryIndex, tuple[list[str], frozenset[str]]],
] = {}

# (id(case), id(settings), id(registry)) -> (case, settings, registry, the case's view)
_CASE_VIEWS: dict[tuple[int, int, int], tuple[Case, RuleSettings, ToolRegistry, Case]] = {}


def clear_case_caches() -> None:
    """Forget the cases kept per object (their slots, their views): called when a batch
    ends, so its cases do not stay alive after it (a later batch's cases fill them again)."""
    _CASE_CACHE.clear()
    _CASE_VIEWS.clear()
    _PARAM_PLANS.clear()
    _WHITELISTS.clear()


def case_for_tiers(case: Case, settings: RuleSettings, registry: ToolRegistry) -> Case:
    """The case as tiers see it under ``settings``: itself, or without the golden calls the
    rules do not judge (tools that end the conversation when they are ignored; reads when only
    state-changing calls are judged). Kept per case object: cases repeat per trace."""
    if _reads_conversation_as_is(settings) or not case.golden.calls:
        return case
    key = (id(case), id(settings), id(registry))
    hit = _CASE_VIEWS.get(key)
    if hit is not None and hit[0] is case and hit[1] is settings and hit[2] is registry:
        return hit[3]
    terminal = set(registry.terminal_tools) if settings.terminal_tools == "ignore" else set()
    kept = []
    for call in case.golden.calls:
        if call.tool in terminal:
            continue
        spec = registry.tool(call.tool)
        if settings.judged_calls == "state_changing" and spec is not None and spec.read_only:
            continue
        kept.append(call)
    view = case
    if len(kept) != len(case.golden.calls):
        view = case.model_copy(update={"golden": case.golden.model_copy(update={"calls": kept})})
    if len(_CASE_VIEWS) > 4096:
        _CASE_VIEWS.clear()
    _CASE_VIEWS[key] = (case, settings, registry, view)
    return view


def trace_for_tiers(
    trace: Trace, settings: RuleSettings, registry: ToolRegistry | None = None
) -> Trace:
    """The trace as tiers see it under ``settings``: itself, or (``server_tools: as_calls``)
    with each round's provider-side tool uses appended to its calls, and without the calls the
    rules read as no-ops (tools that end the conversation when ignored; reads when only
    state-changing calls are judged; failed calls under ``failed_calls: no_op``). The judgment keeps the stored trace's hash: this view is how the
    rules read it, not another trace."""
    trace = _with_server_calls(trace, settings)
    if _reads_conversation_as_is(settings):
        return trace
    terminal = (
        set(registry.terminal_tools)
        if registry is not None and settings.terminal_tools == "ignore"
        else set()
    )
    no_op_failed = settings.failed_calls == "no_op"
    reads = (
        {spec.name for spec in registry.tools if spec.read_only}
        if registry is not None and settings.judged_calls == "state_changing"
        else set()
    )

    def kept(call: ToolCall) -> bool:
        return (
            call.name not in terminal
            and call.name not in reads
            and not (no_op_failed and call.ok is False)
        )

    if all(kept(c) for r in trace.rounds for c in r.calls):
        return trace
    rounds = [
        r.model_copy(update={"calls": [c for c in r.calls if kept(c)]})
        if not all(kept(c) for c in r.calls)
        else r
        for r in trace.rounds
    ]
    return trace.model_copy(update={"rounds": rounds})


def _with_server_calls(trace: Trace, settings: RuleSettings) -> Trace:

    if settings.server_tools != "as_calls" or not any(r.server_tools for r in trace.rounds):
        return trace
    rounds = [
        r.model_copy(update={"calls": [*r.calls, *(_server_call(s) for s in r.server_tools)]})
        if r.server_tools
        else r
        for r in trace.rounds
    ]
    return trace.model_copy(update={"rounds": rounds})


def _server_call(use: ServerToolUse) -> ToolCall:
    # the provider ran it and showed its outcome (or not): executed, success unknown
    raw = use.input if isinstance(use.input, str) else json.dumps(use.input, default=str)
    return ToolCall(
        id=use.id,
        name=use.name,
        arguments=dict(use.input) if isinstance(use.input, dict) else None,
        arguments_raw=raw,
        parse_error=None
        if isinstance(use.input, dict) or use.input is None
        else "server tool input is not an object",
        result=use.result,
    )


def same_arguments(a: ActualCall, b: ActualCall) -> bool:
    return a.args is not None and b.args is not None and values_equal(a.args, b.args)


def sorted_unique(items: Iterable[str]) -> list[str]:
    return sorted(set(items))
