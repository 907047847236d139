"""The migrations runner: upgrade, downgrade, current, and the fresh-database check."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from rejudge.store._engine import redact_url
from rejudge.store._errors import DatabaseUnavailableError, SchemaVersionError
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

__all__ = [
    "alembic_config",
    "upgrade",
    "downgrade",
    "current_revision",
    "head_revision",
    "ensure_schema",
]


def _script_location() -> str:
    # the migrations folder ships as a package next to ``store``
    return str(Path(str(resources.files("rejudge.migrations"))))


def alembic_config(engine: Engine | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", _script_location())
    if engine is not None:
        cfg.set_main_option(
            "sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%")
        )
    return cfg


def _unavailable(engine: Engine, exc: Exception) -> DatabaseUnavailableError:
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    detail = lines[0] if lines else type(exc).__name__
    url = redact_url(engine.url.render_as_string(hide_password=False))
    if engine.dialect.name == "sqlite":
        return DatabaseUnavailableError(
            f"cannot open SQLite database {url}: {detail} (choose a writable file path)",
            field="db",
        )
    return DatabaseUnavailableError(
        f"cannot connect to {url}: {detail} (check the database URL and that the server is running)",
        field="db",
    )


def head_revision() -> str:
    script = ScriptDirectory.from_config(alembic_config())
    head = script.get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except OperationalError as exc:
        raise _unavailable(engine, exc) from exc


def _run(engine: Engine, fn: str, revision: str) -> None:
    cfg = alembic_config(engine)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            getattr(command, fn)(cfg, revision)
    except OperationalError as exc:
        raise _unavailable(engine, exc) from exc


def upgrade(engine: Engine, revision: str = "head") -> None:
    _check_known(engine)
    _run(engine, "upgrade", revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    _check_known(engine)
    _run(engine, "downgrade", revision)


def _check_known(engine: Engine) -> str | None:
    current = current_revision(engine)
    if current is None:
        return None
    script = ScriptDirectory.from_config(alembic_config())
    try:
        known = script.get_revision(current)
    except Exception:
        known = None
    if known is None:
        raise SchemaVersionError(
            f"database {redact_url(engine.url.render_as_string(hide_password=False))} is at "
            f"schema revision {current}, which this rejudge does not know (it is newer); "
            "upgrade rejudge, or use another database",
            field="db",
        )
    return current


def ensure_schema(engine: Engine) -> None:
    """Bring a fresh or older database to head; refuse one from a newer rejudge."""
    current = _check_known(engine)
    if current != head_revision():
        _run(engine, "upgrade", "head")
