"""The citation card (issue 14, item 1): built from the stored turn, one per citation
of the answer, with document, pinpoint, page, the evidence snippet (cited words
highlighted, everything escaped) and the claim's verdict; and the session page that
carries the cards, the side panel's shell and their script under the CSP."""

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from ciq.web.citations import card_snippet, citation_cards, claim_per_marker, highlight_words
from ciq.web.rendering import answer_html
from sessions.models import RunStatus
from sessions.selectors import turn_as_dict
from sessions.services import session_ask
from verification.citations import cited_ids

DOCK_QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"
HOSTILE = "<img src=x onerror=alert(1)>"
A, B = "aaaaaaaaaaaa", "bbbbbbbbbbbb"


def row(index, span, cited, verdict="supported", evidence="", snippet="", claim="Docks close at 9 pm."):
    return {"index": index, "span": list(span), "cited_chunk_ids": cited, "verdict": verdict,
            "evidence_chunk_id": evidence, "snippet": snippet, "claim": claim, "score": 0.9}


def test_each_marker_belongs_to_the_claim_whose_span_holds_it():
    text = f"Docks close at 9 pm [cite:{A}]. Fees are $50 [cite:{B}, {A}].\n\n## Heading [cite:{A}]"
    second = text.index("Fees")
    ledger = [row(1, (0, second), [A]), row(2, (second, text.index("\n")), [B, A])]
    assert claim_per_marker(text, ledger) == [1, 2, None]


def test_answer_links_carry_their_claim():
    text = f"Docks close at 9 pm [cite:{A}]. Fees are $50 [cite:{B}]."
    html = answer_html(text, session_id=7, claims=[1, None])
    assert f'data-chunk="{A}" data-claim="1"' in html
    assert f'data-chunk="{B}" aria-label' in html  # no claim, no attribute


def test_highlight_words_escapes_and_marks_whole_words():
    html = highlight_words(f"Docks {HOSTILE} dockside dock", {"dock"})
    assert html == f"Docks {escape(HOSTILE)} dockside <mark>dock</mark>"


def test_the_snippet_marks_the_judges_evidence_in_its_context_escaped():
    text = f"Intro {HOSTILE}. Docks close at 9 pm every night. Outro **bold**."
    html = card_snippet(source={"text": text}, chunk_id=A,
                        row=row(1, (0, 9), [A], evidence=A, snippet="Docks close at 9 pm"))
    assert "<img" not in html and escape(HOSTILE) in html
    assert "<mark>Docks close at 9 pm</mark>" in html and "**" not in html


def test_without_the_judges_snippet_the_sentence_with_the_claims_words_is_shown():
    text = "Fees are listed elsewhere. Docks must be floating docks. Nothing else."
    html = card_snippet(source={"text": text}, chunk_id=A,
                        row=row(1, (0, 9), [A], claim="All docks must be floating."))
    assert html == "<mark>Docks</mark> must be <mark>floating</mark> <mark>docks</mark>."


def test_cards_name_document_pinpoint_page_and_verdict_per_citation():
    text = f"Docks float [cite:{A}]. Fees apply [cite:{A}]."
    data = {
        "answer_markdown": text,
        "sources": [{"chunk_id": A, "document_title": f"Ord {HOSTILE}", "pinpoint": "Ord. § 1",
                     "page_start": 3, "page_end": 4, "text": "Docks float. Fees apply."}],
        "citations": [{"chunk_id": A, "number": 1}],
        "ledger": [row(1, (0, 23), [A], claim="Docks float."),
                   row(2, (24, len(text)), [A], verdict="weak", claim="Fees apply.")],
    }
    cards = {c["key"]: c for c in citation_cards(data)}
    assert set(cards) == {f"{A}:1", f"{A}:2"}
    assert cards[f"{A}:1"]["pages"] == "pp. 3–4" and cards[f"{A}:1"]["pinpoint"] == "Ord. § 1"
    assert cards[f"{A}:2"]["verdict_label"] == "Weak" and cards[f"{A}:1"]["number"] == 1


@pytest.mark.django_db
def test_the_session_page_has_a_card_for_every_citation_and_the_panel_shell(client, owner, demo_workspace):
    turn = session_ask(workspace=demo_workspace, user=owner, question=DOCK_QUESTION,
                       jurisdictions=["US-OR-Rivergrove"])
    assert turn.status == RunStatus.COMPLETED and cited_ids(turn.answer_markdown)
    client.force_login(owner)
    response = client.get(reverse("session", args=[turn.session_id]))
    html = response.content.decode()
    links = re.findall(r'<a href="[^"]+" data-chunk="([0-9a-f]{12})"(?: data-claim="(\d+)")?', html)
    assert links and all(claim for _, claim in links)  # the embedded pipeline's claims hold them
    cards = set(re.findall(r'data-card="([0-9a-f]{12}:\d*)"', html))
    assert {f"{chunk}:{claim}" for chunk, claim in links} <= cards
    data = turn_as_dict(turn=turn, with_events=False)
    verdicts = {r["verdict"] for r in data["ledger"]}
    assert any(f'class="verdict verdict-{v}"' in html.split('data-role="cite-cards"')[1] for v in verdicts)
    assert 'id="cite-panel" class="cite-panel" role="dialog"' in html and 'id="cite-card"' in html
    assert reverse("chunk-panel", args=[turn.session_id, "CHUNKID"]) in html
    # Under the CSP: scripts from files only, no inline style attributes.
    assert 'src="/static/ciq/citations.js"' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html) and " style=" not in html
    assert "Content-Security-Policy" in response.headers


@pytest.mark.django_db
def test_a_hostile_source_is_escaped_on_the_card(client, owner, demo_workspace):
    turn = session_ask(workspace=demo_workspace, user=owner, question=DOCK_QUESTION,
                       jurisdictions=["US-OR-Rivergrove"])
    turn.sources = [{**s, "document_title": HOSTILE, "pinpoint": HOSTILE,
                     "text": f"{HOSTILE} {s['text']}"} for s in turn.sources]
    turn.save(update_fields=["sources"])
    client.force_login(owner)
    html = client.get(reverse("session", args=[turn.session_id])).content.decode()
    cards = html.split('data-role="cite-cards"')[1].split("</template>")[0]
    assert "<img" not in cards and escape(HOSTILE) in cards
