"""What the learning-management systems say about a submission, late work, and the files they import.

* Reading (at discovery): the submission time and late flag of every export format the kit reads:
  Canvas (``name_LATE_<user id>_<submission id>_file``), Moodle (``Full Name_<participant id>_
  assignsubmission_file/``), Gradescope (``submission_metadata.yml``: ``:created_at:``, the
  submitter's ``:sid:``), nbgrader (``timestamp.txt``).  Each becomes a plain dict stored with the
  grade (``GradeReport.submission_info``).
* Late policy (at export, from the gradebook's settings, so changing the due date needs no regrade):
  a due date, per-student extensions, a penalty in percent of the points earned per started day
  late, capped.
* Writing: Canvas's and Moodle's gradebook import CSVs, keyed by the LMS's own student id when the
  export gave one.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

CANVAS = re.compile(r"^(?P<who>[^_]+?)(?P<late>_LATE)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
MOODLE = re.compile(r"^(?P<who>.+?)_(?P<uid>\d+)_assignsubmission_\w*$")


class PolicyError(ValueError):
    """A due date, extension or penalty that cannot be read."""


def parse_time(text: str) -> datetime:
    """An ISO-like time ('2026-11-20 23:59', '2026-11-20T23:59:00+01:00', nbgrader's '... UTC',
    Gradescope's '2026-11-20 23:59:00.123456789 -0800'); naive times are UTC."""
    text = str(text).strip().strip("'\"")
    text = re.sub(r"\s*UTC$", "+00:00", text)
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)                       # nanoseconds -> microseconds
    text = re.sub(r"\s+([+-]\d{2}):?(\d{2})$", r"\1:\2", text)        # ' -0800' / ' -08:00' -> '-08:00'
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise PolicyError(f"not a date and time: {text!r} (use e.g. 2026-11-20T23:59 or 2026-11-20 23:59+01:00)") \
            from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def canvas_info(filename: str) -> dict[str, Any]:
    match = CANVAS.match(filename)
    if not match:
        return {}
    return {"lms": "canvas", "lms_id": match["uid"], "lms_name": match["who"], "late": bool(match["late"])}


def moodle_info(folder: str) -> dict[str, Any]:
    match = MOODLE.match(folder)
    if not match:
        return {}
    return {"lms": "moodle", "lms_id": match["uid"], "lms_name": match["who"]}


def nbgrader_info(folder: Path) -> dict[str, Any]:
    from ..engine import safefs

    try:        # the student's folder: never through a link (to a device, a FIFO, a 10 GB file...)
        text = safefs.read_bytes(folder / "timestamp.txt", limit=4096).decode("utf-8", "replace")
        when = parse_time(text.strip()[:64])
    except (OSError, PolicyError):      # (safefs.UnsafeFile is an OSError; so is no file at all)
        return {"lms": "nbgrader"}
    return {"lms": "nbgrader", "submitted_at": when.isoformat()}


class MetadataError(ValueError):
    """A submission_metadata.yml that is not Gradescope's (the message says where and why)."""


METADATA_LIMIT = 16 << 20       # bytes: a class of thousands is a few MB
METADATA_DEPTH = 12             # Gradescope's nests 4 deep (submission, fields, submitters, a submitter)


@dataclass
class GradescopeSubmission:
    """One submission_<n> of Gradescope's metadata: INFO (lms, submitted_at, late) and its submitters,
    each {sid, email, name} (those given, as text)."""

    info: dict[str, Any] = field(default_factory=dict)
    submitters: list[dict[str, str]] = field(default_factory=list)


def gradescope_metadata(text: str) -> dict[str, GradescopeSubmission]:
    """submission_<n> -> its GradescopeSubmission, read from Gradescope's submission_metadata.yml by a
    YAML parser (PyYAML's safe loader, every plain scalar kept as text: an sid '007' stays '007', not
    7).  The one reader of that file (until pass 23 two hand parsers read it, and read a value holding
    a quote differently: O'Brien was a name for one, nothing for the other).  Bounded: its size, its
    nesting; a file that is not YAML or not shaped as Gradescope's raises MetadataError."""
    import yaml

    loader = _text_loader()
    if len(text) > METADATA_LIMIT:
        raise MetadataError(f"it is {len(text):,} characters long (at most {METADATA_LIMIT:,} are read)")
    try:
        depth = 0
        for event in yaml.parse(text, Loader=loader):      # (iterative: a deep file costs no stack)
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > METADATA_DEPTH:
                    raise MetadataError(f"it nests deeper than {METADATA_DEPTH} levels "
                                        f"(line {event.start_mark.line + 1})")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        context = getattr(err, "context", None) or ""
        problem = getattr(err, "problem", None) or str(err)
        problem = f"{context}, {problem}" if context.startswith("expected") else problem    # (not 'while ...')
        raise MetadataError(f"it is not YAML ({where}{problem})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MetadataError("it is not a mapping of submission folders to their metadata")
    out = {}
    for folder, fields in data.items():
        if not isinstance(fields, dict):
            raise MetadataError(f"{str(folder)[:80]!r} holds no mapping of fields")
        fields = _fields(fields)
        info: dict[str, Any] = {"lms": "gradescope"}
        try:
            if _text(fields.get("created_at")):
                info["submitted_at"] = parse_time(_text(fields["created_at"])).isoformat()
        except PolicyError:
            pass
        if _text(fields.get("late")):
            info["late"] = _text(fields["late"]).lower() == "true"
        people = fields.get("submitters")
        people = people if isinstance(people, list) else []
        submitters = [{key: _text(value) for key, value in _fields(person).items()
                       if key in ("sid", "email", "name") and _text(value)}
                      for person in people if isinstance(person, dict)]
        out[str(folder)] = GradescopeSubmission(info, [person for person in submitters if person])
    return out


def _fields(mapping: dict) -> dict[str, Any]:
    """Ruby's symbol keys (':sid') or plain ones ('sid'), as plain names."""
    return {str(key).lstrip(":"): value for key, value in mapping.items()}


def _text(value: Any) -> str:
    """A scalar's text, stripped; a list or mapping where a scalar belongs is no value."""
    return "" if value is None or isinstance(value, (dict, list)) else str(value).strip()


@functools.cache
def _text_loader() -> type:
    import yaml  # (imported by Gradescope exports only)

    class TextLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # (libyaml's: ~8x faster, 1000 submissions
        #                                                                  ~0.3 s; the pure-Python one where absent)
        """SafeLoader resolving no plain scalar to a number, bool, date or null: text as written."""

    TextLoader.yaml_implicit_resolvers = {}
    return TextLoader


# --- the late policy ----------------------------------------------------------------------------

@dataclass
class LatePolicy:
    due: str = ""                                          # ISO time; "" = no due date
    extensions: dict[str, str] = field(default_factory=dict)   # student id -> their own due time
    penalty_per_day: float = 0.0                           # percent of the points earned, per started day
    cap: float = 100.0                                     # at most this percent in all

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> LatePolicy:
        return cls(**json.loads(text)) if text else cls()

    def due_for(self, student: str) -> datetime | None:
        text = self.extensions.get(student) or self.due
        return parse_time(text) if text else None

    def assess(self, student: str, info: dict[str, Any], points: float) -> dict[str, Any]:
        """{late, late_by, days_late, penalty, due} for a submission with INFO earning POINTS.

        Late when submitted after the student's due time, or when the LMS flagged it late and gave
        no time (then it counts as one day late)."""
        due = self.due_for(student)
        out: dict[str, Any] = {"due": due.isoformat() if due else "", "late": False, "late_by": "",
                               "days_late": 0, "penalty": 0.0, "extension": student in self.extensions}
        submitted = info.get("submitted_at")
        if due and submitted:
            delay = parse_time(submitted) - due
            if delay > timedelta(0):
                out.update(late=True, late_by=_duration(delay), days_late=math.ceil(delay / timedelta(days=1)))
        elif info.get("late") and not (student in self.extensions and not submitted):
            out.update(late=True, late_by="(flagged late by the LMS)", days_late=1)
        if out["late"] and self.penalty_per_day:
            percent = min(self.cap, self.penalty_per_day * out["days_late"])
            out["penalty"] = round(points * percent / 100, 2)
        return out


def untimed_note(students: list[dict[str, Any]]) -> str:
    """A note when a due date is set but no submission carries a time, an LMS or a late flag (a
    plain folder of files): the policy can mark no one late, which an instructor would not guess."""
    if not students or any(s.get("submitted_at") or s.get("lms") or s.get("late") for s in students):
        return ""
    count = len(students)
    return (f"a due date is set, but {'none of the ' + str(count) if count > 1 else 'the one'} "
            f"submission{'s' if count > 1 else ''} carries a submission time or a late flag, so none is "
            "marked late: a plain folder of files has none (Canvas, Moodle and Gradescope exports and "
            "nbgrader's timestamp.txt do)")


def _duration(delay: timedelta) -> str:
    minutes = int(delay.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = ([f"{days} d"] if days else []) + ([f"{hours} h"] if hours else []) + [f"{minutes} min"]
    return " ".join(parts[:2])


def read_extensions(path: str | Path) -> dict[str, str]:
    """A CSV of `id,due` rows (a header row is allowed): each student's own due time."""
    out: dict[str, str] = {}
    try:
        rows = list(csv.reader(Path(path).read_text(encoding="utf-8-sig").splitlines()))
    except OSError as err:
        raise PolicyError(f"cannot read the extensions file {path}: {err.strerror}") from None
    for number, row in enumerate(rows, 1):
        if not row or not row[0].strip() or row[0].strip().lower() in ("id", "student", "student_id"):
            continue
        if len(row) < 2:
            raise PolicyError(f"{path}, line {number}: expected `id,due time`, got {','.join(row)!r}")
        parse_time(row[1])
        out[row[0].strip()] = row[1].strip()
    return out


# --- what the LMS imports -------------------------------------------------------------------------

def _csv(rows: list[list[Any]]) -> str:
    from ..engine.escape import csv_cell  # a name like "=HYPERLINK(...)" stays text in a spreadsheet

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([[csv_cell(cell) for cell in row] for row in rows])
    return buffer.getvalue()


def canvas_csv(summaries: list[dict[str, Any]], title: str, max_points: float) -> str:
    """Canvas Grades > Import: Student, ID (Canvas user id), SIS User ID, SIS Login ID, Section, the
    assignment column; a 'Points Possible' row first.  The grade is the final score (after any penalty)."""
    column = f"{title}"
    rows: list[list[Any]] = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column],
                             ["Points Possible", "", "", "", "", max_points]]
    for s in summaries:
        rows.append([s.get("lms_name") or s["id"], s.get("lms_id") if s.get("lms") == "canvas" else "",
                     "" if s.get("lms") == "canvas" else s["id"], "", "", s["final"]])
    return _csv(rows)


def moodle_csv(summaries: list[dict[str, Any]], max_points: float) -> str:
    """Moodle's offline grading worksheet: Identifier 'Participant N' (the id in the download's
    folder names), full name, grade, maximum grade, last modified, feedback comments."""
    rows: list[list[Any]] = [["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                              "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                              "Feedback comments"]]
    for s in summaries:
        identifier = f"Participant {s['lms_id']}" if s.get("lms") == "moodle" and s.get("lms_id") else s["id"]
        comment = f"{s['total']} / {s['max']} points" + (f"; late ({s['late_by']}): -{s['penalty']}"
                                                          if s.get("late") else "")
        rows.append([identifier, s.get("lms_name") or s["id"], "", "Submitted for grading", s["final"], max_points,
                     "Yes", s.get("submitted_at", ""), s.get("graded_at", ""), comment])
    return _csv(rows)
