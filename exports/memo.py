"""The memo header of a Draft turn, filled in at export (issue 13, item 4).

A Draft turn's answer is a memorandum (``sessions.memo``) whose header has placeholders:
``**To:** [Recipient]``, ``**From:** [Author]``, ``**Date:** …``, ``**Re:** …``. Before
exporting, a member may give the four values on the session page (or in the export
request); :func:`memo_filled` puts them in the exported copy. The stored answer, its
ledger and the event log are never changed: the values live only in the file.

Values are one line of plain text, at most :data:`MAX_FIELD_CHARS` characters, Markdown
specials escaped so that a value shows as written and never adds structure (a heading,
a link, a citation marker) to the memo; each renderer escapes again for its own format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from exports.markdown import escape_inline
from verification.citations import CITE_RE
from verification.skeptic import MEMO_FIELDS, memo_header_end

MAX_FIELD_CHARS = 200
# Form names of the four fields ("from" is a Python keyword, hence the mapping).
FORM_NAMES = {"to": "To", "from": "From", "date": "Date", "re": "Re"}


@dataclass(frozen=True)
class MemoFields:
    """The header values to put in an exported memo; an empty value keeps the memo's own."""

    to: str = ""
    from_: str = ""
    date: str = ""
    re: str = ""

    def by_label(self) -> dict[str, str]:
        """``{"To": …, "From": …, "Date": …, "Re": …}`` of the non-empty values."""
        values = dict(zip(MEMO_FIELDS, (self.to, self.from_, self.date, self.re), strict=True))
        return {label: value for label, value in values.items() if value}

    def __bool__(self) -> bool:
        return bool(self.by_label())


def memo_fields_parse(data: Mapping[str, str]) -> MemoFields:
    """The :class:`MemoFields` of a form or query mapping with keys ``to``, ``from``,
    ``date``, ``re`` (any may be missing or empty). Citation markers are removed (a
    header value cites nothing, and an export turns markers into footnotes), whitespace
    runs become one space.
    Raises ``ValidationError({"<key>": ...})`` for a value over :data:`MAX_FIELD_CHARS`."""
    values, errors = {}, {}
    for key in FORM_NAMES:
        value = " ".join(CITE_RE.sub(" ", str(data.get(key) or "")).split())
        if len(value) > MAX_FIELD_CHARS:
            errors[key] = f"At most {MAX_FIELD_CHARS} characters."
        values[key] = value
    if errors:
        raise ValidationError(errors)
    return MemoFields(to=values["to"], from_=values["from"], date=values["date"], re=values["re"])


def memo_filled(markdown: str, fields: MemoFields) -> str:
    """``markdown`` with the memo header's values replaced by ``fields`` (escaped). Only
    a memo's header is touched: the lines ``**To:** …`` (and the others) between the
    "MEMORANDUM" title at the start and the first section
    (:func:`verification.skeptic.memo_header_end`); any other text, or a memo without
    such a line, is returned unchanged."""
    stop = memo_header_end(markdown)
    if not fields or stop is None:
        return markdown
    header = markdown[:stop]
    for label, raw in fields.by_label().items():
        value = " ".join(CITE_RE.sub(" ", raw).split())
        header = re.sub(rf"^(\*\*{label}:\*\*[ \t]*).*$", lambda m, v=value: m.group(1) + escape_inline(v),
                        header, count=1, flags=re.M)
    return header + markdown[stop:]


def data_with_memo_fields(data: dict, fields: MemoFields) -> dict:
    """``ciq.session/1`` data whose turns' memos carry ``fields`` (a shallow copy; the
    caller's dict and the stored turns are unchanged)."""
    if not fields:
        return data
    turns = [{**t, "answer_markdown": memo_filled(t["answer_markdown"], fields)} for t in data["turns"]]
    return {**data, "turns": turns}
