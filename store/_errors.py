"""The store's errors, and the root of the tree every package extends.

The classes are defined in :mod:`rejudge.errors` (which draws the whole tree), so importing the
error tree never loads the store's database code; the store's facade exports them as its
errors. Pure code (the judge, the recorder, the suites, the model) takes them from
``rejudge.errors`` and never imports the store.
"""

from __future__ import annotations

# re-exported as themselves (``X as X``: exported to a type checker with no second list of
# their names); the one list is rejudge.errors.ROOT_CLASSES
from rejudge.errors import ROOT_CLASSES
from rejudge.errors import ConflictError as ConflictError
from rejudge.errors import DatabaseUnavailableError as DatabaseUnavailableError
from rejudge.errors import DatabaseURLError as DatabaseURLError
from rejudge.errors import InvalidInputError as InvalidInputError
from rejudge.errors import NotFoundError as NotFoundError
from rejudge.errors import RejudgeError as RejudgeError
from rejudge.errors import SchemaVersionError as SchemaVersionError
from rejudge.errors import StoreError as StoreError

__all__ = list(ROOT_CLASSES)
