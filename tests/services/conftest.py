"""Fixtures of the service tests: the CLI runner of tests/cli for tests that go through it."""

from tests.cli.conftest import run_cli  # noqa: F401
