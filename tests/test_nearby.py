"""The did-you-mean every runtime shares (engine/nearby.py): its order and its limits."""

from autograder.engine.nearby import close_names
from autograder.notebooks.runtime import SELFCHECK


def test_the_same_words_come_first_then_difflibs_matches():
    names = ["score", "score_uppr", "upper_score", "scoreUpper", "chance"]
    assert close_names("score_upper", names, 4) == ["scoreUpper", "upper_score", "score_uppr", "score"]
    assert close_names("score_upper", names, 1) == ["scoreUpper"]
    assert close_names("ChooseSlot", ["choose_slot", "slot_choose", "playRound"], 4) == ["choose_slot", "slot_choose"]


def test_a_name_is_not_its_own_suggestion_and_nothing_far_is_offered():
    assert close_names("score_upper", ["score_upper"], 4) == ["score_upper"]   # (difflib's own exact match)
    assert close_names("roll", ["upper_score", "chance"], 4) == []
    assert close_names("", ["a_b"], 4) == []


def test_the_self_check_runtime_embeds_the_same_code():
    runtime = {"__name__": "selfcheck"}
    exec(compile(SELFCHECK, "selfcheck", "exec"), runtime)
    assert "from autograder" not in SELFCHECK and "import autograder" not in SELFCHECK   # (it runs where the package is not)
    assert runtime["close_names"]("upper_score", ["score_upper", "chance"], 1) == ["score_upper"]
