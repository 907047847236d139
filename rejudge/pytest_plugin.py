"""pytest plugin: ``@pytest.mark.rejudge_capture(case=..., suite=...)`` records the test's model
traffic into a cassette and a trace (see :mod:`recorder.capture`).

Options: ``--rejudge-record-mode once|new_episodes|none|all`` (vcrpy's modes; ``none`` replays
with the network blocked, for CI), ``--rejudge-cassettes DIR``, ``--rejudge-db URL`` (store the
traces; without it only cassettes are written) and ``--rejudge-run NAME``.

The ``rejudge_capture`` fixture gives the test the :class:`recorder.capture.Capture` (its
``trace`` is filled in after the test body).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rejudge.recorder import RECORD_MODES, Capture

__all__ = ["pytest_addoption", "pytest_configure", "rejudge_capture"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rejudge", "rejudge capture")
    group.addoption(
        "--rejudge-record-mode",
        choices=RECORD_MODES,
        default="once",
        help="vcrpy record mode for tests marked rejudge_capture (default: once).",
    )
    group.addoption("--rejudge-cassettes", default="cassettes", help="Cassette folder.")
    group.addoption("--rejudge-db", default=None, help="Store captured traces in this database.")
    group.addoption("--rejudge-run", default=None, help="Run name for captured traces.")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "rejudge_capture(case, suite=None, repetition=0, run=None, model=None): record the "
        "test's OpenAI/Anthropic traffic as a rejudge cassette and trace of `case`",
    )


@pytest.fixture(scope="session")
def _rejudge_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    url = request.config.getoption("--rejudge-db")
    if not url:
        yield None
        return
    # the plugin is an adapter like the CLI: the store side is the capture service's
    from rejudge.services import open_store

    store = open_store(url)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture(autouse=True)
def _rejudge_capture_marker(
    request: pytest.FixtureRequest, _rejudge_store: Any
) -> Iterator[Capture | None]:
    marker = request.node.get_closest_marker("rejudge_capture")
    if marker is None:
        yield None
        return
    options = dict(marker.kwargs)
    if marker.args:
        options.setdefault("case", marker.args[0])
    if "case" not in options:
        raise pytest.UsageError(f"{request.node.nodeid}: rejudge_capture needs case=...")
    options.setdefault("run", request.config.getoption("--rejudge-run"))
    from rejudge.services import capture

    with capture(
        store=_rejudge_store,
        cassettes_dir=request.config.getoption("--rejudge-cassettes"),
        record_mode=request.config.getoption("--rejudge-record-mode"),
        **options,
    ) as result:
        yield result


@pytest.fixture()
def rejudge_capture(_rejudge_capture_marker: Capture | None) -> Capture:
    """The current test's capture (the test must carry the ``rejudge_capture`` marker)."""
    if _rejudge_capture_marker is None:
        raise pytest.UsageError("the rejudge_capture fixture needs @pytest.mark.rejudge_capture")
    return _rejudge_capture_marker
