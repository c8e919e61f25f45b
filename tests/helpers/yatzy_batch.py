"""Grade the Yatzy reference, starter, correct submissions and mutants in ONE grading session
(grade_stream), in a child process; used by tests/test_yatzy.py (and by hand: python
tests/helpers/yatzy_batch.py prints name, score, problems losing points)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim
from autograder.authoring.edits import apply_edits

ROOT = Path(__file__).resolve().parent.parent.parent
FOLDER = ROOT / "autograder" / "assignments" / "yatzy"
SUBMISSIONS = sorted((ROOT / "tests" / "submissions" / "yatzy").glob("*.py"))
MUTANTS = tomllib.loads((FOLDER / "mutants.toml").read_text(encoding="utf-8"))["mutant"]


NOTHING = {"none": "return None", "zero": "return 0", "empty": "return []", "pass": "pass"}


def jobs(tmp: Path) -> dict[str, str]:
    """name -> path of every program graded."""
    reference = (FOLDER / "reference.py").read_text(encoding="utf-8")
    found = {"reference": str(ROOT / "solution" / "yatzy.py"), "starter": str(ROOT / "starter" / "yatzy.py")}
    found.update({f"submission:{path.stem}": str(path) for path in SUBMISSIONS})
    starter = (ROOT / "starter" / "yatzy.py").read_text(encoding="utf-8")
    for kind, body in NOTHING.items():        # programs that do nothing: no points for nothing
        path = tmp / f"nothing-{kind}" / "yatzy.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(re.sub(r"raise NotImplementedError\(.*\)", body, starter), encoding="utf-8")
        found[f"nothing:{kind}"] = str(path)
    for mutant in MUTANTS:
        path = tmp / mutant["name"] / "yatzy.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(apply_edits(reference, mutant["edits"]), encoding="utf-8")
        found[f"mutant:{mutant['name']}"] = str(path)
    return found


def grade_all(paths: dict[str, str]) -> dict[str, dict]:
    """One grading session for every path: name -> GradeReport.to_dict()."""
    from autograder.grading.grade import grade_stream
    names = {path: name for name, path in paths.items()}
    reports: dict[str, dict] = {}
    grade_stream(iter(paths.values()), lambda r: reports.__setitem__(names[r.submission], r.to_dict()), "yatzy")
    return reports


def lost(report: dict) -> dict[int, float]:
    out: dict[int, float] = {}
    for test in report["tests"]:
        if test["score"] < test["max_score"]:
            out[test["problem"]] = round(out.get(test["problem"], 0) + test["max_score"] - test["score"], 4)
    return out


PROMISES_BEGIN = "<!-- BEGIN CHECKS TABLE -->"
PROMISES_END = "<!-- END CHECKS TABLE -->"


def promise_table(report: dict) -> str:
    """The handout's table of what the grader checks, from the reference's grade report: one row
    per check (its problem, its title, public or hidden)."""
    rows = [PROMISES_BEGIN,
            "<!-- Generated from the reference's grade by `python tests/helpers/yatzy_batch.py --write`: "
            "a test fails when it drifts. -->", "",
            "| Problem | What is checked | Public |", "|--:|---|:-:|"]
    for test in sorted(report["tests"], key=lambda t: t["problem"]):
        title = test["name"].split(" ", 1)[1].replace("|", "\\|")
        rows.append(f"| {test['problem']} | {title} | {'yes' if test['visibility'] == 'visible' else ''} |")
    rows.append(PROMISES_END)
    return "\n".join(rows)


def write_promises(report: dict) -> None:
    path = FOLDER / "handout.md"
    text = path.read_text(encoding="utf-8")
    start, end = text.index(PROMISES_BEGIN), text.index(PROMISES_END) + len(PROMISES_END)
    path.write_text(text[:start] + promise_table(report) + text[end:], encoding="utf-8")


def write_scores(reports: dict[str, dict]) -> None:
    """Rewrite the score and problems of every mutant in mutants.toml from REPORTS (after a change
    of the suites: check each moved figure by hand before committing it)."""
    path = FOLDER / "mutants.toml"
    text = path.read_text(encoding="utf-8")
    for mutant in MUTANTS:
        report = reports[f"mutant:{mutant['name']}"]
        start = text.index(f'name = "{mutant["name"]}"')
        end = text.find("[[mutant]]", start)
        end = len(text) if end < 0 else end
        block = re.sub(r"problems = \[.*?\]", f"problems = {sorted(lost(report))}", text[start:end])
        block = re.sub(r"score = [\d.]+", f"score = {round(report['score'], 4)}", block)
        text = text[:start] + block + text[end:]
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        reports = grade_all(jobs(Path(folder)))
    for name, report in reports.items():
        print(f"{name:40s} {report['score']:8.4f} {sorted(lost(report))} {report['error'] or ''}")
    if "--write" in sys.argv:
        write_scores(reports)
        write_promises(reports["reference"])
