"""Lexical peers that ``manage.py loadtest_lexical --peer`` measures CIQ's lexical index
against (issue 12): the same workspace's chunks, the same questions, searched one after
the other per question so that the machine's load hits both alike.

``bm25s`` (Lù, "BM25S: Orders of magnitude faster lexical search via eager sparse
scoring", 2024; extra ``bench``): every term's BM25 score per chunk is computed at
indexing time and a query sums the columns of a sparse matrix in numpy. Set up as close
to CIQ's index as it goes: k1 = 1.2, b = 0.75 (FTS5's), one text per chunk with the
document title and the heading repeated as often as CIQ weighs them
(``retrieval.index.COLUMN_WEIGHTS``: title 3, heading 2, text 1), bm25s's English
stopwords and the Snowball English stemmer (the algorithm of bm25s's recommended
PyStemmer, from ``snowballstemmer``, which CIQ already has).
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Sequence

import snowballstemmer

from ciq.models import Workspace
from retrieval.index import COLUMN_WEIGHTS
from retrieval.models import Chunk

# Peers by name (``loadtest_lexical --peer``).
PEERS = ("bm25s",)


def peer_text(title: str, heading: str, text: str) -> str:
    """One chunk as a single field: title and heading repeated by their column weight."""
    text_weight, heading_weight, title_weight = (int(w) for w in COLUMN_WEIGHTS)
    return "\n".join([title] * title_weight + [heading] * heading_weight + [text] * text_weight)


class Bm25sPeer:
    """A bm25s index of one workspace's chunks (module docstring); ``seconds`` is the time
    its build took. Raises ``ImportError`` when bm25s is not installed (extra ``bench``)."""

    name = "bm25s"

    def __init__(self, workspace: Workspace):
        import bm25s  # the optional extra: imported only when a benchmark asks for it

        self._bm25s = bm25s
        self._stemmer = snowballstemmer.stemmer("english")
        started = time.perf_counter()
        rows = (Chunk.objects.filter(document__workspace=workspace).order_by("pk")
                .values_list("pk", "document__title", "heading", "text"))
        self.pks: list[int] = []
        texts = []
        for pk, title, heading, text in rows.iterator(chunk_size=2_000):
            self.pks.append(pk)
            texts.append(peer_text(title, heading, text))
        self._retriever = bm25s.BM25(k1=1.2, b=0.75)
        if texts:
            with contextlib.redirect_stdout(io.StringIO()):  # it prints "Building index from IDs objects"
                self._retriever.index(self._tokens(texts), show_progress=False)
        self.seconds = time.perf_counter() - started

    def _tokens(self, texts: Sequence[str]):
        return self._bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer, show_progress=False)

    def search(self, query: str, *, k: int) -> list[int]:
        """Chunk pks of the top ``k`` chunks for ``query``, best first (chunks of score 0,
        which hold no query term, left out)."""
        if not self.pks:
            return []
        found, scores = self._retriever.retrieve(self._tokens([query]), k=min(k, len(self.pks)),
                                                 show_progress=False, n_threads=1)
        return [self.pks[i] for i, score in zip(found[0], scores[0], strict=True) if score > 0]


def peer_get(name: str, workspace: Workspace) -> Bm25sPeer:
    """The peer ``name`` (one of :data:`PEERS`) indexed over ``workspace``'s chunks.
    Raises ``ValueError`` for an unknown name, ``ImportError`` when it is not installed."""
    if name != "bm25s":
        raise ValueError(f"--peer {name!r}: choose one of {', '.join(PEERS)}.")
    return Bm25sPeer(workspace)
