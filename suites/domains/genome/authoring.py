"""Authoring of the built-in genome suites (``genome-simple`` and ``genome-complex``).

The cases are written as code (:mod:`.cases_simple`, :mod:`.cases_complex`, with the helpers of
:mod:`.case_kit`) and shipped as data: ``python -m
suites.domains.genome.authoring`` rewrites ``suites/data/genome-simple`` and
``suites/data/genome-complex``; a test checks that the shipped files equal what this module builds,
so a hand edit of the JSONL cannot drift from the source. Sequences quoted in instructions and
golden parameters are cut from the shipped genome at authoring time.

Conventions:

* ids ``gs-<dimension>-NNN`` (simple) and ``gc-<dimension>-NNN`` (complex); the dimension is the
  id's middle token.
* genes are named by locus tag wherever a tool takes ``gene_id``; sequences, names and notes use
  ``normalized_str``; dynamic ids (a tab or annotation created earlier in the case) use ``any``.
* ``allowed_extra`` is the domain's read-only lookups (the released rule sets whitelist nothing
  for genome), or ``[]`` for negative cases.
* cases needing prior state (open tabs, queued edits) say so in ``context.browser`` and set it up
  with ``metadata.setup_calls``, replayed on the fresh sandbox.
* similarity-search cases are ``call_only`` (a real search is slow; the call must be made, its
  success is not required).
"""

from __future__ import annotations

from pathlib import Path

from rejudge.suites._answers import VERSION_2
from rejudge.suites._case_format import SuiteManifest, SuiteVersion, dump_cases, write_suite
from rejudge.suites._domain import package_data
from rejudge.suites.domains.genome.cases_complex import complex_cases
from rejudge.suites.domains.genome.cases_simple import simple_cases

from rejudge.model import Case

__all__ = [
    "SIMPLE_NAME",
    "COMPLEX_NAME",
    "SIMPLE_DIMENSIONS",
    "COMPLEX_DIMENSIONS",
    "simple_cases",
    "complex_cases",
    "simple_manifest",
    "complex_manifest",
    "suite_folder",
    "rendered",
    "write_all",
]

SIMPLE_NAME = "genome-simple"
COMPLEX_NAME = "genome-complex"
SIMPLE_DIMENSIONS = (
    "search",
    "sequence",
    "navigation",
    "tabs",
    "analysis",
    "similarity",
    "annotation",
    "export",
)
COMPLEX_DIMENSIONS = ("lookup", "analysis", "annotation", "browse", "similarity", "export")


# --------------------------------------------------------------------------- suites


def _manifest(
    name: str, prefix: str, dimensions: tuple[str, ...], description: str
) -> SuiteManifest:
    # both suites: the genome domain, case ids <prefix>-<dimension>-NNN, the same two versions
    return SuiteManifest(
        name=name,
        domain="genome",
        format_version=1,
        description=description,
        id_pattern=prefix + "-(" + "|".join(dimensions) + r")-\d{3}",
        versions=_version_2(name),
    )


def simple_manifest() -> SuiteManifest:
    return _manifest(
        SIMPLE_NAME,
        "gs",
        SIMPLE_DIMENSIONS,
        "Single genome-browser operations over the synthetic genome: gene search, "
        "sequence retrieval, navigation and zoom, tabs, translation/GC/ORFs, similarity "
        "search (call-only), queued annotation edits and exports.",
    )


def complex_manifest() -> SuiteManifest:
    return _manifest(
        COMPLEX_NAME,
        "gc",
        COMPLEX_DIMENSIONS,
        "Multi-step genome-browser workflows validated step by step: lookups, analysis "
        "chains, queue-then-apply annotation edits with exports, tab and view handling, "
        "similarity searches (call-only).",
    )


def _version_2(name: str) -> list[SuiteVersion]:
    # the cases with answers, written from version 1 by ``python -m rejudge.suites._answers``
    return [SuiteVersion(version=2, cases_file="cases.v2.jsonl", description=VERSION_2[name])]


def suite_folder(name: str) -> Path:
    return package_data("data", name)


def rendered() -> dict[str, tuple[SuiteManifest, list[Case]]]:
    return {
        SIMPLE_NAME: (simple_manifest(), simple_cases()),
        COMPLEX_NAME: (complex_manifest(), complex_cases()),
    }


def rendered_text(name: str) -> str:
    _manifest, cases = rendered()[name]
    return dump_cases(cases)


def write_all() -> list[Path]:
    return [
        write_suite(suite_folder(name), manifest, cases)
        for name, (manifest, cases) in rendered().items()
    ]


if __name__ == "__main__":
    write_all()
