"""The Critic: tighten a verified text without adding to it (seed 003; issue 13, item 3).

After verification the Critic reads the text beside its ledger and the cited passages and
makes four kinds of edit, each on a claim sentence (a span the Skeptic extracted):

``delete``
    Overreach: a claim the Judge found ``contradicted`` or ``not_found``, or ``weak``
    with no shorter supported form (below). Opinions are left alone: they claim no
    source (DESIGN.md §1 counts them as non-critical); so is a ``weak`` claim that
    quotes its cited passage word for word (an extractive Writer's sentence cannot say
    more than the passage it was taken from).
``shorten``
    A claim that says more than its evidence: a clause at the end whose content words
    the cited passages do not hold is cut off ("… the permit is issued by the City, and
    the fee is $5,000" → "… the permit is issued by the City"). A cut falls only at a
    clause boundary (comma, semicolon, dash, colon), never in front of a condition
    ("unless", "except", "if", "provided", "only", "but", …): dropping a condition would
    claim more, not less; and never after a head that is only a condition ("Upon the
    purchase of any aircraft …,"), which says nothing on its own. A ``weak`` claim is
    shortened the same way when its head is wholly in the evidence, else deleted; a
    ``supported`` one only when the tail's content words are mostly (≥
    ``TAIL_UNSUPPORTED`` of them) absent from the evidence.
``merge``
    A repeated point: a later claim whose content terms (Porter stems) overlap an
    earlier one's by Jaccard ≥ ``MERGE_JACCARD`` is deleted and its citations join the
    earlier claim's marker (the union of both citation sets). When the earlier claim is
    a fragment of the later one (its words stand consecutively in it), the fuller later
    claim stays instead, with the union.
``move``
    A dangling reference: a claim that announces a list ("The following signs are
    allowed:", "… as follows:") is kept only next to its list. When the list follows
    its paragraph, the claim moves to the paragraph's end, right before the list; when
    no list follows before the next heading, the claim is deleted. An introduction kept
    with its list is not deleted as weak or not found (it states no fact of its own;
    only a contradicted one goes).

The Critic never adds: headings, template text and lists are never edited (a bullet
left empty by a deletion goes with it), and :func:`critic_check` proves it on the
result: every sentence of the output is a run of consecutive words of one input
sentence (the sentence itself or a shortening of it, punctuation aside), citing only
that sentence's sources or those of a sentence merged into it. A model Critic's edits
(``sessions/prompts/critic.py``) pass the same check or are rejected.

Thresholds are CIQ's own choices, set on the shipped samples and the corpus drafts:
``MERGE_JACCARD`` = 0.8 merges restatements of one provision and keeps two rules that
share a subject; ``TAIL_UNSUPPORTED`` = 0.5 leaves a tail that paraphrases its source.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ciq.text import content_terms, sentence_spans
from verification.citations import CITE_RE, cited_ids, strip_citations
from verification.models import ClaimType, Verdict

MERGE_JACCARD = 0.8
TAIL_UNSUPPORTED = 0.5
# A shortened claim keeps at least this many words; a shorter head says too little.
MIN_HEAD_WORDS = 5

ACTIONS = ("delete", "shorten", "merge", "move")
# Worst first: the verdict a sentence of several claims takes.
_SEVERITY = {Verdict.CONTRADICTED: 0, Verdict.NOT_FOUND: 1, Verdict.WEAK: 2, Verdict.SUPPORTED: 3}
_OVERREACH = (Verdict.CONTRADICTED, Verdict.NOT_FOUND)

# Clause boundaries where a claim may be cut: ", " (optionally "and"/"or"/"including"…),
# "; ", " — ", ": ".
_BOUNDARY_RE = re.compile(r"(?:,|;|:|\s[—–]|\s--)\s+")
# A tail that opens with one of these is a condition or limit of the head: never cut.
_CONDITION_RE = re.compile(
    r"^(?:unless|except|excepting|if|provided|only|but|subject|when|whenever|where|until|"
    r"before|after|without|not|no|nor|notwithstanding|so\s+long|as\s+long|in\s+the\s+event|"
    r"upon|while|within|following|than|other\s+than|save|however|although|though|even)\b",
    re.IGNORECASE,
)
_HEAD_END_BAD_RE = re.compile(
    r"\b(?:the|a|an|of|to|for|and|or|by|with|in|on|at|from|as|that|which|is|are|be|shall|may|must)$",
    re.IGNORECASE)
# A sentence that announces a list: it ends with a colon or an ellipsis, or with "as
# follows", "the following", "(listed|set forth) below" (a bare "below" is a
# cross-reference: "… described in Clause 16 below"); or it opens with "The
# following …" and no item follows a colon in it ("The following criteria shall be
# considered: The topography …" gives its first item and is no dangling reference).
_ANNOUNCES_LIST_RE = re.compile(
    r"(?::|…|\.\.\.)\s*$|\b(?:as\s+follows|the\s+following|listed\s+below"
    r"|set\s+(?:forth|out)\s+below)\s*[:.…]*\s*$|^\W*the\s+following\b(?![^:]*:\s*\S)",
    re.IGNORECASE,
)
_LIST_LINE_RE = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)]|\(?[a-z]\))[ \t]+\S|^[ \t]*\|")
_BARE_BULLET_RE = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]*$")
_WORD_RE = re.compile(r"[^\W_]+")
_ENUMERATOR_RE = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|\(?[a-zA-Z0-9]{1,4}\)|[a-z][.)]|[-*+•])[ \t]+", re.M)
_FINAL_PUNCT_RE = re.compile(r"([.!?])\s*$")


@dataclass(frozen=True)
class CriticSentence:
    """One claim sentence of the text: ``number`` from 1 in text order; ``start``/``end``
    its span in the text (sentence and its citation markers); ``text`` that span;
    ``cited`` its chunk ids in order; ``verdict`` the worst verdict of its claims;
    ``claim_type`` the type of its first claim."""

    number: int
    start: int
    end: int
    text: str
    cited: tuple[str, ...]
    verdict: str
    claim_type: str

    @property
    def plain(self) -> str:
        """The sentence without its citation markers."""
        return strip_citations(self.text)


@dataclass(frozen=True)
class CriticEdit:
    """One change: ``action`` in :data:`ACTIONS`; ``sentence`` the number of the sentence
    changed (for ``merge``, the one removed); ``before`` its text; ``after`` its new text
    ("" when deleted; for ``merge``, the kept sentence's new text; for ``move``, the same
    text); ``reason`` in plain English; ``target`` the kept sentence of a merge, or the
    sentence a moved one now precedes (None: the end of its paragraph)."""

    action: str
    sentence: int
    before: str
    after: str
    reason: str
    target: int | None = None

    def as_event(self) -> dict:
        """The ``critic_edit`` event payload: {action, sentence, before, after, reason,
        target}."""
        return {"action": self.action, "sentence": self.sentence, "before": self.before,
                "after": self.after, "reason": self.reason, "target": self.target}


@dataclass
class CriticResult:
    """The critiqued ``text``, its ``edits`` in text order, ``by`` ("rules", "model" or
    "none" when the text was kept as written) and a ``note`` for the trace."""

    text: str
    edits: list[CriticEdit] = field(default_factory=list)
    by: str = "rules"
    note: str = ""


# --- the sentences ------------------------------------------------------------------------

def critic_sentences(text: str, claims: Sequence) -> list[CriticSentence]:
    """The claim sentences of ``text`` from its verified claims (objects with ``draft``
    (:class:`verification.skeptic.ClaimDraft`) and ``judgement.verdict``), in text
    order. Claims whose spans overlap (a model Skeptic's atomic claims of one sentence)
    make one sentence with the worst verdict; a claim with an empty span (a quote the
    Skeptic could not place) is left out: there is nothing to edit."""
    spans: list[list] = []
    for v in sorted(claims, key=lambda v: v.draft.span):
        start, end = v.draft.span
        if end <= start or end > len(text):
            continue
        verdict = v.judgement.verdict
        if spans and start < spans[-1][1]:
            last = spans[-1]
            last[1] = max(last[1], end)
            if _SEVERITY.get(verdict, 3) < _SEVERITY.get(last[2], 3):
                last[2] = verdict
            continue
        spans.append([start, end, verdict, v.draft.type])
    out = []
    for number, (start, end, verdict, kind) in enumerate(spans, 1):
        raw = text[start:end]
        out.append(CriticSentence(number, start, end, raw, tuple(dict.fromkeys(cited_ids(raw))),
                                  verdict, kind))
    return out


# --- the rules ----------------------------------------------------------------------------

def critic_rules(text: str, claims: Sequence, evidence: Mapping[str, str]) -> CriticResult:
    """The rule-based Critic (embedded default): the edits of the module docstring on
    ``text`` given its verified ``claims`` and ``evidence`` (chunk id → passage text).
    Returns a :class:`CriticResult` whose text passed :func:`critic_check`; if the edits
    ever failed it, the text is kept as written (``by`` = "none") and the note says why.
    Never raises for odd input."""
    sentences = critic_sentences(text, claims)
    edits = plan_edits(text, sentences, evidence)
    after = edits_apply(text, sentences, edits)
    problems = critic_check(text, after)
    if problems:  # a bug in the rules must not reach the reader: keep the text
        return CriticResult(text, [], "none", "Critic rules produced an edit that failed the "
                            "no-addition check (" + problems[0] + "); the text is kept as written.")
    return CriticResult(after, edits, "rules", _summary(edits))


def plan_edits(text: str, sentences: Sequence[CriticSentence],
               evidence: Mapping[str, str]) -> list[CriticEdit]:
    """The edits the rules make, at most one per sentence, in sentence order: dangling
    references (move or delete) first, then overreach (delete or shorten), then repeated
    points (merge) among what is left."""
    edits: dict[int, CriticEdit] = {}
    introductions: set[int] = set()  # sentences that announce a list given right after them
    for s in sentences:
        if _ANNOUNCES_LIST_RE.search(s.plain):
            edit = _dangling(text, s)
            if edit:
                edits[s.number] = edit
            else:
                introductions.add(s.number)
    for s in sentences:
        if s.number in edits or s.claim_type == ClaimType.OPINION:
            continue
        # An introduction states no fact of its own ("The following signs are allowed:"):
        # the Judge finds little in it, but without it the list loses its sense. Only a
        # contradicted one goes.
        if s.number in introductions and s.verdict != Verdict.CONTRADICTED:
            continue
        edit = _overreach(s, evidence)
        if edit:
            edits[s.number] = edit
    kept: list[tuple[CriticSentence, str, set[str]]] = []  # sentence, current text, stems
    for s in sentences:
        edit = edits.get(s.number)
        if edit and edit.action == "delete":
            continue
        current = edit.after if edit and edit.action == "shorten" else s.text
        # Repeats are found on the sentences as written (as critic_check reads them).
        stems = set(content_terms(s.plain))
        partner = next((k for k in kept if len(stems) >= 3 and len(k[2]) >= 3
                        and _jaccard(stems, k[2]) >= MERGE_JACCARD), None)
        if partner is None:
            kept.append((s, current, stems))
            continue
        first, first_text, _ = partner
        union = tuple(dict.fromkeys(cited_ids(first_text) + cited_ids(current)))
        overlap = _jaccard(stems, partner[2])
        if first.number not in edits and _contains(_words(s.plain), _words(first.plain)):
            # The earlier sentence is a fragment of this one ("Purchase, the purchaser
            # shall file …" of "Within 10 days after the date of: Purchase, …"): the
            # fuller sentence stays, with both citation sets.
            merged = _with_citations(current, tuple(dict.fromkeys(cited_ids(current)
                                                                  + cited_ids(first_text))))
            edits[first.number] = CriticEdit(
                "merge", first.number, first.text, merged, f"A fragment of sentence {s.number} "
                f"(content-word overlap {overlap:.0%}); its citations join that sentence's.",
                target=s.number)
            own = edits.get(s.number)
            if own and own.action == "shorten":
                edits[s.number] = CriticEdit("shorten", own.sentence, own.before, merged, own.reason)
            kept[kept.index(partner)] = (s, merged, stems)
            continue
        merged = _with_citations(first_text, union)
        if merged != first_text:
            # The kept sentence's own edit (if any) now carries the union of citations.
            own = edits.get(first.number)
            if own and own.action == "shorten":
                edits[first.number] = CriticEdit("shorten", own.sentence, own.before, merged,
                                                 own.reason)
            kept[kept.index(partner)] = (first, merged, partner[2])
        edits[s.number] = CriticEdit(
            "merge", s.number, s.text, merged, f"Repeats sentence {first.number} "
            f"(content-word overlap {overlap:.0%}); its citations join that sentence's.",
            target=first.number)
    return [edits[n] for n in sorted(edits)]


def _dangling(text: str, s: CriticSentence) -> CriticEdit | None:
    """Move or delete a claim that announces a list (None when its list follows it)."""
    rest = text[s.end:]
    paragraph_end = re.search(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)]|#|\|))|\Z", rest)
    tail = rest[: paragraph_end.start()]
    after = rest[paragraph_end.start():].lstrip("\n")
    first_line = after.split("\n", 1)[0] if after else ""
    if _LIST_LINE_RE.match(first_line):
        if not tail.strip():
            return None  # the list follows at once
        return CriticEdit("move", s.number, s.text, s.text,
                          "Announces a list that follows its paragraph: moved next to the list.")
    return CriticEdit("delete", s.number, s.text, "",
                      "Announces a list (“the following …”, “as follows:”) that the text does "
                      "not give: a dangling reference.")


def _overreach(s: CriticSentence, evidence: Mapping[str, str]) -> CriticEdit | None:
    """Delete or shorten a claim that says more than its evidence (None to keep it)."""
    if s.verdict in _OVERREACH:
        label = Verdict(s.verdict).label.lower()
        return CriticEdit("delete", s.number, s.text, "",
                          f"The Judge found this claim {label}: overreach removed.")
    sources = [evidence[i] for i in s.cited if i in evidence]
    if s.verdict == Verdict.WEAK and any(_verbatim(s.plain, source) for source in sources):
        return None  # a quotation of its own passage cannot claim more than the passage
    if not sources:
        if s.verdict == Verdict.WEAK:
            return CriticEdit("delete", s.number, s.text, "",
                              "Only weakly supported, and no cited passage to shorten it to.")
        return None
    known = set(content_terms("\n".join(sources)))
    cut = _supported_head(s.text, known, weak=s.verdict == Verdict.WEAK)
    if cut is not None:
        head, dropped = cut
        return CriticEdit("shorten", s.number, s.text, head,
                          f"The cited passage does not hold “{dropped}”: the claim is cut to "
                          "what it supports.")
    if s.verdict == Verdict.WEAK:
        return CriticEdit("delete", s.number, s.text, "",
                          "Only weakly supported, and no shorter form of it is wholly in the "
                          "cited passage.")
    return None


def _verbatim(sentence: str, passage: str) -> bool:
    """Whether the words of ``sentence`` (at least ``MIN_HEAD_WORDS``) stand consecutively
    in ``passage``, markup, punctuation and list numbers aside: an extractive Writer's
    quotation."""
    words = tuple(w.casefold() for w in _WORD_RE.findall(sentence))
    # A Writer that quotes a list runs its items on without their numbers or bullets.
    passage = _ENUMERATOR_RE.sub(" ", passage)
    return len(words) >= MIN_HEAD_WORDS and _contains(
        tuple(w.casefold() for w in _WORD_RE.findall(passage)), words)


def _supported_head(raw: str, known: set[str], *, weak: bool) -> tuple[str, str] | None:
    """(shortened sentence with its markers, the dropped words) when a clause boundary
    splits ``raw`` into a head wholly in ``known`` stems and a tail that is not
    (mostly absent for a supported claim, any missing word for a weak one); the latest
    such boundary wins. None otherwise."""
    plain = strip_citations(raw)
    best = None
    for m in _BOUNDARY_RE.finditer(plain):
        head, tail = plain[: m.start()].rstrip(), plain[m.end():].strip()
        # Neither a condition cut off the end nor a head that is itself only the
        # condition ("Upon the purchase of any aircraft …," before its main clause).
        if (len(_WORD_RE.findall(head)) < MIN_HEAD_WORDS or _CONDITION_RE.match(tail)
                or _CONDITION_RE.match(head) or _HEAD_END_BAD_RE.search(head)
                or not _WORD_RE.search(tail)):
            continue
        head_terms, tail_terms = content_terms(head), content_terms(tail)
        if not tail_terms or any(t not in known for t in head_terms):
            continue
        missing = sum(t not in known for t in tail_terms) / len(tail_terms)
        if missing >= (1e-9 if weak else TAIL_UNSUPPORTED):
            best = (head, tail)
    if best is None:
        return None
    head, tail = best
    # The markers that stood in the head, else all of the sentence's.
    raw_head = _raw_prefix(raw, head)
    ids = tuple(dict.fromkeys(cited_ids(raw_head) or cited_ids(raw)))
    return _with_citations(head.rstrip(" ,;:—–-") + ".", ids), tail.rstrip(" .")


def _raw_prefix(raw: str, plain_head: str) -> str:
    """The part of ``raw`` (with markers) that holds the words of ``plain_head``."""
    words = _WORD_RE.findall(plain_head)
    if not words:
        return ""
    masked = CITE_RE.sub(lambda m: " " * len(m.group()), raw)
    count = 0
    for m in _WORD_RE.finditer(masked):
        count += 1
        if count == len(words):
            # Include markers right after the last head word.
            following = re.match(r"(?:\s*\[cite:[^\]]*\])*", raw[m.end():])
            return raw[: m.end() + (following.end() if following else 0)]
    return raw


def _with_citations(sentence: str, ids: Sequence[str]) -> str:
    """``sentence`` with its markers replaced by one marker of ``ids`` before its final
    punctuation ("Text [cite:a, b].")."""
    plain = strip_citations(sentence)
    if not ids:
        return plain
    marker = "[cite:" + ", ".join(ids) + "]"
    final = _FINAL_PUNCT_RE.search(plain)
    if final:
        return f"{plain[: final.start()].rstrip()} {marker}{final.group(1)}"
    return f"{plain} {marker}"


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORD_RE.findall(CITE_RE.sub(" ", text)))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _summary(edits: Sequence[CriticEdit]) -> str:
    if not edits:
        return "Critic: no change (no overreach, repeated point or dangling reference)."
    counts = {a: sum(e.action == a for e in edits) for a in ACTIONS}
    parts = [f"{n} {a}" + ("s" if n > 1 else "") for a, n in counts.items() if n]
    return f"Critic: {len(edits)} edit(s): " + ", ".join(parts) + "."


# --- a model Critic ------------------------------------------------------------------------

def critic_model(text: str, claims: Sequence, evidence: Mapping[str, str], *, chat, meter,
                 question: str, chunks: Sequence, rules: CriticResult,
                 max_tokens: int = 2000) -> CriticResult:
    """The model Critic for model Writers: ``chat`` (a :class:`ciq.llm.ChatClient`) is
    asked for edits with the prompt of ``sessions.prompts.critic`` (its calls counted on
    ``meter``); CIQ applies them and checks the result with :func:`critic_check`.

    - A provider failure, a timeout or JSON that stays broken after the one repair
      (``ciq.llm.LLMError``) keeps the text as written (``by`` = "none").
    - An edit that is not one of the four, names a sentence that does not exist, or
      whose result fails the check (a word or citation added) is rejected, and the
      rule-based result ``rules`` is used (``by`` = "rules").
    The note says which happened. Never raises an ``LLMError``.
    """
    from ciq.llm import LLMError, json_call
    from sessions.prompts import critic as prompt_module

    sentences = critic_sentences(text, claims)
    if not sentences:
        return CriticResult(text, [], "none", "Critic: no claim sentences to examine.")
    prompt = prompt_module.build(question=question, text=text, sentences=sentences, chunks=chunks)
    try:
        out = json_call(chat, prompt_module.CriticOutput, system=prompt.system, user=prompt.user,
                        max_tokens=max_tokens, meter=meter, purpose=prompt.tag)
    except LLMError as exc:
        return CriticResult(text, [], "none", f"Critic model failed ({exc}); the text is kept "
                            "as written, without a critique.")
    try:
        edits = _model_edits(out.edits, sentences)
        after = edits_apply(text, sentences, edits)
        problems = critic_check(text, after)
    except ValueError as exc:
        problems = [str(exc)]
    if problems:
        return CriticResult(rules.text, rules.edits, rules.by,
                            f"Critic model's edits rejected ({problems[0]}); the rule-based "
                            f"Critic's result is used. {rules.note}".strip())
    return CriticResult(after, edits, "model", _summary(edits))


def _model_edits(proposed: Sequence, sentences: Sequence[CriticSentence]) -> list[CriticEdit]:
    """:class:`CriticEdit` objects from the model's edits (first edit of a sentence
    wins). Raises ``ValueError`` for a sentence number that does not exist."""
    by_number = {s.number: s for s in sentences}
    current = {s.number: s.text for s in sentences}
    edits: dict[int, CriticEdit] = {}
    for e in proposed:
        s = by_number.get(e.sentence)
        if s is None:
            raise ValueError(f"the model edits sentence {e.sentence}, which does not exist")
        if s.number in edits:
            continue
        reason = e.reason.strip() or f"{e.action} (model Critic)"
        if e.action == "delete":
            edits[s.number] = CriticEdit("delete", s.number, s.text, "", reason)
        elif e.action == "shorten":
            after = e.text if cited_ids(e.text) else _with_citations(e.text, s.cited)
            edits[s.number] = CriticEdit("shorten", s.number, s.text, after, reason)
            current[s.number] = after
        elif e.action == "merge":
            if e.into not in by_number or e.into == s.number:
                raise ValueError(f"the model merges sentence {s.number} into {e.into}")
            kept = current[e.into]
            merged = _with_citations(kept, tuple(dict.fromkeys(cited_ids(kept) + list(s.cited))))
            current[e.into] = merged
            own = edits.get(e.into)
            if own and own.action == "shorten":
                edits[e.into] = CriticEdit("shorten", own.sentence, own.before, merged, own.reason)
            edits[s.number] = CriticEdit("merge", s.number, s.text, merged, reason, target=e.into)
        else:
            edits[s.number] = CriticEdit("move", s.number, s.text, s.text, reason, target=e.before)
    return [edits[n] for n in sorted(edits)]


# --- applying edits -----------------------------------------------------------------------

def edits_apply(text: str, sentences: Sequence[CriticSentence], edits: Sequence[CriticEdit]) -> str:
    """``text`` with ``edits`` applied (at most one per sentence; a merge rewrites its
    target and removes its sentence; a move puts the sentence before its ``target``,
    or at the end of its paragraph). Whitespace left by removals is tidied, and a list bullet left empty is
    removed with its line. Raises ``ValueError`` for an edit of an unknown sentence or
    action."""
    by_number = {s.number: s for s in sentences}
    replace: dict[int, str] = {}  # sentence number → its new text ("" removes it)
    moves: list[tuple[CriticSentence, int | None]] = []
    for e in edits:
        if e.action not in ACTIONS or e.sentence not in by_number:
            raise ValueError(f"bad edit: {e.action} of sentence {e.sentence}")
        if e.action in ("delete", "merge"):
            replace[e.sentence] = ""
        if e.action == "shorten":
            replace[e.sentence] = e.after
        if e.action == "merge":
            if e.target not in by_number:
                raise ValueError(f"bad merge target {e.target}")
            replace[e.target] = e.after
        if e.action == "move":
            if e.target is not None and (e.target not in by_number or e.target in replace):
                raise ValueError(f"bad move target {e.target}")
            moves.append((by_number[e.sentence], e.target))
            replace[e.sentence] = ""
    ops: list[tuple[int, int, str]] = []
    for number, new in replace.items():
        s = by_number[number]
        ops.append((s.start, s.end, new))
    for s, target in moves:
        if target is not None:  # before another sentence
            at = by_number[target].start
            ops.append((at, at, s.text + " "))
            continue
        rest = text[s.end:]
        stop = re.search(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)]|#|\|))|\Z", rest)
        at = s.end + stop.start()
        ops.append((at, at, " " + s.text))
    ops.sort(key=lambda op: (op[0], op[1]))
    out, cursor = [], 0
    for start, end, new in ops:
        if start < cursor:
            raise ValueError("overlapping edits")
        out += [text[cursor:start], new]
        cursor = end
    out.append(text[cursor:])
    return _tidy("".join(out))


def _tidy(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        line = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", line).rstrip()
        line = re.sub(r"^([ \t]*)[ \t]+(?=\S)", r"\1", line) if not _LIST_LINE_RE.match(line) else line
        if _BARE_BULLET_RE.match(line):
            continue
        lines.append(line)
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    # A heading left with nothing under it before the next heading of its level or above
    # keeps its place: the memo's sections are template, not the Critic's to remove.
    return text.strip("\n") + ("\n" if text.endswith("\n") else "")


# --- the no-addition invariant ------------------------------------------------------------

@dataclass(frozen=True)
class _Unit:
    words: tuple[str, ...]
    cited: frozenset[str]
    stems: frozenset[str]
    text: str


def _units(text: str) -> list[_Unit]:
    """The sentences of ``text``, line by line (headings and list items are units too)."""
    units = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        for start, end in sentence_spans(line):
            piece = line[start:end]
            words = tuple(w.casefold() for w in _WORD_RE.findall(CITE_RE.sub(" ", piece)))
            if not words:
                # A marker on its own belongs to the sentence before it (as the Skeptic
                # reads it), so it may cite only what that sentence may.
                if units and cited_ids(piece):
                    last = units[-1]
                    units[-1] = _Unit(last.words, last.cited | set(cited_ids(piece)), last.stems,
                                      last.text + " " + piece)
                continue
            units.append(_Unit(words, frozenset(cited_ids(piece)),
                               frozenset(content_terms(strip_citations(piece))), piece))
    return units


def _contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    if not needle:
        return True
    return f" {' '.join(needle)} " in f" {' '.join(haystack)} "


def critic_check(before: str, after: str) -> list[str]:
    """Problems that make ``after`` more than a critique of ``before`` (empty when it is
    one): each sentence of ``after`` (a line's sentences; headings and list items
    count) must be a run of consecutive words of one sentence of ``before``, citations
    and punctuation aside, and cite only that sentence's chunks or those of a sentence
    of ``before`` that repeats it (content-term Jaccard ≥ ``MERGE_JACCARD``: a merge).
    A sentence the splitter reads differently after an edit is checked piece by piece
    (split at sentence punctuation)."""
    source = _units(before)
    problems = []
    for unit in _units(after):
        origins = _origins(source, unit.words)
        if not origins:
            pieces = [tuple(w.casefold() for w in _WORD_RE.findall(p))
                      for p in re.split(r"[.;:!?]\s+", CITE_RE.sub(" ", unit.text))]
            found = [_origins(source, p) for p in pieces if p]
            if not found or not all(found):
                problems.append(f"adds or reorders words: “{strip_citations(unit.text)[:120]}”")
                continue
            origins = [o for group in found for o in group]
        allowed: set[str] = set()
        for o in origins:
            allowed |= o.cited
            allowed |= {c for other in source if other is not o and len(o.stems) >= 3
                        and _jaccard(set(o.stems), set(other.stems)) >= MERGE_JACCARD
                        for c in other.cited}
        extra = unit.cited - allowed
        if extra:
            problems.append(f"cites {', '.join(sorted(extra))} that its source sentence does not: "
                            f"“{strip_citations(unit.text)[:120]}”")
    return problems


def _origins(source: Sequence[_Unit], words: tuple[str, ...]) -> list[_Unit]:
    """The sentences of ``source`` holding ``words`` consecutively."""
    return [u for u in source if _contains(u.words, words)]
