"""FTS5's bm25() computed in memory (``retrieval.fts_memory``, issue 12): the same
rows, scores and order as FTS5's own ranking, the same search results with and without
it, and a table written since is read anew."""

import pytest
from django.db import connection

from retrieval import fts_memory
from retrieval import index as index_module
from retrieval.fts import fts_add, fts_table
from retrieval.index import COLUMN_WEIGHTS, lexical_index, query_tokens
from retrieval.models import Chunk, Lane

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite index's ranking"),
]

QUESTIONS = [
    "How far may a dock extend into the river, and what shall the owner do?",
    "What permits are needed to remove a tree in Rivergrove?",
    "Does the agreement allow the Receiving Party to share Confidential Information with employees?",
    "What does a state need to apply for an exemption from the Fair Debt Collection Practices Act?",
    "sign height setback fee penalty notice",
]


def fts5_ranking(workspace_id, words):
    """Every matching row and its score, best first, as FTS5 ranks them."""
    table = fts_table(workspace_id)
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid, -bm25({table}, {weights}) AS score FROM {table} "
                       f"WHERE {table} MATCH %s ORDER BY score DESC", [index_module.match_expression(words)])
        return cursor.fetchall()


def in_memory(workspace_id, words):
    rowids, scores = fts_memory.ranked(workspace_id, fts_table(workspace_id), words, COLUMN_WEIGHTS)
    return list(zip(rowids.tolist(), scores.tolist(), strict=True))


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_ranking_in_memory_is_fts5s_to_the_bit(demo_workspace, question):
    words = query_tokens(question)
    expected = fts5_ranking(demo_workspace.pk, words)
    assert expected and in_memory(demo_workspace.pk, words) == expected  # rows, order, scores


def test_a_word_repeated_as_another_phrase_counts_twice_as_in_fts5(demo_workspace):
    words = ["dock", "docks", "river"]  # "docks" is the term "dock" again: a second phrase
    assert in_memory(demo_workspace.pk, words) == fts5_ranking(demo_workspace.pk, words)


def test_a_word_of_several_terms_is_left_to_fts5(demo_workspace):
    assert fts_memory.fts_terms("r-1a") == ("r", "1a")
    assert fts_memory.ranked(demo_workspace.pk, fts_table(demo_workspace.pk), ["dock", "r-1a"],
                             COLUMN_WEIGHTS) is None
    hits = lexical_index().search("What is the lot width in R-1A?", workspace_id=demo_workspace.pk, k=5)
    assert hits  # FTS5 ranked it


def test_the_document_frequencies_are_the_vocabularys(demo_workspace):
    table = fts_table(demo_workspace.pk)
    terms = ["dock", "shall", "tree", "kayakzz"]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT term, doc FROM {table}_vocab WHERE term IN (%s, %s, %s, %s)", terms)
        expected = dict(cursor.fetchall())
    assert fts_memory.document_frequencies(demo_workspace.pk, table, terms, COLUMN_WEIGHTS) == expected


def search_scopes(demo_workspace):
    documents = list(demo_workspace.documents.order_by("pk").values_list("pk", flat=True)[:3])
    return [{}, {"lane": Lane.LOCAL}, {"lane": Lane.STATE, "jurisdictions": {"US", "US-OR"}},
            {"jurisdictions": {"US-OR-Rivergrove"}}, {"documents": documents}]


@pytest.mark.parametrize("question", QUESTIONS)
def test_search_results_are_the_same_with_and_without_it(demo_workspace, monkeypatch, question):
    index = lexical_index()
    with_memory = [index.search(question, workspace_id=demo_workspace.pk, k=k, **scope)
                   for scope in search_scopes(demo_workspace) for k in (1, 10, 40)]
    monkeypatch.setattr(fts_memory, "ranked", lambda *args: None)
    monkeypatch.setattr(fts_memory, "document_frequencies", lambda *args: None)
    with_fts5 = [index.search(question, workspace_id=demo_workspace.pk, k=k, **scope)
                 for scope in search_scopes(demo_workspace) for k in (1, 10, 40)]
    assert with_memory == with_fts5 and any(with_fts5)


def test_only_the_workspaces_chunks_are_returned(demo_workspace, other_workspace):
    # A row of another workspace's chunk in this workspace's table (it cannot get there
    # through retrieval.fts): the join to the chunks keeps it out, as FTS5's query does.
    stranger = Chunk.objects.exclude(document__workspace=demo_workspace).order_by("pk").first()
    if stranger is None:
        from retrieval.models import Document

        document = Document.objects.create(workspace=other_workspace, title="Other", source_path="o.md",
                                           sha256="0" * 64, status=Document.Status.READY)
        stranger = Chunk.objects.create(document=document, chunk_id="0" * 12, ordinal=0, text="dock",
                                        char_start=0, char_end=4)
    fts_add(demo_workspace.pk, [(stranger.pk, "dock dock dock dock river", "Docks", "Docks")])
    hits = lexical_index().search("dock river", workspace_id=demo_workspace.pk, k=40)
    assert hits and stranger.pk not in {h.chunk_pk for h in hits}
    found = Chunk.objects.filter(pk__in=[h.chunk_pk for h in hits], document__workspace=demo_workspace)
    assert found.count() == len(hits)


@pytest.fixture
def committed_docks(monkeypatch, samples_dir):
    """A workspace holding the Rivergrove docks ordinance, committed (for tests marked
    ``transaction=True``), with nothing held in memory yet."""
    from ciq.services import workspace_get_or_create
    from retrieval.services import documents_ingest

    monkeypatch.setattr(fts_memory, "_workspaces", fts_memory.OrderedDict())
    workspace = workspace_get_or_create(name="Held")
    documents_ingest(workspace=workspace, paths=[
        samples_dir / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"])
    return workspace


@pytest.mark.django_db(transaction=True)
def test_what_is_held_is_read_anew_after_a_committed_write(committed_docks):
    workspace = committed_docks
    table = fts_table(workspace.pk)
    assert in_memory(workspace.pk, ["dock", "zebra"]) == fts5_ranking(workspace.pk, ["dock", "zebra"])
    held = fts_memory._workspaces[workspace.pk]
    in_memory(workspace.pk, ["river"])
    assert fts_memory._workspaces[workspace.pk] is held  # unchanged table: kept
    # A write committed by another process (not through retrieval.fts: nothing forgotten here).
    chunk = Chunk.objects.filter(document__workspace=workspace).order_by("pk").last()
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET text = text || ' zebra' WHERE rowid = %s", [chunk.pk])
    after = in_memory(workspace.pk, ["dock", "zebra"])
    assert fts_memory._workspaces[workspace.pk] is not held
    assert after[0][0] == chunk.pk and after == fts5_ranking(workspace.pk, ["dock", "zebra"])
    # A write through retrieval.fts forgets the workspace at once, committed or not.
    fts_add(workspace.pk, [])
    assert workspace.pk not in fts_memory._workspaces


def test_nothing_read_inside_a_transaction_is_kept(demo_workspace, monkeypatch):
    monkeypatch.setattr(fts_memory, "_workspaces", fts_memory.OrderedDict())
    assert connection.in_atomic_block  # the test's transaction
    assert in_memory(demo_workspace.pk, ["dock"]) == fts5_ranking(demo_workspace.pk, ["dock"])
    assert demo_workspace.pk not in fts_memory._workspaces


def test_a_workspace_larger_than_the_limit_is_ranked_by_fts5(demo_workspace, monkeypatch):
    monkeypatch.setattr(fts_memory, "MEMORY_MAX_CHUNKS", 1)
    table = fts_table(demo_workspace.pk)
    assert fts_memory.ranked(demo_workspace.pk, table, ["dock"], COLUMN_WEIGHTS) is None
    assert lexical_index().search("dock", workspace_id=demo_workspace.pk, k=3)


@pytest.mark.django_db(transaction=True)
def test_a_search_inside_a_transaction_adds_nothing_to_what_is_held(committed_docks):
    from django.db import transaction

    workspace = committed_docks
    in_memory(workspace.pk, ["dock"])
    held = fts_memory._workspaces[workspace.pk]
    # Read in another thread's (or this one's) transaction, a term's column may hold writes
    # that are rolled back: it must not reach what every other search shares.
    with transaction.atomic():
        assert in_memory(workspace.pk, ["river"]) == fts5_ranking(workspace.pk, ["river"])
    assert fts_memory._workspaces[workspace.pk] is held and "river" not in held.terms


def test_what_is_held_of_a_workspace_stays_within_its_byte_budget(demo_workspace, monkeypatch):
    monkeypatch.setattr(fts_memory, "_workspaces", fts_memory.OrderedDict())
    table = fts_table(demo_workspace.pk)
    held = fts_memory._current(demo_workspace.pk, table, tuple(float(w) for w in COLUMN_WEIGHTS))
    positions, scores = fts_memory._term(held, table, "dock")
    monkeypatch.setattr(fts_memory, "MEMORY_BYTES", positions.nbytes + scores.nbytes)
    river = fts_memory._term(held, table, "river")  # over budget: what was held is dropped first
    assert list(held.terms) == ["river"] and held.nbytes == river[0].nbytes + river[1].nbytes
    assert in_memory(demo_workspace.pk, ["dock"]) == fts5_ranking(demo_workspace.pk, ["dock"])
