"""``python -m rejudge.dashboard.serve run APP [options]``: Streamlit's own command line, with
the pages' imports done before the server answers.

A fresh Streamlit server imports what the app needs (pandas, SQLAlchemy and the store's tables,
the services and the judge, jsonschema: about a second of CPU on these machines) only when the
first browser session runs the script, so the first page waited for them. They were imported
in a background thread while the server started instead, but the server answered its health
check (and the first browser) about a second before that thread was done, and the two then
shared the GIL: the first page's script stalled for 0.1 s at a time in trivial calls, and the
thread's import list named lazy package facades (``rejudge.services``) that import nothing.
Now the launcher imports, before the server starts, every module the pages import and every
name they take from rejudge's lazy facades, read from the pages' own ``import`` statements
(:func:`page_imports`), so no list is kept by hand. Modules that use Streamlit's caches
(``rejudge.dashboard.data``), and the dashboard's modules that import it, are left to the
script: they must be imported under Streamlit's runtime.

The digest of rejudge's code that keys the pages' kept results (:mod:`rejudge.dashboard.kept`:
it reads the 1.4 MB of the computing packages' sources, 0.05-0.14 s on these machines) is taken
before serving as well; the first read of the first page computed it (cProfile in the script).
``kept`` uses no Streamlit, so it is the one dashboard module imported here.

Two first-page costs of Streamlit's own are taken off the first page too (each about 0.2 s of
its script on these machines, measured with cProfile in the script): the emoji catalogue that
``set_page_config`` loads to check the page icon is imported here, and the check whether the
process was started from a REPL (it reads the source of every frame on the stack, to print a
warning that never applies under ``streamlit run``) is marked done.

What the preload made is then frozen out of the cyclic collector's sight (``gc.freeze``): it
lives as long as the server, and every full collection a page's script set off walked it again.
"""

from __future__ import annotations

import ast
import gc
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["OWN", "page_imports", "preload", "main"]

HERE = Path(__file__).resolve().parent
# the dashboard's own modules are left to the script: ``rejudge.dashboard.data`` binds
# Streamlit's caches to the runtime when imported, and others import it (costs); what they
# import in turn is preloaded, and they themselves are cheap
OWN = "rejudge.dashboard"
# not imported by a page, but by Streamlit's set_page_config on the first page (see above)
ALSO = (("streamlit.emojis", ()),)


def page_imports(folder: Path = HERE) -> Iterator[tuple[str, tuple[str, ...]]]:
    """``(module, names)`` for every ``import``/``from ... import`` in the app, its pages and the
    dashboard's modules (``folder``, ``folder/views``), a function's own imports included,
    skipping the dashboard's own modules (:data:`OWN`) and ``__future__``."""
    for path in sorted([*folder.glob("*.py"), *folder.glob("views/*.py")]):
        if path.name == "serve.py":  # this launcher: Streamlit's command line is not a page's
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if not _own(alias.name):
                        yield alias.name, ()
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if node.module != "__future__" and not _own(node.module):
                    yield node.module, tuple(a.name for a in node.names if a.name != "*")


def _own(module: str) -> bool:
    return module == OWN or module.startswith(OWN + ".")


def preload(folder: Path = HERE) -> list[str]:
    """Import what :func:`page_imports` names (a name taken from a lazy facade imports its
    module); returns the modules that failed to import (a page that needs one fails there,
    with its own message)."""
    failed: list[str] = []
    for module_name, names in [*page_imports(folder), *ALSO]:
        try:
            module = importlib.import_module(module_name)
            for name in names:
                getattr(module, name, None)
        except Exception:  # noqa: BLE001 - a module that fails here fails where it is used
            failed.append(module_name)
    from rejudge.dashboard.kept import code_version

    code_version()  # computed once per process (see the module)
    return failed


def _skip_repl_probe() -> None:
    # streamlit.delta_generator probes once per process whether it runs in a REPL, to warn
    # that an app needs `streamlit run`; this process is `streamlit run`, so it never warns
    try:
        from streamlit import delta_generator
    except ImportError:  # a Streamlit without it has nothing to skip
        return
    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True


def _freeze_preloaded() -> None:
    """Move what the preload made (modules, classes, Streamlit's, pandas' and SQLAlchemy's
    tables: about 170,000 objects) out of the cyclic collector's sight: they live as long as
    the server, and each full collection during a page's script walked all of them again
    (about 0.1 s each on these machines; a page that builds tens of thousands of rows set off
    one or more). What the preload left as garbage is collected first, not frozen."""
    gc.collect()
    gc.freeze()


def main() -> None:
    _skip_repl_probe()
    preload()
    _freeze_preloaded()
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
