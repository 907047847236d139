"""``python -m rejudge.dashboard.serve run APP [options]``: Streamlit's own command line, with
the app's heavy imports done while the server starts.

A fresh Streamlit server imports what the app needs (pandas, pyarrow, the services and the
judge: 2-3 s on these machines) only when the first browser session runs the script, so the
first page waited for them. Here a background thread imports them while Streamlit boots and
the browser connects; the script then finds them in ``sys.modules``. Nothing else differs from
``python -m streamlit run``: same arguments, same process (``rejudge dashboard`` execs this).
Modules that use Streamlit's caches (``rejudge.dashboard.data``) are left to the script: they
must be imported under Streamlit's runtime.

Two first-page costs of Streamlit's own are taken off the first page too (each about 0.2 s of
its script on these machines, measured with cProfile in the script): the emoji catalogue that
``set_page_config`` loads to check the page icon is imported here, and the check whether the
process was started from a REPL (it reads the source of every frame on the stack, to print a
warning that never applies under ``streamlit run``) is marked done.
"""

from __future__ import annotations

import importlib
import sys
import threading

__all__ = ["PRELOADED", "main"]

PRELOADED = (
    "pandas",
    "pyarrow",
    "sqlalchemy",
    "rejudge.store",
    "rejudge.judge",
    "rejudge.services",
    "rejudge.dashboard.summary",
    "rejudge.dashboard.cassette",
    "streamlit.emojis",
)


def _preload() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails here fails where it is used
            continue


def _skip_repl_probe() -> None:
    # streamlit.delta_generator probes once per process whether it runs in a REPL, to warn
    # that an app needs `streamlit run`; this process is `streamlit run`, so it never warns
    try:
        from streamlit import delta_generator
    except ImportError:  # a Streamlit without it has nothing to skip
        return
    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True


def main() -> None:
    _skip_repl_probe()
    threading.Thread(target=_preload, name="rejudge-preload", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
