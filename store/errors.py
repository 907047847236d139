"""The error hierarchy. Every error rejudge raises on purpose derives from ``RejudgeError``.

It lives in ``store`` because ``store`` imports nothing of ours; every other package extends it.
Messages say what went wrong and what to do next, in one line.
"""

from __future__ import annotations

__all__ = [
    "RejudgeError",
    "StoreError",
    "DatabaseURLError",
    "DatabaseUnavailableError",
    "SchemaVersionError",
    "NotFoundError",
    "ConflictError",
    "InvalidInputError",
]


class RejudgeError(Exception):
    """Root of every error rejudge raises on purpose; the CLI prints it as one line."""


class StoreError(RejudgeError):
    pass


class DatabaseURLError(StoreError):
    pass


class DatabaseUnavailableError(StoreError):
    pass


class SchemaVersionError(StoreError):
    pass


class NotFoundError(RejudgeError):
    pass


class ConflictError(RejudgeError):
    pass


class InvalidInputError(RejudgeError):
    pass
