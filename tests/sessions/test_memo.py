"""Draft mode writes a legal memorandum (issue 13, items 1 and 4), on the shipped samples
and on Rivergrove ordinances of the shared corpus that amend each other."""

import datetime as dt
import re

import pytest

from ciq.services import workspace_get_or_create
from retrieval.index import index_get, query_terms
from retrieval.plan import question_plan
from retrieval.question import question_analyse
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import documents_ingest
from sessions.memo import (
    _does,
    _subject_is,
    compose_memo,
    document_date,
    issue_head,
    issue_question,
    issue_titles,
    memo_sources_refreshed,
    memo_subject,
)
from sessions.memo_evaluation import has_structure
from sessions.memo_evaluation import memo_sections as sections
from sessions.models import RunStatus
from sessions.selectors import turn_ledger
from sessions.services import session_ask
from sessions.writer import ExtractiveWriter, WriteRequest
from tests.conftest import CORPUS_DIR
from verification.citations import cited_ids, strip_citations
from verification.skeptic import RuleSkeptic

pytestmark = pytest.mark.django_db

TREES = "Draft a memo on tree removal permits and penalties in Rivergrove"
SECTIONS = ["Question Presented", "Short Answer", "Discussion", "Requirements and permits",
            "Open questions", "Sources"]
CLAIM_SECTIONS = ("Short Answer", "Discussion", "Requirements and permits")




def draft_request(workspace, question: str) -> WriteRequest:
    """What the pipeline gives the Writer for a Draft request (plan, retrieval, weights)."""
    analysis, routing = question_plan(question, workspace=workspace, draft=True)
    result = chunks_retrieve(question, workspace=workspace, jurisdictions=routing.targets,
                             budget=Budget.for_mode("draft"), analysis=analysis,
                             documents=routing.documents or None)
    return WriteRequest(question=question, mode="draft", chunks=result.chunks,
                        term_weights=result.term_weights or index_get().idf(
                            query_terms(question), workspace_id=workspace.pk),
                        analysis=analysis)


def test_a_draft_is_a_memo_with_every_section_in_order(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft", question=TREES)
    assert turn.status == RunStatus.COMPLETED, turn.error
    text = turn.answer_markdown
    assert text.startswith("# MEMORANDUM\n")
    header = text.split("\n## ", 1)[0]
    today = dt.date.today()
    for line in ("**To:** [Recipient]", "**From:** [Author]",
                 f"**Date:** {today:%B} {today.day}, {today.year}",
                 "**Re:** Tree removal permits and penalties in Rivergrove"):
        assert line in header
    assert re.findall(r"^## (.+)$", text, re.M) == SECTIONS
    body = sections(text)
    assert "Is a tree removal permit required in Rivergrove?" in body["Question Presented"]
    assert "What is the penalty for tree removal in Rivergrove?" in body["Question Presented"]
    short = body["Short Answer"]
    cited_sentences = re.findall(r"[^.]+?\[cite:[0-9a-f]{12}\]\.", short)
    assert 2 <= len(cited_sentences) <= 4
    # The asked facts: a permit per tree, and the current fine (Ord. 89-2018, not 1989's).
    assert "A permit is required for each tree cut" in short
    assert "$5,000.00 per tree" in short and "$1,500.00" not in short
    # The Discussion goes by issue, then by level.
    assert "### Tree removal permits" in body["Discussion"]
    assert re.search(r"^#### Municipal$", body["Discussion"], re.M)
    # Sources list the pinpoints of exactly the cited chunks, plain text.
    pinpoints = {s["chunk_id"]: s["pinpoint"] for s in turn.sources}
    listed = [line[2:] for line in body["Sources"].splitlines()]
    assert not cited_ids(body["Sources"])
    for chunk_id in dict.fromkeys(cited_ids(text)):
        assert any(line.startswith(pinpoints[chunk_id].replace("*", "\\*")) for line in listed)


def test_the_ledger_holds_only_the_substantive_sentences(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft", question=TREES)
    text = turn.answer_markdown
    body = sections(text)
    substantive = "\n".join(body[name] for name in CLAIM_SECTIONS)
    claims = list(turn_ledger(turn=turn).values_list("text", flat=True))
    # One claim per cited sentence of the Short Answer, the Discussion and the
    # Requirements; none from the header, Question Presented, Open questions or Sources.
    assert len(claims) == len(re.findall(r"\[cite:[0-9a-f]{12}\]", substantive))
    template = "\n".join([text.split("\n## ", 1)[0], body["Question Presented"],
                          body["Open questions"], body["Sources"]])
    for claim in claims:
        assert claim.rstrip(".") in strip_citations(substantive)
        assert claim.rstrip(".") not in template
        assert not claim.startswith(("To:", "From:", "Date:", "Re:", "Superseded", "See the Short"))
    assert turn.metrics["claims"] == len(claims)
    assert turn.metrics["evidence_coverage"] >= 0.85


def test_the_skeptic_skips_the_template_of_a_model_written_memo(demo_workspace):
    """A memo as a model writes it (bold header lines, a supersession note, a permit label,
    sources with section numbers) gives claims only for its cited sentences."""
    request = draft_request(demo_workspace, TREES)
    first, second = request.chunks[0].chunk_id, request.chunks[1].chunk_id
    memo = (f"# MEMORANDUM\n\n**To:** [Recipient]\n**From:** Ann Lee\n**Date:** March 3, 2026\n"
            f"**Re:** Tree permits. Fines.\n\n## Question Presented\n\n1. Is a permit required to "
            f"cut a tree in Rivergrove?\n\n## Short Answer\n\nA permit is required for each tree "
            f"cut [cite:{first}].\n\n## Discussion\n\n### Permits\n\n#### Municipal\n\nThe City "
            f"reviews permits [cite:{second}].\n\nSuperseded: Rivergrove Ord. No. 54-89C, amended "
            f"by Rivergrove Ord. No. 89-2018.\n\n## Requirements and permits\n\n- **Permit** "
            f"(issued by City of Rivergrove): Application must be made on the City form "
            f"[cite:{first}].\n\n## Open questions\n\n- Whether fees changed after 2018.\n\n"
            f"## Sources\n\n- Rivergrove Ord. No. 89-2018 § (A). 12 CFR § 1006.8.\n")
    claims = RuleSkeptic().extract(memo)
    assert [c.text for c in claims] == ["A permit is required for each tree cut.",
                                         "The City reviews permits.",
                                         "Application must be made on the City form."]
    assert all(c.cited_chunk_ids for c in claims)
    for claim in claims:  # spans still point into the memo as written
        assert strip_citations(memo[claim.span[0]:claim.span[1]]).strip().startswith(claim.text[:20])


def test_a_memo_quotes_nothing_from_an_excluded_jurisdiction(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft",
                       question="Draft a memo on setbacks and variances in Ray County")
    assert turn.status == RunStatus.COMPLETED, turn.error
    by_chunk = {s["chunk_id"]: s["jurisdiction"] for s in turn.sources}
    cited = set(cited_ids(turn.answer_markdown))
    assert cited
    assert {by_chunk[c] for c in cited} == {"US-MO-Ray"}
    assert "Rivergrove" not in sections(turn.answer_markdown)["Discussion"]


def test_a_request_nothing_answers_keeps_the_structure_and_says_so(demo_workspace):
    turn = session_ask(workspace=demo_workspace, mode="draft",
                       question="Draft a memo on cryptocurrency mining licences in Rivergrove")
    assert turn.status == RunStatus.COMPLETED, turn.error
    text = turn.answer_markdown
    assert turn.outcome == "not_answered"
    assert text.startswith("# MEMORANDUM\n")
    assert re.findall(r"^## (.+)$", text, re.M) == SECTIONS
    assert sections(text)["Short Answer"].startswith(
        "Not answered: the documents searched do not answer this request")
    assert not cited_ids(text)
    assert not turn_ledger(turn=turn).exists()


@pytest.fixture
def tree_ordinances(db):
    """Rivergrove's tree cutting rules as amended: Ord. 54-89C (1989), its amendment
    Ord. 74-2004 and Ord. 89-2018, which amends 74-2004 — from the shared corpus."""
    folder = CORPUS_DIR / "municipal" / "us-or-rivergrove" / "ordinances"
    files = [folder / name for name in ("1989-Ord-54-89C-Land-Development.md",
                                        "2004-Ord-74-2004-Tree-Cutting-Amendment.md",
                                        "2018-Ord-89-2018-Tree-Cutting-Amendment.md")]
    if not all(f.exists() for f in files):
        pytest.skip("the shared corpus is not beside the checkout")
    workspace = workspace_get_or_create(name="Tree ordinances")
    summary = documents_ingest(workspace=workspace, paths=files, manifest=CORPUS_DIR / "manifest.csv")
    assert summary.failed == 0
    return workspace


def test_the_newer_ordinance_leads_and_the_older_is_named_superseded(tree_ordinances):
    request = draft_request(tree_ordinances, TREES)
    assert {document_date(c).year for c in request.chunks} >= {1989, 2004, 2018}
    text = compose_memo(request, today=dt.date(2026, 3, 3))
    body = sections(text)
    # Three versions of the penalty sentence: the 2018 one leads.
    assert "$5,000.00 per tree" in body["Short Answer"]
    assert "$1,500.00" not in body["Short Answer"]
    notes = re.findall(r"^Superseded: .+$", body["Discussion"], re.M)
    # Ord. 89-2018 names 74-2004 as the ordinance it amends; 54-89C is older on the point.
    assert "Superseded: Rivergrove Ord. No. 74-2004, amended by Rivergrove Ord. No. 89-2018." in notes
    assert any(n.startswith("Superseded: Rivergrove Ord. No. 54-89C (1989), superseded on this point by "
                            "Rivergrove Ord. No. 89-2018") for n in notes)
    assert len(notes) == len(set(notes))
    # Within a level, the newest document's paragraph comes first.
    by_chunk = {c.chunk_id: c for c in request.chunks}
    discussion_years = [document_date(by_chunk[i]).year for i in cited_ids(body["Discussion"])]
    first_issue = re.split(r"^### ", body["Discussion"], flags=re.M)[1]
    first_years = [document_date(by_chunk[i]).year for i in cited_ids(first_issue)]
    assert first_years and first_years[0] == max(first_years)
    assert discussion_years
    # Notes are template: the Skeptic extracts no claim from them.
    assert not any(c.text.startswith("Superseded") for c in RuleSkeptic().extract(text))


def test_the_request_splits_into_issues_asked_as_a_lawyer_means_them():
    subject = memo_subject(TREES)
    assert subject == "tree removal permits and penalties in Rivergrove"
    assert issue_titles(subject) == ["tree removal permits", "tree removal penalties"]
    assert issue_titles("permits and fees for docks") == ["permits for docks", "fees for docks"]
    assert issue_question("tree removal penalties") == "What is the penalty for tree removal?"
    assert issue_question("tree removal permits") == "Is a tree removal permit required?"
    assert issue_question("fees for docks") == "What is the fee for docks?"


def test_the_embedded_writer_composes_the_memo_for_drafts_only(demo_workspace):
    request = draft_request(demo_workspace, TREES)
    writer = ExtractiveWriter()
    assert writer.compose(request).startswith("# MEMORANDUM")
    assert "".join(writer.stream(request)) == writer.compose(request)
    answer = WriteRequest(question="What is the fine for cutting a tree in Rivergrove?",
                          mode="answer", chunks=request.chunks, term_weights=request.term_weights)
    assert not writer.compose(answer).startswith("# MEMORANDUM")


def test_sources_follow_the_citations_after_an_editor_deletes_a_claim(demo_workspace):
    request = draft_request(demo_workspace, TREES)
    text = compose_memo(request)
    discussion = sections(text)["Discussion"]
    sentence = re.search(r"[^.\n]*?\[cite:([0-9a-f]{12})\]\.", discussion)
    dropped = sentence.group(1)
    edited = text.replace(sentence.group(0), "")
    if dropped in cited_ids(edited):
        edited = re.sub(rf"[^.\n]*?\[cite:{dropped}\]\.", "", edited)
    refreshed = memo_sources_refreshed(edited, request.chunks)
    pinpoints = {c.chunk_id: c.pinpoint for c in request.chunks}
    listed = sections(refreshed)["Sources"]
    assert not any(line.startswith(f"- {pinpoints[dropped]}") for line in listed.splitlines()) or \
        any(pinpoints[i] == pinpoints[dropped] for i in cited_ids(refreshed))
    assert len(listed.splitlines()) <= len(dict.fromkeys(cited_ids(refreshed)))
    assert refreshed.split("## Sources")[0] .count("[cite:") == refreshed.count("[cite:")


def test_a_section_the_critic_emptied_gets_its_placeholder_back():
    memo = ("# MEMORANDUM\n\n**To:** [Recipient]\n\n**From:** [Author]\n\n**Date:** May 1, 2026\n\n"
            "**Re:** Docks\n\n## Question Presented\n\nAre docks allowed?\n\n## Short Answer\n\n"
            "Docks are allowed [cite:aaaaaaaaaaaa].\n\n## Discussion\n\n### Docks\n\n#### Municipal\n\n"
            "## Requirements and permits\n\n## Open questions\n\nNone.\n\n## Sources\n\n- Ord. 1\n")
    refreshed = memo_sources_refreshed(memo, [])
    body = sections(refreshed)
    assert body["Discussion"].startswith("See the Short Answer") and "### Docks" not in refreshed
    assert body["Requirements and permits"].startswith("Not found in available sources")
    assert has_structure(refreshed)  # no section left empty


def test_the_size_of_a_thing_is_stated_by_a_sentence_whose_subject_it_is(demo_workspace):
    assert _subject_is("Mobile home parks shall contain a minimum gross area of 15 acres.", "park")
    assert not _subject_is("Individual mobile home spaces within a mobile home park shall have a minimum "
                           "area of 4,000 square feet.", "park")
    turn = session_ask(workspace=demo_workspace, mode="draft",
                       question="Draft a memo on the minimum area of mobile home parks in Ray County")
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert sections(turn.answer_markdown)["Short Answer"].startswith(
        "Mobile home parks shall contain a minimum gross area of 15 acres")


def test_an_issue_asked_as_a_clause_is_asked_directly():
    assert issue_question("how quickly a bank must look into an electronic transfer error") == (
        "How quickly must a bank look into an electronic transfer error?")
    assert issue_question("whether a new subdivision in Rivergrove may put a gate on its street") == (
        "May a new subdivision in Rivergrove put a gate on its street?")
    assert issue_question("how big a private dock can be") == "How big can a private dock be?"
    assert issue_question("what a permit costs") == "What a permit costs?"  # no auxiliary: as written


def test_the_sentence_whose_modal_governs_the_asked_act_states_the_duty():
    # 12 CFR 1005.11(c)(1) and (c)(4) (Regulation E, ciq_legal_v1)
    act = question_analyse("How quickly must a bank look into a reported transfer error?").facets[0].action
    assert act is not None and ("investig",) in act.alternatives
    duty = ("A financial institution shall investigate promptly and, except as otherwise provided in this "
            "paragraph (c), shall determine whether an error occurred within 10 business days of receiving a "
            "notice of error.")
    other = ("In lieu of following the procedures in paragraph (c)(4)(i) of this section, a financial "
             "institution complies with the requirements for resolving errors in § 1005.11 if it "
             "investigates any oral or written notice of an error from the consumer that is received by the "
             "institution within 120 days after the transfer allegedly in error was credited or debited to "
             "the consumer's account.")
    assert _does(duty, act) and not _does(other, act)


def test_a_title_that_is_a_clause_has_no_head_noun():
    def head(title):
        term = issue_head(title, question_analyse(issue_question(title)).facets[0].terms)
        return term and term.key

    assert head("tree removal penalties") == "penalti"
    # the last noun of a clause is an object: "installment terms", not "land", are the point
    assert head("Oregon county selling its land on installment terms") is None
    assert head("how quickly a bank must look into an electronic transfer error") is None
