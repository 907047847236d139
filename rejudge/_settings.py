"""Settings resolution: command-line flag, then environment variable, then default.

This module and the CLI are the only places that read the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rejudge.store import DEFAULT_DB_URL

__all__ = ["Settings", "resolve_settings", "DEFAULT_CASSETTES_DIR", "api_key_from_env"]

DEFAULT_CASSETTES_DIR = "cassettes"
ENV_DB = "REJUDGE_DB"
ENV_CASSETTES = "REJUDGE_CASSETTES"


@dataclass(frozen=True)
class Settings:
    db_url: str
    cassettes_dir: Path
    json: bool = False


def resolve_settings(
    *,
    db: str | None = None,
    cassettes: str | None = None,
    json_output: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    env = os.environ if environ is None else environ
    db_url = db or env.get(ENV_DB) or DEFAULT_DB_URL
    cassettes_dir = cassettes or env.get(ENV_CASSETTES) or DEFAULT_CASSETTES_DIR
    return Settings(db_url=db_url, cassettes_dir=Path(cassettes_dir), json=json_output)


def api_key_from_env(variable: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The API key in environment variable ``variable`` (``--api-key-env``, else the provider's
    own ``api_key_env``): only ever from the environment, never from a flag's value."""
    env = os.environ if environ is None else environ
    return env.get(variable) if variable else None
