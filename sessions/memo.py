"""Draft mode's legal memorandum (issue 13, items 1 and 4).

The embedded Writer answers a Draft request ("Draft a memo on tree removal permits and
penalties in Rivergrove") with a memo in this shape::

    # MEMORANDUM
    **To:** [Recipient] / **From:** [Author] / **Date:** … / **Re:** the subject
    ## Question Presented      the request restated as a question (template)
    ## Short Answer            2–4 cited sentences: the lead sentence of each issue
    ## Discussion              ### per issue, #### per authority level (federal → firm)
    ## Requirements and permits  cited permit / licence / notice / filing requirements
    ## Open questions          the issues no passage addresses (template)
    ## Sources                 the pinpoint citations used (template)

**Issues.** The request's subject is split into its coordinated topics ("tree removal
permits and penalties" → "tree removal permits", "tree removal penalties": the shared
modifiers of an elided head are carried over) and each is asked as a question whose
wording names the kind of fact a lawyer expects ("What is the penalty for tree
removal?" asks for an amount, "Is a tree removal permit required?" for an obligation).
Each question is read by :func:`retrieval.question.question_analyse`, keeping only the
terms of the request's own (scoped) analysis, so the places and parties the search is
confined to are not required of a sentence. One analysis with one facet per issue then
scores every source sentence (:func:`sessions.writer.candidates_for`): the Short Answer
takes the best sentence that *addresses* each issue (states the asked fact), the
Discussion the other sentences that are *about* it (the issue's facet coverage of the
sentence alone reaches ``retrieval.relevance.ADDRESS_MIN``).

**Template text is not a claim.** The header, the headings, the Question Presented, the
Open questions, the Sources, the supersession notes and the issuer label of a permit
carry no citation and are masked by the Skeptic (:func:`verification.skeptic.template_masked`);
only the quoted, cited sentences are extracted, verified and counted.

**Excluded places.** A passage of another place than the one the request confines itself
to (``QuestionAnalysis.places``, :func:`retrieval.relevance.out_of_place`) and a record of
deliberation (minutes) are never quoted.

**Supersession** (item 4). Within an issue, when two or more documents of the same
municipal or county jurisdiction and of the same kind (the citation label without its
number: "Rivergrove Ord. No.", "Rivergrove Res. No.") speak to it, the newest document
(``last_updated``, else the year in its title or label) leads and the older ones are
named in a note: "amended by" when a retrieved passage of the newer one names the
older one's number, else "superseded on this point by". Codified federal and state law
(a CFR part, an ORS chapter) is current text, not a series of amendments, so it is
never marked superseded; nor are firm documents (two contracts bind different parties).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.utils import timezone

from ciq.text import stem
from retrieval.models import Chunk
from retrieval.question import Facet, FactKind, QuestionAnalysis, Term, question_analyse
from retrieval.relevance import (
    ADDRESS_MIN,
    ASKS_ABOUT_MEETING_RE,
    DELIBERATIVE_TITLE_RE,
    facet_coverage,
    holds,
    out_of_place,
)
from retrieval.search import RetrievedChunk
from sessions.pinpoints import quoted_sentences
from sessions.writer import (
    DRAFT_SENTENCES,
    LEVEL_HEADINGS,
    PER_CHUNK_LIMIT,
    SUPERSEDING_LEVELS,
    Candidate,
    WriteRequest,
    _escaped,
    _facet_key,
    candidates_for,
    cite,
    document_date,
    related_list,
    select,
    subject_stems,
)
from verification.citations import cited_ids
from verification.skeptic import (
    MEMO_FIELDS,
    MEMO_HEADING,
    NOT_ANSWERED,
    PARTIAL_GAP,
    PERMIT_ISSUER,
    RELATED_HEADING,
    SEE_SHORT_ANSWER,
    SUPERSEDED,
)

RECIPIENT, AUTHOR = "[Recipient]", "[Author]"
MAX_ISSUES = 4  # the Short Answer holds two to four sentences: one per issue
SHORT_ANSWER_MIN = 2
# Two sentences whose content terms overlap this much restate one provision (an amended
# sentence keeps most words; two different rules of one section share far fewer).
SAME_POINT_JACCARD = 0.8
PER_ISSUE_SENTENCES = 6  # Discussion sentences per issue (DRAFT_SENTENCES overall)
PERMIT_ITEMS = 4
# Template sentences inside claim sections open with the refusal prefix the Skeptic skips.
NO_REQUIREMENTS = f"{PARTIAL_GAP}: no permit, licence, notice or filing requirement."
# A Discussion with nothing beyond the Short Answer says so rather than stay empty.
NO_DISCUSSION = f"{SEE_SHORT_ANSWER}: no other retrieved passage is about these issues."

_DRAFT_VERB_RE = re.compile(
    r"^\W*(?:(?:please|can you|could you|would you|kindly)\s+)*"
    r"(?:draft|write|prepare|produce|give me|create|put together|compose)\s+(?:me\s+|us\s+)?"
    r"(?:an?\s+|the\s+)?(?:short\s+|brief\s+|one-page\s+|legal\s+|internal\s+|client\s+)*"
    r"(?:memo(?:randum)?|summary|briefing(?: note)?|note|overview|analysis|report)?\s*"
    r"(?:on|about|regarding|concerning|covering|for|of|that (?:explains|covers|summari[sz]es))?\s+",
    re.I)
# A trailing scope phrase: "in Rivergrove", "under Oregon law", "in Ray County, Missouri".
_SCOPE_RE = re.compile(r"\s+(?:in|under|within|for|of)\s+(?:the\s+)?(?:[A-Z][\w.'’-]*"
                       r"(?:\s+|,\s*)?)+(?:law|laws|rules|code)?\s*$")
_SPLIT_RE = re.compile(r"\s*(?:;|,\s*(?:and|or)?|\band\b|\bor\b|&)\s*", re.I)
_TAIL_RE = re.compile(r"\s+((?:for|of|on|under|in|about|to)\s+.+)$")
_MONEY_HEADS = ("fee", "fine", "penalty", "cost", "charge", "rate", "tax", "price", "sanction",
                "deposit", "bond amount", "assessment")
_REQUIREMENT_HEADS = ("permit", "licence", "license", "registration", "approval", "certificate",
                      "variance", "notice", "filing", "application", "insurance", "bond",
                      "disclosure", "consent")
_TIME_HEADS = ("deadline", "period", "term", "duration")
_ARTICLE_RE = re.compile(r"^(?:the|a|an)\s+", re.I)
_WH_RE = re.compile(r"^(?:when|how|whether|who|what|where|which|why)\b", re.I)
_PRONOUN_RE = re.compile(r"\b(?:they|it|them|these|those|such)\b", re.I)
# A verb's -ing form before its object's determiner ("selling its land", "renting a home"):
# the title is a clause, not a noun phrase ("building permits" is one).
_GERUND_OBJECT_RE = re.compile(r"\b[a-z]{3,}ing\s+(?:its|their|the|a|an|his|her|our|your|my|this|that)\b",
                               re.I)
# An embedded question ("how quickly a bank must look into an error", "whether a
# subdivision may put a gate on its street"): asked directly, its auxiliary goes before
# its subject, as the question analysis reads the act it asks about.
_EMBEDDED_RE = re.compile(
    r"^(?P<wh>how(?: (?:long|quickly|soon|fast|much|many|often|far|big|tall|high|late|early))?|what|which"
    r"|who|where|whether)\s+(?P<subject>(?:(?!(?:must|shall|may|can|should|will|does|do|is|are)\b)\S+\s+){1,8}?)"
    r"(?P<aux>must|shall|may|can|should|will|does|do|is|are)\s+(?P<rest>.+)$", re.I)

_INSTRUMENT = r"(permit|licen[cs]e|registration|certificate|notice|notification|application|filing|bond)"
# A requirement names the instrument as what must be obtained, filed or given (not merely
# a sentence that mentions a permit beside a "shall").
_MUST = r"(?:must|shall|required to|is required to|are required to)"
_DO = r"(?:obtain|apply for|file|submit|give|provide|send|secure|hold|have|post|make|mail|deliver)"
_DONE = r"(?:required|needed|necessary|filed|submitted|made|obtained|given|sent|provided|posted)"
_FORBID = r"(?:no\s+\w+\s+shall|shall not|may not|must not|unlawful to|prohibited from)"
REQUIREMENT_RES = (
    re.compile(rf"\b{_INSTRUMENT}s?\b[^.;:]{{0,60}}?\b(?:is|are|shall be|must be|will be)\s+"
               rf"(?:first\s+)?{_DONE}\b", re.I),
    re.compile(rf"\b{_MUST}\s+(?:first\s+)?{_DO}\b[^.;:]{{0,80}}?\b{_INSTRUMENT}s?\b", re.I),
    re.compile(rf"\b{_FORBID}\b[^.;:]{{0,100}}?\bwithout\s+(?:first\s+)?(?:obtaining\s+|having\s+)?"
               rf"(?:an?|the)\s+(?:[\w-]+\s+){{0,3}}?{_INSTRUMENT}\b", re.I),
    re.compile(rf"\b(?:an?|the)\s+(?:[\w-]+\s+){{0,3}}?{_INSTRUMENT}\s+is\s+required\b", re.I),
)
_DEFINITION_RE = re.compile(r"^\W*[\"“][^\"”]{1,60}[\"”]\s*(?:-|–|—|means|shall mean|is)", re.I)
_ISSUER_RE = re.compile(
    r"\b(?:from|by|with|to)\s+the\s+((?:[A-Z][\w.'’-]*|of|and|for)(?:\s+(?:[A-Z][\w.'’-]*|of|and|for)){0,6})")
_TITLE_AUTHORITY_RE = re.compile(r"^((?:City|Town|Village|County|State) of [A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?"
                                 r"|[A-Z][\w'’-]* County)")
_DOCUMENT_WORDS_RE = re.compile(r"(?:\s+(?:Ordinance|Resolution|Charter|Code|Council|Planning|City|Municipal"
                                r"|Regulations?|Zoning|Land|Development))+$")
_LABEL_NUMBER_RE = re.compile(r"\d[\w.-]*$")


@dataclass(frozen=True)
class Issue:
    """One point the memo discusses: its title ("Tree removal penalties"), the question
    it is asked as ("What is the penalty for tree removal?") and its facet."""

    title: str
    question: str
    facet: Facet
    head: Term | None = None  # the term of the issue's head noun ("penalti"), when it has one
    # The stem of the thing a measure of it is asked of ("Minimum size of mobile home
    # parks" → "park"), when the title ends in such a phrase.
    thing: str = ""


def memo_subject(request_text: str) -> str:
    """The subject of a Draft request, the drafting verb and document type removed:
    "Draft a memo on tree removal permits and penalties in Rivergrove" → "tree removal
    permits and penalties in Rivergrove". Whitespace collapsed, final punctuation removed."""
    text = re.sub(r"\s+", " ", request_text).strip().rstrip("?.!")
    stripped = _DRAFT_VERB_RE.sub("", text, count=1)
    return stripped or text


def _singular(word: str) -> str:
    lower = word.lower()
    if lower.endswith("ies"):
        return word[:-3] + "y"
    if lower.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def issue_titles(subject: str) -> list[str]:
    """The coordinated topics of ``subject``, the trailing scope phrase removed, shared
    modifiers carried over: "tree removal permits and penalties in Rivergrove" →
    ["tree removal permits", "tree removal penalties"]; "permits and penalties for tree
    removal" → ["permits for tree removal", "penalties for tree removal"]. At most
    :data:`MAX_ISSUES`; the whole subject when it does not split."""
    core = _SCOPE_RE.sub("", subject).strip() or subject
    parts = [_ARTICLE_RE.sub("", p.strip()) for p in _SPLIT_RE.split(core) if p and p.strip()]
    if len(parts) <= 1:
        return [_ARTICLE_RE.sub("", core)]
    # "conditional use permits and when they expire": the clause asks about the topic
    # before it, which stands in for its pronoun.
    parts = [parts[0]] + [_PRONOUN_RE.sub(parts[0], p, count=1) if _WH_RE.match(p) else p
                          for p in parts[1:]]
    first = parts[0].split()
    if len(first) >= 2:  # "tree removal permits and penalties": the modifiers are shared
        parts = [parts[0]] + [" ".join(first[:-1] + p.split()) if len(p.split()) == 1 and not _WH_RE.match(p)
                              else p for p in parts[1:]]
    tail = _TAIL_RE.search(parts[-1])
    if tail and re.match(r"(?:for|of|on|under|about)\s", tail.group(1)):
        # "permits and penalties for tree removal", "the cancellation period and refunds
        # for remittance transfers": the last topic's object is shared by the others.
        parts = [f"{p} {tail.group(1)}" if not _TAIL_RE.search(p) and not _WH_RE.match(p) else p
                 for p in parts[:-1]] + [parts[-1]]
    seen: dict[str, None] = {}
    for p in parts:
        seen.setdefault(p, None)
    return list(seen)[:MAX_ISSUES]


def issue_question(title: str) -> str:
    """``title`` asked as the question a lawyer means by it (module docstring): an amount
    for a fee, fine or penalty, an obligation for a permit, licence or notice, a period
    for a deadline ("How long is …" for a period, term or duration), a clause that asks
    when ("when conditional use permits expire") as a period, else what the documents
    provide on it."""
    when = re.match(r"when\s+(.+)$", title, re.I)
    if when:
        return f"How long until {when.group(1)}?"
    embedded = _EMBEDDED_RE.match(title)
    if embedded:
        wh, subject, aux, rest = embedded.group("wh", "subject", "aux", "rest")
        asked = f"{aux} {subject.strip()} {rest}"
        if wh.lower() != "whether":
            asked = f"{wh} {asked}"
        return asked[:1].upper() + asked[1:] + "?"
    if _WH_RE.match(title):
        return title[:1].upper() + title[1:] + "?"
    words = title.split()
    tail = _TAIL_RE.search(title)
    head_words = title[:tail.start()].split() if tail else words
    head = _singular(head_words[-1]).lower() if head_words else ""
    modifiers = " ".join(head_words[:-1])
    about = tail.group(1) if tail else (f"for {modifiers}" if modifiers else "")
    if head in _MONEY_HEADS:
        return re.sub(r"\s+", " ", f"What is the {head} {about}?").replace(" ?", "?")
    if head in _REQUIREMENT_HEADS:
        thing = " ".join(w for w in (modifiers, head) if w)
        after = f" {tail.group(1)}" if tail else ""
        return f"Is a {thing} required{after}?"
    if head == "deadline":
        return re.sub(r"\s+", " ", f"What is the deadline {about}?").replace(" ?", "?")
    if head in _TIME_HEADS:
        return f"How long is the {title}?"
    return f"What do the documents provide on {title}?"


def issue_head(title: str, terms: Sequence[Term]) -> Term | None:
    """The term of ``title``'s head noun among ``terms`` ("penalti" of "tree removal
    penalties for Rivergrove"), or None. A clause ("how quickly a bank must look into an
    error", "a county selling its land on installment terms") has no head noun: its last
    noun is an object, not what the issue is about."""
    if _WH_RE.match(title) or _GERUND_OBJECT_RE.search(title):
        return None
    tail = _TAIL_RE.search(title)
    head_words = (title[:tail.start()] if tail else title).split()
    head_stem = stem(_singular(head_words[-1]).lower()) if head_words else ""
    return next((t for t in terms if head_stem in t.stems), None)


def memo_issues(request: WriteRequest) -> tuple[list[Issue], QuestionAnalysis]:
    """The memo's issues and one analysis with a facet per issue (in issue order), carrying
    the request's places and years. Each facet keeps only the terms of the request's own
    analysis (so the names the search is scoped to are not required); an issue left with
    no term gets the request's terms."""
    base = request.analysis or question_analyse(request.question).as_topic()
    topic = {t.key: t for t in base.topic}
    issues = []
    for title in issue_titles(memo_subject(request.question)):
        question = issue_question(title)
        read = question_analyse(question)
        facet = read.facets[0]
        terms = tuple(t for t in facet.terms if t.key in topic)
        if not terms:
            facet = Facet(title, facet.kind, base.topic, None, facet.unit)
        else:
            focus = facet.focus if facet.focus and facet.focus.key in topic else None
            action = facet.action if facet.action and facet.action.key in topic else None
            facet = Facet(title, facet.kind, terms, focus, facet.unit,
                          tuple(t for t in facet.keys if t.key in topic), action, measure=facet.measure)
        tail = _TAIL_RE.search(title)
        head = issue_head(title, facet.terms)
        thing = stem(_singular(title.split()[-1]).lower()) if tail and tail.group(1).startswith("of ") else ""
        issues.append(Issue(title[:1].upper() + title[1:], question, facet, head, thing))
    analysis = replace(base, facets=tuple(i.facet for i in issues),
                       kind=issues[0].facet.kind if issues else base.kind)
    return issues, analysis


def _kind(chunk: RetrievedChunk) -> str:
    """The document series: the citation label without its number ("Rivergrove Ord. No.")."""
    return _LABEL_NUMBER_RE.sub("", chunk.citation_label or "").strip()


def _label(chunk: RetrievedChunk) -> str:
    year = document_date(chunk)
    name = chunk.citation_label or chunk.document_title
    return f"{name} ({year.year})" if year and str(year.year) not in name else name


def _amends(newer: RetrievedChunk, older: RetrievedChunk) -> bool:
    """Whether the newer document's text names the older one's number ("AN ORDINANCE
    AMENDING ORDINANCE NO. 74-2004"): one indexed query over the newer document's chunks
    (a document id from the workspace's own retrieval)."""
    number = _LABEL_NUMBER_RE.search(older.citation_label or "")
    if not number or len(number.group()) < 3:
        return False
    pattern = re.compile(rf"(?<![\w-]){re.escape(number.group())}(?![\w-])", re.I)
    texts = Chunk.objects.filter(document_id=newer.document_id, text__icontains=number.group()) \
        .values_list("text", flat=True)[:20]
    return any(pattern.search(text) for text in texts)


def series_key(chunk: RetrievedChunk) -> tuple:
    """The series a document belongs to for supersession: (jurisdiction, kind) for a
    dated municipal or county document with a numbered label, else the document alone."""
    if chunk.jurisdiction_level in SUPERSEDING_LEVELS and _kind(chunk) and document_date(chunk):
        return (chunk.jurisdiction, _kind(chunk))
    return ("doc", chunk.document_id)


def supersession(picked: Sequence[Candidate]) -> tuple[list[int], list[str]]:
    """The order of ``picked``'s documents and the supersession notes (module docstring).

    Returns (document ids, newest first within a series of the same jurisdiction and
    kind, series in order of first appearance; notes such as "Superseded: Rivergrove Ord.
    No. 74-2004 (2004), amended by Rivergrove Ord. No. 89-2018 (2018).").
    """
    docs: dict[int, RetrievedChunk] = {}
    for c in picked:
        docs.setdefault(c.chunk.document_id, c.chunk)
    series: dict[tuple, list[RetrievedChunk]] = {}
    for chunk in docs.values():
        series.setdefault(series_key(chunk), []).append(chunk)
    order, notes = [], []
    for group in series.values():
        group.sort(key=lambda ch: document_date(ch) or dt.date.min, reverse=True)
        order += [ch.document_id for ch in group]
        newest = group[0]
        for older in group[1:]:
            if document_date(older) == document_date(newest):
                continue
            how = "amended by" if _amends(newest, older) else "superseded on this point by"
            notes.append(f"{SUPERSEDED}: {_escaped(_label(older))}, {how} {_escaped(_label(newest))}.")
    return order, notes


def _about(c: Candidate, issue: Issue, idf: dict[str, float]) -> bool:
    """Whether the sentence itself (not its context) is about the issue: it holds the
    issue's head noun (any phrasing of it: "fine" for "penalty") and covers
    ``ADDRESS_MIN`` of the issue's weighted terms."""
    stems = c.terms  # the sentence's content stems, computed once per candidate
    if issue.head is not None and not holds(issue.head, stems):
        return False
    return facet_coverage(issue.facet, c.text, idf=idf, stems=stems, context_stems=set()) >= ADDRESS_MIN


def _admissible(c: Candidate, analysis: QuestionAnalysis) -> bool:
    """A sentence the memo may quote: of the request's places, not a meeting record
    (unless the request asks about a meeting)."""
    chunk = c.chunk
    if out_of_place(analysis, chunk.jurisdiction, f"{chunk.document_title}\n{chunk.heading}\n{chunk.text}"):
        return False
    return not (DELIBERATIVE_TITLE_RE.search(chunk.document_title)
                and not ASKS_ABOUT_MEETING_RE.search(analysis.question))


def _issuer(c: Candidate) -> str:
    """Who issues or receives a requirement: named in the sentence ("from the City"),
    else the authority that opens the document's title ("City of Rivergrove"), else
    the document's citation label."""
    m = _ISSUER_RE.search(c.text)
    if m:
        name = re.sub(r"(?:\s+(?:of|and|for))+$", "", m.group(1))
        if name and name[0].isupper():
            return f"the {name}"
    m = _TITLE_AUTHORITY_RE.search(c.chunk.document_title)
    if m:
        return _DOCUMENT_WORDS_RE.sub("", m.group(1))
    return c.chunk.citation_label or c.chunk.document_title


def _requirement_kind(text: str) -> str:
    """"Permit", "License", "Notice", … when ``text`` states a requirement to obtain, file
    or give that instrument (:data:`REQUIREMENT_RES`), else ""."""
    if _DEFINITION_RE.search(text):
        return ""
    noun = next((m for r in REQUIREMENT_RES if (m := r.search(text))), None)
    return noun.group(1).lower().replace("licence", "license").capitalize() if noun else ""


def _requirement_label(c: Candidate, kind: str) -> str:
    issuer = re.sub(r"[()\[\]*_]", "", _issuer(c))
    return f"- **{kind}** ({PERMIT_ISSUER} {_escaped(issuer)}): "


def requirements(pool: Sequence[Candidate], used: set[str], issues: Sequence[Issue],
                 idf: dict[str, float], leads: Sequence[Candidate] = ()) -> tuple[list[str], list[Candidate]]:
    """Up to :data:`PERMIT_ITEMS` list items, one per real permit, licence, notice or
    filing requirement: a sentence that names the instrument as what must be obtained,
    filed or given (:func:`_requirement_kind`), is itself about one of the issues and is
    not quoted elsewhere. Each item opens with its kind and issuer (template, not a
    claim) and ends with the cited sentence; a requirement the Short Answer (``leads``)
    already states is listed as "See the Short Answer" with its pinpoint (template: a
    sentence is claimed once per memo). Returns (items, the candidates quoted)."""
    items, quoted, seen = [], [], set(used)
    for c in leads:
        kind = _requirement_kind(c.text)
        if kind:
            pin = _escaped(c.chunk.cited_pinpoint([c.text]))
            items.append(f"{_requirement_label(c, kind)}{SEE_SHORT_ANSWER} ({pin}).")
    for c in pool:
        if len(items) >= PERMIT_ITEMS:
            break
        if c.text in seen:
            continue
        kind = _requirement_kind(c.text)
        if not kind or not any(_about(c, i, idf) for i in issues):
            continue
        seen.add(c.text)
        quoted.append(c)
        items.append(f"{_requirement_label(c, kind)}{cite(c.text, c.chunk.chunk_id)}")
    return items, quoted


def memo_header(request_text: str, *, author: str = "", today: dt.date | None = None) -> str:
    """The memo's title and To / From / Date / Re block (Markdown, template, not claims):
    To is "[Recipient]", From ``author`` or "[Author]", Date ``today`` (local date when
    None) as "November 24, 2026", Re the request's subject (:func:`memo_subject`)."""
    return "\n\n".join(_header(memo_subject(request_text), author=author, today=today))


def _header(subject: str, *, author: str = "", today: dt.date | None = None) -> list[str]:
    day = today or timezone.localdate()
    re_line = _escaped(subject[:1].upper() + subject[1:])
    fields = dict(zip(MEMO_FIELDS, (RECIPIENT, _escaped(author) if author else AUTHOR,
                                    f"{day:%B} {day.day}, {day.year}", re_line), strict=True))
    # One paragraph per field: a hard line break would not survive every renderer and export.
    return [f"# {MEMO_HEADING}", *(f"**{name}:** {value}" for name, value in fields.items())]


def _question_presented(subject: str, issues: Sequence[Issue]) -> str:
    """The request restated: each issue's question with the request's scope ("in
    Rivergrove"), numbered when there are several."""
    scope = _scope_of(subject)
    asks = [f"{i.question.rstrip('?')} {scope}?" if scope else i.question for i in issues]
    if len(asks) == 1:
        return _escaped(asks[0])
    return "\n".join(f"{n}. {_escaped(a)}" for n, a in enumerate(asks, 1))


def _scope_of(subject: str) -> str:
    m = _SCOPE_RE.search(subject)
    return m.group().strip() if m else ""


def _sources(cited: Sequence[RetrievedChunk], body: str) -> str:
    """The Sources list: each cited chunk's pinpoint, narrowed to the sections of the
    sentences ``body`` quotes from it (``sessions.pinpoints``), with its year."""
    quoted = quoted_sentences(body)
    lines = []
    for chunk in cited:
        pin = chunk.cited_pinpoint(quoted.get(chunk.chunk_id, ()))
        year = document_date(chunk)
        if year and str(year.year) not in pin:
            pin = f"{pin} ({year.year})"
        lines.append(f"- {_escaped(pin)}")
    return "\n".join(dict.fromkeys(lines)) if lines else "None cited."


def _open_questions(issues: Sequence[Issue], missing: Sequence[int]) -> str:
    if not missing:
        return "None: each issue of the request is addressed by a cited passage."
    return "\n".join(f"- {_escaped(issues[i].question)} The documents searched do not settle it."
                     for i in missing)


def compose_memo(request: WriteRequest, *, author: str = "", today: dt.date | None = None) -> str:
    """The memo's Markdown for a Draft request (module docstring for the shape and the
    rules). ``author``: the asking user's name ("[Author]" when empty); ``today``: the
    memo's date (the local date when None). Never raises for odd text; with nothing that
    addresses or is about any issue, :func:`memo_not_answered`."""
    subject = memo_subject(request.question)
    issues, analysis = memo_issues(request)
    idf = request.term_weights or {}
    pool = [c for c in candidates_for(replace(request, analysis=analysis)) if _admissible(c, analysis)]
    # The Short Answer quotes what addresses an issue (its context may complete it); the
    # Discussion only what is itself about an issue.
    about = {id(c): [i for i, issue in enumerate(issues) if _about(c, issue, idf)] for c in pool}
    pool = [c for c in pool if about[id(c)] or (c.facets and c.facets.addressed)]
    leads, missing = short_answer(issues, pool, idf)
    if not leads:
        return memo_not_answered(request, related=candidates_for(request), author=author, today=today)
    used = {c.text for c in leads}
    # Requirements are reserved first: a permit rule is listed there, not in the Discussion.
    permits, permit_quotes = requirements(pool, used, issues, idf, leads)
    used |= {c.text for c in permit_quotes}

    parts = _header(subject, author=author, today=today)
    parts += ["## Question Presented", _question_presented(subject, issues)]
    parts += ["## Short Answer", " ".join(cite(c.text, c.chunk.chunk_id) for c in leads)]
    parts.append("## Discussion")
    discussion_start = len(parts)
    budget = max(PER_ISSUE_SENTENCES, DRAFT_SENTENCES // max(1, len(issues)))
    cited: list[Candidate] = list(leads) + permit_quotes
    noted: set[str] = set()
    for i, issue in enumerate(issues):
        options = [c for c in pool if i in about[id(c)] and c.text not in used]
        picked = _fresh(select(options, limit=budget, per_chunk=PER_CHUNK_LIMIT["draft"]), cited)
        # The documents that speak to the issue: its lead, what the Discussion quotes, and
        # the older versions of a point left out as repeats (supersession names them).
        speaking = [c for c in pool if (i in about[id(c)] or (c.facets and i in c.facets.addressed))
                    and (c in picked or c in leads or any(_same_point(c, p) for p in picked + leads))]
        notes = [n for n in supersession(speaking)[1] if n not in noted]
        noted.update(notes)
        if not picked and not notes:
            continue
        used |= {c.text for c in picked}
        cited += picked
        parts.append(f"### {_escaped(issue.title)}")
        for level, heading in LEVEL_HEADINGS:
            in_level = [c for c in picked if c.chunk.jurisdiction_level == level]
            if not in_level:
                continue
            parts.append(f"#### {heading}")
            order, _ = supersession(in_level)
            for doc in order:
                group = sorted((c for c in in_level if c.chunk.document_id == doc),
                               key=lambda c: (c.chunk.rank, c.position))
                if group:
                    parts.append(" ".join(cite(c.text, c.chunk.chunk_id) for c in group))
        parts += notes
    if len(parts) == discussion_start:
        parts.append(NO_DISCUSSION)
    parts += ["## Requirements and permits", "\n".join(permits) if permits else NO_REQUIREMENTS]
    parts += ["## Open questions", _open_questions(issues, missing)]
    body = "\n\n".join(parts)
    parts += ["## Sources", _sources(_in_citation_order(body, request.chunks), body)]
    return "\n\n".join(parts)


def _lead_key(c: Candidate, i: int, issue: Issue, idf: dict[str, float]) -> tuple:
    """Order of the sentences that address issue ``i``: one that states the asked value
    outright (:func:`_states_value`), then one itself about the issue (:func:`_about`),
    then one whose modal governs the asked act (:func:`_does`), then one whose subject is
    the thing measured (:func:`_subject_is`), then
    ``sessions.writer._facet_key`` (coverage, retrieval score, newer document)."""
    return (_states_value(issue.facet.kind, c.text), _about(c, issue, idf), _does(c.text, issue.facet.action),
            _subject_is(c.text, issue.thing), *_facet_key(c, i))


# A modal and the verb it governs, an adverb or "not" between ("shall investigate promptly").
_MODAL_VERB_RE = re.compile(r"\b(?:shall|must|will|may)\s+(?:not\s+)?(?:\w+ly\s+)?(\w+)(?:\s+(\w+))?", re.I)


def _does(text: str, action: Term | None) -> bool:
    """Whether a modal of ``text`` governs the issue's act (any phrasing of it): "A
    financial institution shall investigate promptly …" states the duty to investigate;
    "an institution complies … if it investigates any notice received within 120 days"
    states another rule, whose period is not the one asked."""
    if action is None:
        return False
    for m in _MODAL_VERB_RE.finditer(text):
        said = tuple(stem(w.lower()) for w in m.groups() if w)
        if any(said[:len(alt)] == alt for alt in action.alternatives):
            return True
    return False


def _subject_is(text: str, thing: str) -> bool:
    """Whether the subject of ``text`` holds the stem ``thing``
    (:func:`sessions.writer.subject_stems`): "Mobile home parks shall contain a minimum
    gross area of 15 acres" states the size of a park; "Individual mobile home spaces
    within a mobile home park shall have a minimum area of 4,000 square feet" that of
    a space."""
    return bool(thing) and thing in subject_stems(text)


_NUMBER = (r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
           r"|twenty|thirty|sixty|ninety)")
_PERIOD_VALUE_RE = re.compile(rf"\b{_NUMBER}\s*(?:\(\d+\)\s*)?(?:business |calendar |school |consecutive )?"
                              r"(?:minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)
_AMOUNT_VALUE_RE = re.compile(r"\$\s?\d|\b\d[\d,.]*\s*(?:%|percent|dollars|feet|foot|square feet|acres?)\b",
                              re.I)


def _states_value(kind: str, text: str) -> bool:
    """Whether ``text`` states the asked value outright: a number of days (months …) for
    a deadline, a sum or a measure for an amount, an instrument required for an
    obligation ("A permit is required …"); other kinds ask for no single value. A
    sentence with only "annual" or "a fine" names the kind of value, not the value."""
    if kind == FactKind.DEADLINE:
        return bool(_PERIOD_VALUE_RE.search(text))
    if kind == FactKind.AMOUNT:
        return bool(_AMOUNT_VALUE_RE.search(text))
    if kind == FactKind.OBLIGATION:
        return bool(_requirement_kind(text))
    return True


def short_answer(issues: Sequence[Issue], pool: Sequence[Candidate],
                 idf: dict[str, float]) -> tuple[list[Candidate], list[int]]:
    """The Short Answer's sentences and the issues no sentence addresses.

    For each issue in order, the best sentence that addresses it (:func:`_lead_key`),
    replaced by the same point in a newer document of its series
    (:func:`_newest_version`); with a single issue, its second best sentence too
    (:data:`SHORT_ANSWER_MIN`). A sentence is quoted once.
    """
    leads: list[Candidate] = []
    missing: list[int] = []
    for i, issue in enumerate(issues):
        options = [c for c in pool if c.facets and i in c.facets.addressed
                   and all(c.text != p.text for p in leads)]
        if not options:
            missing.append(i)
            continue
        options.sort(key=lambda c: _lead_key(c, i, issue, idf), reverse=True)
        best = _newest_version(options[0], pool, i)
        if all(best.text != p.text for p in leads):
            leads.append(best)
        if len(issues) < SHORT_ANSWER_MIN and len(options) > 1:
            second = next((c for c in options[1:] if _fresh([c], leads)), None)
            if second is not None:
                leads.append(second)
    return leads[:MAX_ISSUES], missing


def memo_sources_refreshed(text: str, chunks: Sequence[RetrievedChunk]) -> str:
    """``text`` (a memo) with its Sources section rebuilt from the citations it now holds,
    its issue and level headings left empty dropped, and an emptied Discussion or
    Requirements section given its placeholder: for an editor that deletes claims after
    the memo is written (the Critic). A text without a "## Sources"
    section is returned unchanged."""
    m = re.search(r"^## Sources[ \t]*\n.*?(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return text
    body = text[:m.start()]
    # A "###"/"####" heading directly followed by another heading of the same or a
    # higher level (or a "##" section) lost its content.
    while True:
        pruned = re.sub(r"^(#{3,4}) [^\n]*\n+(?=(?:#{2,3}|\1) )", "", body, flags=re.M)
        if pruned == body:
            break
        body = pruned
    # A claim section the editor emptied says so, as a freshly written memo would.
    placeholders = (("Discussion", NO_DISCUSSION), ("Requirements and permits", NO_REQUIREMENTS))
    for heading, placeholder in placeholders:
        body = re.sub(rf"^(## {heading}[ \t]*\n)\s*(?=^## |\Z)",
                      lambda g, p=placeholder: f"{g.group(1)}\n{p}\n\n", body, flags=re.M)
    sources = _sources(_in_citation_order(body, chunks), body)
    return f"{body}## Sources\n\n{sources}{text[m.end():]}"


def _newest_version(lead: Candidate, pool: Sequence[Candidate], issue: int) -> Candidate:
    """The lead sentence of ``issue``, or the one of a newer document of its series (an
    amendment) that addresses the same issue: the newer text leads (supersession)."""
    key, date = series_key(lead.chunk), document_date(lead.chunk)
    if key[0] == "doc" or date is None:
        return lead
    newer = [c for c in pool if series_key(c.chunk) == key and (document_date(c.chunk) or date) > date
             and c.facets and issue in c.facets.addressed]
    return max(newer, key=lambda c: (document_date(c.chunk), c.relevance, -c.chunk.rank)) if newer else lead


def _same_point(a: Candidate, b: Candidate) -> bool:
    """Whether two sentences state the same point (one holds the other, or their content
    terms overlap by Jaccard ≥ :data:`SAME_POINT_JACCARD`): an amendment's restatement."""
    if a.text.rstrip(".") in b.text or b.text.rstrip(".") in a.text:
        return True
    return len(a.terms & b.terms) / max(1, len(a.terms | b.terms)) >= SAME_POINT_JACCARD


def _fresh(picked: Sequence[Candidate], cited: Sequence[Candidate]) -> list[Candidate]:
    """``picked`` without sentences that repeat one already in the memo (a list item
    alone and joined to its introduction, or a near copy)."""
    kept: list[Candidate] = []
    for c in picked:
        others = list(cited) + kept
        if any(_same_point(c, p) for p in others):
            continue
        kept.append(c)
    return kept


def _in_citation_order(text: str, chunks: Sequence[RetrievedChunk]) -> list[RetrievedChunk]:
    """The chunks ``text`` cites, each once, in order of first citation."""
    by_id = {c.chunk_id: c for c in chunks}
    return [by_id[i] for i in cited_ids(text) if i in by_id]


def memo_not_answered(request: WriteRequest, related: Sequence[Candidate] = (), *, author: str = "",
                      today: dt.date | None = None) -> str:
    """The memo of a request the passages do not answer: the same structure, the Short
    Answer saying so plainly ("Not answered: …", what was searched), the nearest passages
    under :data:`RELATED_HEADING` in the Discussion (quoted with their pinpoint, not cited:
    they are not claims), every issue an open question, no sources."""
    subject = memo_subject(request.question)
    issues, analysis = memo_issues(request)
    short = [f"{NOT_ANSWERED}: the documents searched do not answer this request "
             f"({_escaped(subject)})."]
    if request.searched:
        short.append(request.searched)
    parts = _header(subject, author=author, today=today)
    parts += ["## Question Presented", _question_presented(subject, issues)]
    parts += ["## Short Answer", " ".join(short), "## Discussion"]
    listed = related_list([c for c in related if _admissible(c, analysis)])
    if listed:
        parts += [f"### {RELATED_HEADING}", listed]
    else:
        parts.append(f"{PARTIAL_GAP}.")
    parts += ["## Requirements and permits", NO_REQUIREMENTS]
    parts += ["## Open questions", _open_questions(issues, range(len(issues)))]
    parts += ["## Sources", "None cited."]
    return "\n\n".join(parts)

