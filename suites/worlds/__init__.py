"""Worlds with state that ship with rejudge (see :mod:`rejudge.model` for what a world is).

Each world is one subpackage: its initial data (with its origin and license) and its tools. It
registers a factory with :mod:`rejudge.registry` under its name when imported, and
:data:`rejudge.registry.BUILTINS` names the module, so a lookup by name imports it (the data is
read on the first lookup, once per process).
"""
