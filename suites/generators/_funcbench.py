"""FuncBenchGen (seed 003, DESIGN §8): multi-step function calling as traversal of a generated
dependency graph, with independent difficulty knobs and silent failures.

A generated case is a hidden DAG of functions. Each function (node) has one output variable and
integer inputs; an edge ``f -> g`` means g takes f's output. The model sees only the functions'
schemas, whose parameters name a *semantic type* ("a Harbor-Index value"), never a variable or
another function: the edges are recoverable only by matching types. It is told the known input
values and the type of the target variable, and must call the functions in a valid order, feeding
each output into the functions that need it.

Graph construction (all from one ``random.Random(seed)``, so the same knobs give the same suite
byte for byte):

- **core** (``n_core`` nodes): a chain of ``depth + 1`` nodes ends at the target node; each of the
  remaining ``n_core - depth - 1`` nodes feeds one or two existing core nodes whose *level*
  (longest path to the target) is below ``depth``. So every core node is an ancestor of the
  target, the DAG is acyclic by construction, and its longest path has exactly ``depth`` edges.
  Core nodes without core parents take known input variables (1-2, sometimes shared); others
  sometimes take one as well.
- **CIN** (connected irrelevant nodes): each consumes the output of a core node or of an earlier
  CIN node (sometimes also another core/CIN output or a core input). They share type-compatible
  variables with the core, which is what makes them hard to tell apart; nothing consumes them.
- **DIN** (disconnected irrelevant nodes): their own component(s). A DIN root takes its own input
  values (stated in the instruction, ``din_inputs``); other DIN nodes consume earlier DIN outputs.
  No variable is shared with the core or the CIN.
- **noise**: extra stated input values that no function takes.
- **subtypes**: a consumed variable may get a declared supertype ("every Harbor-Index is also a
  Ledger-Code", stated where the variable is introduced); parameters taking it may then be
  declared with the supertype. Every type and supertype name is unique, so each parameter is
  satisfied by exactly one variable of the graph.

Every variable's type is unique and doubles as its name; every variable has a distinct 3-digit
true value. Execution (:mod:`suites.domains.funcbench`) is silent-failure: a call returns its true
output only when every argument equals its true value, otherwise a plausible wrong number.

Design choice — one registry per suite: a suite's :class:`ToolRegistry` holds the *union* of the
functions of all its cases (names are unique across the suite), and each case lists its own
functions in ``case.metadata["tools"]``. The harness must offer a case only those functions;
the funcbench sandbox answers a call to any other function with an error, and the outcome tier
classifies it as FUNCTION_NOT_FOUND. Because the registry is generated, it is written next to the
cases as ``registry.json`` in the suite folder (:func:`write_generated_suite`) and read back by
:func:`load_generated_suite`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from rejudge.suites._case_format import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    SUITE_REGISTRY_FILE,
    SuiteManifest,
    SuiteSource,
    load_suite,
    own_registry,
    write_suite,
)
from rejudge.suites._errors import SuiteError, SuiteFormatError

from rejudge.errors import InvalidInputError
from rejudge.model import Case, Golden, GoldenCall, ToolRegistry, ToolSpec

__all__ = [
    "GENERATOR_VERSION",
    "REGISTRY_FILE",
    "MAX_FUNCTIONS",
    "MAX_NOISE",
    "MAX_CASES",
    "FuncBenchError",
    "KnobError",
    "Knobs",
    "GeneratedSuite",
    "generate_suite",
    "generate_case",
    "default_suite_name",
    "write_generated_suite",
    "load_generated_suite",
    "core_depth",
    "components",
]

GENERATOR_VERSION = "1"
REGISTRY_FILE = SUITE_REGISTRY_FILE
DOMAIN = "funcbench"
# bounds that keep every case's variables within the 900 distinct 3-digit values
MAX_FUNCTIONS = 200
MAX_NOISE = 100
MAX_CASES = 1000

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_CODAS = "klmnprst"
_NOUNS = (
    "Index",
    "Code",
    "Level",
    "Count",
    "Rate",
    "Score",
    "Factor",
    "Grade",
    "Mark",
    "Tally",
    "Rank",
    "Weight",
    "Span",
    "Quota",
)


class FuncBenchError(SuiteError):
    """Something is wrong with a FuncBenchGen suite or its generation."""


class KnobError(FuncBenchError, InvalidInputError):
    """An impossible or out-of-range combination of generator knobs."""


# --------------------------------------------------------------------------- knobs


@dataclass(frozen=True)
class Knobs:
    """The generator's knobs (DESIGN §8). ``cases`` graphs are drawn from one ``seed``."""

    n_core: int
    depth: int
    cin: int = 0
    din: int = 0
    noise: int = 0
    subtypes: bool = False
    cases: int = 1
    seed: int = 0

    def check(self) -> None:
        """Raise :class:`KnobError` naming the first impossible knob and how to fix it."""
        for name in ("n_core", "depth", "cin", "din", "noise", "cases", "seed"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise KnobError(f"{name} must be an integer, got {value!r}")
        if self.n_core < 1:
            raise KnobError(f"n_core must be at least 1 (got {self.n_core})")
        for name in ("depth", "cin", "din", "noise", "seed"):
            if getattr(self, name) < 0:
                raise KnobError(f"{name} must not be negative (got {getattr(self, name)})")
        if self.cases < 1:
            raise KnobError(f"cases must be at least 1 (got {self.cases})")
        if self.n_core < self.depth + 1:
            raise KnobError(
                f"n_core={self.n_core} cannot hold a dependency chain of depth {self.depth} "
                f"(it needs depth + 1 = {self.depth + 1} core nodes); raise the core nodes to at "
                f"least {self.depth + 1} or lower the depth to at most {self.n_core - 1}",
                field="n_core",
            )
        if self.depth == 0 and self.n_core > 1:
            raise KnobError(
                f"depth 0 allows a single core node, got n_core={self.n_core}; use depth 1 "
                "(a star) or more",
                field="depth",
            )
        total = self.n_core + self.cin + self.din
        if total > MAX_FUNCTIONS:
            raise KnobError(
                f"n_core + cin + din = {total} functions per case is more than {MAX_FUNCTIONS}; "
                "lower the knobs"
            )
        if self.noise > MAX_NOISE:
            raise KnobError(f"noise={self.noise} is more than {MAX_NOISE} noise inputs")
        if self.cases > MAX_CASES:
            raise KnobError(f"cases={self.cases} is more than {MAX_CASES} cases per suite")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_suite_name(knobs: Knobs) -> str:
    sub = "st" if knobs.subtypes else "nost"
    return (
        f"funcbench-c{knobs.n_core}-d{knobs.depth}-cin{knobs.cin}-din{knobs.din}"
        f"-n{knobs.noise}-{sub}-k{knobs.cases}-s{knobs.seed}"
    )


# --------------------------------------------------------------------------- names


def _word(rng: Random, syllables: int, coda: bool) -> str:
    text = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(syllables))
    return text + (rng.choice(_CODAS) if coda else "")


class _Names:
    """Unique pronounceable names: function and type names are unique across a suite, so the
    union registry never offers two functions returning the same type."""

    def __init__(self, rng: Random, used: _Used) -> None:
        self.rng = rng
        self.functions = used.functions
        self.types = used.types

    def function(self) -> str:
        while True:
            name = "func_" + _word(self.rng, self.rng.randint(1, 3), self.rng.random() < 0.5)
            if len(name) > 6 and name not in self.functions:
                self.functions.add(name)
                return name

    def type(self) -> str:
        while True:
            word = _word(self.rng, self.rng.randint(2, 3), self.rng.random() < 0.3)
            name = f"{word.capitalize()}-{self.rng.choice(_NOUNS)}"
            if name not in self.types:
                self.types.add(name)
                return name


@dataclass
class _Used:
    functions: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)


# --------------------------------------------------------------------------- graphs


@dataclass
class _Node:
    name: str
    role: str  # core | cin | din
    output: str
    inputs: list[str] = field(default_factory=list)  # variables, in parameter order
    level: int = 0  # core only: longest path to the target


@dataclass
class _Graph:
    nodes: list[_Node] = field(default_factory=list)
    values: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # input | din_input | noise | output
    supertypes: dict[str, str] = field(default_factory=dict)
    declared: dict[tuple[str, str], str] = field(default_factory=dict)  # (node, var) -> type


class _Builder:
    def __init__(self, rng: Random, knobs: Knobs, used: _Used) -> None:
        self.rng = rng
        self.knobs = knobs
        self.names = _Names(rng, used)
        self.graph = _Graph()
        self.used_values: set[int] = set()

    def variable(self, kind: str) -> str:
        name = self.names.type()
        while True:
            value = self.rng.randrange(100, 1000)
            if value not in self.used_values:
                break
        self.used_values.add(value)
        self.graph.values[name] = value
        self.graph.kinds[name] = kind
        return name

    def node(self, role: str) -> _Node:
        node = _Node(self.names.function(), role, self.variable("output"))
        self.graph.nodes.append(node)
        return node

    def build(self) -> tuple[_Graph, _Node]:
        rng, knobs = self.rng, self.knobs
        # ---- core: the chain, then the rest attached below the depth limit
        core: list[_Node] = []
        parents: dict[str, list[_Node]] = {}
        target = self.node("core")
        core.append(target)
        parents[target.name] = []
        for level in range(1, knobs.depth + 1):
            node = self.node("core")
            node.level = level
            parents[node.name] = []
            parents[core[-1].name].append(node)
            core.append(node)
        for _ in range(knobs.n_core - knobs.depth - 1):
            candidates = [n for n in core if n.level <= knobs.depth - 1]
            k = 2 if len(candidates) >= 2 and rng.random() < 0.3 else 1
            children = rng.sample(candidates, k)
            node = self.node("core")
            node.level = 1 + max(child.level for child in children)
            parents[node.name] = []
            for child in children:
                parents[child.name].append(node)
            core.append(node)
        core_inputs: list[str] = []

        def core_input() -> str:
            if core_inputs and rng.random() < 0.3:
                return rng.choice(core_inputs)
            var = self.variable("input")
            core_inputs.append(var)
            return var

        for node in core:
            node.inputs = [p.output for p in parents[node.name]]
            if not node.inputs:
                wanted = rng.randint(1, 2)
                while len(node.inputs) < wanted:
                    var = core_input()
                    if var not in node.inputs:
                        node.inputs.append(var)
            elif rng.random() < 0.2:
                var = core_input()
                if var not in node.inputs:
                    node.inputs.append(var)
        # ---- CIN: children of core or earlier CIN nodes
        attach: list[_Node] = list(core)
        for _ in range(knobs.cin):
            parent = rng.choice(attach)
            node = self.node("cin")
            node.inputs = [parent.output]
            if rng.random() < 0.4:
                pool = [n.output for n in attach] + core_inputs
                extra = rng.choice(pool)
                if extra not in node.inputs:
                    node.inputs.append(extra)
            attach.append(node)
        # ---- DIN: their own component(s), with their own input values
        din_nodes: list[_Node] = []
        din_vars: list[str] = []
        for _ in range(knobs.din):
            if not din_nodes or rng.random() < 0.3:
                node = self.node("din")
                node.inputs = [self.variable("din_input") for _ in range(rng.randint(1, 2))]
                din_vars.extend(node.inputs)
            else:
                parent = rng.choice(din_nodes)
                node = self.node("din")
                node.inputs = [parent.output]
                if rng.random() < 0.3:
                    extra = rng.choice(din_vars)
                    if extra not in node.inputs:
                        node.inputs.append(extra)
            din_nodes.append(node)
            din_vars.append(node.output)
        # ---- noise: stated values that nothing takes
        for _ in range(knobs.noise):
            self.variable("noise")
        # ---- parameter order and declared types (subtypes)
        consumed: list[str] = []
        for node in self.graph.nodes:
            rng.shuffle(node.inputs)
            for var in node.inputs:
                if var not in consumed:
                    consumed.append(var)
        if knobs.subtypes:
            for var in consumed:
                if rng.random() < 0.5:
                    self.graph.supertypes[var] = self.names.type()
        for node in self.graph.nodes:
            for var in node.inputs:
                declared = var
                if var in self.graph.supertypes and rng.random() < 0.6:
                    declared = self.graph.supertypes[var]
                self.graph.declared[(node.name, var)] = declared
        return self.graph, target


def _golden_order(rng: Random, graph: _Graph) -> list[_Node]:
    """A random topological order of the core nodes (a producer before its consumers)."""
    core = [n for n in graph.nodes if n.role == "core"]
    producer = {n.output: n for n in core}
    done: set[str] = set()
    order: list[_Node] = []
    while len(order) < len(core):
        ready = [
            n
            for n in core
            if n.name not in done
            and all(producer[v].name in done for v in n.inputs if v in producer)
        ]
        pick = rng.choice(ready)
        done.add(pick.name)
        order.append(pick)
    return order


def _param_names(node: _Node) -> dict[str, str]:
    """Neutral parameter names (x1, x2, ...) in parameter order: variable -> parameter."""
    return {var: f"x{i + 1}" for i, var in enumerate(node.inputs)}


def _is_also(var: str, graph: _Graph) -> str:
    sup = graph.supertypes.get(var)
    return f" Every {var} is also a {sup}." if sup else ""


def _instruction(rng: Random, graph: _Graph, target: str) -> str:
    stated = [v for v, kind in graph.kinds.items() if kind in ("input", "din_input", "noise")]
    rng.shuffle(stated)
    lines = [f"- a {var} value: {graph.values[var]}.{_is_also(var, graph)}" for var in stated]
    return (
        "You know these values:\n"
        + "\n".join(lines)
        + f"\n\nUse the available functions to find the {target} value. Each function returns "
        "one integer; pass values exactly as they were given to you or returned by a function. "
        f"When you know the {target} value, state it in your final answer."
    )


def _graph_metadata(graph: _Graph) -> dict[str, Any]:
    producer = {n.output: n.name for n in graph.nodes}
    nodes = []
    edges: list[list[str]] = []
    for node in graph.nodes:
        params = _param_names(node)
        nodes.append(
            {
                "name": node.name,
                "role": node.role,
                "output": node.output,
                "params": [
                    {"name": params[v], "type": graph.declared[(node.name, v)], "var": v}
                    for v in node.inputs
                ],
            }
        )
        for var in node.inputs:
            if var in producer:
                edges.append([producer[var], node.name])
    return {
        "nodes": nodes,
        "edges": sorted(edges),
        "values": dict(graph.values),
        "kinds": dict(graph.kinds),
        "supertypes": dict(sorted(graph.supertypes.items())),
    }


def generate_case(rng: Random, knobs: Knobs, index: int, used: _Used | None = None) -> Case:
    """One case with its own graph (its function and type names are added to ``used``)."""
    graph, target_node = _Builder(rng, knobs, used if used is not None else _Used()).build()
    order = _golden_order(rng, graph)
    target = target_node.output
    tools = [n.name for n in graph.nodes]
    rng.shuffle(tools)
    golden = Golden(
        calls=[
            GoldenCall(
                tool=node.name,
                params={p: graph.values[v] for v, p in _param_names(node).items()},
            )
            for node in order
        ],
        order_sensitive=False,
    )
    metadata = {
        "generator": f"funcbench@{GENERATOR_VERSION}",
        "target": target,
        "target_value": graph.values[target],
        "target_function": target_node.name,
        "n_core": knobs.n_core,
        "depth": knobs.depth,
        "cin": knobs.cin,
        "din": knobs.din,
        "noise": knobs.noise,
        "subtypes": knobs.subtypes,
        "call_cap": 2 * knobs.n_core,
        # what a solver's final answer says (for self-tests that judge golden traces)
        "golden_final_text": f"The {target} value is {graph.values[target]}.",
        "inputs": sorted(
            v for v, kind in graph.kinds.items() if kind in ("input", "din_input", "noise")
        ),
        "tools": tools,
        "graph": _graph_metadata(graph),
    }
    return Case(
        id=f"fb-{index + 1:03d}",
        dimension=f"core-{knobs.n_core}",
        category=f"depth-{knobs.depth}",
        instruction=_instruction(rng, graph, target),
        golden=golden,
        metadata=metadata,
    )


# --------------------------------------------------------------------------- suites


@dataclass(frozen=True)
class GeneratedSuite:
    knobs: Knobs
    source: SuiteSource
    manifest: SuiteManifest

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def hash(self) -> str:
        return self.source.hash

    def summary(self) -> dict[str, Any]:
        """``rejudge generate funcbench --json``: name, hash, case count and knobs."""
        return {
            "name": self.name,
            "hash": self.hash,
            "cases": len(self.source.cases),
            "knobs": self.knobs.as_dict(),
        }


def generate_suite(knobs: Knobs, name: str | None = None) -> GeneratedSuite:
    """Generate a suite: ``knobs.cases`` cases, each with its own graph, from ``knobs.seed``.

    Pure: the same knobs (and name) give the same cases, registry and hash.
    """
    knobs.check()
    rng = Random(knobs.seed)
    used = _Used()
    cases = [generate_case(rng, knobs, i, used) for i in range(knobs.cases)]
    specs: list[ToolSpec] = []
    for case in cases:
        by_name = {n["name"]: n for n in case.metadata["graph"]["nodes"]}
        specs.extend(
            _spec_from_meta(by_name[t], case.metadata["graph"]) for t in case.metadata["tools"]
        )
    registry = ToolRegistry(domain=DOMAIN, version=GENERATOR_VERSION, tools=specs)
    suite_name = name or default_suite_name(knobs)
    manifest = SuiteManifest(
        name=suite_name,
        domain=DOMAIN,
        format_version=FORMAT_VERSION,
        description=(
            f"FuncBenchGen suite: {knobs.cases} case(s), {knobs.n_core} core nodes, depth "
            f"{knobs.depth}, {knobs.cin} CIN, {knobs.din} DIN, {knobs.noise} noise inputs, "
            f"subtypes {'on' if knobs.subtypes else 'off'}, seed {knobs.seed}"
        ),
        id_pattern=r"fb-[0-9]{3,}",
        metadata={
            "generator": f"funcbench@{GENERATOR_VERSION}",
            "knobs": knobs.as_dict(),
            "registry_file": REGISTRY_FILE,
        },
    )
    source = SuiteSource(
        name=suite_name,
        domain=DOMAIN,
        format_version=FORMAT_VERSION,
        registry=registry,
        cases=tuple(cases),
        description=manifest.description,
        manifest=manifest,
        lines={case.id: i + 1 for i, case in enumerate(cases)},
    )
    return GeneratedSuite(knobs=knobs, source=source, manifest=manifest)


def _spec_from_meta(node: dict[str, Any], graph: dict[str, Any]) -> ToolSpec:
    sup = graph["supertypes"].get(node["output"])
    also = f" Every {node['output']} is also a {sup}." if sup else ""
    return ToolSpec(
        name=node["name"],
        description=f"Returns a {node['output']} value (one integer).{also}",
        parameters={
            "type": "object",
            "properties": {
                p["name"]: {"type": "integer", "description": f"a {p['type']} value"}
                for p in node["params"]
            },
            "required": [p["name"] for p in node["params"]],
            "additionalProperties": False,
        },
        read_only=True,
    )


def write_generated_suite(folder: Path | str, generated: GeneratedSuite) -> Path:
    """Write the suite folder: ``suite.json``, ``cases.jsonl`` and ``registry.json``."""
    folder = write_suite(folder, generated.manifest, list(generated.source.cases))
    (folder / REGISTRY_FILE).write_text(
        json.dumps(generated.source.registry.model_dump(mode="json"), indent=1) + "\n",
        encoding="utf-8",
    )
    return folder


def load_generated_suite(folder: Path | str) -> SuiteSource:
    """Load a generated suite folder with its own ``registry.json``."""
    folder = Path(folder)
    if not (folder / MANIFEST_NAME).is_file():
        raise SuiteFormatError(
            f"{folder} is not a suite folder (no {MANIFEST_NAME})", file=str(folder)
        )
    registry = own_registry(folder)
    if registry is None:
        raise FuncBenchError(
            f"{folder} has no {REGISTRY_FILE}; generate the suite again",
            file=str(folder),
        )
    return load_suite(folder, registry=registry)


# --------------------------------------------------------------------------- graph facts


def core_depth(graph: dict[str, Any], target_function: str) -> int:
    """Edges on the longest path into ``target_function`` through core nodes."""
    core = {n["name"] for n in graph["nodes"] if n["role"] == "core"}
    into: dict[str, list[str]] = {}
    for src, dst in graph["edges"]:
        if src in core and dst in core:
            into.setdefault(dst, []).append(src)
    memo: dict[str, int] = {}

    def longest(name: str, seen: frozenset[str]) -> int:
        if name in seen:
            raise FuncBenchError(f"cycle through {name}")
        if name not in memo:
            memo[name] = max((1 + longest(p, seen | {name}) for p in into.get(name, [])), default=0)
        return memo[name]

    return longest(target_function, frozenset())


def components(graph: dict[str, Any]) -> list[set[str]]:
    """Connected components of functions, where two functions touch when they share a
    variable (one's output is the other's input, or both take the same input)."""
    by_var: dict[str, list[str]] = {}
    for node in graph["nodes"]:
        for var in [node["output"], *(p["var"] for p in node["params"])]:
            by_var.setdefault(var, []).append(node["name"])
    parent = {n["name"]: n["name"] for n in graph["nodes"]}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for names in by_var.values():
        for other in names[1:]:
            parent[find(other)] = find(names[0])
    groups: dict[str, set[str]] = {}
    for name in parent:
        groups.setdefault(find(name), set()).add(name)
    return sorted(groups.values(), key=lambda g: sorted(g))


# --------------------------------------------------------------------------- publishing
