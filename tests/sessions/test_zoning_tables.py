"""Zoning districts and their dimensional standards (issue 9), on Ray County's real
regulations: the standards are tables laid out with tabs, one cell a line, and each
district has its own. "How far back from the street does a house have to be in the R-1
district?" was answered High with the placement of detached houses and a planting strip;
the R-1 table was never read, and another district's rows answered as readily."""

import re

import pytest

from retrieval.index import query_tokens
from retrieval.question import question_analyse
from retrieval.relevance import other_district, sentence_relevance
from sessions.models import Outcome, RunStatus
from sessions.services import session_ask
from sessions.writer import clean_sentence, tabbed_sentences
from tests.conftest import SAMPLES_DIR

RAY = (SAMPLES_DIR / "county/us-mo-ray-county/ray_county_planning_and_zoning_regulations_2005.txt").read_text(
    encoding="utf-8")


def _between(start: str, end: str) -> str:
    at = RAY.index(start)
    return RAY[at:RAY.index(end, at)]


R1_CONVENTIONAL = _between("in the R-1 district:", "2. Open Space Development")
R1_ALL = _between("The following standards apply to all development in the R-1 district:", "40.5")
TOWERS = _between("New Towers", "Existing Towers") + _between("Existing Towers", "Guyed\n\t\n\n5,000")


def test_a_dimensional_table_reads_as_rows_of_label_and_measure():
    rows = tabbed_sentences(R1_CONVENTIONAL)
    assert rows[:5] == ["Minimum lot size: 9 acres.", "Minimum lot width: 300 feet*.",
                        "Minimum front/street side setback: 50 feet.",
                        "Minimum interior side setback: 25 feet.", "Minimum rear setback: 50 feet."]


def test_a_label_without_a_value_heads_the_rows_indented_under_it():
    rows = tabbed_sentences(R1_ALL)
    assert "Maximum Building Height — Principal Structures: 40 Feet." in rows
    # "No Limit" is the value of "Farm Structures", not the heading of the next row
    assert "Maximum Building Height — Non-Farm Accessory Structures: 30 Feet." in rows
    assert "Minimum Residential Living Area — 1-Story: 1,000 Square Feet." in rows
    assert not any(row.startswith("No Limit") for row in rows)


def test_a_row_indented_as_its_group_heading_is_not_in_the_group():
    fees = _between("Pond Permit", "Inspections")
    rows = tabbed_sentences("\t   Permits\n\t$10\n\t   Garages\n\t$50\n" + fees)
    assert "Pond Permit — In a subdivision: $50." in rows
    assert "Swimming Pool: $50." in rows and "Fences 6 feet up to 8 feet: $50." in rows


def test_a_grid_of_more_than_two_columns_is_not_read_as_label_and_value():
    assert "5,000 feet" in TOWERS
    rows = tabbed_sentences(TOWERS)
    assert not any(re.match(r"(?:\w+ — )?(?:Lattice|Guyed|Monopole):", row) for row in rows)


def test_a_row_states_its_fact_in_fewer_words_than_a_sentence():
    assert clean_sentence("Minimum lot size: 9 acres.", row=True) == "Minimum lot size: 9 acres."
    assert clean_sentence("Minimum lot size: 9 acres.") is None  # as prose it is a fragment


@pytest.mark.parametrize("question, codes", [
    ("What is the minimum lot size in the R-1A district in Ray County?", ("R-1A",)),
    ("Can I open a shop in B-2 or I-1?", ("B-2", "I-1")),
    ("Is a mobile home park allowed in R-MHP?", ("R-MHP",)),
    ("How tall can a 2-story house be?", ()),
    ("Can I e-mail the county my permit application?", ()),
])
def test_a_question_names_the_zoning_districts_it_asks_about(question, codes):
    assert question_analyse(question).codes == codes


def test_another_districts_passage_does_not_answer():
    analysis = question_analyse("What is the minimum lot size in the R-1 district?")
    assert other_district(analysis, "The following standards apply in the R-1A district: minimum lot size")
    assert not other_district(analysis, "40.4 R-1 Residential Rural District\nMinimum lot size: 9 acres.")
    assert not other_district(question_analyse("What is the minimum lot size?"), "in the R-1A district")
    # whether a use is allowed may be answered by a rule that names other districts
    tank = question_analyse("Can a farm supply business put a 12,000-gallon propane tank on its B-2 lot?")
    assert tank.codes == ("B-2",)
    assert not other_district(tank, "Permanently installed liquid gas tanks with a capacity of 10,000+ "
                                    "gallons shall be permitted only in I-1 or I-2 zoning districts.")


def test_a_lexical_search_looks_for_the_district_code_as_a_phrase():
    # "R-1A" alone would be searched as "1", which every section number holds
    assert query_tokens("minimum lot size in the R-1A district")[0] == "r-1a"


def test_how_far_back_from_a_line_is_a_setback():
    setback = question_analyse("How far back from the street does a house have to be?")
    assert setback.facets[0].unit == "size"
    assert sentence_relevance(setback, "Minimum front/street side setback: 50 feet.").addressed == (0,)
    # "back" alone is no setback: "paid back", and how far back records go is a time
    records = question_analyse("How far back do the county's records go?")
    assert records.facets[0].unit != "size"
    refund = question_analyse("How do I get my deposit back from the landlord?")
    assert not any(("setback",) in t.alternatives for t in refund.topic)


def _ask(workspace, question):
    turn = session_ask(workspace=workspace, question=question)
    assert turn.status == RunStatus.COMPLETED, turn.error
    return turn


@pytest.mark.django_db
@pytest.mark.parametrize("question, value", [
    ("How far back from the street does a house have to be in the R-1 district in Ray County?",
     "Minimum front/street side setback: 50 feet"),
    ("What is the minimum lot size in the R-1A district in Ray County?", "Minimum lot size: 3 acres"),
    ("What's the maximum building height in B-1 in Ray County?", "40/40 feet"),
    ("What's the minimum lot width in R-3 in Ray County?", "Minimum Lot Width: 70 Feet"),
    # a density is a count per acre, not a size; "lot coverage" is the table's "building cover"
    ("How many homes per acre are allowed in B-1 in Ray County?",
     "Maximum residential density: 10 units per acre"),
    ("What is the maximum lot coverage in the B-1 district in Ray County?",
     "Maximum building cover: 70 percent"),
])
def test_a_districts_standard_is_answered_from_its_own_table(demo_workspace, question, value):
    turn = _ask(demo_workspace, question)
    assert turn.outcome == Outcome.ANSWERED, turn.answer_markdown
    assert value in turn.answer_markdown
    code = question_analyse(question).codes[0]
    cited = [s for s in turn.sources if s["chunk_id"] in turn.answer_markdown]
    assert cited and all(re.search(rf"(?<![\w-]){code}(?![\w-])", s.get("text", "") + " ".join(
        s.get("heading_path") or [])) for s in cited), cited


@pytest.mark.django_db
def test_of_two_sentences_that_answer_the_one_in_the_questions_words_leads(demo_workspace):
    # "Lots with an area of 3 to 4 acres …" says "lot area" where the question says "lot size"
    turn = _ask(demo_workspace, "What is the minimum lot size in the R-1A district in Ray County?")
    assert turn.answer_markdown.startswith("Minimum lot size: 3 acres"), turn.answer_markdown


@pytest.mark.django_db
def test_a_district_the_regulations_do_not_have_is_not_answered(demo_workspace):
    # Ray County has R-A, R-1, R-1A, R-1B, R-2, R-3 and R-MHP: before, the R-1A lot-width
    # sentences answered High
    turn = _ask(demo_workspace, "What is the minimum lot size in the R-4 district in Ray County?")
    assert turn.outcome == Outcome.NOT_ANSWERED, turn.answer_markdown


@pytest.mark.django_db
def test_a_home_occupation_fee_is_not_the_commercial_building_fee(demo_workspace):
    turn = _ask(demo_workspace, "What is the fee for a home occupation permit in Ray County?")
    assert "Commercial & Industrial" not in turn.answer_markdown.split("## Related")[0]
