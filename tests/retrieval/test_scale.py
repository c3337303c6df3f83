"""The lexical scale benchmark (issue 12): a workspace synthesised from an ingested one
holds exactly the chunks asked for, searchable, without touching the source's
statistics; ``manage.py loadtest_lexical`` prints the latency of each, and with ``--peer``
CIQ's and bm25s's latency and recall on the same chunks."""

import importlib.util
import io
import json
import os

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from ciq.text import stem
from retrieval import index as index_module
from retrieval.fts import fts_idf, fts_row_count, fts_table
from retrieval.index import lexical_index, match_tokens
from retrieval.models import Chunk
from retrieval.peers import peer_text
from retrieval.scale import lexical_latency, workspace_synthesise

pytestmark = pytest.mark.django_db


def test_a_synthesised_workspace_holds_the_chunks_asked_for_and_leaves_the_source_alone(demo_workspace):
    before = fts_idf(["dock", "shall"], workspace_id=demo_workspace.pk)
    source = Chunk.objects.filter(document__workspace=demo_workspace).count()
    workspace, seconds = workspace_synthesise(source=demo_workspace, name="scale:test", chunks=source + 10)
    assert seconds > 0
    assert Chunk.objects.filter(document__workspace=workspace).count() == source + 10  # a second copy begun
    hits = lexical_index().search("How far may a dock extend into the river?", workspace_id=workspace.pk, k=5)
    assert hits and {Chunk.objects.get(pk=h.chunk_pk).document.workspace_id for h in hits} == {workspace.pk}
    assert fts_idf(["dock", "shall"], workspace_id=demo_workspace.pk) == before
    assert workspace_synthesise(source=demo_workspace, name="scale:test", chunks=source + 10)[1] == 0.0
    assert lexical_latency(workspace, ["dock", "sign permit fee"])["n"] == 2


def test_the_command_prints_a_row_per_workspace(demo_workspace, tmp_path):
    data = tmp_path / "questions.jsonl"
    data.write_text("\n".join(json.dumps({"question": q}) for q in ("dock width", "tree permit fee")))
    out = io.StringIO()
    call_command("loadtest_lexical", "--chunks", "500", "--source", "Demo", "--data", str(data), "--json",
                 stdout=out)
    rows = json.loads(out.getvalue())
    assert [(r["workspace"], r["chunks"]) for r in rows][0] == ("scale:500", 500)
    assert rows[-1]["workspace"] == "Demo" and all(r["latency"]["n"] == 2 for r in rows)


def test_common_terms_are_left_out_past_the_postings_budget():
    df = {stem("shall"): 900, stem("days"): 700, stem("dock"): 12, stem("piles"): 30}
    tokens = ["shall", "dock", "days", "piles", "kayak"]
    assert match_tokens(tokens, df, budget=10_000) == tokens  # within budget: every term
    # Rarest first, in the question's order; a term no chunk holds costs nothing.
    assert match_tokens(tokens, df, budget=100) == ["dock", "piles", "kayak"]
    assert match_tokens(["shall", "days", "kayak"], df, budget=100) == ["days", "kayak"]  # at least one held


def test_a_search_past_the_budget_still_ranks_the_chunks_of_the_rare_terms_first(demo_workspace, monkeypatch):
    question = "How far may a dock extend into the river, and what shall the owner do?"
    whole = lexical_index().search(question, workspace_id=demo_workspace.pk, k=5)
    monkeypatch.setattr(index_module, "MATCH_POSTINGS", 1)
    pruned = lexical_index().search(question, workspace_id=demo_workspace.pk, k=5)
    assert pruned and pruned[0].chunk_pk == whole[0].chunk_pk
    assert all("dock" in Chunk.objects.get(pk=h.chunk_pk).text.lower() for h in pruned)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="FTS5's averages record is SQLite's")
def test_the_row_count_read_from_fts5_equals_counting_the_rows(demo_workspace):
    table = fts_table(demo_workspace.pk)

    def counted():
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            return cursor.fetchone()[0]

    assert fts_row_count(demo_workspace.pk) == counted() > 0
    document = demo_workspace.documents.order_by("pk").first()
    document.delete()
    assert fts_row_count(demo_workspace.pk) == counted() > 0


BM25S_INSTALLED = importlib.util.find_spec("bm25s") is not None
# The extra "bench" is in requirements.lock: skipped where it is not installed, except on CI.
bm25s_peer = pytest.mark.skipif(not BM25S_INSTALLED and not os.environ.get("CI"),
                                reason="bm25s not installed (extra 'bench', requirements.lock)")
DOCKS = "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"


def test_a_peer_sees_title_and_heading_as_often_as_ciq_weighs_them():
    assert peer_text("Docks", "Width", "body").split("\n") == ["Docks"] * 3 + ["Width"] * 2 + ["body"]


@bm25s_peer
def test_the_peer_command_prints_ciq_and_bm25s_side_by_side(demo_workspace, tmp_path, samples_dir):
    items = [{"question": "How wide may a dock be in Rivergrove?", "doc_path": DOCKS,
              "gold_quote": "The dock shall not exceed 12 feet in width and 20 feet in length."},
             {"question": "tree removal permit fee", "doc_path": "nowhere.md", "gold_quote": "no such text"}]
    data = tmp_path / "questions.jsonl"
    data.write_text("\n".join(json.dumps(item) for item in items))
    out = io.StringIO()
    call_command("loadtest_lexical", "--peer", "bm25s", "--source", "Demo", "--data", str(data),
                 "--corpus", str(samples_dir), "--runs", "2", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["workspace"], report["questions"], report["peer"]) == ("Demo", 2, "bm25s")
    assert report["chunks"] == Chunk.objects.filter(document__workspace=demo_workspace).count()
    assert len(report["runs"]) == 2
    assert all(run[engine]["n"] == 2 for run in report["runs"] for engine in ("ciq", "peer"))
    for engine in ("ciq", "peer"):  # the dock question found, the other one cannot be
        assert report["recall"][engine]["span_recall@10"] == 0.5
        assert report["recall"][engine]["doc_recall@10"] == 0.5
    table = io.StringIO()
    call_command("loadtest_lexical", "--peer", "bm25s", "--source", "Demo", "--data", str(data),
                 "--corpus", str(samples_dir), "--runs", "1", stdout=table)
    assert "bm25s p50 ms" in table.getvalue() and "span recall@10" in table.getvalue()


def test_the_peer_command_measures_the_source_only(demo_workspace, tmp_path):
    data = tmp_path / "questions.jsonl"
    data.write_text(json.dumps({"question": "dock width"}))
    with pytest.raises(CommandError, match="leave out --chunks"):
        call_command("loadtest_lexical", "--peer", "bm25s", "--chunks", "500", "--source", "Demo",
                     "--data", str(data))
