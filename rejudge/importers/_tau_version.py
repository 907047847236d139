"""Which version of τ-bench's reward scored a trajectory file (pure).

τ-bench's reward changed (tau_bench/envs/base.py, ``calculate_reward``): up to 7362a17 a task
with required outputs was rewarded by its outputs alone, any other by its database; the merge
of 718ffa1 (2024-12-10) made every task need its database and its outputs, as it still does at
59a200c. A file's rewards mean something only with the version that gave them, so an import
records it: given (``--reward-version``), or what the file shows:

1. a file τ-bench published: its git blob id is one of :data:`KNOWN_FILES` (the four
   ``historical_trajectories`` files, added at 7362a17 and never changed since, so scored by
   the reward of 7362a17);
2. a reward only the later version gives: an entry whose task requires outputs, whose
   ``reward_info`` says every output was told (``r_outputs`` 1), and whose reward is 0 (the
   database was wrong): 7362a17 would have rewarded it 1.

Nothing else in a file tells the two apart (both record the same ``reward_info`` for a task
with outputs), so a file that shows neither is refused with a message asking for
``--reward-version``: never a silent default. A version given against what the file shows is
refused too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from rejudge.errors import InvalidInputError

__all__ = [
    "KNOWN_FILES",
    "TAU_REWARD_VERSIONS",
    "RewardVersion",
    "git_blob_id",
    "reward_version_of",
    "shown_reward_version",
]

#: τ-bench's reward versions: the name an import records -> what the reward required
TAU_REWARD_VERSIONS: dict[str, str] = {
    "7362a17": "a task with outputs by its outputs alone, any other by its database "
    "(every commit before the merge of 718ffa1 on 2024-12-10)",
    "59a200c": "every task by its database and its outputs (from the merge of 718ffa1 on)",
}

#: git blob id -> (path in sierra-research/tau-bench, the reward version that scored it): the
#: historical trajectories, added at 7362a17 and byte for byte the same at 59a200c
KNOWN_FILES: dict[str, tuple[str, str]] = {
    "a5f0d91569e740b949b37a181993b3f1822a86f4": (
        "historical_trajectories/gpt-4o-airline.json",
        "7362a17",
    ),
    "27f588d9157513c3ad11de3db9e824021152d580": (
        "historical_trajectories/gpt-4o-retail.json",
        "7362a17",
    ),
    "303ee85957d7c49d73a438179f35f062e51a1491": (
        "historical_trajectories/sonnet-35-new-airline.json",
        "7362a17",
    ),
    "f2296500688950bac6c54578752ef134961aee06": (
        "historical_trajectories/sonnet-35-new-retail.json",
        "7362a17",
    ),
}


@dataclass(frozen=True)
class RewardVersion:
    """The τ-bench version whose reward scored a file, and how that is known."""

    version: str
    how: str


def git_blob_id(raw: bytes) -> str:
    """The id git gives a file of these bytes (``git hash-object FILE``)."""
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()


def shown_reward_version(raw: bytes, entries: list[Any]) -> RewardVersion | None:
    """What the file shows of the version that scored it, or None when it shows nothing."""
    blob = git_blob_id(raw)
    known = KNOWN_FILES.get(blob)
    if known is not None:
        path, version = known
        return RewardVersion(
            version,
            f"the file is τ-bench's {path} (git blob {blob[:12]}), published at 7362a17 and "
            "scored by the reward of that version",
        )
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        task = (entry.get("info") or {}).get("task") or {}
        info = (entry.get("info") or {}).get("reward_info")
        parts = info.get("info") if isinstance(info, dict) else None
        if (
            task.get("outputs")
            and isinstance(parts, dict)
            and parts.get("r_outputs") == 1.0
            and entry.get("reward") == 0.0
        ):
            return RewardVersion(
                "59a200c",
                f"entry {i} (task {entry.get('task_id')}, trial {entry.get('trial')}) told every "
                "required output (r_outputs 1) and was rewarded 0: only the reward of the "
                "database and the outputs gives that",
            )
    return None


def reward_version_of(
    given: str | None, raw: bytes, entries: list[Any], *, source: str
) -> RewardVersion:
    """The reward version to record for a τ-bench file: ``given`` (checked against what the
    file shows), else what the file shows; one clear error naming ``--reward-version``
    otherwise."""
    known = ", ".join(TAU_REWARD_VERSIONS)
    if given is not None and given not in TAU_REWARD_VERSIONS:
        raise InvalidInputError(
            f"{given!r} is not a τ-bench reward version; use one of {known}",
            field="reward_version",
        )
    shown = shown_reward_version(raw, entries)
    if given is None:
        if shown is None:
            raise InvalidInputError(
                f"{source}: the file does not show which version of τ-bench's reward scored it "
                f"(its rewards mean other things at 7362a17 and 59a200c); name the reward version "
                f"({known})",
                file=source,
                field="reward_version",
            )
        return shown
    if shown is not None and shown.version != given:
        raise InvalidInputError(
            f"{source}: reward version {given} contradicts the file: {shown.how} "
            f"(version {shown.version})",
            file=source,
            field="reward_version",
        )
    return RewardVersion(given, "given explicitly")
