"""The data model as pydantic schemas: what every layer reads and writes.

These are the versioned formats of rejudge. The SQLAlchemy tables in
:mod:`rejudge.store._tables` hold them (mostly as JSON bodies next to indexed columns); every
other package speaks these types.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from rejudge.model._hashing import NOT_CONTENT, content_hash

__all__ = [
    "REVIEW_LABELS",
    "normalize_label",
    "CASE_FORMAT_VERSION",
    "TRACE_FORMAT_VERSION",
    "SOURCE_ID_KEYS",
    "SOURCE_LANGFUSE_OBSERVATION_ID",
    "SOURCE_LANGFUSE_TRACE_ID",
    "SOURCE_OTEL_SPAN_ID",
    "SOURCE_OTEL_TRACE_ID",
    "REGISTRY_FORMAT_VERSION",
    "RULE_SET_FORMAT_VERSION",
    "JUDGMENT_FORMAT_VERSION",
    "HARNESS_MODES",
    "VERDICTS",
    "ParamRule",
    "Verdict",
    "HarnessMode",
    "TraceStatus",
    "GoldenCall",
    "Golden",
    "Case",
    "ToolSpec",
    "ToolRegistry",
    "WorldRef",
    "ToolCall",
    "ServerToolUse",
    "Alternative",
    "Round",
    "UserTurn",
    "TraceError",
    "Trace",
    "RunConfig",
    "HarnessAssistance",
    "RuleSet",
    "Judgment",
    "judgment_key",
    "AssertionVerdict",
    "ExternalVerdict",
    "EXTERNAL_PASS_AT",
]

CASE_FORMAT_VERSION = 1
#: 2 added conversations (user turns), provider-side tool use and a round's alternative choices;
#: a trace that holds none of them is written as format 1, byte for byte as before, so the
#: hashes and verdicts of every trace stored before version 2 stay the same
TRACE_FORMAT_VERSION = 2
REGISTRY_FORMAT_VERSION = 1
RULE_SET_FORMAT_VERSION = 1
JUDGMENT_FORMAT_VERSION = 1

ParamRule = Literal["exact", "normalized_str", "normalized_date", "contains", "any"]
Verdict = Literal["PASS", "FAIL", "SKIP", "AGENT_ERROR"]
VERDICTS: tuple[str, ...] = ("PASS", "FAIL", "SKIP", "AGENT_ERROR")
#: a person's label on a judgment (DESIGN §4): the verdict is right, the judge is wrong, the
#: golden (the case) is wrong, or the reviewer cannot tell
REVIEW_LABELS: tuple[str, ...] = ("confirmed", "judge_wrong", "golden_wrong", "unclear")
HarnessMode = Literal["production-parity", "oracle-assisted", "imported"]
HARNESS_MODES: tuple[str, ...] = ("production-parity", "oracle-assisted", "imported")
# ``step_limit``: the episode hit its harness's step limit before the conversation ended (an
# imported τ-bench episode τ-bench never rewarded); judged, but it can never PASS
TraceStatus = Literal["completed", "agent_error", "step_limit"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _without_empty(body: dict[str, Any], *optional: str) -> dict[str, Any]:
    """A model's dumped ``body`` without those ``optional`` fields that are empty or None: a
    field added to a format stays out of the bodies that do not use it, so what was stored
    before it keeps its JSON and its hash."""
    for key in optional:
        if not body.get(key):
            body.pop(key, None)
    return body


# --------------------------------------------------------------------------- cases


class GoldenCall(_Frozen):
    """One expected call: the tool, its expected parameters and how each is compared."""

    tool: str
    params: dict[str, Any] = Field(default_factory=dict)
    # per-parameter matching rule; parameters not named use the rule set's default
    param_rules: dict[str, ParamRule] = Field(default_factory=dict)
    # how many instances of this call the task needs (e.g. "open three tabs")
    count: int = Field(default=1, ge=1)


class Golden(_Frozen):
    calls: list[GoldenCall] = Field(default_factory=list)
    order_sensitive: bool = False
    # None: the rule set's default read-only whitelist; a list (even empty) replaces it
    allowed_extra: list[str] | None = None


class Case(_Frozen):
    """A case: seed 001's nine fields plus what the completion tier and other domains need."""

    id: str
    dimension: str
    category: str
    instruction: str
    context: dict[str, Any] = Field(default_factory=dict)
    golden: Golden
    negative: bool = False
    skip: bool = False
    skip_reason: str | None = None
    # --- extensions (all optional; absent means the registry's declarations apply) ---
    # the call only has to be made, not to succeed (e.g. slow similarity searches)
    call_only: bool = False
    # case-level additions to the registry's equivalences: tool -> interchangeable tools
    equivalent_tools: dict[str, list[str]] = Field(default_factory=dict)
    # case-level alternative keys: tool -> parameter -> keys that may stand in for it
    alternative_keys: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    # case-level documented follow-ups: tool -> tools that may legitimately follow it
    follow_ups: dict[str, list[str]] = Field(default_factory=dict)
    # scenario grouping (phrasing variants of one logical scenario share it)
    scenario: str | None = None
    phrasing: str | None = None
    # domain-specific data the domain's tier needs (funcbench target, bfcl answers, ...)
    metadata: dict[str, Any] = Field(default_factory=dict)
    # values the agent must tell the user (τ-bench's ``outputs``): each must appear in the
    # agent's text; omitted from the body when empty, so every earlier case keeps its hash
    required_outputs: list[str] = Field(default_factory=list)
    # statements in plain language a model judge checks against the conversation (τ²'s
    # ``nl_assertions``); omitted from the body when empty, like ``required_outputs``
    nl_assertions: list[str] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_empty_outputs(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_empty(handler(self), "required_outputs", "nl_assertions")

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))

    @property
    def expected_steps(self) -> int:
        return sum(call.count for call in self.golden.calls)


# --------------------------------------------------------------------------- registries


class ToolSpec(_Frozen):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    read_only: bool = False
    # free grouping label (retail: read / request / confirmation)
    kind: str | None = None


class WorldRef(_Frozen):
    """The world a registry's tools act on: its registered name, the version of its initial
    data and that data's content hash. Part of the registry, so part of every judgment's key:
    a judgment made against other data is another judgment."""

    name: str
    version: str
    data_hash: str


class ToolRegistry(_Frozen):
    """A domain's tools plus everything the judge needs to know about them.

    The judge never imports a domain: it reads this snapshot. The ``state`` tier looks the
    ``world`` up by name in :mod:`rejudge.registry` and checks its data hash.
    """

    format_version: int = REGISTRY_FORMAT_VERSION
    domain: str
    version: str = "1"
    tools: list[ToolSpec]
    # groups of interchangeable tools (any member covers the capability of another)
    equivalences: list[list[str]] = Field(default_factory=list)
    # tool -> parameter -> alternative keys that satisfy that parameter
    alternative_keys: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    # tool -> tools that may follow it as a documented follow-up
    follow_ups: dict[str, list[str]] = Field(default_factory=dict)
    # parameter name -> identifiers that exist in the domain's fixtures
    fixture_ids: dict[str, list[str]] = Field(default_factory=dict)
    # wire name -> original name, for tools whose names a provider rejects (BFCL's dots)
    name_map: dict[str, str] = Field(default_factory=dict)
    # --- stateful worlds (omitted from the body when unset, so older registries keep their hash)
    # the world the tools act on (None: no world with state)
    world: WorldRef | None = None
    # tools that end the conversation (τ-bench's transfer_to_human_agents): they change no
    # state, and rule sets may ignore them on both sides
    terminal_tools: list[str] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_unset_world(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a world is an object with fields: only an unset one is empty
        return _without_empty(handler(self), "world", "terminal_tools")

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))

    def tool(self, name: str) -> ToolSpec | None:
        for spec in self.tools:
            if spec.name == name:
                return spec
        return None

    def tool_names(self) -> list[str]:
        return [spec.name for spec in self.tools]

    def openai_tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """Tool definitions in OpenAI chat-completions format."""
        wanted = set(names) if names is not None else None
        inverse = {original: wire for wire, original in self.name_map.items()}
        return [
            {
                "type": "function",
                "function": {
                    "name": inverse.get(spec.name, spec.name),
                    "description": spec.description,
                    "parameters": spec.parameters,
                },
            }
            for spec in self.tools
            if wanted is None or spec.name in wanted
        ]


# --------------------------------------------------------------------------- traces


class ToolCall(_Frozen):
    id: str | None = None
    name: str
    # parsed arguments; None when the model's argument text did not parse as a JSON object
    arguments: dict[str, Any] | None = None
    arguments_raw: str = ""
    parse_error: str | None = None
    # what the sandbox returned (None when the call was never executed, e.g. imported traces)
    result: Any = None
    ok: bool | None = None
    error: str | None = None


class ServerToolUse(_Frozen):
    """A tool the provider ran itself inside one response (web search, tool search, code run).

    It is never one of the client's calls: tiers judge client calls only, unless a rule set asks
    to see server-tool use.
    """

    id: str | None = None
    name: str
    input: Any = None
    # what the provider put in the same response as the tool's outcome (None: not shown)
    result: Any = None
    # the provider's own name for the block or item (``server_tool_use``, ``web_search_call``)
    kind: str


class Alternative(_Frozen):
    """Another choice of an ``n > 1`` response, kept but never followed (the client used 0)."""

    choice: int
    calls: list[ToolCall] = Field(default_factory=list)
    text: str | None = None
    finish_reason: str | None = None


class Round(_Frozen):
    index: int
    calls: list[ToolCall] = Field(default_factory=list)
    text: str | None = None
    finish_reason: str | None = None
    # format 2: provider-side tools used in this response, and the other choices of n > 1
    server_tools: list[ServerToolUse] = Field(default_factory=list)
    alternatives: list[Alternative] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_empty_v2(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # format-1 rounds keep their exact JSON (and so their hashes)
        return _without_empty(handler(self), "server_tools", "alternatives")

    @property
    def uses_v2(self) -> bool:
        return bool(self.server_tools or self.alternatives)


class UserTurn(_Frozen):
    """A user message of a multi-turn conversation, in its place between the rounds.

    ``before_round`` is the index of the first round the model produced after the message
    (``len(rounds)`` for a message nothing answered); ``position`` is the message's 0-based
    place among the conversation's user messages. A conversation with a single user message
    (the case's instruction) carries no turns.
    """

    before_round: int = Field(ge=0)
    position: int = Field(ge=0)
    text: str


class TraceError(_Frozen):
    """Why a trace could not be scored normally (it becomes AGENT_ERROR)."""

    kind: (
        str  # provider_error | timeout | retries_exhausted | round_budget | truncated_stream | ...
    )
    message: str
    round: int | None = None
    status_code: int | None = None


#: the keys of ``Trace.source_ids``, defined once so the importers that set them and the exports
#: that read them agree; each importer sets those its source has
SOURCE_OTEL_TRACE_ID = "otel.trace_id"  # 32 lowercase hex digits
SOURCE_OTEL_SPAN_ID = "otel.span_id"  # 16 hex digits: the span a verdict goes on (the root's)
SOURCE_LANGFUSE_TRACE_ID = "langfuse.trace_id"
SOURCE_LANGFUSE_OBSERVATION_ID = "langfuse.observation_id"  # the observation a score goes on
SOURCE_ID_KEYS = (
    SOURCE_OTEL_TRACE_ID,
    SOURCE_OTEL_SPAN_ID,
    SOURCE_LANGFUSE_TRACE_ID,
    SOURCE_LANGFUSE_OBSERVATION_ID,
)


class Trace(_Frozen):
    """A normalized run of one case: rounds of calls and results, and how it ended."""

    format_version: int = 1
    case_id: str
    repetition: int = 0
    status: TraceStatus = "completed"
    rounds: list[Round] = Field(default_factory=list)
    final_text: str | None = None
    error: TraceError | None = None
    # the tools sent to the model when retrieval top-k is on (None: all tools)
    selected_tools: list[str] | None = None
    usage: dict[str, int] = Field(default_factory=dict)
    normalizer_version: str | None = None
    # wall-clock facts; excluded from the content hash so a replay hashes the same
    timings: dict[str, Any] = Field(default_factory=dict)
    # format 2: the user's messages of a multi-turn conversation (empty: a single instruction)
    user_turns: list[UserTurn] = Field(default_factory=list)
    # the trace's ids in the system it was imported from (keys: SOURCE_ID_KEYS), so verdicts
    # exported back land on it there; where it came from, not what it did: outside the content
    # hash (NOT_CONTENT) and omitted from the body when empty, so no stored hash moves
    source_ids: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _lowest_format_that_holds_it(self) -> Trace:
        # the format version says what the body needs: 1 unless it holds a format-2 field
        # (a frozen model: set through __dict__, once, at construction)
        needed = 2 if (self.user_turns or any(r.uses_v2 for r in self.rounds)) else 1
        if self.format_version > TRACE_FORMAT_VERSION:
            raise ValueError(
                f"trace format {self.format_version} is newer than this rejudge reads "
                f"(up to {TRACE_FORMAT_VERSION}); upgrade rejudge"
            )
        if self.format_version != needed:
            self.__dict__["format_version"] = needed
        return self

    @model_serializer(mode="wrap")
    def _omit_empty_turns(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_empty(handler(self), "user_turns", "source_ids")

    def hashable(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude=set(NOT_CONTENT))

    @property
    def hash(self) -> str:
        return content_hash(self.hashable())

    @property
    def calls(self) -> list[ToolCall]:
        return [call for rnd in self.rounds for call in rnd.calls]


# --------------------------------------------------------------------------- runs


class HarnessAssistance(_Frozen):
    expected_step_count_disclosed: bool = False
    round_budget: int | str = 10  # "expected+4" for oracle-assisted runs (per case)


class RunConfig(_Frozen):
    """Everything that shaped a run's exchanges; stored on the run, never holds a secret."""

    model: str
    provider: str = "openai"
    base_url: str | None = None
    harness_mode: HarnessMode = "production-parity"
    harness_assistance: HarnessAssistance = Field(default_factory=HarnessAssistance)
    temperature: float | None = 0.0
    seed: int | None = None
    max_tokens: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 3
    restate_known_values: bool = False
    retrieve_top_k: int | None = None
    repeat: int = 1
    concurrency: int = 1
    stream: bool = False
    rpm: int | None = None
    tool_choice: str | None = "auto"
    system_prompt: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    # how fast a run is driven, not what it sends: a resumed run may change them
    OPERATIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset({"concurrency", "rpm"})
    # where an imported run's results file lay, and (BFCL) the hash of its lines (``extra``):
    # what replay checks the file against, not what shaped the run; leaving them out keeps the
    # hash of runs stored before they were recorded, so importing again still resumes them
    LOCATION_EXTRA: ClassVar[frozenset[str]] = frozenset(
        {"source_path", "tools_path", "results_hash"}
    )

    @property
    def identity_hash(self) -> str:
        """Hash of everything that shapes the exchanges (operational knobs and locations left
        out)."""
        body = self.model_dump(mode="json", exclude=set(self.OPERATIONAL_FIELDS))
        body["extra"] = {k: v for k, v in body["extra"].items() if k not in self.LOCATION_EXTRA}
        return content_hash(body)


# --------------------------------------------------------------------------- rule sets


class RuleSet(_Frozen):
    """Named, versioned, immutable judging rules. ``settings`` is interpreted by the judge."""

    format_version: int = RULE_SET_FORMAT_VERSION
    name: str
    version: str
    description: str = ""
    settings: dict[str, Any] = Field(default_factory=dict)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))


# --------------------------------------------------------------------------- judgments


def judgment_key(
    trace_hash: str,
    case_hash: str,
    registry_hash: str,
    tier: str,
    rule_set_hash: str,
    engine_version: str,
    judge_hash: str | None = None,
) -> str:
    """The identity of a judgment: judging the same inputs again is a lookup, not a new row.

    ``judge_hash`` (the ``model-graded`` tier only: its rubric, judge model and rendered
    prompt, :func:`rejudge.model.model_graded_key`) is appended when given, so every other
    tier's keys stay what they were."""
    inputs = [trace_hash, case_hash, registry_hash, tier, rule_set_hash, engine_version]
    if judge_hash is not None:
        inputs.append(judge_hash)
    return content_hash(inputs)


class Judgment(_Frozen):
    format_version: int = JUDGMENT_FORMAT_VERSION
    verdict: Verdict
    # every cause of a FAIL, in the taxonomy's documented precedence order
    taxonomy: list[str] = Field(default_factory=list)
    # diagnostic only: never decides the verdict
    partial_score: float | None = None
    partial_breakdown: dict[str, float] = Field(default_factory=dict)
    # golden vs actual, call by call and argument by argument
    diff: list[dict[str, Any]] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    anomalies: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    # inputs
    tier: str
    trace_hash: str
    case_hash: str
    registry_hash: str
    rule_set_hash: str
    engine_version: str
    # the model-graded tier's rubric, judge and prompt (rejudge.model.model_graded_key);
    # omitted from the body when unset, so every other tier's judgments keep their hashes
    judge_hash: str | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_judge(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        body: dict[str, Any] = handler(self)
        if body.get("judge_hash") is None:
            body.pop("judge_hash", None)
        return body

    @property
    def key(self) -> str:
        return judgment_key(
            self.trace_hash,
            self.case_hash,
            self.registry_hash,
            self.tier,
            self.rule_set_hash,
            self.engine_version,
            self.judge_hash,
        )

    @property
    def hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))


# --------------------------------------------------------------------------- external verdicts

#: an external value at or above this counts as a success (τ-bench's own test is reward within
#: 1e-6 of 1; a score that is a fraction counts as a success only when it is full)
EXTERNAL_PASS_AT = 1.0 - 1e-6


class AssertionVerdict(_Frozen):
    """An outside model judge's verdict on one NL assertion of a trace (τ²-bench's
    ``reward_info.nl_assertions[i]``): the statement, whether it was met, and the judge's
    justification, as the source gave them."""

    index: int = Field(ge=0)
    assertion: str
    met: bool
    justification: str | None = None


class ExternalVerdict(_Frozen):
    """Another harness's verdict on one trace: who gave it, its value in [0, 1], and the
    source's own record of it (JSON), kept as given."""

    source: str = Field(min_length=1, max_length=100)
    value: float = Field(ge=0.0, le=1.0)
    detail: dict[str, Any] | None = None
    # the version of the source that scored it (τ-bench's reward changed between versions:
    # ``7362a17`` or ``59a200c``); None when not known
    version: str | None = Field(default=None, max_length=100)

    @property
    def passed(self) -> bool:
        return self.value >= EXTERNAL_PASS_AT

    @property
    def assertions(self) -> tuple[AssertionVerdict, ...]:
        """The source's per-assertion verdicts, read from its own record (τ²'s
        ``detail.reward_info.nl_assertions``; none for a source without them). Read, not
        stored apart: the record is kept whole, so every store that holds a τ² import has
        them, whenever it was written. An entry whose ``met`` is not a boolean (τ² writes
        none such) is left out rather than guessed."""
        info = (self.detail or {}).get("reward_info")
        given = info.get("nl_assertions") if isinstance(info, dict) else None
        if not isinstance(given, list):
            return ()
        out: list[AssertionVerdict] = []
        for index, item in enumerate(given):
            if not isinstance(item, dict) or not isinstance(item.get("met"), bool):
                continue
            why = item.get("justification")
            out.append(
                AssertionVerdict(
                    index=index,
                    assertion=str(item.get("nl_assertion") or ""),
                    met=item["met"],
                    justification=why if isinstance(why, str) else None,
                )
            )
        return tuple(out)


def normalize_label(text: str | None) -> str | None:
    """``"Judge wrong"``, ``"judge-wrong"``, ``" JUDGE_WRONG "`` -> ``"judge_wrong"``; None when
    the text is not one of :data:`REVIEW_LABELS`."""
    if text is None:
        return None
    label = "_".join(str(text).strip().lower().replace("-", " ").replace("_", " ").split())
    return label if label in REVIEW_LABELS else None
