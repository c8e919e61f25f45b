"""The code a notebook's given cells define (also check.py's and `grade --public`'s): the checking
tools (run_scripted on the shared scripted-input runtime, engine/scripted.py) and the public-check
runtime (engine/selfcheck.py), as text."""

from __future__ import annotations

import inspect
from pathlib import Path

from autograder.engine import nearby, scripted, selfcheck

# The shared scripted-input runtime, without its module docstring (a notebook cell shows it all).
SCRIPTED = inspect.getsource(scripted.Scripted)

TOOLS = '''\
import builtins
import contextlib
import io
import random
import re
from unittest import mock


# Scripted: the same code as the grader's sandbox (autograder/engine/scripted.py).
''' + SCRIPTED + '''

class ScriptEnded(BaseException):
    """The code asked for more answers or dice than the check scripted."""


def run_scripted(action, answers=(), dice=(), seed=None, strict=True, until_eof=False):
    """Run ACTION() with input() answered from ANSWERS and every die taken from DICE.

    Returns (value, printed): what ACTION returned and all it printed, each prompt
    followed by its answer as on a terminal.  Fails when the code asks for more answers,
    or rolls more dice, than the check scripted; with STRICT also when it asks for fewer.
    With a SEED the dice are random, after random.seed(SEED); with a SEED and DICE the dice
    are DICE, and the rest of the random module (a shuffle) follows the seed.  With UNTIL_EOF
    the answers end like a closed input: input() raises EOFError, which ends ACTION (value
    None), for a program that plays until its input ends.
    """
    script = Scripted(answers, None if dice is None or (seed is not None and not dice) else dice)
    printed = io.StringIO()
    ended = []

    def fake_input(prompt=""):
        answer = script.answer()
        if answer is None and until_eof and not ended:
            ended.append(prompt)
            print(prompt, end="")
            raise EOFError
        if answer is None:
            raise ScriptEnded("it asked for input more often than this check expected")
        print(Scripted.echo(prompt, answer), end="")
        return answer

    def fake_randint(low, high):
        value = script.die()
        if value is None:
            raise ScriptEnded("it rolled more dice than this check expected")
        return value

    if script.dice is None or seed is not None:
        random.seed(seed)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(builtins, "input", fake_input))
            if script.dice is not None:
                stack.enter_context(mock.patch.object(random, "randint", fake_randint))
            stack.enter_context(contextlib.redirect_stdout(printed))
            stack.enter_context(contextlib.redirect_stderr(printed))
            value = action()
    except EOFError:
        if not ended:
            raise
        value = None
    except ScriptEnded as err:
        raise AssertionError(f"{err}.  It printed:\\n{printed.getvalue()}") from None
    except BaseException as err:
        if type(err).__name__ == "TookTooLong":   # check.py's alarm: say what a loop kept printing
            err.printed = printed.getvalue()[-4000:]
        raise
    LAST_RUN.update(answers=script.answers_left(), dice=script.dice_left(), printed=printed.getvalue())
    if strict:
        script_used()
    return value, printed.getvalue()


LAST_RUN = {"answers": [], "dice": [], "printed": ""}


def script_used():
    """Fail when the last run_scripted left answers or dice unused (what strict=True checks at once;
    a check cell compares the value first, so a wrong value is told as expected / got)."""
    if LAST_RUN["answers"]:
        raise AssertionError(f"it never asked for the answers {LAST_RUN['answers']}.  It printed:\\n"
                             f"{LAST_RUN['printed']}")
    if LAST_RUN["dice"]:
        raise AssertionError(f"it did not roll the dice {LAST_RUN['dice']}.  It printed:\\n{LAST_RUN['printed']}")


def run_as_script(path):
    """Run the file at PATH as `python PATH` runs it (its main guard too); where the checks run
    without the file (`grade --public`'s sandbox), from the source it was given (SCRIPT_SOURCE)."""
    source = globals().get("SCRIPT_SOURCE")
    if source is None:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    exec(compile(source, path, "exec"), {"__name__": "__main__", "__file__": path})


def protocol_read(text, patterns):
    """The lines of TEXT a grader reads, in order: PATTERNS [(kind, regex)] tried in order on each
    line stripped; each line read as 'kind: name=value, ...' (its named groups, inner spaces
    collapsed: free spacing and optional bars compare equal, as the grader compares them)."""
    compiled = [(kind, re.compile(pattern)) for kind, pattern in patterns]
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        for kind, pattern in compiled:
            match = pattern.match(line)
            if match:
                fields = [f"{name}={' '.join(value.split())}" for name, value in match.groupdict().items()
                          if value is not None]
                found.append(f"{kind}: {', '.join(fields)}" if fields else kind)
                break
    return found


def lines_starting(text, *prefixes):
    """The lines of TEXT that start with one of PREFIXES, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith(prefixes)]


def final_number(text):
    """The last number on the last line of TEXT that mentions a score (None if there is none)."""
    for line in reversed(text.splitlines()):
        if "score" in line.lower() and re.search(r"-?\\d+", line):
            return int(re.findall(r"-?\\d+", line)[-1])
    return None
'''


# The public-check runtime, as the notebooks' given cell, check.py and `grade --public` embed it.
# Its import of the shared did-you-mean (engine/nearby.py) becomes that code: it runs where the
# package is not installed (a notebook, the student's check.py, the sandbox under --public).
NEARBY_IMPORT = "from autograder.engine.nearby import close_names  # (embedded: runtime.SELFCHECK puts its code here)\n"
NEARBY = ("import difflib\n\n\n# The did-you-mean every runtime shares (autograder/engine/nearby.py).\n"
          + inspect.getsource(nearby.close_names) + "\n\n" + inspect.getsource(nearby._words))
SELFCHECK = Path(selfcheck.__file__).read_text(encoding="utf-8")
if SELFCHECK.count(NEARBY_IMPORT) != 1:
    raise RuntimeError("engine/selfcheck.py must import close_names on one line, as NEARBY_IMPORT spells it")
SELFCHECK = SELFCHECK.replace(NEARBY_IMPORT, NEARBY)
