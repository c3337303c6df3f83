"""Lexical search at firm scale (issue 12, "Load and scale benchmarks"): a workspace of N
chunks synthesised from an ingested one, and the lexical index's query latency on it.

Synthesis copies the source workspace's chunks (text, heading, jurisdiction, lane) into
a scratch workspace, document by document, copy after copy, until it holds N chunks,
writing the chunks and their lexical rows in batches: no file is read. A copy keeps its
document's title, so it holds the very text, heading and title of the chunk it copies,
and its lexical rows are that chunk's, copied set-based on PostgreSQL
(``retrieval.fts.fts_copy``; tokenizing each copy again wrote 215 chunks a second there,
so 1M took 80 minutes). Copies repeat the corpus's vocabulary, so document frequencies scale
with N and the postings a query reads grow as they would in a firm of that size.

:func:`lexical_peer_compare` measures the lexical index beside a peer engine
(``retrieval.peers``) on the same chunks and questions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction

from ciq.metrics import latency_summary
from ciq.models import Workspace
from retrieval.fts import fts_copy
from retrieval.index import lexical_index
from retrieval.models import Chunk, Document

SYNTHESIS_BATCH = 5_000  # chunks written per transaction


@dataclass
class ScalePoint:
    """One measured workspace: its ``chunks`` and ``documents``, the seconds its synthesis
    took (0.0 when it already existed), and the lexical query latency on it (``latency``:
    ``ciq.metrics.latency_summary`` of one search per question, ms)."""

    workspace: str
    chunks: int
    documents: int
    synthesis_seconds: float
    latency: dict


def workspace_synthesise(*, source: Workspace, name: str, chunks: int,
                         progress: Callable[[int], None] | None = None) -> tuple[Workspace, float]:
    """The workspace ``name`` holding ``chunks`` chunks copied from ``source``'s ready
    documents, and the seconds spent building it (0.0 when a workspace of that name
    already held exactly ``chunks`` chunks). A workspace of that name with another count
    is emptied first. ``progress`` gets the chunks written so far.

    Raises ``ValueError`` when ``source`` holds no chunk or ``chunks`` < 1."""
    if chunks < 1:
        raise ValueError("--chunks: give at least 1 chunk.")
    documents = list(Document.objects.filter(workspace=source, status=Document.Status.READY).order_by("pk"))
    rows: dict[int, list[Chunk]] = {d.pk: [] for d in documents}
    for chunk in Chunk.objects.filter(document__in=documents).order_by("document_id", "ordinal"):
        rows[chunk.document_id].append(chunk)
    if not any(rows.values()):
        raise ValueError(f"workspace {source.name!r} holds no chunk to copy.")
    workspace, _ = Workspace.objects.get_or_create(name=name)
    if Chunk.objects.filter(document__workspace=workspace).count() == chunks:
        return workspace, 0.0
    started = time.perf_counter()
    Document.objects.filter(workspace=workspace).delete()  # its lexical rows go with it
    written, batched, copy = 0, 0, 0
    pending: list[tuple[Document, list[Chunk]]] = []
    while written < chunks:
        for document in documents:
            take = rows[document.pk][: chunks - written]
            if not take:
                continue
            pending.append((_document_copy(document, workspace, copy), take))
            written += len(take)
            batched += len(take)
            if batched >= SYNTHESIS_BATCH or written >= chunks:
                _write(pending)
                pending, batched = [], 0
                if progress is not None:
                    progress(written)
            if written >= chunks:
                break
        copy += 1
    return workspace, time.perf_counter() - started


def _document_copy(document: Document, workspace: Workspace, copy: int) -> Document:
    return Document(
        workspace=workspace, title=document.title,
        source_path=f"scale/{copy + 1}/{document.source_path}", sha256=f"{copy:08x}{document.sha256[8:]}",
        mime=document.mime, size_bytes=document.size_bytes, jurisdiction=document.jurisdiction,
        jurisdiction_level=document.jurisdiction_level, lane=document.lane, source_type=document.source_type,
        citation_label=document.citation_label, last_updated=document.last_updated,
        status=Document.Status.READY,
    )


def _write(pending: Sequence[tuple[Document, list[Chunk]]]) -> None:
    """One transaction: the documents, their chunks and the chunks' lexical rows, each
    copy indexed as the chunk it copies."""
    with transaction.atomic():
        saved = Document.objects.bulk_create([d for d, _ in pending])
        pairs: list[tuple[int, int]] = []
        for document, (_, source_chunks) in zip(saved, pending, strict=True):
            created = Chunk.objects.bulk_create(
                [Chunk(document=document, chunk_id=c.chunk_id, ordinal=c.ordinal, text=c.text,
                       char_start=c.char_start, char_end=c.char_end, page_start=c.page_start,
                       page_end=c.page_end, heading=c.heading, heading_path=c.heading_path,
                       sections=c.sections, token_count=c.token_count, jurisdiction=c.jurisdiction,
                       lane=c.lane) for c in source_chunks],
                batch_size=1_000,
            )
            pairs += [(new.pk, old.pk) for new, old in zip(created, source_chunks, strict=True)]
        fts_copy(saved[0].workspace_id, pairs)


def lexical_latency(workspace: Workspace, questions: Sequence[str], *, k: int = 40) -> dict:
    """:func:`ciq.metrics.latency_summary` (ms) of one lexical search per question in
    ``workspace`` for its top ``k`` (the depth each lane reads before the rerank,
    ``RERANK_DEPTH``), after one unmeasured search that warms the caches."""
    index = lexical_index()
    if questions:
        index.search(questions[0], workspace_id=workspace.pk, k=k)
    times = []
    for question in questions:
        started = time.perf_counter()
        index.search(question, workspace_id=workspace.pk, k=k)
        times.append((time.perf_counter() - started) * 1000)
    return latency_summary(times)


def lexical_peer_compare(workspace: Workspace, items: Sequence[dict], peer, *,
                         paths: Mapping[int, str] | None = None, k: int = 40, runs: int = 3) -> dict:
    """CIQ's lexical index and ``peer`` (``retrieval.peers``) on the same ``workspace`` and
    questions (``items``, each with a ``question``), ``runs`` times over: per question the
    two search for its top ``k`` one right after the other, each going first on every
    other question, so that load from other processes hits both alike.

    Returns ``{"workspace", "chunks", "questions", "k", "peer", "peer_index_seconds",
    "runs": [{"ciq": latency, "peer": latency}], "recall": {"ciq": row, "peer": row} | None}``:
    latency as :func:`ciq.metrics.latency_summary` (ms), a recall row as
    :func:`retrieval.evaluation.recall_row` at 10 over each one's first run (None without
    ``paths``, document pk → corpus path, or when the items carry no ``doc_path``)."""
    from retrieval.evaluation import first_hits, recall_row

    index = lexical_index()
    questions = [item["question"] for item in items]

    def ciq(question: str) -> list[int]:
        return [hit.chunk_pk for hit in index.search(question, workspace_id=workspace.pk, k=k)]

    def other(question: str) -> list[int]:
        return peer.search(question, k=k)

    if questions:  # unmeasured: warm both caches
        ciq(questions[0]), other(questions[0])
    timings, ranked = [], {"ciq": [], "peer": []}
    for run in range(runs):
        ms: dict[str, list[float]] = {"ciq": [], "peer": []}
        for i, question in enumerate(questions):
            order = (("ciq", ciq), ("peer", other)) if i % 2 == 0 else (("peer", other), ("ciq", ciq))
            for name, search in order:
                started = time.perf_counter()
                found = search(question)
                ms[name].append((time.perf_counter() - started) * 1000)
                if run == 0:
                    ranked[name].append(found)
        timings.append({name: latency_summary(values) for name, values in ms.items()})
    recall = None
    if paths is not None and items and all("doc_path" in item for item in items):
        chunks = Chunk.objects.filter(document__workspace=workspace).in_bulk(
            {pk for found in ranked.values() for pks in found for pk in pks})
        recall = {name: recall_row([first_hits([chunks[pk] for pk in pks if pk in chunks], item, paths)
                                    for item, pks in zip(items, found, strict=True)], [10])
                  for name, found in ranked.items()}
    chunk_count = Chunk.objects.filter(document__workspace=workspace).count()
    return {"workspace": workspace.name, "chunks": chunk_count, "questions": len(questions), "k": k,
            "peer": peer.name, "peer_index_seconds": round(peer.seconds, 2), "runs": timings,
            "recall": recall}
