"""Exchanges that are no model turn: embeddings, moderation, files, search APIs, telemetry, ...

Real cassettes hold more than model calls: an agent embeds its memory, uploads a file, asks a
search API, and its SDK posts telemetry. Those exchanges stay in the cassette (the trace viewer
shows them) but never become rounds, and never change a trace's status. Each is recognized by
its URL: a table of ``(kind, host pattern, path pattern)`` rules, first match wins, so a new
kind is a row, not a branch. Model formats are asked only about what no row claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["NonModelRule", "NON_MODEL_RULES", "non_model_kind"]


@dataclass(frozen=True)
class NonModelRule:
    """``kind`` when the host matches ``host`` (when given) and the path matches ``path``."""

    kind: str
    path: re.Pattern[str] | None = None
    host: re.Pattern[str] | None = None

    def matches(self, host: str, path: str) -> bool:
        if self.host is not None and not self.host.search(host):
            return False
        return self.path is None or bool(self.path.search(path))


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


NON_MODEL_RULES: list[NonModelRule] = [
    # telemetry and tracing first: their hosts post anything, under any path
    NonModelRule(
        "telemetry",
        host=_re(
            r"(^|\.)(posthog\.com|sentry\.io|telemetry\.crewai\.com|smith\.langchain\.com|"
            r"logfire[a-z.-]*\.pydantic\.dev|api\.honeycomb\.io|app\.traceloop\.com|"
            r"api\.wandb\.ai|cloud\.langfuse\.com|us\.i\.posthog\.com|segment\.io|"
            r"api\.mixpanel\.com|otel[a-z.-]*)$"
        ),
    ),
    NonModelRule(
        "telemetry", path=_re(r"/v1/(traces|metrics|logs)$|/otlp/|/api/public/ingestion$")
    ),
    NonModelRule(
        "search",
        host=_re(
            r"(^|\.)(api\.tavily\.com|api\.search\.brave\.com|google\.serper\.dev|serpapi\.com|"
            r"api\.exa\.ai|api\.duckduckgo\.com|html\.duckduckgo\.com|api\.bing\.microsoft\.com|"
            r"customsearch\.googleapis\.com|api\.firecrawl\.dev|r\.jina\.ai|s\.jina\.ai|"
            r"en\.wikipedia\.org)$"
        ),
    ),
    NonModelRule(
        "embeddings", path=_re(r"(/embeddings|/v\d+/embed|:embedcontent|:batchembedcontents)$")
    ),
    NonModelRule("moderation", path=_re(r"/moderations$")),
    NonModelRule("rerank", path=_re(r"/v\d+/rerank$|/rerank$")),
    NonModelRule("token-count", path=_re(r"(/count_tokens|/count-tokens|:counttokens)$")),
    NonModelRule(
        "files",
        path=_re(r"/v\d+/(files|uploads|batches|vector_stores|containers)(/|$)"),
    ),
    NonModelRule(
        "media",
        path=_re(r"/v\d+/(images|audio|videos)/|/v\d+/realtime(/|$)"),
    ),
    NonModelRule("fine-tuning", path=_re(r"/v\d+/fine_tuning/|/v\d+/fine-tunes")),
    NonModelRule("model-listing", path=_re(r"/v\d+(beta)?/models(/[^/:]+)?$|/api/tags$")),
]


@lru_cache(maxsize=4096)
def non_model_kind(host: str, path: str) -> str | None:
    """The kind of non-model exchange a URL names (lower-cased host and path), or ``None``.

    Cached: a cassette repeats one URL for every round, and the rules are fixed at import."""
    for rule in NON_MODEL_RULES:
        if rule.matches(host, path):
            return rule.kind
    return None
