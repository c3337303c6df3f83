"""The months a question asks about and the seasons of a rule (retrieval.seasons)."""

import pytest

from retrieval.seasons import asked_months, in_season, month_ranges, season_fits

WINTER_HOURS = "From November through April, the park and river access shall be open from 8:00 am to 8:00 pm."
SUMMER_HOURS = "From May through October, the park and river access shall be open from 8:00 am to 9:00 pm."


@pytest.mark.parametrize("question, months", [
    ("Is the boat ramp open at 8:30 on a December evening?", {12}),
    ("What are the hours in May?", {5}),
    ("We want to hold the reunion in late May 2027.", {5}),
    ("Can we camp there this summer?", {6, 7, 8}),
    ("What are the burn rules in the fall?", {9, 10, 11}),
    ("May I launch a canoe from the park?", set()),  # the verb, not the month
    ("Does a canoe rental fall under the park rules?", set()),  # the verb, not the season
    ("When does the park close?", set()),
])
def test_the_months_a_question_asks_about(question, months):
    assert asked_months(question) == months


def test_a_range_of_months_wraps_over_the_new_year():
    assert month_ranges(WINTER_HOURS) == [{11, 12, 1, 2, 3, 4}]
    assert month_ranges(SUMMER_HOURS) == [{5, 6, 7, 8, 9, 10}]
    assert month_ranges("between June and August; Jan.–Mar.") == [{6, 7, 8}, {1, 2, 3}]
    assert month_ranges("Applications are due by January 31.") == []  # a date, not a season


def test_a_rule_for_other_months_does_not_fit_the_question():
    december = asked_months("at 8:30 on a December evening")
    assert season_fits(december, WINTER_HOURS)
    assert not season_fits(december, SUMMER_HOURS)
    assert season_fits(december, "The park shall be open from dawn to dusk.")  # no season stated
    assert season_fits(frozenset(), SUMMER_HOURS)  # the question names no month


def test_the_asked_month_is_said_by_the_range_that_covers_it():
    august = asked_months("on an August evening")
    assert in_season(august, SUMMER_HOURS) == {"august"}
    assert in_season(august, WINTER_HOURS) == set()
