"""The model-backed Writer: streams a cited answer from a provider (DESIGN.md §1 Writer).

The prompt follows the request: a revision (``findings``) → Revision prompt; Draft mode
→ Draft prompt; target jurisdictions → the jurisdiction-layered compliance prompt; a
context with both LOCAL and STATE passages → the two-lane synthesis (one JSON answer,
its extra fields kept in ``synthesis``); otherwise the Answer prompt.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from ciq.llm import ChatClient, Prompt, UsageMeter, json_call
from retrieval.models import Lane
from sessions.prompts import answer, compliance, draft, revision, synthesis
from sessions.writer import WriteRequest


class ModelWriter:
    """Writer backend over a :class:`ciq.llm.ChatClient`; one instance per turn."""

    def __init__(self, chat: ChatClient):
        self.chat = chat
        self.meter = UsageMeter()
        self.synthesis: dict | None = None

    def prompt(self, request: WriteRequest) -> Prompt:
        """The prompt for ``request`` (see the module docstring for the choice)."""
        common = {"question": request.question, "chunks": request.chunks}
        if request.findings:
            return revision.build(text=request.previous_text, findings=request.findings,
                                  **common)
        if request.mode == "draft":
            return draft.build(context=request.context, **common)
        if request.jurisdictions:
            return compliance.build(jurisdictions=request.jurisdictions,
                                    context=request.context, **common)
        if {Lane.LOCAL, Lane.STATE} <= {c.lane for c in request.chunks}:
            return synthesis.build(context=request.context, **common)
        return answer.build(context=request.context, **common)

    def stream(self, request: WriteRequest) -> Iterator[str]:
        """Yield the text as the model streams it (the synthesis arrives as one piece:
        its answer is a field of a JSON object). Raises ``ciq.llm.LLMError``."""
        prompt = self.prompt(request)
        if prompt.name == "synthesis":
            out = json_call(self.chat, synthesis.SynthesisOutput, system=prompt.system,
                            user=prompt.user, max_tokens=settings.LLM_WRITER_MAX_TOKENS,
                            meter=self.meter, purpose=prompt.tag)
            self.synthesis = out.model_dump(exclude={"answer_markdown"})
            yield out.answer_markdown
            return
        self.synthesis = None
        yield from self.chat.stream_text(
            system=prompt.system, messages=[{"role": "user", "content": prompt.user}],
            max_tokens=settings.LLM_WRITER_MAX_TOKENS, meter=self.meter, purpose=prompt.tag,
        )
