"""Escape student text for whoever reads it: a terminal, a .txt file, Markdown, a spreadsheet.

Student programs choose what they print, their exception messages and their file names; none
of it may act on the reader.  One helper per kind of reader (HTML escaping is html.escape /
Jinja2 autoescape in report.py):

* plain(): every reader (terminal, .txt, Markdown, CSV, and the HTML pages: report.py's
  Environment finalizes every value with it).  Control characters (ESC and so ANSI/OSC sequences,
  CR, backspace, bell, C1 controls) and every other character a reader should not get raw, by
  Unicode class (unicode_tables.INVISIBLE: format characters, bidi controls with the Arabic Letter
  Mark, the invisible tag characters, separators, default-ignorables such as the Hangul fillers)
  become visible escapes like `\\x1b`, `\\u061c`, `\\U000e0041`, so a program cannot clear the
  screen, write a fake "100 / 100" over a line, set the clipboard (OSC 52), reorder or hide text
  (for a person: a blank-looking letter; for a machine reading the feedback: tag characters that
  spell an instruction), nor start a line where an editor does (U+2028, U+2029).  A run of more
  than MAX_MARKS combining marks on one character (a tower drawn over the lines around it) keeps
  MAX_MARKS and says how many more there were.  Newlines and tabs stay.
* fence(): a Markdown code block whose fence is longer than any backtick run in the content,
  so the content cannot close it (and make headings or raw HTML live).
* csv_cell(): a spreadsheet cell that cannot start a formula (=, +, -, @, tab, CR).
* name(): a file or zip entry name for a message: plain(), one line, length-capped.
* path(): a path stored or shown whole: its undecodable bytes as \\xNN.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

from .unicode_tables import INVISIBLE, MARKS

# Every character no reader should get raw (unicode_tables: C0 controls except \t and \n, DEL, C1
# controls, format characters, the line and paragraph separators (an editor starts a line at each:
# a fake "Score" line), lone surrogates (a file name's undecodable byte, os.fsdecode's \udcXX: no
# encoder writes one) and the default-ignorables); and a run of combining marks longer than any
# script writes on one letter.
# (Python's re tries a class's ranges one by one: the whole classes only on text that is not ASCII,
# the combining marks' only on its runs of MAX_MARKS + 1 non-ASCII characters or more; compiled at
# the first such text: ~5 ms a process that never shows any)
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_LONG_NON_ASCII = re.compile("[^\x00-\x7f]{5,}")
MAX_MARKS = 4


@functools.cache
def _classes() -> tuple[re.Pattern, re.Pattern]:
    """(one invisible character, a run of more than MAX_MARKS combining marks)."""
    return re.compile(f"[{INVISIBLE}]"), re.compile(f"[{MARKS}]{{{MAX_MARKS + 1},}}")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _fewer_marks(match: re.Match) -> str:
    run = match.group()
    return f"{run[:MAX_MARKS]}[+{len(run) - MAX_MARKS} combining marks]"


def plain(text: Any) -> str:
    """TEXT with every control or invisible character shown as an escape (newline and tab kept),
    and no more than MAX_MARKS combining marks on one character."""
    shown = _ASCII_CONTROL.sub(_visible, str(text))
    if shown.isascii():
        return shown
    invisible, _ = _classes()
    shown = invisible.sub(_visible, shown)
    return _LONG_NON_ASCII.sub(_no_tower, shown) if _LONG_NON_ASCII.search(shown) else shown


def _no_tower(match: re.Match) -> str:
    return _classes()[1].sub(_fewer_marks, match.group())


def name(text: Any, limit: int = 120) -> str:
    """A file name fit for one line of a message: escaped, newlines shown, at most LIMIT chars."""
    shown = plain(text).replace("\n", "\\n").replace("\t", "\\t")
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def path(value: Any) -> str:
    """A path as well-formed text: a name's undecodable bytes (os.fsdecode's lone surrogates, which
    no encoder writes: SQLite, a UTF-8 file and the terminal refuse them) shown as \\xNN."""
    return os.fsencode(value).decode("utf-8", "backslashreplace")


def fence(content: str, info: str = "") -> str:
    """CONTENT as a Markdown fenced code block that it cannot close."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{content}\n{ticks}"


def markdown_inline(text: Any) -> str:
    """One line of student text inside Markdown prose or a table cell: escaped, inert."""
    shown = name(text, 300)
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", shown)


def csv_cell(value: Any) -> Any:
    """VALUE for a CSV cell: a string that could start a formula gets a leading apostrophe."""
    if isinstance(value, str):
        value = plain(value)
        if value.startswith(_FORMULA_START):
            return "'" + value
    return value
