"""The citation side panel (issue 14, item 1): ``chunk-panel`` and the chunk page it
shares its data with. Scoped to the user's workspaces, readable for a deleted or
replaced document from the session's stored sources, never a 404 for a citation the
answer makes, and every document text escaped."""

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils.html import escape, strip_tags

from ciq.web.document_text import chunk_html
from retrieval.models import Chunk, Document
from retrieval.services import document_delete
from sessions.models import RunStatus, Turn
from sessions.services import session_ask
from verification.citations import cited_ids

pytestmark = pytest.mark.django_db

DOCK_QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def turn(demo_workspace, owner) -> Turn:
    turn = session_ask(workspace=demo_workspace, user=owner, question=DOCK_QUESTION,
                       jurisdictions=["US-OR-Rivergrove"])
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert cited_ids(turn.answer_markdown)
    return turn


@pytest.fixture
def chunk(turn) -> Chunk:
    """The answer's first cited chunk."""
    return Chunk.objects.select_related("document").get(
        document__workspace=turn.session.workspace, chunk_id=cited_ids(turn.answer_markdown)[0])


def panel_url(turn: Turn, chunk_id: str) -> str:
    return reverse("chunk-panel", args=[turn.session_id, chunk_id])


def test_it_shows_the_chunk_with_its_neighbours_the_outline_and_the_claims(client, owner, turn, chunk):
    client.force_login(owner)
    response = client.get(panel_url(turn, chunk.chunk_id))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-state="live"' in html and 'role="dialog"' not in html  # a fragment
    assert escape(chunk.document.title) in html
    assert '<blockquote class="chunk-text cited" data-role="cited-text">' in html and "<mark>" in html
    before = chunk.document.chunks.filter(ordinal=chunk.ordinal - 1).first()
    after = chunk.document.chunks.filter(ordinal=chunk.ordinal + 1).first()
    assert before or after
    for neighbour, role in ((before, "previous"), (after, "next")):
        if neighbour:
            assert f'data-role="{role}"' in html
            assert f'data-panel-chunk="{neighbour.chunk_id}"' in html
            # Rendered from its Markdown like the cited chunk, never raw "**" or "##".
            passage = html.split(f'data-role="{role}"', 1)[1].split("</div>\n</div>", 1)[0]
            words = " ".join(unescape(strip_tags(passage)).split())
            assert " ".join(re.sub(r"[#*]", "", neighbour.text[:200]).split()[:6]) in words
            assert "**" not in passage and "## " not in passage
    assert f'data-panel-chunk="{chunk.chunk_id}" aria-current="true"' in html  # the outline
    assert 'data-role="panel-claims"' in html and 'class="verdict verdict-' in html
    assert reverse("document", args=[chunk.document.pk]) in html


def test_a_member_of_the_workspace_may_open_it(client, member, turn, chunk):
    client.force_login(member)
    assert client.get(panel_url(turn, chunk.chunk_id)).status_code == 200


def test_a_user_of_another_firm_gets_404(client, outsider, turn, chunk):
    client.force_login(outsider)
    assert client.get(panel_url(turn, chunk.chunk_id)).status_code == 404
    assert client.get(reverse("chunk", args=[turn.session_id, chunk.chunk_id])).status_code == 404


def test_it_requires_login(client, turn, chunk):
    response = client.get(panel_url(turn, chunk.chunk_id))
    assert response.status_code == 302 and response.url.startswith("/login/")


def test_a_chunk_of_another_firm_is_not_shown_through_ones_own_session(client, owner, turn,
                                                                       other_workspace):
    document = Document.objects.create(workspace=other_workspace, title="Their memo", sha256="0" * 64,
                                       status=Document.Status.READY)
    Chunk.objects.create(document=document, chunk_id="fedcba987654", ordinal=0, text="Theirs.",
                         char_start=0, char_end=7, jurisdiction="private", lane="local")
    client.force_login(owner)
    assert client.get(panel_url(turn, "fedcba987654")).status_code == 404


def test_a_deleted_document_is_shown_from_the_stored_sources_marked_deleted(client, owner, turn, chunk):
    client.force_login(owner)
    text = chunk.text
    document_delete(document=chunk.document)
    response = client.get(panel_url(turn, chunk.chunk_id))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-state="deleted"' in html and 'data-role="deleted"' in html
    # The stored text, rendered from its Markdown (ciq.web.document_text).
    assert " ".join(strip_tags(chunk_html(text)).split())[:60] in " ".join(strip_tags(html).split())
    assert "Open the whole document" not in html  # nothing left to open
    page = client.get(reverse("chunk", args=[turn.session_id, chunk.chunk_id]))
    assert page.status_code == 200 and 'data-role="deleted"' in page.content.decode()


def test_a_replaced_chunk_is_marked_replaced(client, owner, turn, chunk):
    client.force_login(owner)
    chunk.delete()  # the document stays: a newer version no longer has this passage
    html = client.get(panel_url(turn, chunk.chunk_id)).content.decode()
    assert 'data-state="replaced"' in html and 'data-role="replaced"' in html


def test_a_citation_the_session_never_stored_opens_a_panel_not_a_404(client, owner, turn):
    """A model Writer may cite an id outside its context: the link still opens."""
    stray = "abcdefabcdef"
    Turn.objects.filter(pk=turn.pk).update(
        answer_markdown=turn.answer_markdown + f"\n\nA stray sentence [cite:{stray}].")
    client.force_login(owner)
    response = client.get(panel_url(turn, stray))
    assert response.status_code == 200 and 'data-state="missing"' in response.content.decode()
    page = client.get(reverse("chunk", args=[turn.session_id, stray]))
    assert page.status_code == 200 and "Source not available" in page.content.decode()
    # An id the session neither cites nor stored is no citation: 404 as before.
    assert client.get(panel_url(turn, "0" * 12)).status_code == 404


def test_a_hostile_chunk_text_is_escaped_live_and_deleted(client, owner, turn, chunk):
    client.force_login(owner)
    Chunk.objects.filter(pk=chunk.pk).update(text=f"Docks {HOSTILE} close at 9 pm.")
    neighbours = chunk.document.chunks.exclude(pk=chunk.pk)
    neighbours.update(text=f"Before {HOSTILE} after.", heading=f"Heading {HOSTILE}")
    html = client.get(panel_url(turn, chunk.chunk_id)).content.decode()
    assert "<img" not in html and escape(HOSTILE) in html
    # The stored snapshot too (a deleted document is read from it).
    turn.sources = [{**s, "text": f"{s['text']} {HOSTILE}", "heading": HOSTILE,
                     "document_title": f"Title {HOSTILE}"} for s in turn.sources]
    turn.save(update_fields=["sources"])
    document_delete(document=chunk.document)
    html = client.get(panel_url(turn, chunk.chunk_id)).content.decode()
    assert "<img" not in html and escape(HOSTILE) in html
    page = client.get(reverse("chunk", args=[turn.session_id, chunk.chunk_id])).content.decode()
    assert "<img" not in page and escape(HOSTILE) in page


def test_it_bounds_its_queries(client, owner, turn, chunk, django_assert_max_num_queries):
    client.force_login(owner)
    with django_assert_max_num_queries(12):
        assert client.get(panel_url(turn, chunk.chunk_id)).status_code == 200
