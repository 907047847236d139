"""Rubrics and judge models: what a model judge is asked, and who answers.

A :class:`Rubric` is to the ``model-graded`` tier what a rule set is to the rule tiers: named,
versioned, immutable data with a content hash that is part of every judgment's key. A
:class:`JudgeModel` names the judge (provider, model and every sampling parameter); its hash is
part of the key too, so a judgment by another model or at another temperature is another
judgment. The base URL is not: where a server listens changes no reply.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rejudge.model._hashing import content_hash

__all__ = [
    "RUBRIC_FORMAT_VERSION",
    "RUBRIC_VIEWS",
    "RUBRIC_INPUTS",
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_JUDGE_PROVIDER",
    "Truncation",
    "Rubric",
    "JudgeModel",
    "model_graded_key",
]

#: 1: the first format (criteria, template, view, truncation, reply schema, scale, inputs)
RUBRIC_FORMAT_VERSION = 1

#: what of the trace the judge sees
RUBRIC_VIEWS = ("final_reply", "conversation", "calls", "state_diff")
#: per-case inputs a rubric shows the judge
RUBRIC_INPUTS = ("none", "nl_assertions", "required_outputs")

#: the model the shipped judge cassettes are recorded with (the local llama-server's SmolLM2)
DEFAULT_JUDGE_MODEL = "SmolLM2-135M-Instruct"
DEFAULT_JUDGE_PROVIDER = "local"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Truncation(_Frozen):
    """How a transcript longer than the judge's budget is cut: ``keep`` its ``head``, its
    ``tail``, or ``both`` ends (the middle goes); the cut is written into the prompt and
    recorded on the judgment, never silent."""

    max_chars: int = Field(default=6000, ge=200)
    keep: Literal["head", "tail", "both"] = "both"


class Rubric(_Frozen):
    format_version: int = RUBRIC_FORMAT_VERSION
    name: str
    version: str
    description: str = ""
    #: what the judge checks, in plain language (the template's ``{{criteria}}``)
    criteria: str
    #: the system message (may be empty)
    system: str = ""
    #: the user message; ``{{name}}`` variables (see ``judge.rubrics.TEMPLATE_VARIABLES``)
    template: str
    view: Literal["final_reply", "conversation", "calls", "state_diff"] = "conversation"
    truncation: Truncation = Field(default_factory=Truncation)
    #: the JSON schema a reply must satisfy (also sent to servers that constrain output)
    reply_schema: dict[str, Any]
    #: ``binary``: the reply's ``success`` decides; ``graded``: its ``score`` >= ``threshold``
    scale: Literal["binary", "graded"] = "binary"
    threshold: float | None = None
    #: ``nl_assertions``: the case's NL assertions, judged one by one (the reply's
    #: ``assertions``); ``required_outputs``: the case's required outputs are shown
    inputs: Literal["none", "nl_assertions", "required_outputs"] = "none"

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def hash(self) -> str:
        return _hash_of(self)


class JudgeModel(_Frozen):
    """Who judges, and how: everything that shapes the judge's reply (part of the key)."""

    provider: str = DEFAULT_JUDGE_PROVIDER
    model: str = DEFAULT_JUDGE_MODEL
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = Field(default=384, ge=1)
    #: replies asked per trace; the verdict is the majority
    samples: int = Field(default=1, ge=1, le=25)
    #: send the rubric's reply schema as ``response_format`` (servers that constrain output)
    constrained: bool = True

    @property
    def hash(self) -> str:
        return _hash_of(self)

    @property
    def label(self) -> str:
        """A file-name-safe label: the model's name and a short hash of the parameters."""
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", self.model)[:60]
        return f"{safe}-{self.hash.split(':', 1)[1][:10]}"


# id(object) -> (object, its hash): every judgment of a run asks for the rubric's and judge's
# hash, and both are immutable. Kept beside the object, not in it: pydantic's model_copy copies
# an instance's __dict__, so a cached value inside it would follow a copy made with changes
_HASHES: dict[int, tuple[BaseModel, str]] = {}


def _hash_of(obj: BaseModel) -> str:
    hit = _HASHES.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    value = content_hash(obj.model_dump(mode="json"))
    if len(_HASHES) > 256:
        _HASHES.clear()
    _HASHES[id(obj)] = (obj, value)
    return value


def model_graded_key(rubric_hash: str, judge_hash: str, prompt_hash: str, tier_version: int) -> str:
    """What a model-graded judgment adds to its key: the rubric, the judge, the prompt and,
    from version 2 on, the tier's version (version 1's keys are hashed without it, as they
    were stored)."""
    if tier_version == 1:
        return content_hash([rubric_hash, judge_hash, prompt_hash])
    return content_hash([rubric_hash, judge_hash, prompt_hash, f"model-graded/{tier_version}"])
