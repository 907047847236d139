"""Errors raised by the suites package (all derive from :class:`store.errors.RejudgeError`)."""

from __future__ import annotations

from rejudge.store.errors import InvalidInputError, NotFoundError, RejudgeError

__all__ = ["SuiteError", "SuiteFormatError", "SuiteNotFoundError", "ToolError"]


class SuiteError(RejudgeError):
    """Something is wrong with a suite as a whole."""


class SuiteFormatError(SuiteError, InvalidInputError):
    """A suite folder or case file cannot be read as the case format."""


class SuiteNotFoundError(SuiteError, NotFoundError):
    """Neither a built-in suite name nor a suite folder."""


class ToolError(Exception):
    """Raised inside a sandbox tool to report a tool-level failure (becomes ``ok=False``).

    Not a RejudgeError: it never escapes a sandbox, it is what the model sees as a tool error.
    """
