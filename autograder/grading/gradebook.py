"""The class gradebook: one SQLite file, one row per (assignment, submission), written by one process.

The batch parent is the only writer.  Each grade is stored the moment it is known, in one
transaction, with an upsert on UNIQUE(assignment, submission_id): an interrupted batch (Ctrl-C,
kill -9) loses at most the submissions that were being graded, and never duplicates a row.

How a row is written (grade-all's parent does it for every row while its workers grade, so its
CPU counts): one statement (INSERT .. ON CONFLICT .. RETURNING times_graded), which is its own
transaction; WAL mode with synchronous=NORMAL, so a commit is an append to the WAL and no fsync
(a row survives a killed process at once, and a power cut loses at most the last rows, never the
file: SQLite's guarantee for WAL + NORMAL); the WAL copied back (and fsynced) by SQLite's own
checkpoints every 1,000 pages.  A new gradebook has 16 KiB pages: a row (~120 KB: the report's
JSON, its tests again, the feedback) is ~8 pages to write, not ~30 (~35 % less CPU a row).  Kept
as they were: the checkpoints during the batch (leaving them all to the end would only move
their copying into the command's tail) and the fsync at each (what makes the copy durable).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import safefs
from ..engine.results import GradeReport

SCHEMA_VERSION = 1
PAGE_SIZE = 16384          # a new gradebook's (Gradebook.__init__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS grades (
    id              INTEGER PRIMARY KEY,
    assignment      TEXT NOT NULL,
    submission_id   TEXT NOT NULL,
    content_hash    TEXT NOT NULL,
    stage           TEXT NOT NULL,
    status          TEXT NOT NULL,          -- graded | crashed
    score           REAL NOT NULL,
    max_score       REAL NOT NULL,
    tests           TEXT NOT NULL,          -- JSON list of TestResult dicts
    report          TEXT NOT NULL,          -- JSON GradeReport.to_dict()
    feedback        TEXT NOT NULL,          -- the plain-text feedback the student reads
    error           TEXT NOT NULL DEFAULT '',
    wall_time       REAL NOT NULL DEFAULT 0,
    cpu_time        REAL NOT NULL DEFAULT 0,
    grader_version  TEXT NOT NULL,
    graded_at       TEXT NOT NULL,
    source          TEXT NOT NULL DEFAULT '',
    times_graded    INTEGER NOT NULL DEFAULT 1,
    UNIQUE (assignment, submission_id)
);
CREATE TABLE IF NOT EXISTS runs (
    id          INTEGER PRIMARY KEY,
    assignment  TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    found       INTEGER NOT NULL DEFAULT 0,
    graded      INTEGER NOT NULL DEFAULT 0,
    skipped     INTEGER NOT NULL DEFAULT 0,
    crashed     INTEGER NOT NULL DEFAULT 0,
    jobs        INTEGER NOT NULL DEFAULT 1,
    status      TEXT NOT NULL DEFAULT 'running'   -- running | done | interrupted
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def now() -> str:
    """This instant, local time, to the millisecond: its seconds and its milliseconds read from ONE
    clock reading (two readings straddling a second gave a stamp up to 1 s early: rows out of order,
    the bench's first-row and steady figures off by a second)."""
    instant = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(instant)) + f".{int(instant * 1000) % 1000:03d}"


@dataclass
class Row:
    """One stored grade, as read back from the gradebook."""

    assignment: str
    submission_id: str
    content_hash: str
    stage: str
    status: str
    score: float
    max_score: float
    tests: list[dict[str, Any]]
    report: dict[str, Any]
    feedback: str
    error: str
    wall_time: float
    cpu_time: float
    grader_version: str
    graded_at: str
    source: str
    times_graded: int

    def grade_report(self) -> GradeReport:
        return GradeReport.from_dict(self.report)


@dataclass
class Stored:
    """A grade as the gradebook stores it: the report's JSON (GradeReport.to_dict()), where in it
    its tests' JSON lies (the same list again is a column of its own: tests_json) and the figures
    read from it.  A worker sends the report's JSON alone, not its tests a second time (~65 KB a
    row less to send, copy and read: half of the message)."""

    report_json: str
    tests_at: tuple[int, int]     # report_json[start:end] is the tests' JSON
    score: float
    max_score: float
    error: str

    @property
    def tests_json(self) -> str:
        start, end = self.tests_at
        return self.report_json[start:end]

    @classmethod
    def of(cls, data: dict[str, Any], max_score: float | None = None) -> Stored:
        """DATA: GradeReport.to_dict(); MAX_SCORE: another maximum than the report's (an error row)."""
        report, at = _dumps_with(data, "tests", json.dumps(data["tests"]))
        return cls(report, at, data["score"], data["max_score"] if max_score is None else max_score, data["error"])


def _dumps_with(data: dict[str, Any], key: str, dumped: str) -> tuple[str, tuple[int, int]]:
    """json.dumps(DATA), byte for byte, with DATA[KEY] already dumped as DUMPED (a report's tests
    are most of its JSON: dumped once, not twice: 0.62 -> 0.35 ms a grade in the worker), and
    where DUMPED lies in it.  json.dumps's defaults join a dict's items as `"key": value` with ", "
    in braces; a key other than a str (which json.dumps would convert) takes json.dumps itself
    (DUMPED is then found in its text: where it is, the same text is)."""
    if not all(type(k) is str for k in data):
        text = json.dumps(data)
        start = text.index(dumped)
        return text, (start, start + len(dumped))
    parts, start = [], 0
    for k, v in data.items():
        name = json.dumps(k)
        if k == key:
            start = 1 + sum(map(len, parts)) + 2 * len(parts) + len(name) + 2
            parts.append(f"{name}: {dumped}")
        else:
            parts.append(f"{name}: {json.dumps(v)}")
    return "{" + ", ".join(parts) + "}", (start, start + len(dumped))


_COLUMNS = ("assignment", "submission_id", "content_hash", "stage", "status", "score", "max_score", "tests",
            "report", "feedback", "error", "wall_time", "cpu_time", "grader_version", "graded_at", "source")
# Store one grade: insert it, or replace the earlier one of the same submission (times_graded + 1).
_UPSERT = (f"INSERT INTO grades ({', '.join(_COLUMNS)}) VALUES ({', '.join(f':{c}' for c in _COLUMNS)}) "
           f"ON CONFLICT(assignment, submission_id) DO UPDATE SET "
           f"{', '.join(f'{c} = excluded.{c}' for c in _COLUMNS if c not in ('assignment', 'submission_id'))}, "
           "times_graded = grades.times_graded + 1 RETURNING times_graded")


class Gradebook:
    """A SQLite gradebook in WAL mode; use as a context manager or call close()."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        # A new gradebook's pages are 16 KiB, not 4: a row is ~120 KB (its report's JSON twice, with
        # the tests alone), ~8 pages and WAL frames to write, not ~30 (the row's store: ~35 % less
        # CPU).  (An existing file keeps its page size: this says nothing then.)
        self.db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.executescript(SCHEMA)
        self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        self._checkpointing: Any = None            # checkpoint_soon's thread, while it runs

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.checkpointed()
        self.db.close()

    def checkpoint_soon(self) -> None:
        """Copy the WAL back into the file now, from a thread and a connection of its own, while
        the caller does other work (grade-all: once the last row is stored, while its exports are
        written and the report's charts drawn), instead of in close(): the last connection's close
        copies what is left and fsyncs it (~20-40 ms of the command's tail, most of it waiting on
        the disk).  The same copy and sync SQLite's close would make, only earlier: close() then
        finds nothing left to copy.  Reading this connection meanwhile is fine (WAL mode); write
        nothing more until checkpointed() (a later row would only be left for close() to copy).
        Should it fail (busy, an error), close() copies it all as before."""
        if self._checkpointing is not None:
            return
        import threading

        self._checkpointing = threading.Thread(target=_checkpoint, args=(self.path,),
                                               name="gradebook-checkpoint", daemon=True)
        self._checkpointing.start()

    def checkpointed(self) -> None:
        """Wait for checkpoint_soon()'s copy, if one was started."""
        thread = self._checkpointing
        if thread is not None:
            thread.join()
            self._checkpointing = None

    # -- writing ------------------------------------------------------------------------------
    def record(self, *, assignment: str, submission_id: str, content_hash: str, stage: str,
               report: GradeReport, feedback: str, wall_time: float, cpu_time: float,
               grader_version: str, source: str = "", status: str = "graded",
               max_score: float | None = None) -> None:
        """Store one grade (insert or replace the earlier one) in a single transaction."""
        self.store(assignment=assignment, submission_id=submission_id, content_hash=content_hash, stage=stage,
                   stored=Stored.of(report.to_dict(), max_score), feedback=feedback, wall_time=wall_time, cpu_time=cpu_time,
                   grader_version=grader_version, source=source, status=status)

    def store(self, *, assignment: str, submission_id: str, content_hash: str, stage: str, stored: Stored,
              feedback: str, wall_time: float, cpu_time: float, grader_version: str, source: str = "",
              status: str = "graded", keep: bool = False) -> Row | None:
        """record() for a grade already serialised (grade-all's workers send it so: the parent stores
        the JSON as it came, never parsing and writing it again).  KEEP: return the Row as rows()
        would read it back (its report parsed once; tests is the report's list)."""
        values = {
            "assignment": assignment, "submission_id": submission_id, "content_hash": content_hash,
            "stage": str(stage), "status": status, "score": float(stored.score),
            "max_score": float(stored.max_score),
            "tests": stored.tests_json, "report": stored.report_json, "feedback": feedback, "error": stored.error,
            "wall_time": round(wall_time, 4), "cpu_time": round(cpu_time, 4),
            "grader_version": grader_version, "graded_at": now(), "source": source,
        }
        # One statement, so one transaction of its own (autocommit): the row is all there or not at
        # all, whenever the batch is interrupted.  Its changes are made by its first step; its
        # RETURNING row read, the statement is reset and the transaction commits (close()).
        cursor = self.db.execute(_UPSERT, values)
        try:
            ((times,),) = cursor.fetchall()
        finally:
            cursor.close()
        if not keep:
            return None
        report = json.loads(stored.report_json)
        values.update(report=report, tests=report["tests"], times_graded=times)
        return Row(**values)

    def start_run(self, assignment: str, found: int, jobs: int) -> int:
        cur = self.db.execute("INSERT INTO runs (assignment, started_at, found, jobs) VALUES (?, ?, ?, ?)",
                              (assignment, now(), found, jobs))
        return int(cur.lastrowid)

    def finish_run(self, run_id: int, *, graded: int, skipped: int, crashed: int, status: str) -> None:
        self.db.execute("UPDATE runs SET finished_at = ?, graded = ?, skipped = ?, crashed = ?, status = ? "
                        "WHERE id = ?", (now(), graded, skipped, crashed, status, run_id))

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value))

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # -- reading ------------------------------------------------------------------------------
    def fingerprints(self, assignment: str) -> dict[str, tuple[str, str, str]]:
        """submission_id -> (content_hash, stage, grader_version) of what is stored and final.

        A row the grader failed on (status 'crashed': a worker died, grading timed out) is left
        out, so the next batch tries that submission again."""
        rows = self.db.execute("SELECT submission_id, content_hash, stage, grader_version FROM grades "
                               "WHERE assignment = ? AND status != 'crashed'", (assignment,))
        return {sid: (h, stage, version) for sid, h, stage, version in rows}

    def ids(self, assignment: str) -> list[str]:
        """The submission ids of ASSIGNMENT's rows, in order."""
        return [sid for (sid,) in self.db.execute("SELECT submission_id FROM grades WHERE assignment = ? "
                                                  "ORDER BY submission_id", (assignment,))]

    def found(self, assignment: str) -> set[str] | None:
        """The ids the last grade-all of each section of ASSIGNMENT found (and each later `grade --out`);
        None before any run kept them (a gradebook older than pass 23: every row counts as found)."""
        sections = self.sections(assignment)
        return None if sections is None else {sid for section in sections for sid in section["ids"]}

    def sections(self, assignment: str) -> list[dict[str, Any]] | None:
        """ASSIGNMENT's sections (grading.sections: {"source": the folder or zip graded, "ids": the
        ids its last run found, "lost": its rows that run did not find}); None before any run kept
        them.  Pass 23 kept one list (the last run's ids): a section of unknown source that lost
        every other row."""
        text = self.get_meta(f"found:{assignment}")
        if text is None:
            return None
        data = json.loads(text)
        if isinstance(data, list):          # (pass 23)
            ids = sorted(str(sid) for sid in data)
            return [{"source": None, "ids": ids, "lost": sorted(set(self.ids(assignment)) - set(ids))}]
        return [{"source": s.get("source"), "ids": [str(sid) for sid in s.get("ids", [])],
                 "lost": [str(sid) for sid in s.get("lost", [])]} for s in data.get("sections", [])]

    def set_sections(self, assignment: str, sections: list[dict[str, Any]]) -> None:
        self.set_meta(f"found:{assignment}", json.dumps({"sections": [
            {"source": s["source"], "ids": sorted(set(s["ids"])), "lost": sorted(set(s.get("lost", [])))}
            for s in sections]}))

    def drop(self, assignment: str, ids: Iterable[str]) -> int:
        """Delete the rows of IDS (ASSIGNMENT's); how many were."""
        return sum(self.db.execute("DELETE FROM grades WHERE assignment = ? AND submission_id = ?",
                                   (assignment, sid)).rowcount for sid in sorted(set(ids)))

    def rows(self, assignment: str | None = None, submission_id: str | None = None) -> list[Row]:
        """The stored grades (of ASSIGNMENT; of the one SUBMISSION_ID), by submission id."""
        fields = list(Row.__dataclass_fields__)
        query = f"SELECT {', '.join(fields)} FROM grades"
        params: tuple = ()
        if assignment is not None:
            query += " WHERE assignment = ?"
            params = (assignment,)
            if submission_id is not None:
                query += " AND submission_id = ?"
                params = (assignment, submission_id)
        out = []
        for values in self.db.execute(query + " ORDER BY submission_id", params):
            data = dict(zip(fields, values))
            data["tests"] = json.loads(data["tests"])
            data["report"] = json.loads(data["report"])
            out.append(Row(**data))
        return out

    def rows_reusing(self, assignment: str, known: dict[str, Row]) -> list[Row]:
        """rows(ASSIGNMENT), taking each row from KNOWN (id -> Row) when it is the one stored (same
        graded_at): grade-all keeps the rows it stored, so its exports parse only the others."""
        stamps = self.db.execute("SELECT submission_id, graded_at FROM grades WHERE assignment = ? "
                                 "ORDER BY submission_id", (assignment,)).fetchall()
        if all(sid in known and known[sid].graded_at == at for sid, at in stamps):
            return [known[sid] for sid, _ in stamps]
        stored = {row.submission_id: row for row in self.rows(assignment)}
        return [known[sid] if sid in known and known[sid].graded_at == at else stored[sid] for sid, at in stamps]

    def runs(self) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT * FROM runs ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur]


def _checkpoint(path: Path) -> None:
    """Gradebook.checkpoint_soon's thread: a passive checkpoint (never waits for a reader or a
    writer) on a connection of its own, synced as the gradebook's own (synchronous=NORMAL: the
    WAL, then the file once copied).  Quietly: what is not copied here is copied by close()."""
    try:
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    except sqlite3.Error:
        return
    try:
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except sqlite3.Error:
        pass
    finally:
        db.close()


def content_hash(files: list[tuple[str, Path | None]]) -> str:
    """sha256 over (relative name, bytes) of every file, in name order; a file without a path
    (discover.UNHASHED: a folder with too many programs to hash) adds random bytes: never the same."""
    digest = hashlib.sha256()
    for name, path in sorted(files, key=lambda f: f[0]):
        if path is None:
            digest.update(os.urandom(32))
            continue
        data = safefs.read_bytes(path, limit=64 << 20)      # never through a student's link
        digest.update(os.fsencode(name) + b"\0" + str(len(data)).encode() + b"\0" + data)
    return digest.hexdigest()
