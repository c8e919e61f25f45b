"""Scenario data audited case by case: does each case exercise what it says it does?

    python -m autograder scenarios --audit [--assignment NAME]     every course, or one

A course's scenarios/*.toml hold inputs only; the expected values come from the reference at
grading time.  So a case can drift from its purpose without any test failing: a "full house"
case whose dice are no full house, a hint for a mistake whose value is the right answer, a
category no case ever scores in.  The audit evaluates every case a value check can be made of
(the same shapes check.py plays: `call = [function, args...]`, a function's fields, a course's
suite hook, public or hidden alike) on the reference, in this process (the reference is ours), and
reports, per course:

- a case the reference cannot run, or that does not raise what it says it raises (`invalid`,
  `raises`), or raises where it says nothing;
- a dead hint: `hint_when` equal to the reference's own value (the hint would follow a right answer);
- a claim the value contradicts, in a case whose text names its subject (the category or the
  scoring function): it says nothing scores ("no fives scores 0", "is not", "nothing") where the
  reference scores, or says it without a negation where it scores 0 (a "full house" case whose dice
  score 0 in Full house); a case can say `claim = "zero"` or `claim = "scores"` where its text
  cannot be read so;
- a subject (a scoring function, or a category of a value holding one per category) no case
  scores in (every category reachable).  (Not that some case scores 0 in it: Chance never does.)

Nothing here runs on a grade's path; `build --check` runs it (drift fails the build's check).
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass

from ..assignment import Assignment
from ..notebooks import checks as nbchecks
from ..notebooks.runtime import TOOLS

NEGATION = re.compile(r"\b(no|not|none|nothing|never|zero|isn't|aren't|without|fails?|scores? 0|earns? nothing)\b|"
                      r"(^|\s)0($|\s|\))", re.IGNORECASE)
CLAIMS = ("zero", "scores")


@dataclass
class Finding:
    course: str
    where: str        # "scoring.toml [[case]] 'three threes'"
    problem: str

    def __str__(self) -> str:
        return f"{self.course}: {self.where}: {self.problem}"


def _number(value) -> float | None:
    """VALUE as a score (an int, a float or a bool), else None (a list, a dict, a string: no claim)."""
    return float(value) if isinstance(value, (int, float)) else None


def _subjects(check: nbchecks.Check, value) -> dict[str, float]:
    """What a case's value scores, by subject: a scoring call's function, or each category of a
    value holding one score per category (a dict of str -> number)."""
    if _number(value) is not None:
        name = check.expr.split("(", 1)[0].rsplit(".", 1)[-1]
        return {name: _number(value)}
    if isinstance(value, dict) and value and all(isinstance(k, str) and _number(v) is not None for k, v in value.items()):
        return {str(k): _number(v) for k, v in value.items()}
    return {}


def audit(assignment: Assignment) -> tuple[list[Finding], int]:
    """(what drifted, how many cases were evaluated) for ASSIGNMENT's scenario files."""
    text = assignment.reference.read_text(encoding="utf-8")
    signatures = nbchecks.signatures_of(text)
    namespace: dict = {"__name__": f"{assignment.name}_audit"}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(text, str(assignment.reference), "exec"), namespace)
            exec(TOOLS, namespace)      # (a case a suite plays through run_scripted: its method's value)
    except Exception as err:            # noqa: BLE001 -- said, not raised: the audit of a broken course
        return [Finding(assignment.name, "reference.py", f"does not load: {type(err).__name__}: {err}")], 0
    findings: list[Finding] = []
    seen: dict[str, dict[str, list[float]]] = {}       # subject -> {"scores": [...], "zero": [...]}
    count = 0
    for filename, stage, key, case in nbchecks._scenario_cases(assignment):
        what = str(case.get("why") or case.get("name") or case.get("id") or "")
        where = f"{filename} [[{key}]] {what!r}"
        with contextlib.redirect_stdout(io.StringIO()):
            check = nbchecks.scenario_check(assignment, signatures, key, case, [], "audit", stage)
        if check is None or check.call or not check.expr:
            continue                     # (an interactive case: its game's plan checks what it covers)
        count += 1
        found = _evaluate(check, namespace)
        if isinstance(found, BaseException):
            if check.raises and type(found).__name__ == check.raises:
                continue
            findings.append(Finding(assignment.name, where, f"the reference raised {type(found).__name__}: "
                                                            f"{found}" + (f" (the case says {check.raises})"
                                                                          if check.raises else "")))
            continue
        if check.raises:
            findings.append(Finding(assignment.name, where, f"the reference returned {found!r}, "
                                                            f"not raising {check.raises}"))
            continue
        if "hint_when" in case and case["hint_when"] == found and type(case["hint_when"]) is type(found):
            findings.append(Finding(assignment.name, where, f"hint_when {case['hint_when']!r} is the reference's "
                                                            "own value: the hint would follow a right answer"))
        subjects = _subjects(check, found)
        for subject, score in subjects.items():
            seen.setdefault(subject, {"scores": [], "zero": []})["scores" if score else "zero"].append(where)
        claim = case.get("claim")
        if claim is not None and claim not in CLAIMS:
            findings.append(Finding(assignment.name, where, f"claim {claim!r} is none of {CLAIMS}"))
            continue
        if len(subjects) != 1 or not what:
            continue                     # (a case about several categories: its text names no one claim)
        subject, score = next(iter(subjects.items()))
        if claim is None and not _names(what, subject):
            continue                     # (its text is about something else: "an upper total of 62")
        says = claim or ("zero" if NEGATION.search(what) else "scores")
        if says == "zero" and score:
            findings.append(Finding(assignment.name, where, f"its text says nothing scores, but the reference gives "
                                                            f"{found!r} (claim = \"scores\" if it means to score)"))
        elif says == "scores" and not score:
            findings.append(Finding(assignment.name, where, f"the reference gives {found!r}: the case scores "
                                                            "nothing where its text claims something (claim = "
                                                            "\"zero\" if it means no score)"))
    for subject, sides in sorted(seen.items()):
        if not sides["scores"]:
            findings.append(Finding(assignment.name, subject, f"no case scores in it ({len(sides['zero'])} cases, "
                                                              "every one 0): what it scores is never checked"))
    return findings, count


def _names(text: str, subject: str) -> bool:
    """Whether TEXT names SUBJECT: a category ("Full House"), a function's words ("score_full_house",
    "fullHouse", "small_straight") without a leading "score"."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", subject).replace("_", " ").lower().split()
    if words[:1] == ["score"] and len(words) > 1:
        words = words[1:]
    return " ".join(words) in " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _evaluate(check: nbchecks.Check, namespace: dict):
    """The reference's value of CHECK (its setup run first, in a copy of NAMESPACE), or the exception."""
    scope = dict(namespace)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            if check.setup:
                exec("\n".join(check.setup), scope)
            return eval(check.expr, scope)
    except Exception as err:            # noqa: BLE001 -- what the reference raised is the finding
        return err
