"""rejudge's model: the concepts every layer shares, with no I/O and no SQL.

Today: the comparability rule and the flip-cause rule (:mod:`._comparison`, the one
definition the CLI and the dashboard share), and worlds with state (:class:`World`, its copy-on-write :class:`WorldState`, the readable
:func:`diff_states`). The data model (cases, traces, registries, judgments) is still defined in
``rejudge.store._schemas`` and re-exported there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    from rejudge.model._world import CallResult as CallResult
    from rejudge.model._world import StateDifference as StateDifference
    from rejudge.model._world import World as World
    from rejudge.model._world import WorldData as WorldData
    from rejudge.model._world import WorldMismatchError as WorldMismatchError
    from rejudge.model._world import WorldState as WorldState
    from rejudge.model._world import diff_states as diff_states

# public name -> the private module that defines it (tests/test_public_api.py keeps it complete)
_EXPORTS: dict[str, str] = {
    "FLIP_CAUSES": "rejudge.model._comparison",
    "UNKNOWN_CAUSE": "rejudge.model._comparison",
    "comparability_reasons": "rejudge.model._comparison",
    "flip_cause": "rejudge.model._comparison",
    "flip_causes": "rejudge.model._comparison",
    "wilson_interval": "rejudge.model._statistics",
    "CallResult": "rejudge.model._world",
    "StateDifference": "rejudge.model._world",
    "World": "rejudge.model._world",
    "WorldData": "rejudge.model._world",
    "WorldMismatchError": "rejudge.model._world",
    "WorldState": "rejudge.model._world",
    "diff_states": "rejudge.model._world",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
