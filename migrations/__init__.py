"""Alembic environment and revisions, shipped inside the package (no alembic.ini needed)."""
