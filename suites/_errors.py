"""Errors raised by the suites package (all in the tree of :mod:`rejudge.errors`)."""

from __future__ import annotations

from rejudge.errors import InvalidInputError, NotFoundError, RejudgeError

__all__ = ["SuiteError", "SuiteFormatError", "SuiteNotFoundError", "ToolError"]


class SuiteError(RejudgeError):
    """Something is wrong with a suite as a whole."""


class SuiteFormatError(SuiteError, InvalidInputError):
    """A suite folder or case file cannot be read as the case format."""


class SuiteNotFoundError(SuiteError, NotFoundError):
    """Neither a built-in suite name nor a suite folder."""


class ToolError(RejudgeError):
    """Raised inside a sandbox tool to report a tool-level failure (becomes ``ok=False``).

    It never escapes a sandbox: the sandbox turns it into the error result the model sees.
    """
