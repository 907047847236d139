"""rejudge._lazy reads a face's names from its TYPE_CHECKING block, line by line (no ``ast``:
importing it would cost more than the reading); .ci/faces.py --check holds that reading equal to
``ast``'s for every real face, these are the forms it must read."""

from __future__ import annotations

import pytest

from rejudge._lazy import declared_names

FACE = '''"""A face."""

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # a comment (with a parenthesis
    from rejudge.model._hashing import content_hash as content_hash

    from rejudge.model._statistics import (  # wrapped by the formatter
        wilson_interval as wilson_interval,
        # a comment inside
        median as median,
    )
    from rejudge.errors import *  # noqa: F403

__getattr__, __dir__ = lazy_exports(__name__)


def later() -> None:
    from rejudge.model._schemas import Trace as Trace
'''


def test_every_form_of_the_block_is_read() -> None:
    import rejudge.errors

    table = declared_names(FACE, "face")
    assert list(table)[:3] == ["content_hash", "wilson_interval", "median"]
    assert table["content_hash"] == "rejudge.model._hashing"
    assert table["median"] == "rejudge.model._statistics"
    # a star takes the module's __all__; nothing after the block counts
    assert {name for name, module in table.items() if module == "rejudge.errors"} == set(
        rejudge.errors.__all__
    )
    assert "Trace" not in table


def test_a_block_of_anything_but_imports_is_refused() -> None:
    source = "if TYPE_CHECKING:\n    import rejudge.model\n"
    with pytest.raises(ImportError, match="face: its TYPE_CHECKING block has more than"):
        declared_names(source, "face")
