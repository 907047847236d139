"""The genome domain: a genome-browser toolset over a tiny synthetic genome (DESIGN §6).

Importing this package registers the domain as ``genome``.
"""

from __future__ import annotations

from rejudge.suites._domain import register_domain
from rejudge.suites.domains.genome.domain import GenomeDomain, GenomeSetupError, build_registry
from rejudge.suites.domains.genome.sandbox import GenomeSandbox

__all__ = ["GenomeDomain", "GenomeSandbox", "GenomeSetupError", "build_registry"]

register_domain(GenomeDomain.name, GenomeDomain)
