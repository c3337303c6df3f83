"""``evaluate retrieval``: recall@k, MRR and latency of the two-lane retriever on a
labelled question set (format of ``shared/bench/retrieval_dev.jsonl``, see its README).

A *document hit* is a retrieved chunk of the gold document. A *span hit* is a retrieved
chunk of the gold document that overlaps a gold span (``gold_spans``, character offsets
into the file as Python reads it), or that contains the gold quote when both are
compared with whitespace collapsed (the rule for HTML, where spans are null).
MRR is the mean over questions of 1 / rank of the first span hit (0 if none in the top
max-k), as in Voorhees (1999), TREC-8 QA.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ciq.metrics import latency_summary, mean
from ciq.models import Workspace
from ciq.services import workspace_get_or_create
from retrieval.embedders import embedder_require
from retrieval.index import DENSE_INDEXES, index_get
from retrieval.models import Chunk, Document
from retrieval.search import Budget, RetrievedChunk, chunks_retrieve
from retrieval.services import documents_ingest, workspace_embed

# Retrievers ``evaluate retrieval --retriever`` compares on the same data.
RETRIEVERS = ("lexical", "dense", "hybrid")

_WS_RE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace runs → one space, trimmed."""
    return _WS_RE.sub(" ", text).strip()


def load_jsonl(path: Path) -> list[dict]:
    """Items of a JSON Lines file. Raises ``ValueError`` naming the bad line."""
    items = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: not JSON ({exc.msg}).") from None
    return items


def corpus_workspace(corpus: Path, *, name: str | None = None) -> tuple[Workspace, dict]:
    """Ingest ``corpus`` (with its ``manifest.csv`` if present) into a scratch workspace
    named ``eval:<folder>`` (idempotent: unchanged files are skipped).
    Returns the workspace and the ingest summary as a dict."""
    workspace = workspace_get_or_create(name=name or f"eval:{corpus.resolve().name}")
    manifest = corpus / "manifest.csv"
    summary = documents_ingest(
        workspace=workspace, paths=[corpus], manifest=manifest if manifest.exists() else None
    )
    return workspace, {
        "documents": summary.documents, "created": summary.created,
        "unchanged": summary.unchanged, "failed": summary.failed, "chunks": summary.chunks,
        "seconds": round(summary.seconds, 2),
    }


def document_paths(workspace: Workspace, corpus: Path) -> dict[int, str]:
    """Document pk → path relative to ``corpus`` (posix), for matching ``doc_path``."""
    root = str(corpus.resolve())
    paths = {}
    for pk, source in Document.objects.filter(workspace=workspace).values_list("pk", "source_path"):
        rel = source[len(root) + 1:] if source.startswith(root + "/") else source
        paths[pk] = rel
    return paths


def is_span_hit(chunk: RetrievedChunk | Chunk, item: dict) -> bool:
    """Whether ``chunk`` (already known to be from the gold document) holds gold text."""
    for start, end in item.get("gold_spans") or []:
        if chunk.char_start < end and start < chunk.char_end:
            return True
    quotes = item.get("gold_quotes") or [item["gold_quote"]]
    text = collapse(chunk.text)
    return any(collapse(q) in text for q in quotes if q)


def first_hits(chunks: Sequence[RetrievedChunk | Chunk], item: dict,
               paths: Mapping[int, str]) -> dict[str, int | None]:
    """Ranks (from 1) of the first chunk of the gold document (``doc_rank``) and of the
    first span hit (``span_rank``, :func:`is_span_hit`) in ``chunks``, best first; None
    when there is none. ``paths``: document pk → path relative to the corpus
    (:func:`document_paths`)."""
    doc_ranks = [i for i, c in enumerate(chunks, 1) if paths.get(c.document_id) == item["doc_path"]]
    span_ranks = [i for i in doc_ranks if is_span_hit(chunks[i - 1], item)]
    return {"doc_rank": doc_ranks[0] if doc_ranks else None,
            "span_rank": span_ranks[0] if span_ranks else None}


def recall_row(records: Sequence[dict], ks: Sequence[int]) -> dict:
    """``n``, ``doc_recall@k`` and ``span_recall@k`` (in [0, 1]) for each of ``ks``, ``mrr``
    and ``doc_mrr`` of ``records`` (each with the ranks of :func:`first_hits`)."""
    row: dict = {"n": len(records)}
    for k in ks:
        row[f"doc_recall@{k}"] = round(mean([r["doc_rank"] is not None and r["doc_rank"] <= k
                                             for r in records]), 4)
        row[f"span_recall@{k}"] = round(mean([r["span_rank"] is not None and r["span_rank"] <= k
                                              for r in records]), 4)
    row["mrr"] = round(mean([1 / r["span_rank"] if r["span_rank"] else 0.0 for r in records]), 4)
    row["doc_mrr"] = round(mean([1 / r["doc_rank"] if r["doc_rank"] else 0.0 for r in records]), 4)
    return row


def holds_gold(chunk_text: str, quotes: list[str]) -> bool:
    """Whether a chunk holds a gold quote (whitespace collapsed), or, for a quote cut by a
    chunk boundary, its first or second half (each at least 40 characters)."""
    text = collapse(chunk_text)
    for quote in quotes:
        q = collapse(quote)
        half = len(q) // 2
        if q in text or (half >= 40 and (q[:half] in text or q[half:] in text)):
            return True
    return False


def evaluate_user_retrieval(
    *, data: Path, corpus: Path, retriever: str = "lexical", routing: bool = True,
    rerank: bool = True, workspace_name: str | None = None,
) -> dict:
    """Retrieval as a turn does it for the answerable items of a user-question file
    (``user_questions_dev.jsonl`` format): the Answer budget (6 chunks kept), no
    jurisdiction flag, with the question's routing (places, acts, parties) and its
    analysis (query expansion and answer-signal rerank) unless switched off, so each
    step's gain can be measured. A hit: a kept chunk of ``doc_path`` holding a gold
    quote. Returns ``{"groups": {"overall": {"all": row}, "kind": {...}}}``, a row with
    ``n``, ``gold_in_context``, ``gold_at_1``, ``gold_at_3``, ``mrr`` and latency."""
    from retrieval.plan import question_plan

    items = [i for i in load_jsonl(data) if i.get("answerable")]
    if retriever in DENSE_INDEXES:
        embedder_require()
    workspace, ingest = corpus_workspace(corpus, name=workspace_name)
    if retriever in DENSE_INDEXES:
        workspace_embed(workspace=workspace)
    index = index_get(retriever)
    paths = document_paths(workspace, corpus)
    budget = Budget.for_mode("answer")
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in items:
        started = time.perf_counter()
        analysis, route = question_plan(item["question"], workspace=workspace, routing=routing,
                                        analysis=rerank)
        result = chunks_retrieve(
            item["question"], workspace=workspace, budget=budget, index=index, analysis=analysis,
            jurisdictions=route.targets, documents=route.documents or None,
        )
        ms = (time.perf_counter() - started) * 1000
        ranks = [i for i, c in enumerate(result.chunks, 1) if paths.get(c.document_id) == item["doc_path"]
                 and holds_gold(c.text, item.get("gold_quotes") or [])]
        record = {"rank": ranks[0] if ranks else None, "ms": ms}
        rows[("overall", "all")].append(record)
        rows[("kind", item.get("kind", "other"))].append(record)
    groups: dict[str, dict[str, dict]] = {"overall": {}, "kind": {}}
    for (kind, name), records in sorted(rows.items()):
        groups[kind][name] = {
            "n": len(records),
            "gold_in_context": round(mean([r["rank"] is not None for r in records]), 4),
            "gold_at_1": round(mean([r["rank"] == 1 for r in records]), 4),
            "gold_at_3": round(mean([r["rank"] is not None and r["rank"] <= 3 for r in records]), 4),
            "mrr": round(mean([1 / r["rank"] if r["rank"] else 0.0 for r in records]), 4),
            **latency_summary([r["ms"] for r in records]),
        }
    return {"data": str(data), "corpus": str(corpus), "retriever": retriever, "ingest": ingest,
            "routing": routing, "rerank": rerank, "groups": groups}


def group_keys(item: dict) -> Iterable[tuple[str, str]]:
    """The report groups an item counts in: overall, its source, its jurisdictions."""
    yield "overall", "all"
    yield "source", item.get("source", "all")
    yield "jurisdiction", ",".join(item.get("jurisdictions") or []) or "none"


def evaluate_retrieval(
    *, data: Path, corpus: Path, ks: list[int], workspace_name: str | None = None,
    retriever: str = "lexical",
) -> dict:
    """Run every question of ``data`` against ``corpus`` with ``retriever`` (one of
    :data:`RETRIEVERS`; dense and hybrid use ``CIQ_EMBEDDER``) and report recall@k and MRR.

    Returns ``{"retriever": ..., "ingest": {...}, "ks": [...], "groups": {"overall":
    {"all": row}, "source": {...}, "jurisdiction": {...}}}`` where a row holds ``n``,
    ``doc_recall@k``, ``span_recall@k`` (in [0, 1]), ``mrr``, ``doc_mrr`` and latency
    (median, p95 ms; for dense and hybrid it includes embedding the question). For dense
    and hybrid the corpus's chunks without a vector are embedded first;
    ``ingest["embedding"]`` gives the model, chunks embedded now and seconds.
    Raises ``ValueError`` for a malformed data file or an unknown retriever,
    ``ImproperlyConfigured`` for dense or hybrid without an embedder.
    """
    if retriever not in RETRIEVERS:
        raise ValueError(f"retriever {retriever!r}: choose one of {', '.join(RETRIEVERS)}.")
    items = load_jsonl(data)
    if retriever in DENSE_INDEXES:
        embedder_require()  # before the corpus is ingested
    workspace, ingest = corpus_workspace(corpus, name=workspace_name)
    if retriever in DENSE_INDEXES:
        embedded = workspace_embed(workspace=workspace)
        ingest["embedding"] = {"model": embedded.model, "embedded": embedded.embedded,
                               "vectors": embedded.vectors, "seconds": round(embedded.seconds, 2)}
    index = index_get(retriever)
    paths = document_paths(workspace, corpus)
    max_k = max(ks)
    budget = Budget.flat(max_k)
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in items:
        started = time.perf_counter()
        result = chunks_retrieve(
            item["question"], workspace=workspace,
            jurisdictions=item.get("jurisdictions") or [], budget=budget, index=index,
        )
        ms = (time.perf_counter() - started) * 1000
        record = {**first_hits(result.chunks, item, paths), "ms": ms}
        for key in group_keys(item):
            rows[key].append(record)

    groups: dict[str, dict[str, dict]] = {kind: {} for kind, _ in group_keys({})}
    for (kind, name), records in sorted(rows.items()):
        row = recall_row(records, ks)
        row.update(latency_summary([r["ms"] for r in records]))
        groups[kind][name] = row
    return {"data": str(data), "corpus": str(corpus), "retriever": retriever, "ingest": ingest,
            "ks": ks, "groups": dict(groups)}
