"""The thesaurus keeps one sense per word (retrieval.lexicon): a phrasal verb whose particle
is a stopword does not lend its meaning to the bare verb, and a word whose stem another
word shares, or that the documents mostly mean otherwise, stays out of a group."""

import pytest

from retrieval.lexicon import alternatives
from retrieval.question import question_analyse
from retrieval.relevance import ASKS_ABOUT_MEETING_RE, sentence_relevance


@pytest.mark.parametrize("verb", ["hold", "pass", "run", "back", "turn", "give", "us", "unit"])
def test_a_bare_verb_has_no_phrasal_verb_s_meaning(verb):
    # "hold a hearing" keeps nothing, "passed an ordinance" assigns nothing, "run a
    # business" does not expire, "use" is not vacancy, a dwelling unit is no royalty.
    assert alternatives((verb,)) == ((verb,),)


def test_a_fence_is_no_wall_and_a_permission_no_authority():
    assert ("wall",) not in alternatives(("fenc",))  # "exterior walls" of a house
    assert ("author",) not in alternatives(("permiss",))  # "Authority" stems as "authorization"
    assert ("permit",) in alternatives(("permiss",))


def test_a_width_is_no_height_and_no_lot_size():
    # "Minimum Lot Size — House: 8,000 Square Feet" does not say how wide a lot must be
    assert ("width",) not in alternatives(("size",)) and ("height",) not in alternatives(("width",))
    assert ("wide",) in alternatives(("width",)) and ("tall",) in alternatives(("height",))
    width = question_analyse("What's the minimum lot width?")
    size = sentence_relevance(width, "Minimum Lot Size — House: 8,000 Square Feet.").coverage[0]
    assert sentence_relevance(width, "Minimum Lot Width: 70 Feet.").coverage[0] == 1.0 > size


def test_a_home_occupation_is_no_commercial_use():
    # "Building Fees & Permits — Commercial & Industrial: $0.10/sq ft" is not the fee of a
    # home occupation permit, though a business run from home is one
    assert ("commerci",) not in alternatives(("home", "occup"))
    assert ("home", "busi") in alternatives(("home", "occup")) and ("occup",) in alternatives(("busi",))


def test_putting_a_tank_on_a_lot_is_installing_it():
    assert ("instal",) in alternatives(("put",))


@pytest.mark.parametrize("question, asks", [
    ("What did the council decide at the August 13 meeting?", True),
    ("The council adopted an ordinance at this week's meeting. When does it take effect?", True),
    ("What night does the commission hold its regular meeting?", True),
    ("Can the Rivergrove city council hold a closed meeting?", False),
    ("Can my client record an in-person meeting with her boss?", False),
])
def test_a_question_asks_about_a_meeting_when_it_names_a_particular_one(question, asks):
    assert bool(ASKS_ABOUT_MEETING_RE.search(question)) is asks


@pytest.mark.parametrize("question, word, meant", [
    ("Can Power2Ship hold off on the monthly charge while it moves the unit?", "hold", ("suspend",)),
    ("How long must the bank hold on to the application records?", "hold", ("retain",)),
    ("How many days does a borrower have to back out of the loan?", "back", ("rescind",)),
    ("Once the license runs out, can they keep selling?", "run", ("expir",)),
])
def test_a_phrasal_verb_means_its_phrase_where_the_question_writes_it(question, word, meant):
    analysis = question_analyse(question)
    term = next(t for f in analysis.facets for t in f.terms if t.stems == (word,))
    assert meant in term.alternatives


def test_the_bare_verb_keeps_its_own_sense():
    analysis = question_analyse("Can the Rivergrove city council hold a closed meeting?")
    term = next(t for f in analysis.facets for t in f.terms if t.stems == ("hold",))
    assert term.alternatives == (("hold",),)


def test_a_negated_phrase_does_not_lend_its_opposite_to_its_group():
    # "without authorization" stems to "author", as "Oregon Health Authority" does, and
    # "not covered" to "cover": theft is no authority, and an exemption is not coverage.
    assert ("author",) not in alternatives(("theft",))
    assert ("cover",) not in alternatives(("exempt",))
    assert ("charg",) not in alternatives(("fee", "waiver"))
    assert ("steal",) in alternatives(("theft",))
    # A bound keeps its word ("not less than 36 months" is a floor), and so does a phrase of
    # several words ("lands not needed for public use").
    assert ("less",) in alternatives(("minimum",)) and ("exce",) in alternatives(("cap",))
    assert ("need", "public", "us") in alternatives(("surplu",))
    penalty = question_analyse("What's the penalty for identity theft in Oregon?")
    managed_care = ("If a managed care organization fails to timely pay an assessment under ORS 414.880, "
                    "the Oregon Health Authority shall impose a penalty on the managed care organization "
                    "of up to $500 per day of delinquency.")
    assert not sentence_relevance(penalty, managed_care).relevant


def test_a_negated_phrase_still_counts_where_the_question_writes_it():
    analysis = question_analyse("Which accounts are not covered by the rule?")
    term = next(t for f in analysis.facets for t in f.terms if t.stems == ("cover",))
    assert ("exempt",) in term.alternatives


def test_flying_drunk_is_operating_an_aircraft_while_intoxicated():
    analysis = question_analyse("Can I fly a plane drunk?")
    offense = ("A person commits the offense of prohibited operation of an aircraft if the person "
               "operates an aircraft in the air, or on the ground or water while the person is under "
               "the influence of intoxicating liquor, drugs or controlled substances.")
    assert sentence_relevance(analysis, offense).coverage[0] == 1.0
    dropping = ("No person shall throw or drop any missile or other article or substance from any aircraft "
                "in flight.")
    assert sentence_relevance(analysis, dropping).coverage[0] < 1.0


def test_a_collection_is_no_debt_collector():
    # "collections" stems as "collect": "collection calls" of a mortgage servicer, the
    # collection of data, of fees
    assert ("collect",) not in alternatives(("debt", "collector"))
    assert ("collector",) in alternatives(("debt", "collector"))


@pytest.mark.parametrize("phrase, sense, word", [
    (("close", "account"), "a closed account", ("paid",)),  # "paid off"
    (("liabil",), "liability", ("pai",)),  # "pay for"
    (("extens",), "an extension", ("time",)),  # "more time"
    (("annual",), "annual", ("year",)),  # "each year"
    (("notic",), "notice", ("head",)),  # "heads up"
])
def test_a_phrase_whose_other_words_are_stopwords_lends_no_sense_to_its_one_word(phrase, sense, word):
    assert word not in alternatives(phrase), sense


def test_a_word_the_question_writes_in_a_phrase_counted_only_as_written_means_that_phrase():
    # "paid" alone is a wage's word; a loan "paid off" makes a former customer
    analysis = question_analyse("Do we still have to mail the yearly privacy notice to a borrower who paid "
                                "off her car loan?")
    term = next(t for f in analysis.facets for t in f.terms if t.stems == ("paid",))
    assert ("former", "custom") in term.alternatives and ("salari",) not in term.alternatives
