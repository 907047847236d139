"""``python -m rejudge.dashboard.serve run APP [options]``: Streamlit's own command line, with
the app's heavy imports done while the server starts.

A fresh Streamlit server imports what the app needs (pandas, pyarrow, the services and the
judge: 2-3 s on these machines) only when the first browser session runs the script, so the
first page waited for them. Here a background thread imports them while Streamlit boots and
the browser connects; the script then finds them in ``sys.modules``. Nothing else differs from
``python -m streamlit run``: same arguments, same process (``rejudge dashboard`` execs this).
Modules that use Streamlit's caches (``rejudge.dashboard.data``) are left to the script: they
must be imported under Streamlit's runtime.
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
)


def _preload() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails here fails where it is used
            continue


def main() -> None:
    threading.Thread(target=_preload, name="rejudge-preload", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
