"""How a question refers to what it asks about (issue 9; hand-written questions, not from
any question set): "the city" of a question that names its town, "Is that …?" after a
story, a share "of the lot", "off-limits", a plural possessive in a party's name, a
question listed after another with a comma, and "at what point … treat it as"."""

import pytest

from retrieval.lexicon import alternatives
from retrieval.places import question_route
from retrieval.plan import question_plan
from retrieval.question import FactKind, clause_unit, clauses, fact_kind, question_analyse
from retrieval.relevance import UNIT_PATTERNS, sentence_relevance, slot_present
from sessions.models import RunStatus
from sessions.services import session_ask
from tests.conftest import CORPUS_DIR, corpus_workspace_of

BOTTLING_NDA = CORPUS_DIR / "private" / "contractnli" / "cnli_012_183.txt"


def topic_keys(analysis) -> set[str]:
    return {t.key for f in analysis.facets for t in f.terms}


@pytest.mark.django_db
@pytest.mark.parametrize("question, word", [
    ("We want to move an old farmhouse onto a lot in Rivergrove. What will the city require first?", "citi"),
    ("Does Ray County let me keep a camper in my yard, and what does the county charge for that?", "counti"),
])
def test_the_city_or_county_of_a_question_that_names_it_is_its_scope(demo_workspace, question, word):
    analysis, routing = question_plan(question, workspace=demo_workspace)
    assert routing.local, "the named place confines the question"
    assert word not in topic_keys(analysis)


@pytest.mark.django_db
def test_a_body_of_the_city_is_not_the_city_itself(demo_workspace):
    routing = question_route("In Rivergrove, when does the city council meet?", workspace=demo_workspace)
    assert "city" not in [n.lower() for n in routing.names]


def test_is_that_after_a_story_refers_back_to_it():
    analysis = question_analyse("A breeder sedated a puppy before selling it so it would seem calm. "
                                "Is that a crime of its own?")
    assert analysis.facets[0].refers_back
    idf = {"crime": 4.0, "law": 1.5, "breeder": 5.0, "sedat": 6.0, "puppi": 6.0, "sell": 2.0,
           "seem": 1.0, "calm": 4.0, "aircraft": 5.0, "misdemeanor": 4.0}
    aircraft = "The offense described in ORS 837.080, prohibited operation of an aircraft, is a crime."
    assert sentence_relevance(analysis, aircraft, idf=idf).addressed == ()
    sale = "A person commits the crime of selling a sedated animal if the buyer is not told."
    assert sentence_relevance(analysis, sale, idf=idf).addressed == (0,)


def test_his_her_or_their_thing_after_a_story_is_the_story_s():
    analysis = question_analyse("My client was fined by a municipal court last month for a barking dog. "
                                "How many days does he have to file his appeal?")
    assert analysis.facets[0].refers_back
    agency = ("Any party may file exceptions to the recommended decision of the hearing officer by filing "
              "a notice of appeal with the Office of Administrative Adjudication within ten days after "
              "service of the recommended decision.")
    assert sentence_relevance(analysis, agency).addressed == ()
    court = "An appeal from a judgment of the municipal court shall be filed within 30 days."
    assert sentence_relevance(analysis, court).addressed == (0,)
    # the asker's own "my" points at nobody in a story
    assert not question_analyse("I was fined last month. How long do I have to file my appeal?"
                                ).facets[0].refers_back


def test_a_share_of_the_lot_asks_for_a_percentage():
    clause = "What's the most of the lot that buildings are allowed to cover"
    assert clause_unit(clause, fact_kind(clause)) == "percent"
    percent = UNIT_PATTERNS["percent"]
    assert percent.search("Buildings shall not cover more than 40% of the lot.")
    assert percent.search("upon a remonstrance by the owners of two-thirds of the property")
    # a fraction of a unit is a size, not a share
    assert not percent.search("on a lot of one-half acre or less")
    assert not percent.search("a sign not exceeding one and one-half square feet in area")


def test_off_limits_asks_whether_it_is_allowed_not_about_a_limit():
    analysis = question_analyse("The seller signed a non-compete. Its investment desk now wants to buy "
                                "shares of a homebuilder. Is that off-limits?")
    assert analysis.facets[0].kind == FactKind.PERMISSION
    assert "limit" not in topic_keys(analysis)


def test_how_long_a_restriction_runs_is_the_period_asked():
    analysis = question_analyse("How long does the non-solicitation restriction run?")
    assert analysis.facets[0].unit == "period"
    assert "run" not in topic_keys(analysis)
    assert "run" in topic_keys(question_analyse("How long can I run a yard sale sign?"))


def test_free_to_do_a_thing_says_whether_it_may_be_done():
    assert slot_present(FactKind.PERMISSION, "After three years the supplier is free to dispose of it.")
    assert slot_present(FactKind.PERMISSION, "Licensee may, at its sole option, renew the term.")
    assert not slot_present(FactKind.PERMISSION, "Admission to the pool is free to residents.")  # a price


def test_throwing_out_papers_is_disposing_of_them_and_a_dead_car_is_inoperable():
    throw = set(alternatives(("throw",)))
    assert {("dispos",), ("discard",), ("dismiss",)} <= throw  # a paper's sense and a court's
    assert ("inoper",) in alternatives(("dead", "vehicl"))
    assert ("inoper",) not in alternatives(("dead",))  # a dead tree is no junk car


def test_a_question_listed_after_another_with_a_comma_is_a_clause_of_its_own():
    assert clauses("At what point does the county treat it as junk, where would he be allowed to keep "
                   "it, and can I file a complaint?") == [
        "At what point does the county treat it as junk", "where would he be allowed to keep it",
        "can I file a complaint"]
    # a relative clause or an aside is not a question
    assert len(clauses("Can the tenant, when the lease ends, keep the deposit?")) == 1
    assert len(clauses("Can the landlord, who never gave notice, keep the deposit?")) == 1
    assert len(clauses("What permits, if any, do I need to build a deck?")) == 1
    assert len(clauses("How long, in days, does the tenant have to move out?")) == 1


@pytest.mark.parametrize("clause, kind", [
    ("At what point does the county treat a car as abandoned", FactKind.DEFINITION),
    ("What makes the county regard a trailer as a dwelling", FactKind.DEFINITION),
    ("At what point does a lender have to report its loans quarterly", FactKind.AMOUNT),
])
def test_treated_as_asks_what_counts_as_one(clause, kind):
    assert fact_kind(clause) == kind


def test_whether_one_may_treat_someone_as_something_is_a_permission():
    analysis = question_analyse("Can the landlord treat me as a trespasser?")
    assert analysis.facets[0].kind == FactKind.PERMISSION and "treat" in topic_keys(analysis)
    hedged = question_analyse("Can we stop the paving, or at the least delay it?")
    assert hedged.facets[0].kind == FactKind.PERMISSION  # "at the least" asks no minimum


@pytest.mark.django_db
def test_a_plural_possessive_party_finds_its_contract_and_its_disposal_rule():
    workspace = corpus_workspace_of("Bottling", BOTTLING_NDA)
    question = ("We used Brooks' Bottling as our co-packer for a hot sauce line and ended the relationship "
                "last year. We never asked them to send back our recipes. Can they just throw them out?")
    _, routing = question_plan(question, workspace=workspace)
    assert routing.documents, "the party's name, a plural possessive, should find its contract"
    turn = session_ask(workspace=workspace, question=question)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert turn.outcome == "answered"
    assert "three (3) years" in turn.answer_markdown and "dispose" in turn.answer_markdown


def test_a_later_clause_points_back_to_the_story_as_the_first_does():
    analysis = question_analyse("A breeder sedated a puppy before selling it so it would seem calm. "
                                "Is that a crime of its own, and what class?")
    assert [f.refers_back for f in analysis.facets] == [True, True]
    idf = {"crime": 4.0, "class": 3.0, "breeder": 5.0, "sedat": 6.0, "puppi": 6.0, "sell": 2.0,
           "seem": 1.0, "calm": 4.0, "aircraft": 5.0, "misdemeanor": 4.0}
    aircraft = ("The offense described in ORS 837.080, prohibited operation of an aircraft, "
                "is a Class B misdemeanor.")
    assert sentence_relevance(analysis, aircraft, idf=idf).addressed == ()


def test_the_verb_of_treated_as_frames_the_question():
    analysis = question_analyse("What does the agreement treat as protected information?")
    assert analysis.facets[0].kind == FactKind.DEFINITION
    assert "treat" not in topic_keys(analysis) and "protect" in topic_keys(analysis)
    assert "treat" in topic_keys(question_analyse("How must the landlord treat the deposit?"))


def test_moving_out_is_vacating_and_a_lessee_of_goods_does_not_answer_it():
    analysis = question_analyse("How many days does a tenant in Oregon have to move out after a notice "
                                "for unpaid rent?")
    facet = analysis.facets[0]
    assert facet.action is not None and ("vacat",) in facet.action.alternatives
    idf = {"tenant": 5.0, "move": 3.0, "unpaid": 5.0, "rent": 4.0, "notic": 1.5, "oregon": 1.0,
           "lesse": 4.0, "vacat": 4.0}
    goods = ("A lessee who has paid a part of the rent may recover the goods if the lessor becomes "
             "insolvent within 10 days after receipt of the first installment of unpaid rent.")
    assert sentence_relevance(analysis, goods, idf=idf).addressed == ()
    vacate = "A tenant who receives a notice for unpaid rent shall vacate the premises within 10 days."
    assert sentence_relevance(analysis, vacate, idf=idf).addressed == (0,)
    # "move" alone is no vacating: a house moved onto a lot
    assert ("vacat",) not in {a for t in question_analyse("Can I move a house onto my lot?").topic
                              for a in t.alternatives}


def test_striking_a_juror_without_a_reason_is_a_peremptory_challenge():
    analysis = question_analyse("In a justice court jury trial, how many jurors can each side strike "
                                "without giving a reason?")
    rule = ("Each party may take challenges for cause and two peremptory challenges, except that when the "
            "jury is selected in another manner, as to any juror so selected, neither party may take a "
            "peremptory challenge.")
    idf = {"justic": 3.8, "court": 2.3, "juri": 4.9, "trial": 4.1, "juror": 7.2, "parti": 1.3,
           "strike": 5.4, "give": 2.6, "reason": 1.4, "peremptori": 6.0}
    assert slot_present(FactKind.AMOUNT, rule)  # "two peremptory challenges" is a count
    context = "ORS Chapter 156 — Justice Courts\nTrial by jury in justice court"
    assert sentence_relevance(analysis, rule, context=context, idf=idf).addressed == (0,)


def test_either_of_two_acts_joined_by_or_answers_the_question():
    analysis = question_analyse("The city wants to pave our street and bill the lots along it. Can we "
                                "stop or at least delay it?")
    facet = analysis.facets[0]
    assert "least" not in topic_keys(analysis)  # "or at least" hedges, it asks no minimum
    assert facet.action is not None and ("suspend",) in facet.action.alternatives
    rule = ("Action on any proposed public improvement, except a sidewalk, shall be suspended for six "
            "months upon a remonstrance by the owners of two-thirds of the land to be specially assessed.")
    idf = {"stop": 4.3, "delai": 3.5, "pave": 3.0, "street": 2.0, "bill": 2.0, "lot": 1.5, "along": 1.0,
           "suspend": 4.0}
    assert sentence_relevance(analysis, rule, idf=idf).addressed == (0,)


def test_paying_late_is_a_late_payment():
    assert ("late", "fee") in alternatives(("pai", "late"))


def test_an_act_named_by_its_subject_has_its_names():
    from retrieval.places import title_names

    assert title_names("12 CFR Part 1022 — Fair Credit Reporting (Regulation V)") == [
        "fair credit", "fair credit reporting", "credit reporting"]
    assert title_names("ORS Chapter 838 — Airport Districts (2021 Edition)") == ["airport districts"]
    fdcpa = "12 CFR Part 1006 — Fair Debt Collection Practices Act (Regulation F)"
    assert "debt collection" in title_names(fdcpa) and "practices act" not in title_names(fdcpa)
    assert title_names("City of Rivergrove Ordinance No. 81-2011 — Sign (2011)") == []


@pytest.mark.django_db
def test_a_question_that_names_an_act_by_its_subject_is_searched_in_it(other_workspace):
    # "Under the CFPB's credit reporting rules, how many years does it have to keep the records
    # backing up what it reported?" was answered High from HMDA's (12 CFR 1003) record keeping.
    from retrieval.models import Document

    def act(title, code, level):
        return Document.objects.create(workspace=other_workspace, title=title, jurisdiction=code,
                                       jurisdiction_level=level, status=Document.Status.READY)

    fcra = act("12 CFR Part 1022 — Fair Credit Reporting (Regulation V)", "US", "federal")
    act("12 CFR Part 1003 — Home Mortgage Disclosure (Regulation C)", "US", "federal")
    airports = act("ORS Chapter 838 — Airport Districts (2021 Edition)", "US-OR", "state")
    routing = question_route("Small auto lender client reports its loans to the credit bureaus. Under the "
                             "CFPB's credit reporting rules, how many years must it keep the records?",
                             workspace=other_workspace)
    assert routing.documents == [fcra.pk] and "credit reporting" in routing.names
    routing = question_route("Does the airport district statute cap the interest rate on its bonds?",
                             workspace=other_workspace)
    assert routing.documents == [airports.pk] and "US-OR" in routing.targets
    # Named as a topic, not as a body of law, the words route nothing.
    assert question_route("Does a credit reporting error hurt a loan application?",
                          workspace=other_workspace).documents == []
    # Another state's law is not Oregon's chapter.
    assert question_route("Does the Missouri airport district statute cap bond interest?",
                          workspace=other_workspace).documents == []
