"""The suite API without a sandbox (cheap): points shared out at collection, cases from the case
files, one Fail with both summaries."""

from types import SimpleNamespace

import pytest

from autograder.engine.feedback import Fail
from autograder.engine.plugin import share_points
from autograder.engine.suite import Suite

SUITE = Suite("autograder/assignments/yahtzee/suites/test_stage2_round.py")
# the suites' markers are registered in the grader's own ini (engine/pytest.ini), not the kit's
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")


class _Item:
    """Just the marker interface share_points uses."""

    def __init__(self, *marks):
        self.marks = list(marks)

    def get_closest_marker(self, name):
        return next((m for m in self.marks if m.name == name), None)

    def add_marker(self, mark):
        self.marks.append(mark.mark)

    @property
    def points(self):
        return self.get_closest_marker("points").args[0]


def _table(**points):
    problems = {int(k[1:]): v for k, v in points.items()}
    return SimpleNamespace(name="toy", problem=lambda n: SimpleNamespace(points=problems[n]))


def test_points_are_shared_by_weight_and_the_last_takes_the_remainder():
    items = [_Item(pytest.mark.problem(1).mark) for _ in range(3)]
    weighted = [_Item(pytest.mark.problem(2).mark, pytest.mark.weight(w).mark) for w in (1, 2, 1)]
    share_points(items + weighted, _table(p1=5, p2=5))
    assert [i.points for i in items] == [1.6667, 1.6667, 1.6666]
    assert [i.points for i in weighted] == [1.25, 2.5, 1.25]


def test_explicit_points_are_kept_and_leave_the_rest_to_share():
    own = _Item(pytest.mark.problem(3).mark, pytest.mark.points(1).mark)
    games = [_Item(pytest.mark.problem(3).mark) for _ in range(4)]
    share_points([games[0], own, *games[1:]], _table(p3=6))
    assert own.points == 1 and [g.points for g in games] == [1.25] * 4


def test_a_problem_missing_from_the_table_is_a_clear_error():
    with pytest.raises(ValueError, match="problem 9"):
        share_points([_Item(pytest.mark.problem(9).mark)], SimpleNamespace(name="toy", problem=lambda n: {}[n]))


def test_cases_come_from_the_case_file_hidden_unless_public(tmp_path, monkeypatch):
    params = SUITE.cases("round", "format_dice", problem=7)
    data = SUITE.load("round")["format_dice"]
    assert [p.id for p in params] == [c["why"] for c in data]
    for param, case in zip(params, data):
        names = {m.name: m.args for m in param.marks}
        assert names["problem"] == (7,)
        assert ("visibility" in names) == (not case.get("public"))
    # a fresh hidden set overrides the committed file it names
    (tmp_path / "round.toml").write_text('[[format_dice]]\ndice = [1, 1, 1, 1, 1]\nwhy = "fresh"\n')
    monkeypatch.setenv("AUTOGRADER_SCENARIOS_DIR", str(tmp_path))
    assert [p.id for p in SUITE.cases("round", "format_dice", problem=7)] == ["fresh"]
    assert "case" in SUITE.load("scoring")          # a file the override folder lacks: the committed one


def test_a_case_id_given_twice_is_numbered_readably_not_by_pytest():
    """Pass 22: two of Yahtzee's scoring cases were both "five sixes" (Problems 1 and 5), and pytest
    made them "five sixes0" and "five sixes1" in every feedback but the HTML page.  A repeated id
    is now "why (2)", and the kit's case files repeat none."""
    cases = [{"why": "five sixes"}, {"why": "five ones"}, {"why": "five sixes"}, {"why": "five sixes"}]
    assert [p.id for p in SUITE.cases(cases, problem=1)] == ["five sixes", "five ones", "five sixes (2)", "five sixes (3)"]
    ids = [p.id for p in SUITE.cases("scoring", "case", problem=1)]
    assert len(set(ids)) == len(ids) and "five sixes in the Sixes box" in ids


def test_fail_shows_the_data_free_summary_when_hidden():
    fail = Fail("format_dice([1]) returned '1'.", hidden="format_dice returned the wrong value (one die).",
                ran="format_dice([1])", expected="Dice: 1", got="1", hint="Start with `Dice: `.")
    assert fail.render(hidden=False).splitlines()[:2] == ["format_dice([1]) returned '1'.", "Ran: format_dice([1])"]
    assert fail.render(hidden=True) == "format_dice returned the wrong value (one die).\nHint: Start with `Dice: `."
    assert Fail("same text").render(hidden=True).startswith("same text")
