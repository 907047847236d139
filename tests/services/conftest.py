"""Fixtures of the service tests: the CLI runner of tests/cli for tests that go through it, and
a Dask cluster of separate worker processes for the distributed tests."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli.conftest import run_cli  # noqa: F401
from tests.services.dask_cluster import local_cluster


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """Two worker processes, one thread each, shared by the tests of one module."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (the dask extra)")
    with local_cluster(2) as running:
        yield running


@pytest.fixture
def own_dask_cluster() -> Iterator[Any]:
    """Two worker processes of one test's own, for a test that kills workers: the module's
    shared cluster would then depend on Dask's nannies bringing them back in time, which under
    load on two cores once took longer than 180 s ("Only 1/2 workers arrived after 180")."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (the dask extra)")
    with local_cluster(2) as running:
        yield running
