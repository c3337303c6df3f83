"""The documents pages (issue 14, "Documents:" findings): a document's text rendered
from Markdown and sanitised, its chunks paged with an outline that links to the right
page, and the upload's messages naming its files."""

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from ciq.web.document_text import chunk_html
from ciq.web.selectors import CHUNKS_PER_PAGE
from retrieval.models import Chunk, Document

pytestmark = pytest.mark.django_db

DOCKS_TITLE = "City of Rivergrove Ordinance No. 88-2017 — Docks (2017)"
LONG_TITLE = "Ray County, Missouri — Planning & Zoning Regulations (2005)"


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


@pytest.fixture
def docks(demo_workspace) -> Document:
    return demo_workspace.documents.get(title=DOCKS_TITLE)


@pytest.fixture
def long_document(demo_workspace) -> Document:
    document = demo_workspace.documents.get(title=LONG_TITLE)
    assert document.chunks.count() > 10 * CHUNKS_PER_PAGE  # 378 chunks
    return document


def chunk_ids_shown(html: str) -> list[str]:
    return re.findall(r'<li id="chunk-([0-9a-f]+)"', html)


# --- Markdown, sanitised --------------------------------------------------------------

def test_the_document_page_renders_markdown_instead_of_showing_its_marks(owner_client, docks):
    chunk = docks.chunks.filter(text__contains="**").order_by("ordinal").first()
    assert chunk is not None
    html = owner_client.get(reverse("document", args=[docks.pk]), {"chunk": chunk.chunk_id}).content.decode()
    shown = html.split('<ol class="chunks"', 1)[1]
    assert "<strong>" in shown and "**" not in shown
    assert '<div class="doc-text">' in shown


def test_hostile_document_text_is_shown_as_text_never_live(owner_client, docks):
    Chunk.objects.filter(document=docks, ordinal=0).update(text=(
        "## Heading <script>alert(1)</script>\n\n"
        "[click](javascript:alert(1)) <img src=x onerror=alert(2)> "
        "![pixel](https://tracker.example/p.png) [site](https://example.org/a)"))
    html = owner_client.get(reverse("document", args=[docks.pk])).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "tracker.example/p.png" in html
    assert 'src="https://tracker.example' not in html
    assert 'href="javascript' not in html.lower()
    assert '<a href="https://example.org/a" rel="nofollow noopener noreferrer">site</a>' in html


def test_chunk_html_marks_snippets_across_markdown_and_stays_balanced():
    html = chunk_html("## Docks\n\n**d.** The dock *must* have a permit.", snippets=["d.** The dock *must"])
    assert "<h4>Docks</h4>" in html
    assert "<strong><mark>d.</mark></strong><mark> The dock </mark><em><mark>must</mark></em> have" in html
    assert chunk_html("") == ""


def test_an_indented_line_of_a_plain_text_document_is_a_paragraph_not_code():
    html = chunk_html("        A.         Conflict with State Regulations\nThe stricter provision controls.")
    assert "<pre" not in html and "<code" not in html
    assert "A.         Conflict with State Regulations<br />" in html


def test_the_chunk_page_renders_markdown_the_same_way(owner_client, owner, demo_workspace, docks):
    from sessions.services import session_ask

    turn = session_ask(workspace=demo_workspace, user=owner, question="What permits does a dock need?",
                       jurisdictions=["US-OR-Rivergrove"])
    chunk = Chunk.objects.filter(document=docks, chunk_id=turn.sources[0]["chunk_id"]).first() \
        or Chunk.objects.get(chunk_id=turn.sources[0]["chunk_id"], document__workspace=demo_workspace)
    Chunk.objects.filter(pk=chunk.pk).update(text=chunk.text + "\n\n**Bold rule** <script>x</script>")
    html = owner_client.get(reverse("chunk", args=[turn.session_id, chunk.chunk_id])).content.decode()
    cited = html.split('data-role="cited-text"', 1)[1].split("</section>", 1)[0]
    assert "<strong>Bold rule</strong>" in cited and "**" not in cited and "<script>x" not in cited
    whole = reverse("document", args=[chunk.document_id]) + f"?chunk={chunk.chunk_id}#chunk-{chunk.chunk_id}"
    assert whole in html
    assert chunk.chunk_id in chunk_ids_shown(owner_client.get(whole).content.decode())


# --- paging and the outline -------------------------------------------------------------

def test_a_long_document_shows_its_chunks_a_page_at_a_time(owner_client, long_document):
    url = reverse("document", args=[long_document.pk])
    ordered = list(long_document.chunks.order_by("ordinal").values_list("chunk_id", flat=True))
    html = owner_client.get(url).content.decode()
    assert chunk_ids_shown(html) == ordered[:CHUNKS_PER_PAGE]
    assert f"Chunks ({len(ordered)})" in html and 'rel="next"' in html
    second = owner_client.get(url, {"page": 2}).content.decode()
    assert chunk_ids_shown(second) == ordered[CHUNKS_PER_PAGE:2 * CHUNKS_PER_PAGE]
    assert 'aria-current="page">2<' in second


def test_a_chunk_link_opens_the_page_holding_that_chunk(owner_client, long_document):
    url = reverse("document", args=[long_document.pk])
    late = long_document.chunks.order_by("ordinal")[300]
    html = owner_client.get(url, {"chunk": late.chunk_id.upper()}).content.decode()
    assert late.chunk_id in chunk_ids_shown(html)
    assert f'aria-current="page">{300 // CHUNKS_PER_PAGE + 1}<' in html
    # An unknown chunk or page number opens a valid page rather than failing.
    assert owner_client.get(url, {"chunk": "000000000000"}).status_code == 200
    assert chunk_ids_shown(owner_client.get(url, {"page": 999}).content.decode())


def test_the_outline_links_each_heading_to_its_page_and_folds_a_long_list(owner_client, long_document):
    html = owner_client.get(reverse("document", args=[long_document.pk])).content.decode()
    outline = html.split('data-role="outline"', 1)[1].split("</nav>", 1)[0]
    late = long_document.chunks.exclude(heading="").order_by("ordinal").last()
    page = (long_document.chunks.filter(ordinal__lt=late.ordinal).count()) // CHUNKS_PER_PAGE + 1
    # The late heading may repeat an earlier one; its link is the first of its run.
    assert f'href="?page={page}#chunk-' in outline
    shown, folded = outline.split('data-role="outline-more"', 1)
    assert shown.count("<li>") == 20 and folded.count("<li>") > 100
    assert "Show all" in folded


def test_the_document_page_bounds_its_queries(owner_client, long_document, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        response = owner_client.get(reverse("document", args=[long_document.pk]), {"page": 3})
    assert response.status_code == 200


def test_an_outsider_gets_404_on_a_document_page_and_its_chunk_link(client, outsider, docks):
    client.force_login(outsider)
    url = reverse("document", args=[docks.pk])
    assert client.get(url).status_code == 404
    assert client.get(url, {"chunk": docks.chunks.first().chunk_id}).status_code == 404


def test_a_member_reads_a_document_page(client, member, docks):
    client.force_login(member)
    assert client.get(reverse("document", args=[docks.pk])).status_code == 200


# --- uploads ----------------------------------------------------------------------------

def test_the_upload_message_names_every_file(owner_client, owner, other_workspace, samples_dir,
                                             django_capture_on_commit_callbacks):
    from ciq.services import membership_add

    membership_add(user=owner, workspace=other_workspace)
    folder = samples_dir / "municipal/us-or-rivergrove/ordinances"
    files = [SimpleUploadedFile(p.name, p.read_bytes(), content_type="text/markdown")
             for p in (folder / "2017-Ord-88-2017-Docks.md", folder / "1987-Ord-52-Flood.md")]
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(reverse("documents", args=[other_workspace.pk]), {
            "files": files, "jurisdiction": "US-OR-Rivergrove", "jurisdiction_level": "municipal",
        }, follow=True)
    html = response.content.decode()
    assert "Uploaded “2017-Ord-88-2017-Docks.md”, “1987-Ord-52-Flood.md”" in html
    assert "file(s) uploaded" not in html


def two_ordinances(samples_dir):
    folder = samples_dir / "municipal/us-or-rivergrove/ordinances"
    return [SimpleUploadedFile(p.name, p.read_bytes(), content_type="text/markdown")
            for p in (folder / "2017-Ord-88-2017-Docks.md", folder / "1987-Ord-52-Flood.md")]


def test_each_file_of_an_upload_can_have_its_own_metadata(owner_client, owner, other_workspace, samples_dir,
                                                          django_capture_on_commit_callbacks):
    from ciq.services import membership_add

    membership_add(user=owner, workspace=other_workspace)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(reverse("documents", args=[other_workspace.pk]), {
            "files": two_ordinances(samples_dir), "jurisdiction": "US-OR-Rivergrove",
            "jurisdiction_level": "municipal", "source_type": "ordinance",
            "per_file_name": ["2017-Ord-88-2017-Docks.md", "1987-Ord-52-Flood.md"],
            "per_file_title": ["Docks ordinance", ""],
            "per_file_jurisdiction": ["", "US-OR"],
            "per_file_level": ["", "state"],
            "per_file_citation": ["Ord. 88-2017", ""],
        })
    assert response.status_code == 302
    docks = other_workspace.documents.get(source_path="upload/2017-Ord-88-2017-Docks.md")
    flood = other_workspace.documents.get(source_path="upload/1987-Ord-52-Flood.md")
    assert (docks.title, docks.jurisdiction, docks.jurisdiction_level, docks.citation_label) == (
        "Docks ordinance", "US-OR-Rivergrove", "municipal", "Ord. 88-2017")
    assert (flood.jurisdiction, flood.jurisdiction_level, flood.citation_label) == ("US-OR", "state", "")
    assert flood.title != "Docks ordinance" and docks.source_type == flood.source_type == "ordinance"
    assert docks.status == flood.status == "ready"


def test_a_bad_per_file_cell_is_refused_naming_the_file(owner_client, demo_workspace, samples_dir):
    response = owner_client.post(reverse("documents", args=[demo_workspace.pk]), {
        "files": two_ordinances(samples_dir), "jurisdiction_level": "municipal",
        "per_file_name": ["2017-Ord-88-2017-Docks.md", "1987-Ord-52-Flood.md"],
        "per_file_title": ["", ""], "per_file_jurisdiction": ["US OR!", ""],
        "per_file_level": ["", "galactic"], "per_file_citation": ["", ""],
    })
    html = response.content.decode()
    assert response.status_code == 400
    assert "2017-Ord-88-2017-Docks.md: malformed jurisdiction code “US OR!”" in html
    assert "1987-Ord-52-Flood.md: unknown level “galactic”" in html
    assert not demo_workspace.documents.filter(source_path__startswith="upload/").exists()


def test_the_upload_form_says_the_shared_fields_apply_to_every_file(owner_client, demo_workspace):
    html = owner_client.get(reverse("documents", args=[demo_workspace.pk])).content.decode()
    assert "apply to every file of the upload" in html and 'id="per-file-row"' in html


def test_the_progress_line_starts_hidden_and_the_stylesheet_lets_hidden_win(owner_client, demo_workspace):
    """`.progress-line { display: flex }` once overrode the `hidden` attribute, so an
    empty progress bar always showed: the stylesheet must make `[hidden]` win."""
    from django.contrib.staticfiles import finders

    html = owner_client.get(reverse("documents", args=[demo_workspace.pk])).content.decode()
    assert re.search(r'<p id="ingest-progress"[^>]* hidden>', html)
    css = Path(finders.find("ciq/ciq.css")).read_text()
    assert re.search(r"\[hidden\]\s*\{\s*display:\s*none\s*!important;?\s*\}", css)
