"""Escape student text for whoever reads it: a terminal, a .txt file, Markdown, a spreadsheet.

Student programs choose what they print, their exception messages and their file names; none
of it may act on the reader.  One helper per kind of reader (HTML escaping is html.escape /
Jinja2 autoescape in report.py):

* plain(): terminal and .txt output.  Control characters (ESC and so ANSI/OSC sequences, CR,
  backspace, bell, C1 controls) and bidirectional overrides become visible escapes like `\\x1b`,
  so a program cannot clear the screen, write a fake "100 / 100" over a line, set the clipboard
  (OSC 52) or hide text; nor start a line where an editor does (U+2028, U+2029).  Newlines and tabs stay.
* fence(): a Markdown code block whose fence is longer than any backtick run in the content,
  so the content cannot close it (and make headings or raw HTML live).
* csv_cell(): a spreadsheet cell that cannot start a formula (=, +, -, @, tab, CR).
* name(): a file or zip entry name for a message: plain(), one line, length-capped.
* path(): a path stored or shown whole: its undecodable bytes as \\xNN.
"""

from __future__ import annotations

import os
import re
from typing import Any

# C0 controls except \t and \n, DEL, C1 controls, Unicode bidi/invisible format controls, the line and
# paragraph separators (an editor starts a line at each: a fake "Score" line), and lone
# surrogates (a file name's undecodable byte, os.fsdecode's \udcXX: no encoder writes one).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff\ud800-\udfff]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: Any) -> str:
    """TEXT with every control character shown as an escape (newline and tab kept)."""
    return _CONTROL.sub(_visible, str(text))


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
