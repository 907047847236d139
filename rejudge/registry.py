"""The one extension registry: every kind of thing rejudge looks up by name.

Kinds (:data:`KINDS`): ``tier``, ``wire_format``, ``world``, ``domain``, ``rule_set``,
``rubric``, ``provider``, ``importer``. A name is only ever *looked up*: no module is imported
because a user typed its name. Two ways a name gets here:

- **a built-in**, declared one way for every kind: its line in :data:`BUILTINS` (kind -> name ->
  module). Listings and lookups in any process see it without importing anything; its module is
  imported on the name's first lookup (so ``import rejudge`` stays cheap) and registers it at
  its top level through the kind's ``register_*`` helper, which calls ``register(kind, name,
  value)`` (or ``register_factory`` for something costly to build, such as a world's 5 MB of
  data: built on its first lookup, then kept). tests/test_architecture_builtins.py checks that
  every built-in is registered by the module its line names, and nothing else is;
- **a plugin**: another package names a callable in the ``rejudge.plugins`` entry-point group
  (as simonw/llm's plugins do)::

      [project.entry-points."rejudge.plugins"]
      my_tier = "my_package.rejudge_plugin:register"

  ``register(registry)`` is called once, with this registry, the first time a name is missing
  or a listing is asked for; it calls ``registry.register(...)`` for what it adds. A plugin that
  fails to load is reported by name, never swallowed.

(A program may also call ``register`` itself, as the tests do.) A lookup of an unknown name raises the kind's :class:`~rejudge.errors.NotFoundError` subclass
(configured by the kind's package) with ``unknown KIND 'NAME' (known: a, b, c)``, every built-in
and plugin's name sorted; each kind's wrapper (``get_tier``, ``get_wire_format``,
``load_rule_set``, ...) reaches this one error rather than composing its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any, Literal, overload

from rejudge.errors import NotFoundError

if TYPE_CHECKING:
    # what each kind holds, for a type checker only (the registry imports nothing at run time:
    # every layer imports it)
    from rejudge.importers._contract import Importer
    from rejudge.judge.tiers._base import Tier
    from rejudge.model._rubric import Rubric
    from rejudge.model._schemas import RuleSet
    from rejudge.model._world import World
    from rejudge.recorder.providers._base import Provider
    from rejudge.recorder.wire._format import WireFormat
    from rejudge.suites._domain import Domain

__all__ = [
    "BUILTINS",
    "ENTRY_POINT_GROUP",
    "KINDS",
    "PluginError",
    "Registry",
    "REGISTRY",
]

#: the entry-point group a plugin package adds itself to
ENTRY_POINT_GROUP = "rejudge.plugins"

#: kind -> the words an error uses for one of them
KINDS: dict[str, str] = {
    "tier": "tier",
    "wire_format": "wire format",
    "world": "world",
    "domain": "domain",
    "rule_set": "rule set",
    "rubric": "rubric",
    "provider": "provider",
    "importer": "importer",
}


class PluginError(NotFoundError):
    """A ``rejudge.plugins`` entry point could not be loaded or failed while registering."""


@dataclass
class _Kind:
    values: dict[str, Any] = field(default_factory=dict)
    factories: dict[str, Callable[[], Any]] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)
    error: type[NotFoundError] = NotFoundError
    check: Callable[[str, Any], None] | None = None
    #: the ``field`` of the error a failed lookup raises (the kind unless configured: the CLI
    #: names the option that carried it, and a rule set is given by ``--rules``)
    field: str | None = None
    #: every declared module imported (so a listing imports nothing again)
    loaded: bool = False


class Registry:
    """Names to things, per kind. See the module docstring for how names get here."""

    def __init__(self, *, entry_point_group: str | None = ENTRY_POINT_GROUP) -> None:
        self._kinds: dict[str, _Kind] = {kind: _Kind() for kind in KINDS}
        self._group = entry_point_group
        self._plugins_loaded = entry_point_group is None
        self.plugins: list[str] = []

    # ------------------------------------------------------------------ configuration

    def _kind(self, kind: str) -> _Kind:
        entry = self._kinds.get(kind)
        if entry is None:
            raise ValueError(f"unknown registry kind {kind!r} (known: {', '.join(KINDS)})")
        return entry

    def configure(
        self,
        kind: str,
        *,
        error: type[NotFoundError] | None = None,
        check: Callable[[str, Any], None] | None = None,
        field: str | None = None,
    ) -> None:
        """Set the error a failed lookup raises (and its ``field``, the kind by default) and a
        check every registered value must pass (called with the name and the value; raises
        ``ValueError`` to refuse it)."""
        entry = self._kind(kind)
        if error is not None:
            entry.error = error
        if check is not None:
            entry.check = check
        if field is not None:
            entry.field = field

    def declare(self, kind: str, name: str, module: str) -> None:
        """A built-in ``name`` that ``module`` registers when imported (on first lookup). Only
        :data:`BUILTINS` calls it (and tests standing in for a new line of it)."""
        entry = self._kind(kind)
        entry.declared.setdefault(name, module)
        entry.loaded = False

    def register(self, kind: str, name: str, value: Any, *, replace: bool = False) -> None:
        entry = self._kind(kind)
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {KINDS[kind]} needs a non-empty name")
        current = entry.values.get(name, entry.factories.get(name))
        if current is not None and current is not value and not replace:
            raise ValueError(f"{KINDS[kind]} {name!r} is already registered")
        if entry.check is not None:
            entry.check(name, value)
        entry.factories.pop(name, None)
        entry.values[name] = value

    def register_factory(
        self, kind: str, name: str, factory: Callable[[], Any], *, replace: bool = True
    ) -> None:
        """Register something built by ``factory()`` on its first lookup (then kept). A later
        registration of the same name replaces it (and drops what was built)."""
        entry = self._kind(kind)
        if name in entry.values and not replace:
            raise ValueError(f"{KINDS[kind]} {name!r} is already registered")
        entry.values.pop(name, None)
        entry.factories[name] = factory

    def unregister(self, kind: str, name: str) -> None:
        """Forget ``name`` (what a test registered); a declared built-in is looked up again from
        its module, which is imported once, so it stays gone."""
        entry = self._kind(kind)
        entry.values.pop(name, None)
        entry.factories.pop(name, None)

    # ------------------------------------------------------------------ lookups

    @overload
    def get(self, kind: Literal["tier"], name: str) -> Tier: ...
    @overload
    def get(self, kind: Literal["wire_format"], name: str) -> WireFormat: ...
    @overload
    def get(self, kind: Literal["world"], name: str) -> World: ...
    @overload
    def get(self, kind: Literal["domain"], name: str) -> Domain: ...
    @overload
    def get(self, kind: Literal["rule_set"], name: str) -> RuleSet: ...
    @overload
    def get(self, kind: Literal["rubric"], name: str) -> Rubric: ...
    @overload
    def get(self, kind: Literal["provider"], name: str) -> Provider: ...
    @overload
    def get(self, kind: Literal["importer"], name: str) -> Importer[Any]: ...
    @overload
    def get(self, kind: str, name: str) -> object: ...
    def get(self, kind: str, name: str) -> Any:
        """The ``name`` of ``kind``, typed by kind (a tier is a Tier, a world a World...)."""
        entry = self._kinds[kind]
        value = entry.values.get(name)  # the fast path: judging looks a tier up per trace
        if value is not None:
            return value
        if name not in entry.factories and name in entry.declared:
            importlib.import_module(entry.declared[name])
        if name not in entry.values and name not in entry.factories:
            self.load_plugins()
        factory = entry.factories.get(name)
        if factory is not None:
            built = factory()
            if entry.check is not None:
                entry.check(name, built)
            entry.values[name] = built
            del entry.factories[name]
            return built
        value = entry.values.get(name)
        if value is None:
            # names() imports every built-in of the kind, and so its package, which configures
            # the kind's error: read entry.error after it
            known = ", ".join(self.names(kind)) or "none"
            raise entry.error(
                f"unknown {KINDS[kind]} {name!r} (known: {known})", field=entry.field or kind
            )
        return value

    @overload
    def find(self, kind: Literal["tier"], name: str) -> Tier | None: ...
    @overload
    def find(self, kind: Literal["wire_format"], name: str) -> WireFormat | None: ...
    @overload
    def find(self, kind: Literal["world"], name: str) -> World | None: ...
    @overload
    def find(self, kind: Literal["domain"], name: str) -> Domain | None: ...
    @overload
    def find(self, kind: Literal["rule_set"], name: str) -> RuleSet | None: ...
    @overload
    def find(self, kind: Literal["rubric"], name: str) -> Rubric | None: ...
    @overload
    def find(self, kind: Literal["provider"], name: str) -> Provider | None: ...
    @overload
    def find(self, kind: Literal["importer"], name: str) -> Importer[Any] | None: ...
    @overload
    def find(self, kind: str, name: str) -> object | None: ...
    def find(self, kind: str, name: str) -> Any | None:
        """Like :meth:`get`, but None for an unknown name."""
        try:
            return self.get(kind, name)
        except NotFoundError as exc:
            if isinstance(exc, PluginError):
                raise
            return None

    def names(self, kind: str, *, load: bool = True) -> list[str]:
        """Every name of ``kind``: built-ins (their modules imported), plugins', registered.
        ``load=False``: the names known now, importing nothing (declared built-ins included)."""
        entry = self._kind(kind)
        if not load:
            return sorted({*entry.declared, *entry.values, *entry.factories})
        if not entry.loaded:
            for module in dict.fromkeys(entry.declared.values()):
                importlib.import_module(module)
            entry.loaded = True
        self.load_plugins()
        return sorted({*entry.values, *entry.factories})

    @overload
    def items(self, kind: Literal["tier"]) -> Iterator[tuple[str, Tier]]: ...
    @overload
    def items(self, kind: Literal["wire_format"]) -> Iterator[tuple[str, WireFormat]]: ...
    @overload
    def items(self, kind: Literal["world"]) -> Iterator[tuple[str, World]]: ...
    @overload
    def items(self, kind: Literal["domain"]) -> Iterator[tuple[str, Domain]]: ...
    @overload
    def items(self, kind: Literal["rule_set"]) -> Iterator[tuple[str, RuleSet]]: ...
    @overload
    def items(self, kind: Literal["rubric"]) -> Iterator[tuple[str, Rubric]]: ...
    @overload
    def items(self, kind: Literal["provider"]) -> Iterator[tuple[str, Provider]]: ...
    @overload
    def items(self, kind: Literal["importer"]) -> Iterator[tuple[str, Importer[Any]]]: ...
    @overload
    def items(self, kind: str) -> Iterator[tuple[str, object]]: ...
    def items(self, kind: str) -> Iterator[tuple[str, Any]]:
        """``(name, value)``: the built-ins in :data:`BUILTINS`' order (detection order for wire
        formats), then the others in registration order (plugins', tests'). The order is the
        table's whatever a process happened to import first."""
        names = set(self.names(kind))
        entry = self._kinds[kind]
        registered = [*entry.values, *(n for n in entry.factories if n not in entry.values)]
        ordered = [*entry.declared, *(n for n in registered if n not in entry.declared)]
        for name in ordered:
            if name in names:
                yield name, self.get(kind, name)

    def __contains__(self, key: tuple[str, str]) -> bool:
        kind, name = key
        return self.find(kind, name) is not None

    # ------------------------------------------------------------------ plugins

    def load_plugins(self) -> None:
        """Call every ``rejudge.plugins`` entry point once (a no-op after the first call)."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        assert self._group is not None
        for ep in sorted(metadata.entry_points(group=self._group), key=lambda e: e.name):
            try:
                hook = ep.load()  # a module entry point registers by being imported
                if callable(hook):
                    hook(self)
            except Exception as exc:  # a broken plugin is named, never swallowed
                raise PluginError(
                    f"plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}",
                    field="plugin",
                ) from exc
            self.plugins.append(ep.name)


#: every built-in of every kind, the one way one is declared: kind -> name -> the module that
#: registers it when imported (through its kind's ``register_*``). Listings and lookups in any
#: process see every built-in without importing anything first (a judging worker looks a world up
#: without importing the suites; replay looks an importer up by the source a run's config names),
#: and a name's module is imported on its first lookup. A module registers only the names its
#: lines here give it (tests/test_architecture.py checks both ways). For the wire formats the
#: order is detection order: formats first here win ties.
BUILTINS: dict[str, dict[str, str]] = {
    # the core tiers live together in one module
    "tier": {
        "state": "rejudge.judge.tiers._state",
        "contract": "rejudge.judge.tiers._calls",
        "execution": "rejudge.judge.tiers._calls",
        "completion": "rejudge.judge.tiers._calls",
        "completion-contract": "rejudge.judge.tiers._calls",
        "golden": "rejudge.judge.tiers._calls",
        "outcome": "rejudge.judge.tiers._outcome",
        "bfcl-ast": "rejudge.judge.tiers._bfcl_ast",
        "model-graded": "rejudge.judge.tiers._model_graded",
    },
    # each format's module registers it at its bottom; this order is detection order
    "wire_format": {
        "openai-chat": "rejudge.recorder.wire._openai_chat",
        "openai-responses": "rejudge.recorder.wire._openai_responses",
        "anthropic-messages": "rejudge.recorder.wire._anthropic",
        "gemini-generate-content": "rejudge.recorder.wire._gemini",
        "bedrock-converse": "rejudge.recorder.wire._bedrock",
        "bedrock-invoke-model": "rejudge.recorder.wire._bedrock_invoke",
        "cohere-chat": "rejudge.recorder.wire._cohere",
        "cohere-chat-v1": "rejudge.recorder.wire._cohere_v1",
        "ollama-chat": "rejudge.recorder.wire._ollama",
    },
    # a world by its bare name (its latest version) and by ``name@version``, one key per
    # version shipped: a registry made with an old version is judged under that version
    "world": {
        "tau-bench-airline": "rejudge.suites.worlds.tau_airline",
        "tau-bench-airline@7362a17": "rejudge.suites.worlds.tau_airline",
        "tau2-retail": "rejudge.suites.worlds.tau2_retail",
        "tau2-retail@8d005b0": "rejudge.suites.worlds.tau2_retail",
        "tau2-retail@8d005b0-2": "rejudge.suites.worlds.tau2_retail",
        "tau2-airline": "rejudge.suites.worlds.tau2_airline",
        "tau2-airline@8d005b0": "rejudge.suites.worlds.tau2_airline",
        # seed 001's and the genome browser's worlds live with their domains (the sandbox the
        # recorder runs is a state of the same world)
        "retail": "rejudge.suites.domains.retail.world",
        "retail@1": "rejudge.suites.domains.retail.world",
        "retail@2": "rejudge.suites.domains.retail.world",
        "genome": "rejudge.suites.domains.genome.world",
        "genome@1": "rejudge.suites.domains.genome.world",
    },
    # the domains a suite names (importing each module registers its domain): one line per
    # imported BFCL category (a stub executor each)
    "domain": {
        "retail": "rejudge.suites.domains.retail",  # seed 001
        "genome": "rejudge.suites.domains.genome",  # seed 000's shape
        "funcbench": "rejudge.suites.domains.funcbench",  # seed 003: generated graphs
        "mcp": "rejudge.suites.domains.mcp",  # an MCP server's tools (calls run on the server)
        "recorded": "rejudge.suites.domains.recorded",  # suites over cassettes recorded elsewhere
        # BFCL v4's AST categories in BFCL's order: the one list of them
        # (rejudge.importers._bfcl_schema.CATEGORIES is read from it)
        **{
            f"bfcl-{category}": "rejudge.suites.domains.bfcl"
            for category in (
                "simple_python",
                "simple_java",
                "simple_javascript",
                "multiple",
                "parallel",
                "parallel_multiple",
                "irrelevance",
                "live_simple",
                "live_multiple",
                "live_parallel",
                "live_parallel_multiple",
                "live_relevance",
                "live_irrelevance",
            )
        },
    },
    # the shipped rule sets (judge/rulesets/*.yaml), one line per file (released versions are
    # never edited), each read on its first lookup
    "rule_set": {
        "bfcl@1": "rejudge.judge._rulesets",
        "bfcl@2": "rejudge.judge._rulesets",
        "standard@1": "rejudge.judge._rulesets",
        "standard@2": "rejudge.judge._rulesets",
        "tau-bench@1": "rejudge.judge._rulesets",
        "tau-bench@2": "rejudge.judge._rulesets",
        "tau-bench-7362a17@1": "rejudge.judge._rulesets",
        "tau-bench-59a200c@1": "rejudge.judge._rulesets",
    },
    # the shipped rubrics (judge/rubrics/*.yaml), one line per file
    "rubric": {
        "task-success@1": "rejudge.judge._rubrics",
        "nl-assertions@1": "rejudge.judge._rubrics",
        "task-success-brief@1": "rejudge.judge._rubrics",
        "nl-assertions-brief@1": "rejudge.judge._rubrics",
    },
    # the clients the recorder talks to models through (each registered by its client's module)
    "provider": {
        "openai": "rejudge.recorder.providers._openai",
        "local": "rejudge.recorder.providers._openai",
        "llama-cpp": "rejudge.recorder.providers._openai",
        "anthropic": "rejudge.recorder.providers._anthropic",
    },
    # each importer's module registers its Importer (rejudge.importers._contract) at its bottom
    "importer": {
        "cassettes": "rejudge.importers._cassettes",
        "tau-bench": "rejudge.importers._tau_bench",
        "inspect": "rejudge.importers._inspect",
        "otel": "rejudge.importers._otel",
        "bfcl-results": "rejudge.importers._bfcl_results",
        "chat-jsonl": "rejudge.importers._chat_jsonl",
        "langfuse": "rejudge.importers._langfuse",
    },
}

#: the process's registry: every built-in registers here, and every lookup reads it
REGISTRY = Registry()
for _kind, _table in BUILTINS.items():
    for _name, _module in _table.items():
        REGISTRY.declare(_kind, _name, _module)
