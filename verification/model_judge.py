"""The model-backed Judge: a verdict per claim from a provider (DESIGN.md §1 Judge).

Strict mode shows the model the passages the claim cites; helpful mode all retrieved
passages. The cases DESIGN.md §1 settles by rule (an uncited claim in strict mode, a
minor claim without substantive words in helpful mode, cited passages that are not in
the context) go to the rule-based Judge without a model call. The pipeline runs up to
``concurrency`` (setting ``JUDGE_CONCURRENCY``) verifications at once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.conf import settings

from ciq.llm import ChatClient, UsageMeter, json_call
from verification.judge import HELPFUL, SNIPPET_CHARS, STRICT, EvidenceChunk, Judgement, RuleJudge
from verification.prompts import judge as prompts
from verification.skeptic import ClaimDraft


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class ModelJudge:
    """Judge backend over a :class:`ciq.llm.ChatClient`; one instance per turn."""

    def __init__(self, chat: ChatClient):
        self.chat = chat
        self.meter = UsageMeter()
        self.rules = RuleJudge()
        self.concurrency = settings.JUDGE_CONCURRENCY

    def verify(self, claim: ClaimDraft, evidence: Sequence[EvidenceChunk], *,
               mode: str = STRICT) -> Judgement:
        """Judge ``claim``: verdict and score in [0, 1] from the model; supporting and
        contradicting chunk ids from the passage numbers it gives (numbers outside the
        list are ignored); the snippet is its quote when the quote is really in the
        passage, else the passage's opening. Raises ``ValueError`` for an unknown mode and
        ``ciq.llm.LLMError`` for a failed call."""
        if mode not in (STRICT, HELPFUL):
            raise ValueError(f"unknown verification mode {mode!r}")
        cited = set(claim.cited_chunk_ids)
        passages = [c for c in evidence if c.chunk_id in cited] if mode == STRICT else list(evidence)
        if not passages or not (claim.cited_chunk_ids or claim.substantive_words):
            return self.rules.verify(claim, evidence, mode=mode)
        prompt = prompts.build(claim=claim.text, passages=[p.text for p in passages], mode=mode)
        out = json_call(self.chat, prompts.JudgeOutput, system=prompt.system, user=prompt.user,
                        max_tokens=settings.LLM_JSON_MAX_TOKENS, meter=self.meter,
                        purpose=prompt.tag)

        def chunk_ids(numbers: list[int]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(
                passages[n - 1].chunk_id for n in numbers if 1 <= n <= len(passages)))

        supporting, contradicting = chunk_ids(out.supporting), chunk_ids(out.contradicting)
        best_id = (supporting or contradicting or (passages[0].chunk_id,))[0]
        best = next(p for p in passages if p.chunk_id == best_id)
        quote = _squash(out.quote)
        snippet = quote if quote and quote in _squash(best.text) else _squash(best.text)
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
        return Judgement(out.verdict, out.score, best_id, snippet, out.reasoning,
                         supporting, contradicting)
