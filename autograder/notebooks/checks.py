"""Public checks as code: docstring examples, public scenario cases, the content file's checks."""

from __future__ import annotations

import ast
import copy
import doctest
import functools
import importlib
import io
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder import toml
from autograder.assignment import Assignment, Problem


@dataclass
class Check:
    """One public check as code: SETUP statements, then either an expression compared with the
    value the reference gives, an expected exception, or a scripted interactive call."""

    problem: int
    setup: list[str] = field(default_factory=list)
    expr: str = ""                      # expression checks
    raises: str = ""                    # exception name, for "must raise" checks
    call: str = ""                      # interactive: the call, run with scripted answers and dice
    answers: list[str] = field(default_factory=list)
    dice: list[int] | None = field(default_factory=list)   # None: real dice (after random.seed(seed))
    seed: int | None = None
    strict: bool = True                 # every scripted answer and die must be used
    lines: list[str] = field(default_factory=list)     # compare the printed lines with these prefixes
    after: list[str] = field(default_factory=list)     # expressions compared after the call
    value: bool = True                  # compare the call's return value
    quiet: bool = False                 # the call prints nothing (a line starting DEBUG: aside): pass 25
    final: bool = False                 # compare the final score printed (the last number on a score line)
    origin: str = ""
    in_notebook: bool = True            # False: a whole game filed under a later problem: not a public check of it
    until_eof: bool = False             # the answers end like a closed input (a game that never ends by itself)
    trim: bool = False                  # only the answers the reference read are shown and given
    hint: str = ""                      # shown with a failure (the scenario's hint)
    hint_when: object = None            # show HINT only when the student's value equals this
    label: str = ""                     # what the check is called where the student reads it (default: its code)
    say_setup: bool = False             # a call's Ran: says its setup too (a suite's case: the state it starts from)
    ran: str = ""                       # an expression's Ran: (a suite's case: its hidden check's own words)


def _hints(case: dict) -> dict:
    return {"hint": str(case.get("hint", "")), "hint_when": case.get("hint_when")}


def _exception_name(exc_msg: str) -> str:
    return exc_msg.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def _function_nodes(text: str) -> dict[str, ast.FunctionDef]:
    """Top-level functions by name, and the methods of top-level classes (a course whose
    problems are methods: swe3006) where no top-level function has the name.  (The nodes are
    shared between calls: read them, never change them.)"""
    return dict(_function_nodes_of(text))


@functools.lru_cache(maxsize=16)      # (every problem of every stage reads the same reference)
def _function_nodes_of(text: str) -> dict[str, ast.FunctionDef]:
    body = ast.parse(text).body
    found = {node.name: node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for cls in (node for node in body if isinstance(node, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, node)
    return found


def doctest_checks(solution_text: str, problem: Problem) -> list[Check]:
    """The docstring examples of PROBLEM's functions as checks (statements stay statements)."""
    parser = doctest.DocTestParser()
    checks = []
    docs = {name: ast.get_docstring(node, clean=True) or "" for name, node in _function_nodes(solution_text).items()}
    for name in problem.functions:
        setup: list[str] = []
        for example in parser.get_examples(docs.get(name, "")):
            source, comment = _split_comment(example.source.strip())
            origin = f"from the docstring of {name}" + (f": {comment}" if comment else "")
            if example.exc_msg:
                checks.append(Check(problem.number, list(setup), expr=source,
                                    raises=_exception_name(example.exc_msg), origin=origin))
                setup = []
                continue
            try:
                node = ast.parse(source, mode="eval")
            except SyntaxError:
                setup.append(source)
                continue
            if not example.want.strip() and not (isinstance(node.body, ast.Call)
                                                 and isinstance(node.body.func, ast.Name)
                                                 and node.body.func.id in problem.functions):
                setup.append(source)
                continue
            checks.append(Check(problem.number, list(setup), expr=source, origin=origin))
            setup = []
    return checks


def _split_comment(source: str) -> tuple[str, str]:
    """(SOURCE without a trailing comment on its last line, the comment's text)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source, ""
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    if not comments or comments[-1].start[0] != source.count("\n") + 1:
        return source, ""
    last = comments[-1]
    lines = source.split("\n")
    lines[-1] = lines[-1][: last.start[1]].rstrip()
    return "\n".join(lines), last.string.lstrip("#").strip()


def _call_text(call: list) -> str:
    func, *args = call
    return f"{func}({', '.join(repr(a) for a in args)})"


# -- scenario files: every public case becomes a check ---------------------------------------
#
# The scenario files belong to the hidden suites; each public case becomes a call of the
# student's code with the same inputs.  Three shapes, whatever the assignment:
#   call = [function, args...]     an expression; in [[invalid]], or with invalid = true, it must
#                                  raise ValueError (raises = "Name": that exception)
#   [[function]]                   the case's fields named like the function's parameters are its
#                                  arguments; built parameters, input answers and dice as below
#   a game                         the assignment's entry function, with answers and dice or a seed
# Which fields hold the answers, the dice, a parameter built from other fields (Yahtzee: a
# scorecard from `filled` and `bonus`) and a game's settings is content: the assignment's
# assignment.toml [public_scenarios] (see scenario_shapes).  A public case of another shape is
# reported by scenario_checks, never silently dropped.

def scenario_shapes(assignment: Assignment) -> dict:
    """assignment.toml [public_scenarios]: answers = FIELD, dice = FIELD (a function case's input
    answers and dice); [public_scenarios.parameters.NAME]: a parameter NAME built when the case has
    one of `fields` (setup lines formatted with the case's fields over `defaults`, `setup_if` lines
    added when that field is non-empty; `argument` passed; `after` expressions compared after an
    interactive call), or, with after_built, an `argument` that needs an earlier built one;
    [public_scenarios.game]: answers = [FIELD...] (the first present), dice, seed, count (the field
    of the call's {count}; count_default: the length of that field) and call ("{entry}({count})")."""
    return assignment.extra.get("public_scenarios", {})


def _built_parameter(spec: dict, case: dict, built: bool) -> tuple[list[str], str, list[str]] | None:
    """(setup lines, argument, after expressions) of a built parameter, or None when the case has none of it."""
    fields = list(spec.get("fields", []))
    if fields and any(f in case for f in fields):
        values = {**spec.get("defaults", {}), **{f: case[f] for f in fields if f in case}}
        setup = [line.format(**values) for line in spec.get("setup", [])]
        setup += [line.format(**values) for f, line in spec.get("setup_if", {}).items() if case.get(f)]
        return setup, spec["argument"], list(spec.get("after", []))
    if not fields and spec.get("after_built") and built:
        return [], spec["argument"], []
    return None


def _flat(value) -> list:
    if isinstance(value, list):
        out = []
        for item in value:
            out.extend(_flat(item))
        return out
    return [value]


def _owner(assignment: Assignment, function: str, stage: int | None = None) -> Problem | None:
    """The problem FUNCTION belongs to; of several (play_round: 12 and 19), the one of STAGE, else the first."""
    owners = [p for p in assignment.problems if function in p.functions]
    if stage is not None and any(p.stage == stage for p in owners):
        owners = [p for p in owners if p.stage == stage]
    return min(owners, key=lambda p: (p.stage, p.number)) if owners else None


def _file_stage(assignment: Assignment, keys: Iterable[str]) -> int | None:
    """The stage of a scenario file: the latest stage among the functions only one problem owns."""
    stages = []
    for key in keys:
        owners = [p for p in assignment.problems if key in p.functions]
        if len(owners) == 1:
            stages.append(owners[0].stage)
    return max(stages) if stages else None


def scenario_check(assignment: Assignment, signatures: dict[str, list[tuple[str, bool]]], key: str,
                   case: dict, protocol: list[str], origin: str = "", stage: int | None = None) -> Check | None:
    """The check for one scenario CASE found under KEY (in a file of STAGE), or None when its shape is unknown."""
    stage = case.get("stage", stage)
    if isinstance(case.get("call"), list) and case["call"]:
        owner = case.get("problem") or getattr(_owner(assignment, case["call"][0], stage), "number", None)
        if owner is None:
            return None
        raises = case.get("raises") or ("ValueError" if key == "invalid" or case.get("invalid") else "")
        return Check(int(owner), expr=_call_text(case["call"]), raises=raises, origin=origin, **_hints(case))
    shapes = scenario_shapes(assignment)
    script = (shapes.get("game") or {}).get("script")
    made = _suite_game(assignment, script, key, case, protocol, origin, stage) if script else None
    if made is not None:                # (the course's suite knows its case: it says how it is played)
        return made
    if key in signatures:
        owner = made.problem if made is not None else \
            case.get("problem") or getattr(_owner(assignment, key, stage), "number", None)
        if owner is None:
            return None
        setup, args, after = [], [], []
        parameters = shapes.get("parameters", {})
        for param, has_default in signatures[key]:
            made = _built_parameter(parameters[param], case, bool(setup)) if param in parameters else None
            if param in case:
                args.append(repr(case[param]))
            elif made is not None:
                setup += made[0]
                args.append(made[1])
                after += made[2]
            elif has_default:
                break
            else:
                return None
        call = f"{key}({', '.join(args)})"
        if case.get("invalid") or case.get("raises"):
            return Check(int(owner), setup, expr=call, raises=case.get("raises") or "ValueError", origin=origin,
                         **_hints(case))
        answers_field, dice_field = shapes.get("answers"), shapes.get("dice")
        if answers_field in case or dice_field in case:
            return Check(int(owner), setup, call=call, answers=[str(a) for a in case.get(answers_field, [])],
                         dice=[int(d) for d in _flat(case.get(dice_field, []))],
                         lines=list(protocol), after=after, origin=origin, **_hints(case))
        return Check(int(owner), setup, expr=call, origin=origin, **_hints(case))
    game = shapes.get("game")
    if not game or script:
        return None
    answers = next((case[f] for f in game.get("answers", []) if f in case), None)
    dice_field, seed_field = game.get("dice"), game.get("seed")
    if isinstance(answers, list) and (dice_field in case or seed_field in case):
        owner, in_notebook = _game_owner(assignment, case, stage)
        if owner is None:
            return None
        dice = [int(d) for d in _flat(case[dice_field])] if dice_field in case else None
        count = None
        if game.get("count"):
            default = game.get("count_default")
            count = case.get(game["count"]) or (len(case[default]) if default in case else None)
            if count is None:
                return None
        if dice is None and case.get(seed_field) is None:
            return None
        call = game.get("call", "{entry}({count})" if count is not None else "{entry}()")
        return Check(int(owner), call=call.format(entry=assignment.entry, count=None if count is None else int(count)),
                     answers=[str(a) for a in _flat(answers)],
                     dice=dice, seed=None if dice is not None else int(case[seed_field]), strict=False,
                     lines=list(protocol), final=not protocol, origin=origin, in_notebook=in_notebook,
                     **_hints(case))
    return None


def _game_owner(assignment: Assignment, case: dict, stage: int | None) -> tuple[int | None, bool]:
    """(the problem a public whole game is filed under, whether its notebook cell holds it)."""
    if case.get("problem") is not None:
        return int(case["problem"]), True
    entry = [p for p in assignment.problems if assignment.entry in p.functions and (stage is None or p.stage == stage)]
    if entry:
        return entry[0].number, True
    if stage is not None and assignment.stage_problems(stage):
        # a whole game of a later stage: filed under that stage's last problem, in check.py
        # only (in a notebook it would cost that problem's points for another one's bug)
        return assignment.stage_problems(stage)[-1].number, False
    return None, True


def _suite_game(assignment: Assignment, script: str, key: str, case: dict, protocol: list[str], origin: str,
                stage: int | None) -> Check | None:
    """A public whole game as the course's suite plays it: [public_scenarios.game] script =
    "module:function", FUNCTION(KEY, CASE) -> None (not a game it plays) or {"call", "answers",
    "seed" and/or "dice", optional "lines" (default: the protocol's), "until_eof", "trim", "setup"
    (statements before the call, said in its Ran:), "after" (expressions compared after it),
    "value" (compare what it returns), "problem" (whose check it is, when the case does not say)}, or
    {"setup", "expr", "problem", "ran"} (a value compared; RAN: what its Ran: says): the same answers, seed, dice and state as its hidden checks,
    from the suite's own code, not a copy of it."""
    module, _, name = script.partition(":")
    made = getattr(importlib.import_module(module), name)(key, case)
    if made is None:
        return None
    owner, in_notebook = _game_owner(assignment, {**case, "problem": made.get("problem", case.get("problem"))}, stage)
    if owner is None:
        return None
    if "expr" in made:                  # (a value compared, after the setup)
        return Check(owner, setup=[str(line) for line in made.get("setup", ())], expr=str(made["expr"]),
                     origin=origin, in_notebook=in_notebook, ran=str(made.get("ran", "")), **_hints(case))
    lines = list(made.get("lines") or protocol)
    dice = made.get("dice")
    return Check(owner, setup=[str(line) for line in made.get("setup", ())], call=made["call"],
                 answers=[str(a) for a in made["answers"]],
                 dice=None if dice is None else [int(d) for d in dice], seed=made.get("seed"), strict=False,
                 lines=lines, final=not lines, value=bool(made.get("value")), origin=origin,
                 in_notebook=in_notebook, after=[str(e) for e in made.get("after", ())], say_setup=True,
                 until_eof=bool(made.get("until_eof")), trim=bool(made.get("trim")), **_hints(case))


@functools.lru_cache(maxsize=64)
def _scenario_file(path: Path, mtime_ns: int) -> dict:
    """A scenario file, parsed once per version (every problem of every stage reads them all)."""
    return toml.loads(path.read_text(encoding="utf-8"))


def _scenario_cases(assignment: Assignment):
    """(file name, file stage, key, case) for every case of every scenario file."""
    for path in sorted(assignment.scenarios_dir.glob("*.toml")):
        data = copy.deepcopy(_scenario_file(path, path.stat().st_mtime_ns))
        stage = _file_stage(assignment, data)
        for key, cases in data.items():
            if isinstance(cases, list):
                for case in cases:
                    if isinstance(case, dict):
                        yield path.name, stage, key, case


def signatures_of(solution_text: str) -> dict[str, list[tuple[str, bool]]]:
    out = {}
    for name, node in _function_nodes(solution_text).items():
        params = node.args.posonlyargs + node.args.args
        first_default = len(params) - len(node.args.defaults)
        out[name] = [(a.arg, i >= first_default) for i, a in enumerate(params)]
    return out


def scenario_checks(assignment: Assignment, solution_text: str, protocol: list[str],
                    problem: Problem | None = None) -> tuple[list[Check], list[str]]:
    """(checks for the PUBLIC scenario cases [of PROBLEM], descriptions of public cases of unknown shape)."""
    signatures = signatures_of(solution_text)
    checks, unknown = [], []
    for filename, stage, key, case in _scenario_cases(assignment):
        if not case.get("public") or case.get("any_legal"):
            continue          # any_legal: any legal answer passes, not the reference's (stage 5's content checks)
        origin = f"public scenario {case.get('why') or case.get('name') or case.get('id') or key!r} ({filename})"
        check = scenario_check(assignment, signatures, key, case, protocol, origin, stage)
        if check is None:
            unknown.append(f"{filename} [[{key}]] {case.get('why') or case.get('name') or case.get('id') or ''}".strip())
        elif problem is None or check.problem == problem.number:
            checks.append(check)
    return checks, unknown


def unchecked_cases(assignment: Assignment, solution_text: str, protocol: list[str],
                    checks: dict[str, int | None] | None = None, notebooks: bool = False) -> dict[int, list[str]]:
    """Problem -> the public scenario cases no check could be made of (a hidden check plays each;
    check.py and `grade --public` say so rather than pass them by in silence): the case's
    `problem`, else the problem of the function its key names, else the problem of the hidden
    check (CHECKS: the suites' collected ids -> problem) whose case id is the case's text, else 0.
    With NOTEBOOKS (check.py runs the notebooks' checks), a check kept out of the notebook (a later
    stage's whole game filed under another problem) is not run either."""
    signatures = signatures_of(solution_text)
    found: dict[int, list[str]] = {}
    for filename, stage, key, case in _scenario_cases(assignment):
        if not case.get("public") or case.get("any_legal"):
            continue
        made = scenario_check(assignment, signatures, key, case, protocol, "", stage)
        if made is not None and (made.in_notebook or not notebooks):
            continue
        what = str(case.get("why") or case.get("name") or case.get("id") or key)
        owner = made.problem if made is not None else \
            case.get("problem") or getattr(_owner(assignment, key, stage), "number", None)
        if owner is None:
            owner = _checked_by(checks or {}, what)
        found.setdefault(int(owner or 0), []).append(f"{what} ({filename} [[{key}]])")
    return found


def _checked_by(checks: dict[str, int | None], what: str) -> int | None:
    """The problem of the hidden check whose case id is WHAT (`test_x[WHAT]`, `test_x[kind: WHAT]`),
    or of the only problem whose case ids hold it; None when that is not one problem."""
    params = [(check[check.index("[") + 1:-1], problem) for check, problem in checks.items()
              if "[" in check and check.endswith("]") and problem is not None]
    exact = {problem for param, problem in params if param == what or param.endswith(": " + what)}
    loose = {problem for param, problem in params if what in param}
    owners = exact or loose
    return owners.pop() if len(owners) == 1 else None


def content_checks(content: dict, problem: Problem) -> list[Check]:
    spec = content.get("problems", {}).get(str(problem.number), {})
    checks = []
    for item in list(spec.get("checks", [])) + list(spec.get("check", [])):
        if isinstance(item, str):
            checks.append(Check(problem.number, expr=item, origin="content"))
            continue
        item = dict(item)
        checks.append(Check(
            problem.number, setup=list(item.get("setup", [])), expr=item.get("expr", ""),
            raises=item.get("raises", ""), call=item.get("call", ""),
            answers=[str(a) for a in item.get("answers", [])], dice=[int(d) for d in item.get("dice", [])],
            lines=list(item.get("lines", [])), after=list(item.get("after", [])),
            value=bool(item.get("value", True)), quiet=bool(item.get("quiet", False)), origin="content",
            label=str(item.get("label", "")), in_notebook=bool(item.get("notebook", True)), **_hints(item)))
    return checks


def _before_later_stages(assignment: Assignment, content: dict, problem: Problem, check: Check) -> None:
    """Compare a function that a later stage extends the way the content file says (e.g. without
    the bonus lines of format_scorecard in stage 3), so the check holds at both stages."""
    for function, template in content.get("before_later_stages", {}).items():
        later = [p.stage for p in assignment.problems if function in p.functions]
        if check.expr.startswith(f"{function}(") and later and problem.stage < max(later):
            check.expr = template.format(call=check.expr)


def problem_checks(assignment: Assignment, solution_text: str, content: dict, problem: Problem,
                   notebook: bool = True) -> list[Check]:
    """Every public check of PROBLEM: docstring examples, public scenarios, the content file's
    (with NOTEBOOK, only those that belong in the problem's notebook cell)."""
    spec = content.get("problems", {}).get(str(problem.number), {})
    checks = doctest_checks(solution_text, problem) if spec.get("doctests", True) else []
    seen = {(tuple(c.setup), c.expr, c.raises, c.call, tuple(c.answers)) for c in checks}
    found, _ = scenario_checks(assignment, solution_text, content.get("protocol_lines", []), problem)
    for check in found:
        if notebook and not check.in_notebook:
            continue
        _before_later_stages(assignment, content, problem, check)
        key = (tuple(check.setup), check.expr, check.raises, check.call, tuple(check.answers))
        if key not in seen:
            checks.append(check)
            seen.add(key)
    checks.extend(c for c in content_checks(content, problem) if c.in_notebook or not notebook)
    return checks
