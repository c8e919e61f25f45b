"""Stage 3: a pad's total, the upper bonus, the ranking (ties in playing order) and the results lines.

(No own_functions check here: these functions call no function of stages 1 and 2, and the later
stage's games run the reference's versions of them.)"""

import pytest

from autograder.assignments.yatzy.suites.common import (
    CALL_TIMEOUT,
    CATEGORIES,
    SUITE,
    expect_same_on_pad,
    helper_call,
    not_returned,
    read_lines,
    reference_ok,
    reference_versions,
)
from autograder.engine.checks import could_pass_by_doing_nothing
from autograder.engine.feedback import Fail, show
from autograder.engine.suite import hint_for


def pad(scored: dict) -> dict:
    unknown = set(scored) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"scenario names unknown categories {sorted(unknown)}")
    return {category: scored.get(category) for category in CATEGORIES}


@pytest.mark.parametrize("case", SUITE.cases("bonus", "total", problem=12))
def test_total_score(student, reference, case):
    """A pad's total"""
    with reference_versions(student, ("upper_bonus",)):     # graded in problem 13
        expect_same_on_pad(student, reference, "total_score", pad(case["scored"]), why=case["why"],
                           hint=lambda got, expected: case.get("hint"))


@pytest.mark.parametrize("case", SUITE.cases("bonus", "bonus", problem=13))
def test_upper_bonus(student, reference, case):
    """The upper bonus"""
    expect_same_on_pad(student, reference, "upper_bonus", pad(case["scored"]), why=case["why"],
                       hint=lambda got, expected: hint_for(case, got))


def _entries(case: dict) -> list:
    return [[name, pad(scored)] for name, scored in case["entries"]]


def _names(case: dict) -> str:
    return ", ".join(f"{name} ({', '.join(f'{k}={v}' for k, v in scored.items())})" for name, scored in case["entries"])


@pytest.mark.parametrize("case", SUITE.cases("bonus", "rankings", problem=14))
def test_ranking(student, reference, case):
    """Ranking"""
    ran = f"ranking() of the players, in playing order: {_names(case)}"
    expected = reference_ok(reference.call("try_ranking", _entries(case), timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_ranking", _entries(case), under=("ranking",), timeout=CALL_TIMEOUT,
                          reference_for=("total_score", "upper_bonus"))
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "ranking(players)")
    if outcome.value != expected.value:
        raise Fail(f"ranking(players) gave the order {show(outcome.value)}, but expected {show(expected.value)} "
                   f"({case['why']}).", hidden=f"ranking(players) put the players in the wrong order ({case['why']}).",
                   ran=ran, show_values=False, hint=case.get("hint"))


@pytest.mark.parametrize("case", SUITE.cases("bonus", "results", problem=15))
def test_print_results(student, reference, case):
    """The results lines"""
    ran = f"print_results() of the players, in playing order: {_names(case)}"
    expected = reference_ok(reference.call("try_results", _entries(case), timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_results", _entries(case), under=("print_results",), timeout=CALL_TIMEOUT,
                          reference_for=("total_score", "upper_bonus", "ranking"))
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "print_results(players)")
    want = [line for line in read_lines(expected.stdout) if line.kind in ("results", "result")]
    got = [line for line in read_lines(outcome.stdout) if line.kind in ("results", "result")]
    could_pass_by_doing_nothing(len(want))
    if [line.text for line in got] != [line.text for line in want]:      # the very lines
        raise Fail(f"print_results(players) printed {[line.text for line in got]}, but expected "
                   f"{[line.text for line in want]} ({case['why']}).",
                   hidden=f"print_results(players) printed other results lines than expected ({case['why']}).",
                   ran=ran, show_values=False, output=outcome.stdout,
                   hint="Print 'Results:', then 'N. NAME: TOTAL' per player in ranking() order, N from 1.")
    if outcome.value != expected.value:
        raise Fail(f"print_results(players) must return the players in ranking order ({case['why']}).",
                   ran=ran, show_values=False)
