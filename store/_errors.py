"""The store's errors, and the root of the tree every package extends.

The classes are defined in :mod:`rejudge.errors` (which draws the whole tree), so importing the
error tree never loads the store's database code; the store's facade exports them as its
errors. Pure code (the judge, the recorder, the suites, the model) takes them from
``rejudge.errors`` and never imports the store.
"""

from __future__ import annotations

from rejudge.errors import (
    ConflictError,
    DatabaseUnavailableError,
    DatabaseURLError,
    InvalidInputError,
    NotFoundError,
    RejudgeError,
    SchemaVersionError,
    StoreError,
)

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
