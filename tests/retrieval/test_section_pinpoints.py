"""A chunk that packs several sections cites each quoted sentence by its own section.

Rivergrove's charter gives each section a line or two, so one chunk holds §§ 39–41 and is
named by § 39. Before chunks stored where their sections begin, the debt limit (§ 41)
was cited "Rivergrove Charter (1974) § 39" in the answer's sources, the ledger, the
memo's Sources and every export."""

from __future__ import annotations

import pytest

from retrieval.chunking import chunk_text
from retrieval.extract import extract_text
from retrieval.heading_paths import heading_paths_backfill
from retrieval.models import Chunk, section_path_at
from retrieval.pinpoint import sentence_offset
from retrieval.search import Budget, chunks_retrieve
from sessions.memo import memo_sources_refreshed
from sessions.pinpoints import quoted_sentences
from sessions.selectors import turn_as_dict
from sessions.services import session_ask
from tests.conftest import SAMPLES_DIR

CHARTER = "municipal/us-or-rivergrove/other/1974-City-Charter.md"
DEBT_LIMIT = ("Except by consent of the voters, the city's voluntary floating indebtedness shall "
              "not exceed 1% of the assessed valuation of the city")
ASSESSMENTS = "The procedure for levying, collecting, and enforcing the payment of special assessments"


def _charter_span():
    extracted = extract_text(SAMPLES_DIR / CHARTER)
    span = next(s for s in chunk_text(extracted.text)
                if "Except by consent" in extracted.text[s.char_start:s.char_end])
    return extracted.text[span.char_start:span.char_end], span


def test_a_chunk_that_packs_sections_knows_where_each_begins():
    text, span = _charter_span()
    assert span.heading.startswith("Section 39.")
    offsets = {path[-1]: offset for offset, path in span.sections}
    assert offsets["Section 41. Debt Limit."] == text.index("**Section 41.")
    at = text.index("Except by consent")
    assert section_path_at(span.sections, span.heading_path, at)[-1] == "Section 41. Debt Limit."
    assert section_path_at(span.sections, span.heading_path, 0)[-1].startswith("Section 39.")
    assert section_path_at((), ["A", "B"], at) == ["A", "B"]  # one section: the chunk's path


def test_a_sentence_is_found_by_its_words_across_markup_and_line_breaks():
    text = "**Section 41. Debt Limit.**  \n> Except by consent of the\n> voters, the city's debt"
    assert sentence_offset(text, "Except by consent of the voters, the city's") == text.index("Except")
    assert sentence_offset(text, "xcept by consent") is None  # whole words only
    assert sentence_offset(text, "Something the chunk does not say") is None
    assert sentence_offset(text, "") is None
    # Two sentences that open alike: a whole quote finds its own, a shortened one the first.
    twice = ("**1.** The dock shall not exceed 12 feet in width and 20 feet in length.\n"
             "**2.** The dock shall not exceed 12 feet in width and 20 feet in height.")
    assert sentence_offset(twice, "The dock shall not exceed 12 feet in width and 20 feet in "
                                  "height.") == twice.index("The dock", 10)
    assert sentence_offset(twice, "The dock shall not exceed 12 feet in width") == twice.index("The")


@pytest.mark.django_db
def test_a_cited_sentence_is_pinpointed_to_its_own_section(demo_workspace):
    found = chunks_retrieve("voluntary floating indebtedness debt limit consent of the voters",
                            workspace=demo_workspace, budget=Budget.flat(10)).chunks
    chunk = next(c for c in found if "Debt Limit" in c.text)
    assert chunk.pinpoint == "Rivergrove Charter (1974) § 39"  # the chunk's name
    assert chunk.cited_pinpoint([DEBT_LIMIT]) == "Rivergrove Charter (1974) § 41"
    assert chunk.cited_pinpoint([ASSESSMENTS, DEBT_LIMIT]) == "Rivergrove Charter (1974) §§ 39, 41"
    assert chunk.cited_pinpoint(["A paraphrase in other words."]) == chunk.pinpoint


@pytest.mark.django_db
def test_the_answer_sources_cite_the_section_of_the_quoted_sentence(demo_workspace):
    turn = session_ask(workspace=demo_workspace,
                       question="How much debt can Rivergrove take on without a vote of the people?")
    data = turn_as_dict(turn=turn, with_events=False)
    cited = [s for s in data["sources"] if "Debt Limit" in s["text"]]
    assert "Except by consent of the voters" in turn.answer_markdown
    assert cited and cited[0]["pinpoint"] == "Rivergrove Charter (1974) § 41"
    # The citation streamed while the answer was written names the same section.
    detected = turn.session.events.get(type="citation_detected", payload__chunk_id=cited[0]["chunk_id"])
    assert detected.payload["pinpoint"] == "Rivergrove Charter (1974) § 41"


@pytest.mark.django_db
def test_the_memo_sources_name_the_section_of_each_quoted_sentence(demo_workspace):
    found = chunks_retrieve("voluntary floating indebtedness debt limit consent of the voters",
                            workspace=demo_workspace, budget=Budget.flat(10)).chunks
    chunk = next(c for c in found if "Debt Limit" in c.text)
    memo = (f"## Short Answer\n\n{DEBT_LIMIT} [cite:{chunk.chunk_id}].\n\n"
            "## Sources\n\n- stale\n")
    assert quoted_sentences(memo) == {chunk.chunk_id: [DEBT_LIMIT]}
    assert "- Rivergrove Charter (1974) § 41" in memo_sources_refreshed(memo, [chunk])


@pytest.mark.django_db
def test_the_backfill_gives_older_chunks_their_sections(demo_workspace):
    chunk = Chunk.objects.get(document__workspace=demo_workspace, text__contains="Section 41. Debt Limit",
                              heading__startswith="Section 39.")
    stored = chunk.sections
    assert stored and stored[-1][1][-1] != chunk.heading
    Chunk.objects.filter(document=chunk.document).update(sections=None)  # ingested before sections
    summary = heading_paths_backfill(workspace=demo_workspace)
    assert summary.updated == 1
    chunk.refresh_from_db()
    assert chunk.sections == stored


def test_several_sections_of_one_document_share_one_doubled_symbol():
    from retrieval.search import _sections_joined

    assert _sections_joined("12 CFR § 1006.5", ["§ 1006.6", "§ 1006.8"]) == "12 CFR §§ 1006.5, 1006.6, 1006.8"
    assert _sections_joined("Ray County Regs. § 30.9", ["“15. Lapse of Approval”"]) \
        == "Ray County Regs. § 30.9; “15. Lapse of Approval”"
    assert _sections_joined("Hosting Agreement § 7.2", []) == "Hosting Agreement § 7.2"
