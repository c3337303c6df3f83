"""The model-backed Skeptic: atomic claims from a provider (DESIGN.md §1 Skeptic).

The model gives each claim's text, type and the verbatim quote it comes from; the span
and the cited chunk ids are read from the text itself (the quote located in it, the
``[cite:…]`` markers inside or right after it), and the substantive words come from
the same heuristics as the rule-based Skeptic, so their importances are the same.
"""

from __future__ import annotations

import re

from django.conf import settings

from ciq.llm import ChatClient, UsageMeter, json_call
from verification.citations import CITE_RE, cited_ids, strip_citations
from verification.prompts import skeptic as prompts
from verification.skeptic import ClaimDraft, substantive_words

_TRAILING_CITES_RE = re.compile(r"(?:[\s.;,]*" + CITE_RE.pattern + r")+")


def quote_span(text: str, quote: str, start: int = 0) -> tuple[int, int] | None:
    """``[start, end)`` of ``quote`` in ``text`` (from ``start``, whitespace-insensitive),
    extended over citation markers right after it; None when the quote is not there."""
    words = quote.split()
    if not words:
        return None
    pattern = re.compile(r"\s+".join(map(re.escape, words)))
    match = pattern.search(text, start) or pattern.search(text)
    if not match:
        return None
    trailing = _TRAILING_CITES_RE.match(text, match.end())
    return match.start(), trailing.end() if trailing else match.end()


class ModelSkeptic:
    """Skeptic backend over a :class:`ciq.llm.ChatClient`; one instance per turn."""

    def __init__(self, chat: ChatClient):
        self.chat = chat
        self.meter = UsageMeter()

    def extract(self, text: str) -> list[ClaimDraft]:
        """Claims of ``text`` in the model's order. A claim whose quote cannot be found
        keeps span (0, 0) and no citations (strict mode then rejects it).
        Raises ``ciq.llm.LLMError`` (``model_bad_output`` after a failed repair)."""
        if not text.strip():
            return []
        prompt = prompts.build(text=text)
        out = json_call(self.chat, prompts.ClaimsOutput, system=prompt.system, user=prompt.user,
                        max_tokens=settings.LLM_JSON_MAX_TOKENS, meter=self.meter,
                        purpose=prompt.tag)
        claims, cursor = [], 0
        for item in out.claims:
            clean = strip_citations(item.text)
            if not clean:
                continue
            span = quote_span(text, item.quote, cursor)
            ids = cited_ids(text[span[0]:span[1]]) if span else []
            cursor = span[1] if span else cursor
            claims.append(ClaimDraft(
                text=clean, type=item.type, span=span or (0, 0),
                cited_chunk_ids=tuple(dict.fromkeys(ids)),
                substantive_words=substantive_words(clean),
            ))
        return claims
