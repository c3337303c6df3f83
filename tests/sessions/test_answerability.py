"""Answers that answer the question, and plain "not answered" when the documents do not
(issue 9). Every question here was written for these tests against the bundled samples;
none is taken from the dev benchmark."""

import pytest

from retrieval.places import cited_parts, question_route, title_acronyms
from retrieval.plan import question_plan
from retrieval.question import FactKind, question_analyse
from retrieval.relevance import out_of_place, sentence_relevance, slot_present
from sessions.models import Outcome, RunStatus
from sessions.selectors import turn_ledger
from sessions.services import session_ask
from verification.skeptic import RuleSkeptic

pytestmark = pytest.mark.django_db


def ask(workspace, question, **kwargs):
    turn = session_ask(workspace=workspace, question=question, **kwargs)
    assert turn.status == RunStatus.COMPLETED, turn.error
    return turn


# -- questions the samples answer: the first sentence states the asked fact -------------------

@pytest.mark.parametrize("question, fact, source", [
    # a time of day asked "at night": the clock times answer it, no sentence says "night"
    ("When does the Rivergrove park close at night?",
     "the park and river access shall be open from 8:00 am to", "Rivergrove Ord. No. 80-2011"),
    # deadline (an hour of the day), with no place flag: the park's name places it
    ("How late can people stay in Lloyd Minor Park from May through October?",
     "From May through October, the park and river access shall be open from 8:00 am to 9:00 pm",
     "Rivergrove Ord. No. 80-2011"),
    # deadline (notice period) in an intergovernmental agreement, asked in everyday words
    ("If Lake Oswego raises its sewer fees, how much warning does Rivergrove get?",
     "Provide Rivergrove with 30 days written notice of any fee increases", "Rivergrove Ord. No. 65-99"),
    # deadline under a federal act named by its acronym (FDCPA → 12 CFR Part 1006)
    ("Once a state has its FDCPA exemption, how soon must it tell the Bureau about a change "
     "in its laws?", "shall inform the Bureau in writing within 30 days of any change in the state laws",
     "12 CFR Part 1006"),
    # amount (money) in the same agreement
    ("How much in reserves must a city that self-insures show under the Rivergrove and Lake "
     "Oswego sewer agreement?", "unencumbered reserves of at least $1,000,000", "Rivergrove Ord. No. 65-99"),
    # obligation: which permit, answered by naming it
    ("What permits are needed to build or replace a dock in Rivergrove?",
     "permitted use", "Rivergrove Ord. No. 88-2017"),
    # permission in everyday words (posts for piers, floating for floating docks)
    ("Can a dock in Rivergrove sit on posts instead of floating?",
     "docks are not allowed to be placed on piers", "Rivergrove Ord. No. 88-2017"),
    # "how long" of a thing that sticks out is a length, not a period of time
    ("How long can a dock stick out into the river in Rivergrove?",
     "shall not extend more than 20 feet into the river", "Rivergrove Ord. No. 88-2017"),
    # procedure, with the situation told as a condition first
    ("If a storm knocks a tree onto my house in Rivergrove and I cut it down right away, what do "
     "I have to file with the city?", "Within seven (7) days of any cutting, an application must be filed",
     "Rivergrove Ord. No. 89-2018"),
    # whether a permit is needed, answered by the sentence that names it
    ("Do I need a permit to cut down a tree in Rivergrove?", "A permit is required for each tree cut",
     "Rivergrove Ord. No. 89-2018"),
    # permission under a federal rule, by its registry's acronym
    ("Can a lender's employee who is not registered in the NMLS originate mortgage loans?",
     "unless such employee is registered with the Registry", "12 CFR Part 1007"),
])
def test_a_question_the_documents_answer_leads_with_the_asked_fact(demo_workspace, question, fact,
                                                                   source):
    turn = ask(demo_workspace, question)
    first_paragraph = turn.answer_markdown.split("\n\n")[0]
    assert turn.outcome == Outcome.ANSWERED, turn.answer_markdown
    assert fact in first_paragraph
    cited = {s["citation_label"] for s in turn.sources if s["chunk_id"] in first_paragraph}
    assert any(label.startswith(source) for label in cited), cited
    assert turn.metrics["answer_coverage"] == 1.0
    assert turn.claim_confidence["level"] in ("high", "medium")
    if "Rivergrove" in question:  # nothing from another town, county or state
        assert {s["jurisdiction"] for s in turn.sources} <= {"US-OR-Rivergrove", "US-OR", "US"}
    assert all(row.ledger.addressed for row in turn.claims.filter(revision__cycle=turn.metrics[
        "revision_cycles"]).select_related("ledger"))


@pytest.mark.parametrize("question, season, other", [
    ("Until what time is the Rivergrove park open on a December evening?",
     "From November through April", "From May through October"),
    ("Until what time can my kids stay at the Rivergrove park on an August night?",
     "From May through October", "From November through April"),
])
def test_a_question_about_a_month_is_answered_by_the_rule_for_that_season(demo_workspace, question,
                                                                          season, other):
    turn = ask(demo_workspace, question)
    assert turn.outcome == Outcome.ANSWERED, turn.answer_markdown
    first_paragraph = turn.answer_markdown.split("\n\n")[0]
    assert season in first_paragraph
    assert other not in first_paragraph


@pytest.mark.parametrize("question, firm", [
    ("How long does a debt collector have to wait after sending a validation notice?", False),
    ("Does a $600 equipment rental agreement have to be in writing?", False),  # such agreements
    ("How much notice does Tripath have to give Uniquest before discontinuing a product?", True),
    ("Under our distributor agreement, how much notice is needed to discontinue a product?", True),
    ("Can we end the NDA early?", True),
])
def test_a_firm_document_may_answer_only_a_question_about_it(demo_workspace, question, firm):
    analysis, _ = question_plan(question, workspace=demo_workspace)
    assert analysis.firm is firm
    picked, _ = question_plan(question, workspace=demo_workspace, jurisdictions=["private"])
    assert picked.firm is True


def test_a_contract_clause_does_not_answer_a_question_about_the_law(demo_workspace):
    # The Tripath–Uniquest distributor agreement gives "thirty days written notice"; it
    # binds those two, and says nothing of what the law asks of a manufacturer.
    general = ask(demo_workspace,
                  "How much notice must a manufacturer give before it stops making a product?")
    assert general.outcome == Outcome.NOT_ANSWERED, general.answer_markdown
    assert general.claim_confidence["level"] not in ("high", "medium")
    named = ask(demo_workspace, "How much notice does Tripath have to give Uniquest before it stops "
                                "making a product?")
    assert named.outcome == Outcome.ANSWERED, named.answer_markdown
    assert "thirty days written notice" in named.answer_markdown.split("\n\n")[0]


# -- near misses: the topic is in the samples, the asked fact is not -----------------------

@pytest.mark.parametrize("question, why", [
    # the park ordinance sets hours but no fine
    ("What is the fine for staying in Lloyd Minor Park after closing?", ""),
    # a state whose law is not loaded
    ("How many days does Washington give a debt collector to validate a debt?",
     "The workspace holds no documents of Washington (US-WA)."),
    # a document type (a TRID form) no loaded document mentions
    ("What does the Closing Disclosure have to show about escrow?",
     "No document in the workspace mentions “Closing Disclosure”."),
    # the sewer agreement has no late-payment interest
    ("What interest rate applies to late sewer bills in Rivergrove?", ""),
    # a time of day asked: "15 days prior to the regular meeting" is a period, not a night
    ("What night of the week does the Ray County planning commission meet?", ""),
    # parking rules for cars and streets, nothing on towing: the act asked is missing
    ("Can the city of Rivergrove tow a car parked on the street for more than two days?", ""),
    # a neighbouring town the Rivergrove documents mention, whose own code is not loaded
    ("In Lake Oswego, how long do replacement trees have to stay alive after planting?",
     "The workspace holds no documents of Lake Oswego (US-OR-LakeOswego)."),
    ("My client's house is on the Tualatin River in West Linn. How far out may her dock reach?",
     "The workspace holds no documents of West Linn (US-OR-WestLinn)."),
    # the town as the subject of the question, the only place it names
    ("Does West Linn make you get a permit for a private dock?",
     "The workspace holds no documents of West Linn (US-OR-WestLinn)."),
    # two sentences, the town named in both: one name each, and no made-up code for a town
    # several states have
    ("Our client lives in Portland. Does Portland require a permit for a backyard fence?",
     "The workspace holds no documents of Portland. Searched:"),
])
def test_a_near_miss_says_not_answered_first_and_never_verified(demo_workspace, question, why):
    turn = ask(demo_workspace, question)
    assert turn.outcome == Outcome.NOT_ANSWERED, turn.answer_markdown
    assert turn.answer_markdown.startswith("Not answered: the documents searched do not state this")
    assert why in turn.answer_markdown and "Searched:" in turn.answer_markdown
    assert turn.claim_confidence["level"] not in ("high", "medium")
    assert turn.claims.filter(revision__cycle=turn.metrics["revision_cycles"]).count() == 0
    # The nearest passages are shown as related, outside the ledger, never cited.
    if "## Related passages (not answering the question)" in turn.answer_markdown:
        assert "[cite:" not in turn.answer_markdown


def test_a_question_answered_in_part_is_partial_and_names_what_is_missing(demo_workspace):
    turn = ask(demo_workspace, "How late is Lloyd Minor Park open from May through October, "
                               "and what is the fine for staying after closing?")
    assert turn.outcome == Outcome.PARTIAL
    assert "9:00 pm" in turn.answer_markdown
    assert "Not found in available sources: what is the fine for staying after closing." \
        in turn.answer_markdown
    assert turn.metrics["answer_coverage"] == 0.5
    assert turn.claim_confidence["level"] != "high"
    facets = turn.answerability["facets"]
    assert [f["addressed"] for f in facets] == [True, False]


def test_a_question_of_no_known_kind_is_answered_but_never_high(demo_workspace):
    # "what about pilings?" asks no period, amount or yes/no: the dock rules are quoted,
    # but nothing checked that they state what was asked, so the answer is Low, says why,
    # and its ledger rows carry the capped relevance.
    turn = ask(demo_workspace, "Rivergrove docks and the river: what about pilings?")
    assert turn.working_memory["analysis"]["kind"] == FactKind.GENERAL
    assert turn.outcome == Outcome.ANSWERED and "docks" in turn.answer_markdown
    assert turn.claim_confidence["level"] == "low"
    assert any("could not tell what kind of fact" in r for r in turn.claim_confidence["recommendations"])
    rows = [claim.ledger for claim in turn_ledger(turn=turn)]
    assert rows and all(row.level != "high" and row.relevance <= 0.65 for row in rows)
    thoughts = [e.payload["text"] for e in turn.session.events.filter(type="reasoning_thought")]
    assert any("kind of fact asked is not recognised" in t for t in thoughts)


def test_the_analysis_and_routing_are_in_working_memory_and_the_trace(demo_workspace):
    turn = ask(demo_workspace, "Once a state has its FDCPA exemption, how soon must it tell "
                               "the Bureau about a change in its laws?")
    assert turn.working_memory["analysis"]["kind"] == FactKind.DEADLINE
    assert turn.working_memory["routing"]["targets"] == ["US"]
    thoughts = [e.payload["text"] for e in turn.session.events.filter(type="reasoning_thought")]
    assert any(t.startswith("The question asks for deadline; 1 facet(s)") for t in thoughts)
    assert not any("not recognised" in t for t in thoughts)
    done = turn.session.events.get(type="generation_complete")
    assert done.payload["outcome"] == "answered" and done.payload["answer_coverage"] == 1.0


# -- the pieces ------------------------------------------------------------------------------

@pytest.mark.parametrize("question, kind, unit", [
    ("How soon must the servicer send the notice?", FactKind.DEADLINE, ""),
    ("How many business days does the bank have to reply?", FactKind.DEADLINE, "day"),
    ("How much notice must a tenant give before moving out?", FactKind.DEADLINE, "period"),
    ("What fee does the county charge for a zoning change?", FactKind.AMOUNT, "money"),
    ("How tall may a fence be in a front yard?", FactKind.AMOUNT, "height"),
    ("What is the speed limit on county roads?", FactKind.AMOUNT, ""),
    ("What's the late payment penalty under the lease?", FactKind.AMOUNT, "money"),
    ("Can a landlord keep the whole deposit?", FactKind.PERMISSION, ""),
    ("Does the seller have to disclose a leaky roof?", FactKind.OBLIGATION, ""),
    ("What counts as a home occupation?", FactKind.DEFINITION, ""),
    ("What's the process for appealing a denied permit?", FactKind.PROCEDURE, ""),
    ("When does the boat ramp close at night?", FactKind.DEADLINE, "clock"),
    # "how long" of something that extends is a length; of a stay, a period of time
    ("How long can a dock stick out into the river?", FactKind.AMOUNT, "size"),
    ("How long may a deck extend past the house?", FactKind.AMOUNT, "size"),
    ("How long can a boat stay tied up at the public dock?", FactKind.DEADLINE, "period"),
    # A possessive between "what" and the asked noun, with either apostrophe.
    ("We need a grading permit from the county. What's the county's fee for that permit?",
     FactKind.AMOUNT, "money"),
    ("What’s the city’s penalty for an unpermitted fence?", FactKind.AMOUNT, "money"),
    ("What's the landlord's process for returning a deposit?", FactKind.PROCEDURE, ""),
    ("What will the contractor bill for an engineer's overtime?", FactKind.AMOUNT, "money"),
    ("My client wants to tape a call with her landlord. Is that legal?", FactKind.PERMISSION, ""),
    # written for this round, not taken from a question set
    ("Our water bill doubled. What's the quarterly water bill for a duplex?", FactKind.AMOUNT, "money"),
    ("The county keeps writing about the new road. Am I forced to sell them a strip of my lot?",
     FactKind.OBLIGATION, ""),
    ("I'd like a chicken coop behind the garage. Will the city let me?", FactKind.PERMISSION, ""),
    ("We want a second driveway off the side street. Would the county go along with that?",
     FactKind.PERMISSION, ""),
    ("a hot tub on the back deck, no permit. allowed?", FactKind.PERMISSION, ""),
    ("Does a three-week sublet count as a tenancy under the lease?", FactKind.DEFINITION, ""),
    ("What's the cutoff for filing a protest of the assessment?", FactKind.DEADLINE, ""),
    ("Is there an income cutoff for the senior tax deferral?", FactKind.AMOUNT, ""),
])
def test_the_kind_of_fact_asked_and_its_unit_are_read_from_the_wording(question, kind, unit):
    facet = question_analyse(question).facets[0]
    assert (facet.kind, facet.unit) == (kind, unit)
    if unit == "clock":  # the time of day is the asked value, not a topic word
        assert "night" not in {t.key for t in facet.terms}
        assert slot_present(kind, "open from 8:00 am to 9:00 pm", unit)
        assert not slot_present(kind, "submitted 15 days prior to the regular meeting", unit)


def test_a_leading_condition_is_situation_and_the_rest_is_the_question():
    analysis = question_analyse("If the landlord keeps the deposit, how long does the tenant have to sue?")
    assert analysis.situation == "If the landlord keeps the deposit"
    assert analysis.facets[0].text == "how long does the tenant have to sue"
    assert analysis.facets[0].kind == FactKind.DEADLINE


def test_a_question_typed_in_lower_case_after_its_story_is_still_the_question():
    analysis = question_analyse("our tenant stopped paying in march. how long before we can file to evict?")
    assert analysis.situation == "our tenant stopped paying in march."
    assert [f.text for f in analysis.facets] == ["how long before we can file to evict"]
    assert analysis.facets[0].kind == FactKind.DEADLINE


def test_a_situation_told_first_is_context_and_each_clause_is_a_facet():
    analysis = question_analyse("My neighbor's boat landing sticks out into the river. How far "
                                "may it extend, and does he need a permit?")
    assert analysis.situation.startswith("My neighbor's boat landing")
    assert [f.kind for f in analysis.facets] == [FactKind.AMOUNT, FactKind.OBLIGATION]
    landing = next(t for t in analysis.facets[0].terms if ("dock",) in t.alternatives)
    assert landing.weight == 0.5  # "boat landing", from the situation, means "dock"
    assert "permit" in {t.key for t in analysis.facets[1].terms}
    assert "dock" in analysis.expansion_text() and "pier" in analysis.expansion_text()


def test_places_authorities_and_parties_route_the_search(demo_workspace):
    town = question_route("Are docks allowed in Rivergrove?", workspace=demo_workspace)
    assert town.targets == ["US-OR-Rivergrove"] and not town.missing
    county = question_route("Does Ray County, Missouri allow kennels?", workspace=demo_workspace)
    assert county.targets == ["US-MO-Ray"]  # Missouri is implied by its county
    elsewhere = question_route("What is the minimum lot in Clay County, Missouri?", workspace=demo_workspace)
    assert elsewhere.only_missing and elsewhere.missing[0].code == "US-MO-Clay"
    act = question_route("Under the FDCPA, who may ask for an exemption?", workspace=demo_workspace)
    assert act.targets == ["US"] and len(act.documents) == 1
    party = question_route("Can Uniquest return unsold Tripath products?", workspace=demo_workspace)
    assert set(party.parties) == {"Uniquest", "Tripath"} and len(party.documents) == 1
    assert question_route("What does the city charge for a tree permit?",
                          workspace=demo_workspace).targets == ["US-OR-Rivergrove"]
    # a town of the GeoNames list where the question places itself; not a river, park or party
    town = question_route("Inside Lake Oswego city limits, may a fir be cut?", workspace=demo_workspace)
    assert town.only_missing and town.missing[0].code == "US-OR-LakeOswego"
    for named in ("If Lake Oswego raises its sewer fees, how much warning does Rivergrove get?",
                  "How deep is the Tualatin River in Rivergrove?",
                  "How late can people stay in Lloyd Minor Park?",
                  "Under the Independence Agreement, who pays for shipping?",  # a town's name, a contract's
                  "Can Uniquest return unsold Tripath products?",
                  # the town is where the client is; the question is on state law
                  "My client keeps his plane at a hangar in Bend. Must he register it with the state?"):
        assert not question_route(named, workspace=demo_workspace).missing, named


def test_a_part_is_known_by_its_act_s_initials():
    assert title_acronyms("12 CFR Part 1003 — Home Mortgage Disclosure (Regulation C)") == ["HMDA"]
    assert title_acronyms("12 CFR Part 1022 — Fair Credit Reporting (Regulation V)") == ["FCRA"]
    assert title_acronyms("12 CFR Part 1006 — Fair Debt Collection Practices Act (Regulation F)") == ["FDCPA"]
    assert title_acronyms("12 CFR Part 1010 — Land Registration (Regulation J)") == []


def test_a_cited_part_or_chapter_focuses_the_search_on_it(demo_workspace):
    assert cited_parts("see 12 C.F.R. § 1006.34 and ORS 837.380") == [
        ("12 CFR 1006", "12 C.F.R. § 1006"), ("ORS 837", "ORS 837")]
    part = question_route("How long is a validation period under the debt rules (12 CFR Part 1006)?",
                          workspace=demo_workspace)
    assert part.targets == ["US"] and len(part.documents) == 1
    assert "12 CFR Part 1006" in part.names  # scope: "Part" is no topic word an answer must hold
    chapter = question_route("Under ORS chapter 837, when must an aircraft be registered?",
                             workspace=demo_workspace)
    assert len(chapter.documents) == 1 and "US-OR" in chapter.targets
    assert not question_route("What does 12 CFR Part 1022 say about opt-outs?",
                              workspace=demo_workspace).documents  # a part the samples lack


def test_a_sentence_addresses_a_facet_only_with_the_asked_kind_of_value():
    analysis = question_analyse("How many days does a tenant have to pay overdue rent?")
    with_period = sentence_relevance(analysis, "The tenant shall pay overdue rent within 10 days.")
    without = sentence_relevance(analysis, "The tenant shall pay overdue rent promptly to the landlord.")
    other_unit = sentence_relevance(analysis, "The tenant shall pay overdue rent within 2 months.")
    assert with_period.addressed == (0,) and with_period.score == 1.0
    assert without.addressed == () and without.score < 1.0
    assert other_unit.addressed == ()  # the question asked for days
    assert slot_present(FactKind.AMOUNT, "a fee of $75 per tree", "money")
    assert not slot_present(FactKind.AMOUNT, "no more than 20 feet", "money")
    assert slot_present(FactKind.AMOUNT, "shall not exceed 12 feet in width", "size")
    assert not slot_present(FactKind.AMOUNT, "a deposit of $2,500", "size")
    # a count in words with its figure, as laws write it
    assert slot_present(FactKind.AMOUNT, "The board shall consist of seven (7) members named by the mayor")
    # a bound on a bare number is a threshold; on a period of time, a deadline's
    assert slot_present(FactKind.AMOUNT, "a lender is covered if it made at least 500 closed-end loans")
    assert not slot_present(FactKind.AMOUNT, "the notice is sent not more than 30 (30) days after")
    # A count of things answers "how many": "2 covered, enclosed spaces per unit".
    assert slot_present(FactKind.AMOUNT, "Single family: 2 covered, enclosed spaces per unit.")
    assert not slot_present(FactKind.AMOUNT, "Parking spaces shall be paved and covered.")
    assert not slot_present(FactKind.AMOUNT, "The owner shall plant a number of trees.")  # not a count
    # A condition on being deemed something says what has to be done.
    assert slot_present(FactKind.PROCEDURE, "Oral disclosures shall be deemed Confidential Information "
                                            "if they are confirmed in writing.")


def test_a_year_the_question_names_must_be_in_the_answer_or_its_source():
    analysis = question_analyse("What did the sewer connection cost in 2019?")
    assert sentence_relevance(analysis, "The sewer connection charge is $500.").addressed == ()
    assert sentence_relevance(analysis, "In 2019 the sewer connection charge was $500.").addressed == (0,)


def test_template_lines_and_related_passages_are_not_claims():
    text = ("Not answered: the documents searched do not state this (x).\n\n"
            "Searched: every jurisdiction; 1 document(s) with matching passages (Ord. 80).\n\n"
            "## Related passages (not answering the question)\n\n"
            "- “The park shall be open from 8:00 am to 8:00 pm.” — Rivergrove Ord. No. 80-2011\n\n"
            "## Later section\n\nA claim [cite:abcdefabcdef].")
    claims = RuleSkeptic().extract(text)
    assert [c.text for c in claims] == ["A claim."]
    assert text[claims[0].span[0]:claims[0].span[1]] == "A claim [cite:abcdefabcdef]."


def test_minutes_record_what_was_said_and_answer_only_questions_about_a_meeting():
    sentence = "The council agreed the park should close at 9:00 pm from May through October."
    law = question_analyse("When does the park close at night from May through October?")
    meeting = question_analyse("What closing time did the council agree on at its August meeting?")
    title = "City of Rivergrove City Council Meeting Minutes (2018-08-13)"
    assert sentence_relevance(law, sentence, title=title).addressed == ()
    assert sentence_relevance(law, sentence, title="Ordinance No. 80-2011").addressed == (0,)
    assert sentence_relevance(meeting, sentence, title=title).addressed == (0,)


def test_the_enacting_record_of_an_ordinance_answers_only_a_question_about_its_enactment():
    rule = question_analyse("How often is the library board required to meet?")
    enactment = question_analyse("Did the City Council adopt the library board ordinance?")
    title = "Ordinance No. 31 Establishing a Library Board"
    context = f"{title}\n1. A Library Board is hereby established."
    for record in ("Passed on first reading by title at a meeting of the City Council on the 3rd day of May, "
                   "1981.",
                   "ADOPTED by the City Council this 3 day of May, 1981, at its regular meeting."):
        assert sentence_relevance(rule, record, context=context, title=title).addressed == ()
        assert sentence_relevance(enactment, record, context=context, title=title).addressed == (0,)
    # A question about an approval asks about a permit, not about an enactment.
    approval = question_analyse("Does the library board need the City Council's approval to meet?")
    assert sentence_relevance(approval, "ADOPTED by the City Council this 3 day of May, 1981.",
                              context=context, title=title).addressed == ()
    duty = "The library board shall meet at least once every three months."
    assert sentence_relevance(rule, duty, context=context, title=title).addressed == (0,)
    # An adjective is not an enacting verb.
    kept = "Approved plans shall be kept on file with the City Recorder for at least 2 years."
    assert sentence_relevance(question_analyse("How long must approved plans be kept on file?"),
                              kept, title=title).addressed == (0,)


def test_a_related_heading_hides_nothing_outside_a_not_answered_text():
    text = ("The park closes at 9:00 pm [cite:abcdefabcdef].\n\n"
            "## Related passages (not answering the question)\n\n- Fines are $5,000 per night.")
    assert "Fines are $5,000 per night." in [c.text for c in RuleSkeptic().extract(text)]


def test_a_question_about_a_state_s_law_is_not_answered_by_a_federal_rule(demo_workspace):
    route = question_route("Under Oregon law, can a debt collector call a consumer at work?",
                           workspace=demo_workspace)
    assert route.local == [("US-OR", "Oregon")]
    analysis = question_analyse("Under Oregon law, can a debt collector call a consumer at work?").placed(
        route.local)
    federal = "A debt collector may not communicate with a consumer at the consumer's place of employment."
    assert out_of_place(analysis, "US", federal)
    assert not out_of_place(analysis, "US-OR", "A collection agency shall not call a debtor at work.")
    # Asking about federal law too keeps every level in play.
    assert question_route("Does federal or Oregon law let a debt collector call a consumer at work?",
                          workspace=demo_workspace).local == []


def test_capitalised_words_alone_do_not_decline_a_routed_question(demo_workspace):
    route = question_route("What is the Dock Permit Fee in Rivergrove?", workspace=demo_workspace)
    assert route.targets == ["US-OR-Rivergrove"] and not route.only_missing
    assert question_route("What does the Closing Disclosure have to show about escrow?",
                          workspace=demo_workspace).only_missing


def test_a_follow_up_without_a_topic_takes_the_earlier_question_as_its_situation(demo_workspace):
    from sessions.pipeline import turn_run
    from sessions.services import turn_create

    first = ask(demo_workspace, "How late can people stay in Lloyd Minor Park from May through October?")
    analysis = question_analyse("How long does that take?", earlier=first.question)
    assert analysis.situation == first.question and any(t.weight == 0.5 for t in analysis.topic)
    follow = turn_run(turn_create(session=first.session, question="What time does it open?"))
    assert follow.status == RunStatus.COMPLETED
    assert follow.answerability["targets"] == ["US-OR-Rivergrove"]  # stays in the same town
    assert not sentence_relevance(question_analyse("How long?"), "Within 30 days.").addressed


def test_related_passages_show_document_markup_as_text():
    from retrieval.search import RetrievedChunk
    from sessions.writer import Candidate, WriteRequest, not_answered_text

    chunk = RetrievedChunk(
        chunk_pk=1, chunk_id="abcdefabcdef", document_id=1, document_title="Fee [notice](http://x)",
        citation_label="", jurisdiction="private", jurisdiction_level="private", lane="local",
        heading="", text="", char_start=0, char_end=0, page_start=None, page_end=None,
        last_updated=None, bm25=1.0)
    bad = Candidate(chunk, 0, "Pay here ![x](http://evil.test/p.png) or [click](http://x).", frozenset(), 0.5)
    text = not_answered_text(WriteRequest(question="What is the fee?", mode="answer", chunks=[chunk]),
                             related=[bad])
    assert "!\\[x\\](http://evil.test/p.png)" in text and "\\[click\\]" in text
    assert "Fee \\[notice\\](http://x)" in text


def test_context_completes_a_sentence_but_never_stands_in_for_it():
    """A sentence in a minimum-wage chapter that says only when a section is repealed
    does not say what the minimum wage is, although its heading and the year match."""
    analysis = question_analyse("What is the Oregon minimum wage for 2024?").scoped(["Oregon"])
    context = "ORS ch. 653 Minimum Wages\\nMinimum wage rates. The minimum wage rate is adjusted each year."
    off = sentence_relevance(analysis, "Section 6 of this 2017 Act is repealed on January 1, 2024.",
                             context=context)
    on = sentence_relevance(analysis, "Beginning July 1, 2024, the minimum wage is $14.20 per hour.",
                            context=context)
    assert not off.relevant and on.relevant


# -- a local question is answered from its own place ---------------------------------------------

def _chunk(chunk_id, *, jurisdiction, level, title, text, heading=""):
    from retrieval.search import RetrievedChunk

    return RetrievedChunk(
        chunk_pk=1, chunk_id=chunk_id, document_id=hash(chunk_id) % 1000, document_title=title,
        citation_label=title, jurisdiction=jurisdiction, jurisdiction_level=level, lane="local",
        heading=heading, text=text, char_start=0, char_end=len(text), page_start=None, page_end=None,
        last_updated=None, bm25=1.0, score=0.5, rank=1)


FEDERAL_APPEAL = _chunk(
    "fedfedfedfed", jurisdiction="US", level="federal", title="12 CFR Part 1070",
    text="A requester may appeal a denied records request within 90 calendar days.")
COUNTY_APPEAL = _chunk(
    "cntycntycnty", jurisdiction="US-MO-Ray", level="county", title="Ray County Zoning Order",
    text="An applicant may appeal the denial of a variance to the Board of Adjustment within 30 days.")


def _answer(question, chunks, places):
    from sessions.writer import ExtractiveWriter, WriteRequest

    analysis = question_analyse(question).scoped(["Ray County"]).placed(places)
    return ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=chunks,
                                                   analysis=analysis))


def test_a_county_question_is_not_answered_by_a_federal_rule_that_shares_its_words():
    question = "How many days do I have to appeal a denied variance in Ray County?"
    county = [("US-MO-Ray", "Ray County")]
    text = _answer(question, [FEDERAL_APPEAL], county)
    assert text.startswith("Not answered"), text
    assert "90 calendar days" in text and "[cite:" not in text  # shown as related only
    assert "[cite:cntycntycnty]" in _answer(question, [FEDERAL_APPEAL, COUNTY_APPEAL], county)
    # Without the confinement (a question about federal law too) the federal rule answers.
    assert "[cite:fedfedfedfed]" in _answer(question, [FEDERAL_APPEAL], [])


def test_a_caption_repeated_as_its_paragraph_opens_is_never_the_answer():
    # 12 CFR 1030's eRegulations text opens a paragraph with its caption, twice: "(b) Notice
    # before maturity for time accounts longer than one month that renew automatically.
    # Notice before …". The caption's "one month" is the account's term, not the notice
    # period, yet it led the answer to "how much notice before a CD rolls over?".
    from tests.conftest import corpus_line

    paragraph = corpus_line("federal/us-cfr-12/12cfr1030_truth_in_savings.txt",
                            "(b) Notice before maturity for time accounts longer than one month")
    chunk = _chunk("cfr1030cfr10", jurisdiction="US", level="federal", title="12 CFR Part 1030",
                   text=paragraph)
    from sessions.writer import ExtractiveWriter, WriteRequest

    question = "How much notice does a bank owe a depositor before a one-year CD automatically rolls over?"
    text = ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=[chunk],
                                                   analysis=question_analyse(question)))
    assert "30 calendar days before maturity" in text
    assert "renew automatically [cite" not in text and "renew automatically. [cite" not in text
    # The official interpretations give the caption a line of its own, over numbered items.
    commentary = ("(a)(2)(ii) Check printing fees.\n1. Increase in fees. A notice is not required for "
                  "an increase in fees for printing checks.\n(b) Notice before maturity for time accounts "
                  "longer than one month that renew automatically.\n1. Maturity dates on nonbusiness days. "
                  "In determining the term of a time account, institutions may disregard the fact that "
                  "the term will be extended beyond the disclosed number of days.")
    chunk = _chunk("cfr1030supp1", jurisdiction="US", level="federal", title="12 CFR Part 1030",
                   text=commentary)
    text = ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=[chunk],
                                                   analysis=question_analyse(question)))
    assert "Notice before maturity" not in text
    # Nor is a title set as a sentence (12 CFR 1030, Appendix B).
    titled = _chunk("cfr1030appb", jurisdiction="US", level="federal", title="12 CFR Part 1030",
                    text="Automatically Renewable Time Accounts With Maturities of One Year or Less But "
                         "Longer Than One Month. The institution must mail the notice at least 30 calendar "
                         "days before maturity.")
    text = ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=[titled],
                                                   analysis=question_analyse(question)))
    assert "Automatically Renewable" not in text and "30 calendar days before maturity" in text
    # A short rule over its own items states something: it is no caption.
    rule = _chunk("rulerulerule", jurisdiction="US", level="federal", title="12 CFR Part 1030",
                  text="(b) Notice shall be given 30 days before maturity.\n(1) Exceptions. None apply.")
    text = ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=[rule],
                                                   analysis=question_analyse(question)))
    assert "Notice shall be given 30 days before maturity" in text


def test_a_state_passage_that_names_the_town_is_about_it():
    from retrieval.relevance import out_of_place

    analysis = question_analyse("When is the Rivergrove sewer bill due?").placed(
        [("US-OR-Rivergrove", "Rivergrove")])
    assert out_of_place(analysis, "US-OR", "ORS 450.010 The sanitary district of Lake Oswego.")
    assert not out_of_place(analysis, "US-OR", "The City of Rivergrove sewer charges are due monthly.")
    assert not out_of_place(analysis, "US-OR-Rivergrove", "Sewer charges are due monthly.")
    assert not out_of_place(question_analyse("When is the sewer bill due?"), "US", "Anything.")


def test_a_question_on_state_or_federal_law_is_not_confined_to_the_place_it_names(demo_workspace):
    assert question_route("In Ray County, how long can a building sit empty?",
                          workspace=demo_workspace).local == [("US-MO-Ray", "Ray County")]
    assert question_route("Can Rivergrove close its park at dusk?",
                          workspace=demo_workspace).local == [("US-OR-Rivergrove", "Rivergrove")]
    for wider in ("Under Oregon law, can Rivergrove close its park at dusk?",
                  "Does federal law let Ray County deny a cell tower?",
                  "Which ORS chapter lets Rivergrove charge a sewer fee?"):
        assert question_route(wider, workspace=demo_workspace).local == [], wider


# -- the lead is a sentence in which the asked party acts -----------------------------------------

LEASE = "Residential Lease (hand-written)"


def _lease(chunk_id, text):
    return _chunk(chunk_id, jurisdiction="private", level="private", title=LEASE, text=text)


def _composed(question, chunks):
    """The extractive Writer's Answer to ``question`` from ``chunks``, unscoped."""
    from sessions.writer import ExtractiveWriter, WriteRequest

    return ExtractiveWriter().compose(WriteRequest(question=question, mode="answer", chunks=chunks,
                                                   analysis=question_analyse(question)))


def test_the_lead_is_not_a_sentence_in_which_the_party_acted_on_acts():
    """"How much notice does a tenant have to give the landlord" is not answered first by
    the landlord's notice to the tenant, however well its words and its score match."""
    landlord = _lease("landlordnote", "The Landlord shall give the Tenant 30 days' written notice before the "
                                      "Tenant has to move out of the premises.")
    tenant = _lease("tenantnotice", "The Tenant shall give the Landlord 60 days' written notice before "
                                    "moving out of the premises.")
    text = _composed("How many days' notice does a tenant have to give the landlord before moving out?",
                     [landlord, tenant])
    assert text.startswith("The Tenant shall give the Landlord 60 days"), text
    # Asked the other way round, the landlord's notice leads.
    text = _composed("How many days' notice does the landlord have to give a tenant before the tenant moves "
                     "out?", [tenant, landlord])
    assert text.startswith("The Landlord shall give the Tenant 30 days"), text


@pytest.mark.parametrize("question, parties", [
    ("How much notice does an employee owe the employer before quitting?", ("an employee", "the employer")),
    ("Does the seller have to tell the buyer about a leaking roof?",
     ("the seller", "the buyer about a leaking roof")),
    ("Must the city notify neighbours within 200 feet of a hearing?",
     ("the city", "neighbours within 200 feet of a hearing")),
    ("Can the landlord keep the deposit, and how fast must it be returned?", ("the landlord", "the deposit")),
    ("How long is the warranty on a new roof?", ("", "")),  # no act asked
])
def test_a_question_names_who_acts_and_what_its_act_is_done_to(question, parties):
    from retrieval.question import act_parties

    assert act_parties(question) == parties


def test_a_sentence_in_which_the_asked_actor_is_only_acted_on_does_not_answer():
    """"How much notice does the tenant owe the landlord?" is not answered by the
    building official's notice to the owner or tenant, though it holds every word."""
    official = _chunk("officialnote", jurisdiction="US-MO-Ray", level="county", title="County Building Code",
                      text="The Building Official shall give the owner or tenant 30 days' notice of the "
                           "deficiencies found on inspection.")
    tenant = _lease("tenantowesnt", "The Tenant shall give the Landlord 60 days' written notice before "
                                    "ending the lease.")
    question = "How much notice does the tenant owe the landlord before ending the lease?"
    text = _composed(question, [official])
    assert text.startswith("Not answered"), text
    text = _composed(question, [official, tenant])
    assert text.startswith("The Tenant shall give the Landlord 60 days") and "Building Official" not in text
    # Acted on in one clause, acting in the next: the sentence may answer.
    both = _lease("bothclauses1", "The Landlord shall send the Tenant a renewal offer, and the Tenant shall "
                                  "give the Landlord 45 days' written notice before ending the lease.")
    text = _composed(question, [both])
    assert "45 days" in text and not text.startswith("Not answered"), text


# -- a newer enactment of the same town leads (supersession, issue 13 item 4) ---------------------

def _town_fee(chunk_id, title, text, heading=""):
    return _chunk(chunk_id, jurisdiction="US-OR-Rivergrove", level="municipal", title=title, text=text,
                  heading=heading)


def _first_cited(text):
    import re

    return re.search(r"\[cite:(\w+)\]", text).group(1)


def test_the_newer_fee_of_the_same_town_leads():
    question = "How much is the fee for a fence permit?"
    old = _town_fee("0ld0ld0ld0ld", "Rivergrove Ord. No. 41-1996",
                    "The fee for a fence permit shall be $15.")
    new = _town_fee("new1new1new1", "Rivergrove Res. No. 290-2021",
                    "The fee for a fence permit is $60.")
    for chunks in ([old, new], [new, old]):
        assert _first_cited(_composed(question, chunks)) == "new1new1new1"


def test_a_newer_document_of_another_place_does_not_take_the_lead():
    question = "How much is the fee for a fence permit?"
    town = _town_fee("t0wnt0wnt0wn", "Rivergrove Ord. No. 41-1996",
                     "The fee for a fence permit shall be $15.")
    county = _chunk("c0untyc0unty", jurisdiction="US-MO-Ray", level="county",
                    title="Ray County Res. 2022-7", text="The fee for a fence permit is $40.")
    assert _first_cited(_composed(question, [town, county])) == "t0wnt0wnt0wn"


def test_other_rows_of_a_quoted_schedule_come_after_prose_beside_the_rule():
    from sessions.writer import _chunk_sentences

    chunk = _town_fee("sched1sched1", "Rivergrove Res. No. 290-2021",
                      "Fees are due when the application is filed.\n"
                      "| Fence permit | $60 |\n| Sign permit | $25 |")
    sentences, prose = _chunk_sentences(chunk)
    assert prose == 1 and len(sentences) > prose


# -- a town the documents only mention in passing ------------------------------------------------

def test_a_town_the_documents_only_mention_must_be_named_by_the_answer(demo_workspace):
    # Clackamas (a county's name, too small a place for the GeoNames towns) is mentioned
    # in a few Rivergrove documents; Tualatin, a GeoNames town, is a place not loaded.
    question = "What front yard setback does Clackamas require for a new house?"
    assert question_route(question, workspace=demo_workspace).mentioned == ["Clackamas"]
    tualatin = question_route("What front yard setback does Tualatin require for a new house?",
                              workspace=demo_workspace)
    assert tualatin.only_missing and tualatin.missing[0].code == "US-OR-Tualatin"
    assert question_route("Can the Board deny a dock permit in Rivergrove?",
                          workspace=demo_workspace).mentioned == []  # an English word
    turn = ask(demo_workspace, question)
    assert turn.outcome == Outcome.NOT_ANSWERED, turn.answer_markdown


def test_of_two_sentences_that_cover_the_question_the_one_in_which_the_asker_s_party_acts_leads():
    """"When does the city council meet?": the charter's "The council shall hold a regular
    meeting at least once each month" leads, not a newer ordinance's notice of a hearing,
    which holds the same words (council, hearing) and a newer date but no council acting."""
    charter = _town_fee("charter13aaa", "City of Rivergrove City Charter (1974)",
                        "The council shall hold a regular meeting at least once each month in or near the "
                        "city at a time and at a place which it designates.")
    notice = _town_fee("ord65notice1", "Rivergrove Ord. No. 65-99 (1999)",
                       "Notice of such a public hearing before the City Council shall be published in the "
                       "monthly edition of the Rivergrove Report.")
    for chunks in ([charter, notice], [notice, charter]):
        assert _first_cited(_composed("When does the city council meet?", chunks)) == "charter13aaa"


def test_in_prose_the_rule_leads_though_its_exception_repeats_the_question_s_words():
    """"How long until a conditional use permit expires?": the rule ("shall lapse" within
    18 months) leads, not the extension that repeats "expiration" (memo-05)."""
    regulation = _chunk(
        "cupexpire001", jurisdiction="US-MO-Ray", level="county",
        title="Ray County Planning & Zoning Regulations (2005)", heading="30.9 Conditional Use Permits",
        text="If a building permit for an approved Conditional Use has not been issued within 18 months of "
             "the date that the Conditional Use Permit was approved by the County Commission, the "
             "Conditional Use Permit shall lapse and be of no further effect. The time frames of this "
             "sub-Article may be extended for up to 1 year by the County Commission if an extension "
             "request is filed prior to expiration of the Conditional Use Permit.")
    text = _composed("How long until a conditional use permit expires?", [regulation])
    assert text.startswith("If a building permit for an approved Conditional Use"), text
