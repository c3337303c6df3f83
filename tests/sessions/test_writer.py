"""The extractive Writer on real sample chunks: every sentence cited, quoted, never invented."""

import re

import pytest

from ciq.text import sentence_spans
from retrieval.index import index_get, query_terms
from retrieval.search import Budget, chunks_retrieve
from sessions.writer import (
    NOT_FOUND,
    ExtractiveWriter,
    WriteRequest,
    cite,
    normalise_sentence,
)
from verification.citations import cited_ids, strip_citations
from verification.skeptic import PARTIAL_GAP, SEE_SHORT_ANSWER, template_masked

pytestmark = pytest.mark.django_db


def request_for(workspace, question, mode="answer", jurisdictions=(), **kw) -> WriteRequest:
    result = chunks_retrieve(question, workspace=workspace, jurisdictions=jurisdictions,
                             budget=Budget.for_mode(mode))
    return WriteRequest(question=question, mode=mode, chunks=result.chunks,
                        jurisdictions=jurisdictions,
                        term_weights=index_get().idf(query_terms(question),
                                                          workspace_id=workspace.pk), **kw)


def words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# A list item's label: the Writer quotes a list's introduction and an item as one
# sentence without it ("… the following conditions: Notice of the exemption …").
LIST_LABEL_RE = re.compile(r"(?m)(?:^|(?<=\s))\((?:[a-z]{1,4}|\d{1,3})\)(?=\s)")


def assert_every_sentence_cited_and_quoted(text: str, chunks) -> None:
    by_id = {c.chunk_id: words(LIST_LABEL_RE.sub(" ", c.text)) for c in chunks}
    body = "\n\n".join(line for line in text.splitlines() if not line.startswith("#"))
    sentences = [body[s:e] for s, e in sentence_spans(body)]
    assert sentences
    for sentence in sentences:
        ids = cited_ids(sentence)
        assert ids, f"uncited sentence: {sentence!r}"
        for chunk_id in ids:
            assert chunk_id in by_id
            assert words(strip_citations(sentence).lstrip("- ")) in by_id[chunk_id]


def test_an_answer_quotes_cited_sentences_from_its_chunks(demo_workspace):
    request = request_for(demo_workspace, "When may a state apply for an exemption from the "
                                          "Fair Debt Collection Practices Act?")
    text = ExtractiveWriter().compose(request)
    assert text != NOT_FOUND
    assert 1 <= text.count("\n\n") + 1 <= 3  # 1–3 paragraphs
    assert_every_sentence_cited_and_quoted(text, request.chunks)


def test_a_draft_is_a_memo_whose_claims_are_cited_quotes(demo_workspace):
    request = request_for(demo_workspace, "Draft a memo on docks in the water quality "
                                          "resource area", mode="draft")
    text = ExtractiveWriter().compose(request)
    assert text.startswith("# MEMORANDUM\n")
    assert "\n## Discussion\n" in text
    # Template (header, restated question, open questions, sources, labels) masked, and
    # the refusal lines aside, every sentence is a cited quote.
    claims = "\n".join(line for line in template_masked(text).splitlines()
                       if not line.strip().startswith((PARTIAL_GAP, SEE_SHORT_ANSWER)))
    assert_every_sentence_cited_and_quoted(claims, request.chunks)


def test_target_jurisdictions_give_discussion_levels_in_order(demo_workspace):
    request = request_for(demo_workspace, "permit requirements for development in the "
                          "floodplain and notice of decisions",
                          jurisdictions=["US-OR-Rivergrove"], mode="draft")
    text = ExtractiveWriter().compose(request)
    order = ["Federal", "State", "County", "Municipal", "Firm documents"]
    discussion = text.split("\n## Discussion\n", 1)[1].split("\n## ", 1)[0]
    issues = re.split(r"^### ", discussion, flags=re.M)[1:]
    assert issues
    for issue in issues:
        levels = re.findall(r"^#### (.+)$", issue, re.M)
        assert levels == sorted(levels, key=order.index)
    assert "Municipal" in re.findall(r"^#### (.+)$", discussion, re.M)


def test_nothing_relevant_gives_not_found(demo_workspace):
    request = request_for(demo_workspace, "quantum chromodynamics of gluon plasma")
    assert ExtractiveWriter().compose(request) == NOT_FOUND


def test_no_chunks_gives_not_found():
    request = WriteRequest(question="What is the dock permit fee?", mode="answer", chunks=[])
    assert ExtractiveWriter().compose(request) == NOT_FOUND


def test_a_revision_does_not_repeat_an_excluded_sentence(demo_workspace):
    request = request_for(demo_workspace, "When may a state apply for an exemption from the "
                                          "Fair Debt Collection Practices Act?")
    first = ExtractiveWriter().compose(request)
    dropped = strip_citations(re.split(r"(?<=\.)\s", first)[0])
    revised = ExtractiveWriter().compose(
        WriteRequest(**{**request.__dict__, "exclude": frozenset({normalise_sentence(dropped)})})
    )
    assert normalise_sentence(dropped) not in {
        normalise_sentence(revised[s:e]) for s, e in sentence_spans(revised)
    }


def test_streamed_deltas_join_to_the_composed_text(demo_workspace):
    request = request_for(demo_workspace, "What are the park hours in Rivergrove?")
    writer = ExtractiveWriter()
    deltas = list(writer.stream(request))
    assert len(deltas) > 1
    assert "".join(deltas) == writer.compose(request)


def test_the_citation_goes_before_the_final_period():
    assert cite("Docks need a permit.", "0123456789ab") == "Docks need a permit [cite:0123456789ab]."
    assert cite("See (a)", "0123456789ab") == "See (a) [cite:0123456789ab]"
