"""Two-lane retrieval with jurisdiction filter, dedupe and rerank (DESIGN.md §1).

    question ─► LOCAL lane (firm, municipal, county chunks of the target jurisdictions)
             └► STATE lane (state and federal chunks of the targets and the codes above)
             ─► cap per lane ─► merge ─► dedupe ─► similarity ─► rerank ─► keep K

Similarity, in [0, 1], depends on the index (``CIQ_INDEX``), see :func:`hit_similarity`:

- lexical: ``coverage × bm25 / best_bm25``: the IDF-weighted share of the question's
  content terms the chunk contains (an absolute measure), scaled by the chunk's BM25
  score relative to the best hit of the question (which keeps BM25's ranking). The best
  chunk's similarity is its coverage, so a question half of whose weighted terms appear
  nowhere cannot reach a similarity above 0.5.
- dense, pinecone: ``max(0, cosine)`` of the question's and the chunk's vectors: absolute
  and rank-keeping at once.
- hybrid: ``max(coverage, max(0, cosine)) × rrf / best_rrf``: the better of the two
  absolute measures, scaled by the fused rank score relative to the best hit (which keeps
  the fusion's ranking); a chunk the dense lane did not find counts its coverage only.

With a question analysis (:mod:`retrieval.question`, issue 9) the similarity also weighs
whether the chunk holds an answer of the asked kind (:func:`answer_signal`):
``similarity = (1 − ANSWER_WEIGHT) × index similarity + ANSWER_WEIGHT × answer signal``.
A "how long" question then prefers the passage that states a period over one that only
repeats the question's words. Each lane reads ``RERANK_DEPTH`` candidates (at least its
k) so that the rerank can lift a passage the index ranked low; the lane caps apply after
the rerank. The index's own ``FIRST_STAGE_RESERVE`` best stay in the context even when
the rerank ranks them lower (:func:`with_first_stage`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.db import connection
from django.utils import timezone

from ciq.models import Workspace
from ciq.text import content_terms
from retrieval.index import ChunkIndex, Hit, index_get, query_terms
from retrieval.jurisdiction import statewide_jurisdictions
from retrieval.models import Chunk, Lane, heading_for_pinpoint, page_label, section_path_at
from retrieval.pinpoint import pinpoint_label, sentence_offset
from retrieval.question import QuestionAnalysis
from retrieval.relevance import other_district, sentence_relevance

SIMILARITY_WEIGHT = 0.8  # DESIGN.md §1: weighted = 0.8 × similarity + 0.2 × recency
RECENCY_WEIGHT = 0.2
# A chunk below this share of the best chunk's similarity is off-topic for the question
# (it shares a common word at most); it would only fill a lane's cap and lower confidence.
MIN_RELATIVE_SIMILARITY = 0.25
# A chunk whose text is at least half inside chunks already kept repeats them (_dedupe).
DUPLICATE_SHARE = 0.5
# Share of the similarity that comes from the answer signal (issue 9): half, so that a
# passage holding the asked kind of fact outranks one that only shares the question's
# words, while the index's evidence still orders passages that both hold one.
ANSWER_WEIGHT = 0.5
# A cheap sentence split for scoring candidates (the Writer uses pysbd on the few it keeps).
_SCORING_SPLIT_RE = re.compile(
    r"(?<=[.;:!?])\s+(?=[\"“(]?[A-Z0-9§(])|\n\s*\n|\n(?=\s*(?:[-*•]|\(?\w{1,3}[.)])\s)"
)


@dataclass(frozen=True)
class Budget:
    """How many chunks each step may pass on (DESIGN.md §1 caps)."""

    local_k: int
    state_k: int
    local_cap: int
    state_cap: int
    merged_cap: int
    keep: int
    # A lane with fewer candidates than its cap leaves the rest to the other lane (Draft:
    # a memo on federal or state law alone keeps 15 chunks, not the state lane's 5).
    share_caps: bool = False

    @classmethod
    def for_mode(cls, mode: str) -> Budget:
        """Seed budget of a mode: Answer retrieves 10 and keeps 6, Draft 20 and 15.

        "Retrieve N" bounds the merged candidate pool (with ``MERGED_CONTEXT_CAP``);
        the lanes fetch ``LOCAL_LANE_K`` / ``STATE_LANE_K`` and are capped at
        ``LOCAL_CONTEXT_CAP`` / ``STATE_CONTEXT_CAP``.
        """
        draft = mode == "draft"
        retrieve = settings.DRAFT_RETRIEVE_K if draft else settings.ANSWER_RETRIEVE_K
        return cls(
            local_k=settings.LOCAL_LANE_K,
            state_k=settings.STATE_LANE_K,
            local_cap=settings.LOCAL_CONTEXT_CAP,
            state_cap=settings.STATE_CONTEXT_CAP,
            merged_cap=min(settings.MERGED_CONTEXT_CAP, retrieve),
            keep=settings.DRAFT_KEEP_K if draft else settings.ANSWER_KEEP_K,
            share_caps=draft,
        )

    @classmethod
    def flat(cls, k: int) -> Budget:
        """Every step passes ``k`` chunks (used by ``evaluate retrieval`` for recall@k)."""
        return cls(k, k, k, k, k, k)


_ONE_SECTION_RE = re.compile(r"§ (\S+)")
_NAMED_SECTION_RE = re.compile(r"(.*)§ (\S+)")


def _sections_joined(first: str, rest: Sequence[str]) -> str:
    """``first`` (a pinpoint with the document's name) and ``rest`` (further sections of
    the same document, without its name) as one cite: "Charter § 39" and ["§ 41"] →
    "Charter §§ 39, 41" (Bluebook 3.3(b): several sections, one symbol doubled); joined
    by "; " when any is not a bare section ("§ 39; “Fees”")."""
    head = _NAMED_SECTION_RE.fullmatch(first)
    more = [_ONE_SECTION_RE.fullmatch(r) for r in rest]
    if rest and head and all(more):
        return f"{head.group(1)}§§ {', '.join([head.group(2), *(m.group(1) for m in more)])}"
    return "; ".join([first, *rest])


@dataclass(frozen=True)
class RetrievedChunk:
    """A chunk in a turn's context, with its scores.

    ``bm25`` ≥ 0; ``similarity``, ``recency`` and ``score`` in [0, 1]; ``rank`` from 1.
    """

    chunk_pk: int
    chunk_id: str
    document_id: int
    document_title: str
    citation_label: str
    jurisdiction: str
    jurisdiction_level: str
    lane: str
    heading: str
    text: str
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None
    last_updated: dt.date | None
    bm25: float
    similarity: float = 0.0
    recency: float = 0.0
    score: float = 0.0
    rank: int = 0
    # The chunk's heading path, outermost first (``Chunk.heading_path``; () before it).
    heading_path: tuple[str, ...] = ()
    # Where each section the chunk holds begins (``Chunk.sections``; () for one section).
    sections: tuple = ()

    @property
    def pinpoint(self) -> str:
        """Pinpoint citation of the chunk (``retrieval.pinpoint``): "12 CFR § 1006.8"; with
        a heading path the enclosing section is cited too."""
        return pinpoint_label(citation_label=self.citation_label, title=self.document_title,
                              jurisdiction_level=self.jurisdiction_level,
                              heading=heading_for_pinpoint(self.heading, self.heading_path),
                              page_start=self.page_start, page_end=self.page_end)

    def cited_pinpoint(self, sentences: Sequence[str]) -> str:
        """The pinpoint of the sections ``sentences`` (quoted from this chunk) sit in, in
        order, with the document named once (:func:`_sections_joined`), then the chunk's pages:
        "Rivergrove Charter (1974) § 41" for a sentence of § 41 in a chunk that opens
        with § 39, "… §§ 39, 41" for one of each (Bluebook 3.3(b); "… § 39; “Fees”" when
        one is named by its heading). Sentences not found in the chunk's
        text (:func:`retrieval.pinpoint.sentence_offset`) are left out; with none found,
        or a chunk in one section, :attr:`pinpoint`."""
        offsets = [o for o in (sentence_offset(self.text, s) for s in sentences) if o is not None]
        if not self.sections or not offsets:
            return self.pinpoint
        paths = dict.fromkeys(tuple(section_path_at(self.sections, self.heading_path, o))
                              for o in offsets)
        name = self._label("")
        first, *rest = dict.fromkeys(self._label(list(path) or self.heading) for path in paths)
        rest = [r[len(name) + 1:] if name and r.startswith(f"{name} ") else r for r in rest]
        pages = page_label(self.page_start, self.page_end)
        return ", ".join(p for p in (_sections_joined(first, rest), pages) if p)

    def _label(self, heading: str | list[str]) -> str:
        """The pinpoint of ``heading`` in this chunk's document, without pages."""
        return pinpoint_label(citation_label=self.citation_label, title=self.document_title,
                              jurisdiction_level=self.jurisdiction_level, heading=heading)

    def as_source(self) -> dict:
        """JSON snapshot stored on the turn (``Turn.sources``): the fields and the
        ``pinpoint`` (snapshots written before issue 13 lack it)."""
        data = asdict(self)
        data["last_updated"] = self.last_updated.isoformat() if self.last_updated else None
        data["pinpoint"] = self.pinpoint
        return data


@dataclass
class RetrievalResult:
    """The kept chunks (best first), what each lane found, and the question's term
    weights (Porter stem → IDF) for the Writer."""

    chunks: list[RetrievedChunk]
    lanes: dict[str, dict] = field(default_factory=dict)
    candidates: int = 0
    term_weights: dict[str, float] = field(default_factory=dict)


def recency(last_updated: dt.date | None, *, today: dt.date | None = None) -> float:
    """1.0 if the document was updated within ``RECENCY_WINDOW_DAYS`` (365) days, else 0.0."""
    if last_updated is None:
        return 0.0
    today = today or timezone.localdate()
    return 1.0 if (today - last_updated).days <= settings.RECENCY_WINDOW_DAYS else 0.0


def rerank_score(similarity: float, recency_value: float) -> float:
    """weighted = 0.8 × similarity + 0.2 × recency (DESIGN.md §1), in [0, 1]."""
    return SIMILARITY_WEIGHT * similarity + RECENCY_WEIGHT * recency_value


def term_coverage(terms: Sequence[str], idf: dict[str, float], text: str) -> float:
    """IDF-weighted share of ``terms`` (Porter stems) that occur in ``text``, in [0, 1]."""
    total = sum(idf.get(t, 0.0) for t in terms)
    if total <= 0:
        return 0.0
    present = set(content_terms(text))
    return sum(idf.get(t, 0.0) for t in terms if t in present) / total


def hit_similarity(hit: Hit, coverage: float, best: Hit) -> float:
    """Similarity in [0, 1] of ``hit`` (see the module docstring): ``coverage`` is the
    chunk's :func:`term_coverage`, ``best`` the question's best hit by ``rank_score``."""
    if hit.rrf is not None:
        absolute = max(coverage, max(0.0, hit.cosine or 0.0))
        return absolute * (hit.rrf / best.rrf if best.rrf else 0.0)
    if hit.cosine is not None:
        return min(1.0, max(0.0, hit.cosine))
    return coverage * (hit.bm25 / best.bm25 if best.bm25 > 0 else 0.0)


def answer_signal(analysis: QuestionAnalysis, text: str, *, context: str,
                  idf: dict[str, float], title: str = "") -> float:
    """How well the chunk ``text`` answers the question, in [0, 1]: the best
    :func:`retrieval.relevance.sentence_relevance` score of its sentences (each read
    with its neighbours and ``context``, the chunk's heading and document title)."""
    sentences = [s for s in _SCORING_SPLIT_RE.split(text) if s and s.strip()]
    best = 0.0
    for i, sentence in enumerate(sentences):
        around = " ".join(sentences[max(0, i - 1):i] + sentences[i + 1:i + 2])
        score = sentence_relevance(analysis, sentence, context=f"{context}\n{around}", idf=idf,
                                   title=title).score
        best = max(best, score)
        if best >= 1.0:
            break
    return best


def _lane_search(index, query, workspace_id, k, jurisdictions, lane, documents=None,
                 expansion="") -> list[Hit]:
    try:
        return index.search(
            query, workspace_id=workspace_id, k=k, jurisdictions=jurisdictions, lane=lane,
            documents=documents, expansion=expansion,
        )
    finally:
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()


_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ciq-lane")


def _run_lanes(index, query, workspace_id, specs, **scope) -> list[list[Hit]]:
    # Inside a transaction (tests, a caller's atomic block) another thread's connection
    # could not see uncommitted rows, so the lanes then run one after the other.
    if len(specs) > 1 and not connection.in_atomic_block:
        futures = [_POOL.submit(_lane_search, index, query, workspace_id, *spec, **scope)
                   for spec in specs]
        return [f.result() for f in futures]
    return [_lane_search(index, query, workspace_id, *spec, **scope) for spec in specs]


def _dedupe(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """Keep, per document, the higher-scored of chunks that repeat each other's text;
    input is sorted by rerank score, best first. Chunking overlap makes neighbours share
    a sentence or two at their edges: a chunk goes only when the ranges already kept
    cover at least :data:`DUPLICATE_SHARE` of it, so a neighbour that shares its first
    97 characters still brings the 2,100 after them."""
    kept: list[RetrievedChunk] = []
    ranges: dict[int, list[tuple[int, int]]] = {}
    for chunk in chunks:
        spans = ranges.setdefault(chunk.document_id, [])
        length = max(1, chunk.char_end - chunk.char_start)
        shared = sum(max(0, min(chunk.char_end, end) - max(chunk.char_start, start)) for start, end in spans)
        if shared / length >= DUPLICATE_SHARE:
            continue
        spans.append((chunk.char_start, chunk.char_end))
        kept.append(chunk)
    return kept


def with_first_stage(reranked: Sequence[RetrievedChunk], first_stage: Sequence[RetrievedChunk], *,
                     keep: int, reserve: int) -> list[RetrievedChunk]:
    """The ``keep`` chunks passed on: the rerank's best, with up to ``reserve`` of the
    last places given to the index's own best (``first_stage``, in the index's order)
    that the rerank put lower. The answer signal reads the question's words, and a
    passage that answers in other words ("elderly" for "senior") ranks low by it
    although the index, which also reads by meaning in hybrid mode, ranked it first;
    hedging between the two rankings keeps it in the context (issue 9). Chunks in
    ``first_stage`` order below ``reserve`` are never added."""
    chosen = list(reranked[:keep])
    missing = [c for c in first_stage[:min(reserve, keep)] if all(c.chunk_pk != k.chunk_pk for k in chosen)]
    return chosen[:keep - len(missing)] + missing if missing else chosen


def _lane_capped(chunks: list[RetrievedChunk], caps: dict[str, int], *,
                 share: bool = False) -> list[RetrievedChunk]:
    """``chunks`` in order, at most ``caps[lane]`` of each lane (no caps: all). With
    ``share`` a lane that has fewer candidates than its cap leaves the rest of it to the
    other lane (``Budget.share_caps``: Draft keeps 15 chunks, DESIGN.md "retrieve", and a
    memo on federal law alone had the state lane's 5). Answer mode keeps the fixed caps:
    sharing them cost two right answers of 206 over our question sets and gained none."""
    if not caps:
        return chunks
    limits = dict(caps)
    if share:
        available = Counter(chunk.lane for chunk in chunks)
        unused = {lane: max(0, cap - available[lane]) for lane, cap in caps.items()}
        limits = {lane: cap + sum(unused.values()) - unused[lane] for lane, cap in caps.items()}
    taken: dict[str, int] = {}
    kept = []
    for chunk in chunks:
        if taken.get(chunk.lane, 0) < limits.get(chunk.lane, len(chunks)):
            taken[chunk.lane] = taken.get(chunk.lane, 0) + 1
            kept.append(chunk)
    return kept


def chunks_retrieve(
    query: str,
    *,
    workspace: Workspace,
    jurisdictions: Sequence[str] = (),
    budget: Budget,
    extra_terms: str = "",
    index: ChunkIndex | None = None,
    analysis: QuestionAnalysis | None = None,
    documents: Collection[int] | None = None,
) -> RetrievalResult:
    """Retrieve, merge, dedupe and rerank the chunks of ``workspace`` for ``query``.

    ``jurisdictions``: target codes; empty means no filter. The LOCAL lane keeps local
    chunks whose jurisdiction is a target; the STATE lane keeps state/federal chunks whose
    jurisdiction is a target or above one (``US-OR-Rivergrove`` also draws ``US-OR`` and
    ``US``). With ``ENABLE_PARALLEL_STATE_LANE`` off, one search covers both.
    ``extra_terms`` (e.g. earlier turns' questions) widens the query. ``index``: the
    chunk index to search (default: :func:`retrieval.index.index_get`, ``CIQ_INDEX``).
    ``analysis``: the question's analysis; with it the lexical query is expanded with
    the lexicon's phrasings and candidates are reranked by :func:`answer_signal`.
    ``documents``: restrict the search to these document pks (a party or a named
    regulation, ``retrieval.places``); None searches every document.
    Returns chunks best first with ``rank`` set, and per-lane counts and top titles.
    Raises what the index raises (a dense index: ``ImproperlyConfigured`` without an
    embedder, ``EmbeddingError`` when the question cannot be embedded).
    """
    index = index or index_get()
    text = f"{query} {extra_terms}".strip()
    targets = set(jurisdictions)
    local_filter = targets or None
    state_filter = statewide_jurisdictions(targets) if targets else None
    depth = settings.RERANK_DEPTH if analysis is not None else 0
    if settings.ENABLE_PARALLEL_STATE_LANE:
        specs = [
            (max(budget.local_k, depth), local_filter, Lane.LOCAL),
            (max(budget.state_k, depth), state_filter, Lane.STATE),
        ]
        caps = {Lane.LOCAL.value: budget.local_cap, Lane.STATE.value: budget.state_cap}
    else:
        specs = [(max(budget.merged_cap, depth),
                  (local_filter or set()) | (state_filter or set()) or None, None)]
        caps = {}
    expansion = analysis.expansion_text() if analysis is not None else ""
    lane_hits = _run_lanes(index, text, workspace.pk, specs, documents=documents,
                           expansion=expansion)
    if analysis is None and not budget.share_caps:  # no rerank: the lanes are capped by the index's ranking
        lane_hits = [hits[:cap] for hits, cap in
                     zip(lane_hits, list(caps.values()) or [budget.merged_cap], strict=True)]

    all_hits = sorted((h for hits in lane_hits for h in hits), key=lambda h: -h.rank_score)
    rows = (
        Chunk.objects.filter(document__workspace=workspace)
        .select_related("document")
        .in_bulk([h.chunk_pk for h in all_hits])
    )
    terms = query_terms(text)
    topic_stems = [s for t in analysis.topic for a in t.alternatives for s in a] if analysis else []
    idf = index.idf(list(dict.fromkeys(terms + topic_stems)), workspace_id=workspace.pk)
    best = all_hits[0] if all_hits else None

    candidates: list[RetrievedChunk] = []
    for hit in all_hits:
        chunk = rows.get(hit.chunk_pk)
        if chunk is None:  # deleted between search and fetch
            continue
        doc = chunk.document
        coverage = term_coverage(terms, idf, f"{doc.title}\n{chunk.heading}\n{chunk.text}")
        similarity = hit_similarity(hit, coverage, best)
        if analysis is not None:
            signal = 0.0 if other_district(analysis, chunk.text) else answer_signal(
                analysis, chunk.text, context=f"{doc.title}\n{chunk.heading}", idf=idf, title=doc.title)
            similarity = (1 - ANSWER_WEIGHT) * similarity + ANSWER_WEIGHT * signal
        fresh = recency(doc.last_updated)
        candidates.append(
            RetrievedChunk(
                chunk_pk=chunk.pk, chunk_id=chunk.chunk_id, document_id=doc.pk,
                document_title=doc.title, citation_label=doc.citation_label,
                jurisdiction=chunk.jurisdiction, jurisdiction_level=doc.jurisdiction_level,
                lane=chunk.lane, heading=chunk.heading, text=chunk.text,
                char_start=chunk.char_start, char_end=chunk.char_end,
                page_start=chunk.page_start, page_end=chunk.page_end,
                last_updated=doc.last_updated, bm25=hit.bm25, similarity=round(similarity, 4),
                recency=fresh, score=round(rerank_score(similarity, fresh), 4),
                heading_path=tuple(chunk.heading_path or ()),
                sections=tuple((o, tuple(p)) for o, p in chunk.sections or ()),
            )
        )
    floor = MIN_RELATIVE_SIMILARITY * max((c.similarity for c in candidates), default=0.0)
    ranked = sorted((c for c in candidates if c.similarity >= floor and c.similarity > 0),
                    key=lambda c: (-c.score, -c.bm25))
    merged = _lane_capped(_dedupe(ranked), caps, share=budget.share_caps)[: budget.merged_cap]
    chosen = merged[: budget.keep]
    if analysis is not None:
        chosen = with_first_stage(chosen, _dedupe([c for c in candidates if c.similarity > 0]),
                                  keep=budget.keep, reserve=settings.FIRST_STAGE_RESERVE)
    kept = [RetrievedChunk(**{**c.__dict__, "rank": i}) for i, c in enumerate(chosen, 1)]
    lanes = {}
    for lane in (Lane.LOCAL, Lane.STATE):
        in_lane = [c for c in kept if c.lane == lane]
        lanes[str(lane)] = {
            "found": sum(1 for c in candidates if c.lane == lane),
            "kept": len(in_lane),
            "top_titles": list(dict.fromkeys(c.document_title for c in in_lane))[:3],
        }
    return RetrievalResult(chunks=kept, lanes=lanes, candidates=len(candidates), term_weights=idf)
