"""Load a submission: a .py file, a folder holding one, or a Jupyter notebook -> Python source.

Nothing here runs student code; notebooks are read as JSON and filtered with ast (engine/nbcode.py).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import bounds, escape, safefs
from .nbcode import (  # noqa: F401 -- (the loader's API)
    NotASubmission,
    SubmissionError,
    _course,
    _kit_metadata,
    _stage,
    notebook_course,
    notebook_source,
    notebook_stage,
)


@dataclass
class Submission:
    path: Path
    source: str
    filename: str                     # the name tracebacks show: the assignment's student_file
    kind: str = "py"                  # "py" | "ipynb"
    notes: list[str] = field(default_factory=list)
    stage: int | None = None          # a kit notebook's stage (its metadata); graded with that stage
    course: str | None = None         # a kit notebook's assignment (its metadata)


def load_submission(path: str | Path, expected_name: str, entry: str | None = None) -> Submission:
    """Find and read the student's code at PATH; raise SubmissionError with a clear message."""
    path = Path(path)
    if not os.path.lexists(path):
        raise NotASubmission(f"no such file or folder: {escape.path(path)}")
    try:                                  # a link or a FIFO is the student's error, never followed
        st = safefs.check(path)
    except safefs.UnsafeFile as err:
        raise SubmissionError(str(err)) from None
    picked = []                           # a note on which of several files was graded
    if stat.S_ISDIR(st.st_mode):
        path, picked = _pick_file(path, expected_name, entry)
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        source, notes, stage, course = _notebook(_read_text(path), entry)
        return Submission(path, source, expected_name, "ipynb", picked + notes, stage, course)
    if suffix != ".py":
        raise NotASubmission(f"{escape.name(path.name)} is not a Python file (.py) or a notebook (.ipynb)")
    source = _read_text(path)
    notes = picked
    if path.name != expected_name:
        notes.append(f"graded {escape.name(path.name)} as {expected_name}")
    return Submission(path, source, expected_name, "py", notes)


_LAST_NOTEBOOK: list = []          # [(text, entry), parts or SubmissionError]: the last one read


def _notebook(text: str, entry: str | None) -> tuple[str, list[str], int | None, str | None]:
    """A notebook's source, notes, stage and course, worked out once for the same TEXT and ENTRY.

    One `grade` loads its submission several times (its kind, its metadata's stage and course, the
    grade itself), and a notebook of many cells near the size cap costs ~0.7 s of CPU to parse; the
    key is the file's whole text, so a changed file is always parsed afresh."""
    if _LAST_NOTEBOOK and _LAST_NOTEBOOK[0] == (text, entry):
        parts = _LAST_NOTEBOOK[1]
    else:
        try:
            wellformed = _wellformed_notebook(text)
            meta = _kit_metadata(wellformed)
            parts = (*notebook_source(wellformed, entry), _stage(meta), _course(meta))
        except SubmissionError as err:
            parts = err
        _LAST_NOTEBOOK[:] = [(text, entry), parts]
    if isinstance(parts, SubmissionError):
        raise type(parts)(*parts.args)
    source, notes, stage, course = parts
    return source, list(notes), stage, course


def _wellformed_notebook(text: str) -> str:
    """The notebook's JSON with every lone surrogate its strings spell (`"\\ud800"`: no UTF-8 has
    one, Jupyter's browser may keep half an emoji) as U+FFFD, so the source compiles and every note
    about it can be written; a notebook that does not parse is left to _notebook_cells to refuse."""
    if not _SURROGATE_ESCAPE.search(text):
        return text
    try:
        return json.dumps(bounds.wellformed(json.loads(text), "\ufffd"))
    except (ValueError, RecursionError, MemoryError):
        return text


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _read_text(path: Path) -> str:
    try:
        data = safefs.read_bytes(path)
    except safefs.UnsafeFile as err:
        raise SubmissionError(str(err)) from None
    except OSError as err:
        raise SubmissionError(f"{escape.name(path.name)} could not be read ({err.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SubmissionError(
            f"{escape.name(path.name)} is not UTF-8 text (byte 0x{data[err.start]:02x} on line {line}); "
            "save it as UTF-8 and submit again"
        ) from None


NOT_PICKED = frozenset({".ipynb_checkpoints", "__MACOSX"})     # folders whose files are never the one graded


def may_be_picked(parts: tuple[str, ...]) -> bool:
    """Whether a file of a submission's folder (PARTS: its path's parts) may be the one graded: a
    .py or .ipynb outside NOT_PICKED (the batch's content hash must include every such file)."""
    return parts[-1].lower().endswith((".py", ".ipynb")) and not NOT_PICKED.intersection(parts)


def _pick_file(folder: Path, expected_name: str, entry: str | None) -> tuple[Path, list[str]]:
    """The file of FOLDER to grade, and a note when several files bear EXPECTED_NAME: the one
    nearest the top (a backup folder's copy, `old/<name>`, sorts before `<name>`: before
    pass 21 it was graded, silently, instead of the student's file at the top)."""
    files, refused = safefs.walk(folder)
    candidates = sorted(p for p in files + refused if may_be_picked(p.parts))
    if not candidates and refused:               # e.g. the folder holds only a link to someone's folder
        raise SubmissionError(str(safefs.refusal(refused[0], os.lstat(refused[0]))))
    if not candidates:
        raise NotASubmission(f"no Python file (.py) or notebook (.ipynb) in {escape.path(folder)}")
    named = sorted((p for p in candidates if p.name == expected_name), key=lambda p: (len(p.parts), p))
    if named:
        others = ", ".join(escape.name(p.relative_to(folder).as_posix()) for p in named[1:4])
        more = f" and {len(named) - 4} more" if len(named) > 4 else ""
        note = [f"graded {escape.name(named[0].relative_to(folder).as_posix())}, the {expected_name} nearest the top "
                f"of the folder (it also holds {others}{more})"] if len(named) > 1 else []
        return named[0], note
    if len(candidates) == 1:
        return candidates[0], []
    if entry:
        defining = [p for p in candidates if p.suffix == ".py" and p not in refused
                    and f"def {entry}" in _read_text(p)]
        if len(defining) == 1:
            return defining[0], []
    names = ", ".join(escape.name(p.name) for p in candidates[:10])
    raise NotASubmission(f"{escape.path(folder)} holds several files ({names}) and none is named {expected_name}")
