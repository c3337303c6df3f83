"""The lexical scale benchmark (issue 12): a workspace synthesised from an ingested one
holds exactly the chunks asked for, searchable, without touching the source's
statistics; ``manage.py loadtest_lexical`` prints the latency of each."""

import io
import json

import pytest
from django.core.management import call_command

from retrieval.fts import fts_idf
from retrieval.index import lexical_index
from retrieval.models import Chunk
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
