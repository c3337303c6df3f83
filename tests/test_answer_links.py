"""Links and images in an answer (issue 11, low findings): the Writer's Markdown — which a
document can prompt-inject — never yields a clickable external link or a loaded image,
on the session page or in the PDF and DOCX exports; citation links keep working."""

from __future__ import annotations

import io
import re
import socket
import subprocess
import zlib

import pytest
from django.urls import reverse
from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn

from ciq.web.rendering import answer_html
from exports.pdf import STATIC_DIR, StaticOnlyFetcher
from exports.services import session_export
from sessions.models import Turn
from sessions.services import session_ask

pytestmark = pytest.mark.django_db

HOSTILE = (
    "Docks need a permit. [click](https://evil.example/x) ![x](https://evil.example/p.png) "
    "<https://evil.example> and https://evil.example/bare [ref][1]\n\n"
    "[1]: https://evil.example/ref"
)


@pytest.fixture
def hostile(demo_workspace, owner):
    """A completed session whose answer also carries external links, an image, an
    autolink, a bare URL and a reference link (as an injected document might ask)."""
    session = session_ask(workspace=demo_workspace, user=owner,
                          question="What permits are needed to build or replace a dock in Rivergrove?",
                          jurisdictions=["US-OR-Rivergrove"]).session
    turn = session.turns.get()
    assert "[cite:" in turn.answer_markdown
    Turn.objects.filter(pk=turn.pk).update(answer_markdown=f"{turn.answer_markdown}\n\n{HOSTILE}")
    return session


def assert_no_external_link(html: str) -> None:
    assert 'href="https://evil.example' not in html and "href='https://evil.example" not in html
    assert not re.search(r"<img[^>]*evil\.example", html)


def test_external_links_and_images_render_as_text_showing_the_url():
    html = answer_html("A permit [cite:abcdef012345].\n\n" + HOSTILE, session_id=7)
    assert_no_external_link(html)
    assert "<img" not in html
    assert "click (https://evil.example/x)" in html
    assert "x (https://evil.example/p.png)" in html
    assert "ref (https://evil.example/ref)" in html
    assert "https://evil.example and https://evil.example/bare" in html  # autolink, bare URL
    assert 'href="/sessions/7/chunks/abcdef012345/"' in html  # the citation stays a link


@pytest.mark.parametrize("href", [
    "//evil.example/x", "/\\evil.example", "http://testserver/sessions/7/", "mailto:a@evil.example",
    "evil.example", "../../x", "/no-such-page/",
])
def test_anything_but_a_ciq_page_is_not_a_link(href):
    html = answer_html(f"[go]({href})", session_id=7)
    assert "<a " not in html and "go (" in html


def test_a_link_to_a_ciq_page_stays_a_link():
    html = answer_html("See [the passage](/sessions/7/chunks/abcdef012345/).", session_id=7)
    assert '<a href="/sessions/7/chunks/abcdef012345/">the passage</a>' in html


def test_the_session_page_has_no_external_link_or_image_from_the_answer(client, owner, hostile):
    client.force_login(owner)
    for url in (reverse("session", args=[hostile.pk]), reverse("turn", args=[hostile.pk, 1])):
        html = client.get(url).content.decode()
        answer = html.split('data-role="answer">', 1)[1].split("</div>", 1)[0]
        assert "click (https://evil.example/x)" in answer and 'class="cite"' in answer
        assert_no_external_link(html)


def pdf_objects(content: bytes) -> bytes:
    """The PDF's bytes with every Flate stream inflated (object streams hold annotations)."""
    out = [content]
    for match in re.finditer(rb"stream\r?\n", content):
        try:
            out.append(zlib.decompressobj().decompress(content[match.end():]))
        except zlib.error:
            continue
    return b"\n".join(out)


def test_the_pdf_export_has_no_external_link_and_fetches_nothing(hostile, monkeypatch):
    fetched, connected = [], []
    real_fetch = StaticOnlyFetcher.fetch
    monkeypatch.setattr(StaticOnlyFetcher, "fetch",
                        lambda self, url, headers=None: fetched.append(url) or real_fetch(self, url, headers))
    monkeypatch.setattr(socket.socket, "connect", lambda *a: connected.append(a))
    content = session_export(session=hostile, fmt="pdf").content
    assert fetched == [(STATIC_DIR / "session.css").as_uri()] and connected == []
    assert b"/URI" not in pdf_objects(content)  # no link annotation at all
    text = subprocess.run(["pdftotext", "-", "-"], input=content, capture_output=True,
                          check=True).stdout.decode()
    assert "click" in text and re.search(r"^1\. ", text, re.M)  # the footnotes are still there


def test_the_docx_export_has_no_hyperlink(hostile):
    content = session_export(session=hostile, fmt="docx").content
    document = Document(io.BytesIO(content))
    assert not [r for r in document.part.rels.values() if r.reltype == RT.HYPERLINK]
    assert not document.element.body.findall(".//" + qn("w:hyperlink"))
    assert not document.element.body.findall(".//" + qn("w:drawing"))
    assert document.element.body.findall(".//" + qn("w:footnoteReference"))
    assert "click" in "\n".join(p.text for p in document.paragraphs)
