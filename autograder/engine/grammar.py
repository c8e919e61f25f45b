"""Reading printed text by lines, without a game's timeline: a line grammar and free-form scores.

* LineGrammar: the lines of a text that match an assignment's [protocol] regexes, by kind
  (courses whose games print a strict grammar compare them line by line: divergence.py's
  first_line_difference); each distinct text is read once per process (read_once).
* read_final_score: a final score in free-form output (no grammar: students print what they like).

The game's timeline, transcript and RNG contract are replay.py's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .bounds import number

# ---------------------------------------------------------------------------------------------
# A final score in free-form output (no line grammar: students print what they like)
# ---------------------------------------------------------------------------------------------

_FINAL_WORD = re.compile(r"\bfinal\b", re.IGNORECASE)
_SCORE_WORD = re.compile(r"\b(?:score|total)\b", re.IGNORECASE)
_INTEGER = re.compile(r"-?\d+")


def _number_on(line: str) -> int | None:
    """The first integer after the last "score"/"total" on LINE, else its last integer."""
    words = list(_SCORE_WORD.finditer(line))
    if words:
        after = _INTEGER.search(line, words[-1].end())
        if after:
            return number(after.group())
    numbers = _INTEGER.findall(line)
    return number(numbers[-1]) if numbers else None


@dataclass
class Score:
    value: int | None
    source: str            # where it was read, for the feedback


def read_final_score(outcome, *, finished: bool, entry: str) -> Score:
    """The final score in OUTCOME's free-form output: the first integer after "score"/"total" on
    the last line that mentions a final score; else, when the program FINISHED normally, the int
    ENTRY returned, or a plain "score" line."""
    lines = (outcome.stdout or "").splitlines()
    for line in reversed(lines):
        if _FINAL_WORD.search(line) and _SCORE_WORD.search(line):
            value = _number_on(line)
            if value is not None:
                return Score(value, f"your final-score line {line.strip()!r}")
    if finished and isinstance(outcome.value, int) and not isinstance(outcome.value, bool):
        return Score(outcome.value, f"the value {entry} returned")
    for line in reversed(lines):
        if _FINAL_WORD.search(line) or (finished and _SCORE_WORD.search(line)):
            value = _number_on(line)
            if value is not None:
                return Score(value, f"your line {line.strip()!r}")
    return Score(None, "")


# ---------------------------------------------------------------------------------------------
# A protocol regex, tried on lines of a bounded length only
# ---------------------------------------------------------------------------------------------

# No line a protocol describes is this long (a dice line, a round, a scorecard row: under 200
# characters).  A course's regex runs in the grader's process on the student's text, and one with
# overlapping quantifiers (`[A-Za-z _-]*?\s*[:=]`) backtracks quadratically: a printed line of 120 000
# spaces cost 2 min 19 s of the grader's CPU per grade on d3ee52f, no sandbox limit applying.
MAX_PROTOCOL_LINE = 1000


class Bounded:
    """A compiled protocol regex that matches nothing on text longer than MAX_PROTOCOL_LINE
    (what re.Pattern's readers use: match, search, fullmatch, findall, finditer; the rest as is)."""

    __slots__ = ("regex",)

    def __init__(self, regex: re.Pattern) -> None:
        self.regex = regex

    def match(self, text: str, *args: Any) -> re.Match | None:
        return self.regex.match(text, *args) if len(text) <= MAX_PROTOCOL_LINE else None

    def search(self, text: str, *args: Any) -> re.Match | None:
        return self.regex.search(text, *args) if len(text) <= MAX_PROTOCOL_LINE else None

    def fullmatch(self, text: str, *args: Any) -> re.Match | None:
        return self.regex.fullmatch(text, *args) if len(text) <= MAX_PROTOCOL_LINE else None

    def findall(self, text: str, *args: Any) -> list:
        return self.regex.findall(text, *args) if len(text) <= MAX_PROTOCOL_LINE else []

    def finditer(self, text: str, *args: Any) -> Iterable[re.Match]:
        return self.regex.finditer(text, *args) if len(text) <= MAX_PROTOCOL_LINE else iter(())

    def __getattr__(self, name: str) -> Any:       # pattern, groups, groupindex, flags
        if name == "regex":                         # (not set yet: while unpickling)
            raise AttributeError(name)
        return getattr(self.regex, name)

    def __repr__(self) -> str:
        return f"Bounded({self.regex!r})"


def bounded(pattern: str, flags: int = 0) -> Bounded:
    """PATTERN compiled, tried only on lines a protocol can describe (MAX_PROTOCOL_LINE)."""
    return Bounded(re.compile(pattern, flags))


# ---------------------------------------------------------------------------------------------
# A line grammar: the lines of a text that match the [protocol] table's regexes, by kind
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Line:
    """A line the grader reads: its KIND (a key of the protocol table) and its FIELDS (the regex's
    groups, normalised); two lines are the same when kind and fields are (TEXT: as printed)."""

    kind: str
    fields: tuple
    text: str = field(default="", compare=False)


def spaced_groups(kind: str, match: re.Match) -> tuple:
    """The default fields of a line: its groups in order, inner whitespace collapsed."""
    return tuple(" ".join((g or "").split()) for g in match.groups())


@dataclass
class LineGrammar:
    """The line kinds of an assignment's [protocol] table, tried in order on each line (after
    trailing whitespace is cut; STRIP: leading whitespace too).  IGNORE: lines skipped whatever
    they hold.  TAILS: a line is also tried from after each ': ' or '? ' in it, where a prompt
    answered without echo runs into the next printed text.  NORMAL(kind, match) makes a line's
    fields (default: spaced_groups)."""

    kinds: dict[str, Bounded]
    ignore: Bounded | None = None
    tails: bool = False
    normal: Callable[[str, re.Match], tuple] = spaced_groups
    strip: bool = False

    @classmethod
    def of(cls, protocol: dict, kinds: Iterable[str], **options: Any) -> LineGrammar:
        """The grammar of the [protocol] table PROTOCOL's regexes KINDS (and its `ignore`, if any)."""
        ignore = bounded(protocol["ignore"]) if "ignore" in protocol else None
        return cls({kind: bounded(protocol[kind]) for kind in kinds}, ignore=ignore, **options)

    def read(self, text: str | None) -> list[Line]:
        """The lines of TEXT this grammar reads, in order; any other line is skipped.  (Once per
        distinct text in a process, read_once: a grammar is not changed once it has read.)"""
        return read_once(self, text, self._read)

    def _read(self, text: str | None) -> list[Line]:
        found = []
        for raw in (text or "").splitlines():
            line = raw.strip() if self.strip else raw.rstrip()
            if len(line) > MAX_PROTOCOL_LINE:       # (no kind matches it; nor any of its tails)
                continue
            if self.ignore is not None and self.ignore.match(line):
                continue
            for candidate in _tails(line) if self.tails else (line,):
                read = self._match(candidate)
                if read is not None:
                    found.append(read)
                    break
        return found

    def _match(self, text: str) -> Line | None:
        for kind, pattern in self.kinds.items():
            match = pattern.match(text)
            if match:
                return Line(kind, self.normal(kind, match), text)
        return None


_READINGS: dict[tuple[int, str], tuple[object, tuple]] = {}
_READINGS_MAX = 256
_READING_TEXT_MAX = 1 << 16         # characters: a longer text is read each time


def read_once(reader: object, text: str | None, read: Callable[[str | None], list]) -> list:
    """READ(TEXT), READER's reading of printed TEXT into frozen lines, once per distinct text in a
    process: the reference's output is read by every student's checks, and most students print
    what it prints.  A new list each call (nothing a caller does to it reaches the next).  (Keyed
    by READER's identity and kept alive with the entry, so an id is never reused.)"""
    if not isinstance(text, str) or len(text) > _READING_TEXT_MAX:
        return read(text)
    key = (id(reader), text)
    entry = _READINGS.get(key)
    if entry is not None and entry[0] is reader:
        return list(entry[1])
    lines = read(text)
    if len(_READINGS) >= _READINGS_MAX:
        _READINGS.clear()
    _READINGS[key] = (reader, tuple(lines))
    return list(lines)


def _tails(text: str) -> list[str]:
    """TEXT and what follows each ': ' or '? ' in it."""
    return [text] + [text[match.end():] for match in re.finditer(r"[:?] ", text)]
