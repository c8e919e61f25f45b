"""Which of a gradebook's rows the last runs found: one list of ids per section of the class.

Two sections graded from two folders into one `--out` are two runs that each find half the class.
A row is marked missing (grades.csv, grades.json, the report; left out of the LMS files) only when
a run of its own section no longer finds it: a renamed student, a leaver.  A run's section is every
earlier section that shares a student with it (a new download of the same section shares most of
them, whatever its folder is called); a run sharing no student with any earlier one is another
section, beside them, and says so.  The sections live in the gradebook's meta (`found:<assignment>`,
Gradebook.sections).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .discover import Entry
    from .gradebook import Gradebook
    from .workers import WorkerPool


def source_key(source: str | Path) -> str:
    """The folder or zip a section was graded from, as stored (absolute)."""
    return str(Path(source).resolve())


def merge(sections: list[dict[str, Any]], source: str, ids: set[str],
          stored: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """SECTIONS after a run of SOURCE that found IDS (STORED: the gradebook's ids), the earlier
    sections it shares no student with (the others, whose rows it says nothing about), and the ids
    its section lost (held or lost by the sections it merges, or by none, and not found now: the
    rows it marks missing).  The run's section takes the place of the first it shares a student
    with; every other one it shares a student with is merged into it."""
    same = [s for s in sections if ids & set(s["ids"])]
    others = [s for s in sections if not ids & set(s["ids"])]
    found_elsewhere = {sid for s in others for sid in s["ids"]}      # (found by another section's run: not lost)
    owned = {sid for s in same for sid in (*s["ids"], *s["lost"])}
    orphans = stored - {sid for s in sections for sid in (*s["ids"], *s["lost"])}
    lost = sorted(((owned | orphans) & stored) - ids - found_elsewhere)
    run = {"source": source, "ids": sorted(ids), "lost": lost}
    if not same:
        return [*others, run], others, lost
    first = sections.index(same[0])
    merged = [s for s in sections[:first] if s in others] + [run] + [s for s in sections[first:] if s in others]
    return merged, others, lost


def missing_rows(book: Gradebook, assignment: str, entries: list[Entry], source: str | Path, drop: bool,
                 notes: list[str], pool: WorkerPool) -> None:
    """The gradebook's rows of ids this run's section did not find (a renamed student, `smithjohn`
    once a second one came: `smithjohn_201`): DROP deletes them, else a note names them and the
    exports mark them missing (until pass 23 they were listed as if graded now).  The sections found
    are kept (Gradebook.sections) for the exports.  A DROP is refused when the run shares no student
    with the gradebook (another section, of which nothing is missing: most likely SOURCE is another
    class's folder, or OUT another class's gradebook)."""
    from ..engine import escape
    from .discover import InputError

    ids = {e.id for e in entries}
    stored = set(book.ids(assignment))
    sections = book.sections(assignment)
    if sections is None:        # rows graded before the gradebook kept what each run found: one section
        sections = [{"source": None, "ids": sorted(stored), "lost": []}] if stored else []
    sections = [dict(s, ids=sorted(set(s["ids"]) & stored), lost=sorted(set(s["lost"]) & stored)) for s in sections]
    sections = [s for s in sections if s["ids"] or s["lost"]]
    if drop and stored and not stored & ids:
        pool.close(now=True)
        raise InputError(f"--drop-missing: none of the gradebook's {len(stored)} students is in {source}, so it "
                         "would be graded as another section, of which no row is missing; nothing was graded "
                         "nor dropped (without --drop-missing it is graded beside them; is it the right folder "
                         "and --out?)")
    merged, others, missing = merge(sections, source_key(source), ids, stored)
    shown = ", ".join(escape.plain(sid) for sid in missing[:10]) + (" ..." if len(missing) > 10 else "")
    if missing and drop:
        book.drop(assignment, missing)
        notes.append(f"dropped {len(missing)} row{'s' * (len(missing) > 1)} of ids not found in this run "
                     f"(--drop-missing): {shown}")
    elif missing:
        notes.append(f"{len(missing)} row{'s' * (len(missing) > 1)} of the gradebook {'are' if len(missing) > 1 else 'is'}"
                     f" of ids not found in this run: {shown}; kept as graded before, marked \"missing\" in "
                     "grades.csv, grades.json and report.html, left out of canvas_grades.csv and moodle_grades.csv"
                     "; --drop-missing deletes them")
    if others and len(others) == len(sections):
        earlier = ", ".join(escape.plain(s["source"]) if s["source"] else "a run before sections were kept"
                            for s in others)
        notes.append(f"no student of this run is among the gradebook's {len(stored)} earlier "
                     f"row{'s' * (len(stored) > 1)} (graded from {earlier}): {escape.plain(str(source))} is "
                     "graded as another section beside them; a row is marked missing only when a later run "
                     "of its own section does not find it")
    book.set_sections(assignment, merged)


def add_graded(book: Gradebook, assignment: str, sid: str, source: str | Path) -> None:
    """`grade FILE --gradebook OUT` stored SID: found now, as by a run (never listed as missing); a
    section of its own unless one holds it already (a later run of a folder holding SID takes it in)."""
    sections = book.sections(assignment)
    if sections is None or any(sid in s["ids"] for s in sections):
        return              # (no sections kept yet: every row counts as found)
    book.set_sections(assignment, [*sections, {"source": source_key(source), "ids": [sid], "lost": []}])
