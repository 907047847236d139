"""rejudge: record LLM tool-calling runs once; re-judge them offline under any tier or rule version.

The public facade. Library names are imported lazily so ``import rejudge`` stays cheap.
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Store": "rejudge.store.repository",
    "RejudgeError": "rejudge.errors",
    "Case": "rejudge.store.schemas",
    "Trace": "rejudge.store.schemas",
    "Judgment": "rejudge.store.schemas",
    "RuleSet": "rejudge.store.schemas",
    "RunConfig": "rejudge.store.schemas",
    "ToolRegistry": "rejudge.store.schemas",
    "content_hash": "rejudge.store.hashing",
    "capture": "rejudge.services.capture",
}

__all__ = ["__version__", *_EXPORTS]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
