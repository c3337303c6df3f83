"""JSON answers validated against a pydantic schema, with one repair retry."""

from __future__ import annotations

import re
from typing import TypeVar

import pydantic

from ciq.llm.base import ChatClient, ModelOutputError, UsageMeter

T = TypeVar("T", bound=pydantic.BaseModel)
_FENCE_RE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")
REPAIR = ("Your answer was not valid JSON for the required schema:\n{errors}\n"
          "Answer again with only the corrected JSON object, nothing else.")


def json_call(chat: ChatClient, schema: type[T], *, system: str, user: str, max_tokens: int,
              meter: UsageMeter, purpose: str) -> T:
    """Ask ``chat`` for a JSON object matching ``schema`` and return it validated.

    Broken or schema-invalid JSON gets one repair turn (the model sees its answer and
    the validation errors); a second failure raises :class:`ModelOutputError`
    (code ``model_bad_output``). Provider failures raise :class:`LLMError`.
    """
    messages = [{"role": "user", "content": user}]
    for attempt in (1, 2):
        text = chat.complete_json(
            system=system, messages=messages, schema=schema.model_json_schema(),
            name=schema.__name__, max_tokens=max_tokens, meter=meter,
            purpose=purpose if attempt == 1 else f"{purpose} (repair)",
        )
        try:
            return schema.model_validate_json(_FENCE_RE.sub("", text))
        except pydantic.ValidationError as exc:
            errors = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}"
                               for e in exc.errors()[:5])
            messages += [{"role": "assistant", "content": text or "(empty)"},
                         {"role": "user", "content": REPAIR.format(errors=errors)}]
    raise ModelOutputError(f"{chat.label} returned invalid JSON for {schema.__name__} twice "
                           f"({purpose}): {errors}")
