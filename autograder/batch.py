"""Verb `grade-all`: grade a whole class into a SQLite gradebook, a CSV, feedback files and an HTML report.

    python -m autograder grade-all SUBMISSIONS [--assignment NAME] [--stage N|all] [--jobs N]
                                               [--out DIR] [--force]

SUBMISSIONS is a folder of per-student files or folders, an nbgrader `submitted/<student>/<assignment>/`
tree, or a zip as Gradescope or an LMS exports it.  Workers are separate processes (forkserver), each
calling grade() again and again so the reference program and its cache are reused.  The parent is the
only writer of the gradebook and stores every grade the moment it arrives, so an interrupted run
loses nothing that was finished; running again skips every submission whose files, stage and grader
are unchanged (--force regrades).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import multiprocessing
import os
import re
import shutil
import signal
import stat
import sys
import time
import traceback
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_any
from pathlib import Path, PurePosixPath
from typing import Any

from . import lms
from .assignment import PACKAGE_DIR, Assignment, load_assignment
from .engine import escape, safefs
from .engine.results import GradeReport
from .gradebook import Gradebook, content_hash

SUBMISSION_SUFFIXES = (".py", ".ipynb")
IGNORED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__", ".DS_Store", ".git", "Thumbs.db"}
DEFAULT_OUT = "grade-all-out"
DEFAULT_TIMEOUT = 600.0          # seconds per submission, Gradescope's default too

# Zip safety caps (uncompressed bytes, entries).
MAX_ZIP_TOTAL = 512 * 1024 * 1024
MAX_ZIP_MEMBER = 64 * 1024 * 1024
MAX_ZIP_ENTRIES = 20000
MAX_RATIO = 200                  # a member expanding more than this is treated as a zip bomb
MAX_FILES_HASHED = 500           # per submission folder

# Test hook (the kit's own tests only): the worker dies hard on the submission with this id.
CRASH_ENV = "AUTOGRADER_TEST_CRASH_ON"


class InputError(Exception):
    """SUBMISSIONS cannot be used; the message says why in one line."""


# --- finding the submissions ----------------------------------------------------------------------

@dataclass
class Entry:
    """One student's submission as found on disk."""

    id: str
    path: Path
    files: list[tuple[str, Path]] = field(default_factory=list)
    hash: str = ""
    error: str = ""              # set when the submission cannot be graded at all (e.g. a corrupt zip)
    info: dict = field(default_factory=dict)   # what the LMS export said: submitted_at, late, lms_id (lms.py)

    def __post_init__(self) -> None:
        refused = _refused(self.path)
        if refused and not self.error:      # a link is never followed: the student's error row
            self.error = refused
            self.hash = "refused:" + hashlib.sha256((refused + _link_text(self.path)).encode()).hexdigest()
        if not self.files and not refused:
            self.files = submission_files(self.path)
        if not self.hash:
            try:
                self.hash = content_hash(self.files)
            except OSError as err:
                self.error = self.error or f"{self.path.name} could not be read ({err.strerror})"
                self.hash = "unreadable:" + hashlib.sha256(self.error.encode()).hexdigest()


def safe_id(text: str) -> str:
    """A student id usable as a file name: letters, digits and ._@+- only."""
    text = re.sub(r"[^A-Za-z0-9._@+-]+", "_", text.strip()).strip("._")
    return text[:80] or "student"


def _refused(path: Path) -> str:
    """Why the grader will not read PATH (a link or a special file), or ''."""
    try:
        return safefs.refusal(path, os.lstat(path)) or ""
    except OSError:
        return ""


def _link_text(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def _is_file(path: Path) -> bool:
    """A regular file, not through a link."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_dir(path: Path) -> bool:
    """A folder, not through a link."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _ignored(path: Path) -> bool:
    return path.name in IGNORED or path.name.startswith(".")


def submission_files(path: Path) -> list[tuple[str, Path]]:
    """The files whose content decides the grade: the file itself, or every file in the folder."""
    if not _is_dir(path):
        return [(path.name, path)] if _is_file(path) else []
    files = []
    for item in safefs.walk(path)[0]:           # links inside are never followed (nor hashed)
        rel = item.relative_to(path)
        if any(part in IGNORED or part.startswith(".") for part in rel.parts):
            continue
        files.append((rel.as_posix(), item))
        if len(files) >= MAX_FILES_HASHED:
            break
    return files


CANVAS, MOODLE = lms.CANVAS, lms.MOODLE


def discover(source: str | Path, work_dir: Path, assignment: Assignment,
             nb_assignment: str | None = None) -> tuple[list[Entry], list[str]]:
    """Find the submissions in SOURCE (folder, nbgrader tree or zip); return (entries, notes)."""
    source = Path(source)
    notes: list[str] = []
    if not source.exists():
        raise InputError(f"no such file or folder: {source}")
    if source.is_file():
        if source.suffix.lower() == ".zip" or zipfile.is_zipfile(source):
            root = extract_zip(source, work_dir / "inputs", notes)
            root = _unwrap(root)
        elif source.suffix.lower() in SUBMISSION_SUFFIXES:
            return [Entry(safe_id(source.stem), source)], notes
        else:
            raise InputError(f"{source} is not a folder, a zip archive, a .py file or a notebook")
    else:
        root = source
    if (root / "submitted").is_dir():
        root = root / "submitted"
    if root.name == "submitted":
        entries = _nbgrader(root, assignment, nb_assignment, notes)
    elif (root / "submission_metadata.yml").is_file():
        entries = _gradescope_export(root, work_dir, notes)
    else:
        entries = _plain(root, work_dir, notes)
    return _unique(entries), notes


def _children(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if not _ignored(p))


def _unwrap(root: Path) -> Path:
    """Exports often wrap everything in one folder: descend while that is all there is."""
    for _ in range(5):
        children = _children(root)
        if len(children) == 1 and _is_dir(children[0]) and children[0].name != "submitted" \
                and not any(c.is_file() and c.suffix.lower() in SUBMISSION_SUFFIXES for c in children):
            inner = _children(children[0])
            if inner and all(c.is_dir() or c.suffix.lower() in (*SUBMISSION_SUFFIXES, ".zip", ".yml")
                             for c in inner) and len(inner) > 1:
                root = children[0]
                continue
        break
    return root


def _plain(root: Path, work_dir: Path, notes: list[str]) -> list[Entry]:
    """A folder of per-student files or folders (also Canvas and Moodle download layouts)."""
    children = _children(root)
    linked = [p for p in children if _refused(p)]          # links and FIFOs: an error row each
    files = [p for p in children if _is_file(p) and p.suffix.lower() in (*SUBMISSION_SUFFIXES, ".zip")]
    folders = [p for p in children if _is_dir(p)]
    skipped = [p.name for p in children if _is_file(p) and p not in files]
    if skipped:
        notes.append(f"ignored {len(skipped)} file(s) that are not submissions: {', '.join(escape.name(n) for n in skipped[:5])}"
                     + (" ..." if len(skipped) > 5 else ""))
    entries: list[Entry] = [Entry(safe_id(p.stem if p.suffix.lower() in (*SUBMISSION_SUFFIXES, ".zip") else p.name),
                                  p, files=[(p.name, p)]) for p in linked]
    canvas = [p for p in files if CANVAS.match(p.name)]
    if files and len(canvas) == len(files):
        groups: dict[str, list[Path]] = collections.defaultdict(list)
        for p in files:
            groups[CANVAS.match(p.name)["who"]].append(p)
        for who, paths in sorted(groups.items()):
            info = lms.canvas_info(paths[0].name)
            info["late"] = any(lms.canvas_info(p.name).get("late") for p in paths)
            if len(paths) == 1 and paths[0].suffix.lower() != ".zip":
                entries.append(Entry(safe_id(who), paths[0], info=info))
                continue
            problems: list[str] = []
            staged = _stage_files(who, paths, work_dir, notes, problems)
            if problems and not submission_files(staged):
                zips = [p for p in paths if p.suffix.lower() == ".zip"]
                entries.append(Entry(safe_id(who), zips[0], files=[(p.name, p) for p in paths],
                                     error="; ".join(problems), info=info))
            else:
                notes += [f"{who}: {problem} (graded the other files)" for problem in problems]
                entries.append(Entry(safe_id(who), staged, info=info))
        files = []
    for p in files:
        if p.suffix.lower() == ".zip":
            try:
                entries.append(Entry(safe_id(p.stem), _unwrap(extract_zip(p, work_dir / "nested", notes,
                                                                          label=p.name))))
            except InputError as err:          # one student's broken zip: their error row, not the batch's
                entries.append(Entry(safe_id(p.stem), p, error=str(err)))
        else:
            entries.append(Entry(safe_id(p.stem), p))
    for p in folders:
        match = MOODLE.match(p.name)
        who = f"{match['who']}_{match['uid']}" if match else p.name
        entries.append(Entry(safe_id(who), p, info=lms.moodle_info(p.name)))
    return entries


def _stage_files(who: str, paths: list[Path], work_dir: Path, notes: list[str],
                 problems: list[str]) -> Path:
    """Gather one LMS student's files (prefixed names, maybe a zip) into a folder of their own.

    A zip that cannot be extracted is left out and described in PROBLEMS."""
    dest = work_dir / "staged" / safe_id(who)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for p in paths:
        original = CANVAS.match(p.name)["file"]
        original = re.sub(r"-\d+(\.\w+)$", r"\1", original)   # Canvas renames resubmissions name-1.py
        if p.suffix.lower() == ".zip":
            try:
                inner = _unwrap(extract_zip(p, work_dir / "nested", notes, label=original))
            except InputError as err:
                problems.append(str(err))
                continue
            shutil.copytree(inner, dest / Path(original).stem, dirs_exist_ok=True)
        else:
            shutil.copy2(p, dest / original)
    return dest


def _nbgrader(root: Path, assignment: Assignment, nb_assignment: str | None, notes: list[str]) -> list[Entry]:
    """nbgrader's submitted/<student>/<assignment>/ tree."""
    entries = []
    for student in _children(root):
        if _refused(student):
            entries.append(Entry(safe_id(student.name), student, files=[(student.name, student)]))
            continue
        if not _is_dir(student):
            continue
        folders = [p for p in _children(student) if _is_dir(p) or _refused(p)]
        chosen = None
        if nb_assignment:
            wanted = student / nb_assignment
            chosen = wanted if _is_dir(wanted) or _refused(wanted) else None
        elif len(folders) == 1:
            chosen = folders[0]
        else:
            named = [p for p in folders if p.name == assignment.name]
            chosen = named[0] if named else None
        if chosen is None:
            names = ", ".join(p.name for p in folders) or "nothing"
            notes.append(f"{student.name}: no single assignment folder to grade (has {names}); "
                         "pick one with --nbgrader-assignment")
            continue
        entries.append(Entry(safe_id(student.name), chosen, info=lms.nbgrader_info(chosen)))
    return entries


def _gradescope_export(root: Path, work_dir: Path, notes: list[str]) -> list[Entry]:
    """Gradescope's 'Export Submissions' zip: submission_<n>/ folders and submission_metadata.yml."""
    text = (root / "submission_metadata.yml").read_text(encoding="utf-8", errors="replace")
    names, infos = gradescope_names(text), lms.gradescope_metadata(text)
    entries = []
    for p in _children(root):
        if _is_dir(p) or _refused(p):
            entries.append(Entry(safe_id(names.get(p.name, p.name)), p, files=[(p.name, p)] if _refused(p) else [],
                                 info=infos.get(p.name, {})))
    return entries


def gradescope_names(text: str) -> dict[str, str]:
    """submission_<n> -> the submitter's sid (else email, else name) from Gradescope's metadata YAML."""
    out: dict[str, str] = {}
    current = None
    found: dict[str, str] = {}
    for line in text.splitlines() + ["end:"]:
        top = re.match(r"^(\S[^:]*):\s*$", line)
        if top:
            if current and found:
                out[current] = found.get("sid") or found.get("email") or found.get("name", current)
            current, found = top.group(1).strip(), {}
            continue
        field_match = re.match(r"^\s*-?\s*:(sid|email|name):\s*['\"]?([^'\"]*)['\"]?\s*$", line)
        if current and field_match and field_match.group(1) not in found and field_match.group(2):
            found[field_match.group(1)] = field_match.group(2)
    return out


def _unique(entries: list[Entry]) -> list[Entry]:
    """Make ids unique: a clash keeps the file's full name, then a counter."""
    seen: dict[str, int] = {}
    for entry in entries:
        if entry.id in seen:
            entry.id = safe_id(entry.path.name) if not _is_dir(entry.path) else entry.id
        while entry.id in seen:
            seen[entry.id] += 1
            entry.id = f"{entry.id}-{seen[entry.id]}"
        seen.setdefault(entry.id, 1)
    return sorted(entries, key=lambda e: e.id)


# --- safe zip extraction --------------------------------------------------------------------------

def _stored_name(part: str) -> str:
    """A zip entry's path component as stored on disk: no control characters, at most 120 chars."""
    cleaned = re.sub(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", "_", part)
    return cleaned if len(cleaned.encode()) <= 200 else cleaned[:100] + "_" + hashlib.sha256(part.encode()).hexdigest()[:12]


def extract_zip(archive: Path, into: Path, notes: list[str] | None = None, label: str | None = None) -> Path:
    """Extract ARCHIVE under INTO/<stem>-<hash>/ once; reuse it on later runs.

    No path traversal (absolute, `..`, drive letters), no symlinks, caps on entries and sizes
    (the real bytes written are counted, not the sizes the archive claims).  Errors name the
    archive as LABEL (default: its path), in one line.
    """
    notes = notes if notes is not None else []
    label = label or str(archive)
    try:
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:12]
    except OSError as err:
        raise InputError(f"cannot read {label}: {err.strerror}") from None
    dest = into / f"{safe_id(archive.stem)}-{digest}"
    if (dest / ".complete").is_file():
        return dest
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise InputError(f"cannot read {label} as a zip archive ({err}); is it complete?") from None
    tmp = dest.with_name(dest.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    unsafe: list[str] = []
    total = 0
    try:
        with zf:
            infos = zf.infolist()
            if len(infos) > MAX_ZIP_ENTRIES:
                raise InputError(f"{Path(label).name} holds {len(infos)} entries (more than {MAX_ZIP_ENTRIES})")
            for info in infos:
                name = info.filename.replace("\\", "/")
                parts = [_stored_name(p) for p in PurePosixPath(name).parts if p not in ("", ".")]
                mode = info.external_attr >> 16
                if (name.startswith("/") or ".." in parts or (parts and re.match(r"^[A-Za-z]:", parts[0]))
                        or stat.S_ISLNK(mode)):
                    unsafe.append(escape.name(info.filename))
                    continue
                if not parts or info.is_dir():
                    continue
                if info.file_size > MAX_ZIP_MEMBER:
                    raise InputError(f"{escape.name(Path(label).name)}: {escape.name(info.filename)} is {info.file_size} bytes "
                                     f"(more than the {MAX_ZIP_MEMBER} cap)")
                target = tmp.joinpath(*parts)
                if not target.resolve().is_relative_to(tmp.resolve()):
                    unsafe.append(escape.name(info.filename))
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                limit = min(MAX_ZIP_MEMBER, max(info.compress_size, 1) * MAX_RATIO + 65536)
                written = 0
                with zf.open(info) as src, open(target, "wb") as out:
                    while chunk := src.read(1 << 16):
                        written += len(chunk)
                        total += len(chunk)
                        if written > limit or total > MAX_ZIP_TOTAL:
                            raise InputError(f"{escape.name(Path(label).name)} expands too much at {escape.name(info.filename)} "
                                             "(a zip bomb, or over the size cap)")
                        out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, OSError) as err:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"cannot read {label} as a zip archive ({err}); is it complete?") from None
    except InputError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if unsafe:
        notes.append(f"{escape.name(archive.name)}: skipped {len(unsafe)} unsafe entr{'y' if len(unsafe) == 1 else 'ies'} "
                     f"(absolute path, '..' or symlink): {', '.join(unsafe[:3])}")
    (tmp / ".complete").write_text(archive.name)
    if dest.exists():
        shutil.rmtree(dest)
    tmp.rename(dest)
    return dest


# --- the grader's version -------------------------------------------------------------------------

def grader_version(spec: Assignment) -> str:
    """Package version + a digest of everything that decides a grade (engine, suites, scenarios, reference).

    A changed suite or reference changes the version, so the next batch regrades everyone.
    """
    try:
        from importlib.metadata import version

        base = version("yahtzee-kit")
    except Exception:
        base = "0"
    files = [PACKAGE_DIR / "grade.py", PACKAGE_DIR / "assignment.py", spec.reference]
    files += sorted((PACKAGE_DIR / "engine").glob("*.py")) + sorted((PACKAGE_DIR / "engine").glob("*.ini"))
    files += sorted(p for p in spec.root.rglob("*") if p.suffix in (".py", ".toml", ".json")
                    and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(PACKAGE_DIR.parent)).encode() + b"\0" + path.read_bytes())
    return f"{base}+{digest.hexdigest()[:12]}"


def expected_max(spec: Assignment, stage: str) -> float:
    """Points a full-marks submission gets for STAGE with the suites that exist today."""
    stages = [s.number for s in spec.core_stages] if stage == "all" else [int(stage)]
    with_suite = [n for n in stages if spec.suite_files(n)]
    return float(sum(spec.stage_points(n) for n in with_suite))


# --- workers --------------------------------------------------------------------------------------

def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _worker_main(conn, assignment: str, stage: str, log_path: str, hidden: list[str] | None = None) -> None:
    """A worker: grade submissions sent over CONN until told to stop (None) or the parent is gone.

    One pytest session (grade_stream) serves every submission this worker gets: the suites are
    collected once and the reference's cache is shared.  The session pulls the next path from a
    blocking iterator over CONN and each report goes back the moment it is ready.  Should the
    session itself end early (a grader bug), the submission it was on gets an error row and a
    new session takes the next one.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)               # Ctrl-C is the parent's business
    stopping = {"now": False}

    def _stop(signum, frame):
        stopping["now"] = True
        raise KeyboardInterrupt                                 # ends the pytest session; sandboxes get closed

    signal.signal(signal.SIGTERM, _stop)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from .assignment import load_assignment
    from .engine import reporters
    from .engine.program import close_references
    from .grade import grade_stream

    spec = load_assignment(assignment)
    crash_on = os.environ.get(CRASH_ENV)
    state: dict[str, Any] = {"sid": None, "done": False, "pulled": 0}

    def send(sid: str, result: dict[str, Any]) -> None:
        result["wall"] = time.perf_counter() - state["wall0"]
        result["cpu"] = time.process_time() - state["cpu0"] + _children_cpu() - state["kids0"]
        sys.stdout.flush()
        sys.stderr.flush()
        state["sid"] = None
        conn.send((sid, result))

    def tasks():
        """The submissions, one at a time, as the parent sends them (blocks in between)."""
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                task = None
            if task is None:
                state["done"] = True
                return
            sid, path = task
            print(f"--- {time.strftime('%H:%M:%S')} grading {sid} ({path})", flush=True)
            if crash_on and sid == crash_on:
                os._exit(3)
            state.update(sid=sid, wall0=time.perf_counter(), cpu0=time.process_time(), kids0=_children_cpu())
            state["pulled"] += 1
            conn.send((sid, {"begin": True}))     # the --timeout clock starts now, not at process start-up
            yield path

    def deliver(report: GradeReport) -> None:
        report.submission = state["sid"]
        send(state["sid"], {"ok": True, "report": report.to_dict(), "feedback": reporters.to_text(report)})

    def failed(why: str) -> dict[str, Any]:
        return {"ok": False, "error": f"the grader failed on this submission ({why}); it is not the student's fault"}

    stream = tasks()
    try:
        while not state["done"] and not stopping["now"]:
            pulled, fault = state["pulled"], None
            try:
                grade_stream(stream, deliver, spec, stage, extra_hidden=hidden)
            except KeyboardInterrupt:
                break
            except Exception as err:                            # e.g. GraderFault: the suites do not load
                traceback.print_exc()
                fault = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            if stopping["now"]:                                 # SIGTERM: the parent gave up on this worker
                break
            if state["sid"] is not None:                        # the session ended in the middle of one
                send(state["sid"], failed(fault or "the grading session stopped; see the worker log"))
            if state["pulled"] == pulled and not state["done"]:
                # The session could not take a single submission: answer the rest with the reason.
                why = fault or "the grading session does not start; see the worker log"
                for _ in stream:
                    send(state["sid"], failed(why))
    finally:
        close_references()


@dataclass
class _Worker:
    process: Any
    conn: Any
    task: Entry | None = None
    started: float = 0.0
    log: Path = Path()


class WorkerPool:
    """N grading processes fed one submission at a time; a crashed or hung worker is replaced."""

    def __init__(self, jobs: int, assignment: str, stage: str, log_dir: Path, timeout: float,
                 hidden: list[str] | None = None):
        self.jobs = max(1, jobs)
        self.hidden = list(hidden or [])
        self.assignment = assignment
        self.stage = stage
        self.log_dir = log_dir
        self.timeout = timeout
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        if method == "forkserver":
            self.ctx.set_forkserver_preload(["autograder.grade"])
        self.workers: list[_Worker] = []
        self._started = 0

    def _spawn(self) -> _Worker:
        self._started += 1
        parent, child = self.ctx.Pipe()
        log = self.log_dir / f"worker-{self._started}.log"          # one log per worker process
        process = self.ctx.Process(target=_worker_main,
                                   args=(child, self.assignment, self.stage, str(log), self.hidden),
                                   name=f"grade-all-worker-{self._started}", daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent, log=log)

    def run(self, entries: Iterable[Entry],
            on_result: Callable[[Entry, dict[str, Any]], None]) -> None:
        """Grade ENTRIES; call ON_RESULT(entry, result) in this process as each one finishes."""
        pending = collections.deque(entries)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.workers = [self._spawn() for _ in range(min(self.jobs, len(pending)))]
        while pending or any(w.task for w in self.workers):
            for i, worker in enumerate(self.workers):
                if worker.task is None and pending:
                    if not worker.process.is_alive():
                        worker = self.workers[i] = self._replace(worker)
                    entry = pending.popleft()
                    try:
                        worker.conn.send((entry.id, str(entry.path)))
                    except (BrokenPipeError, OSError):
                        pending.appendleft(entry)
                        self.workers[i] = self._replace(worker)
                        continue
                    worker.task, worker.started = entry, time.monotonic()
            busy = [w for w in self.workers if w.task]
            if not busy:
                continue
            wait_any([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.5)
            for i, worker in enumerate(self.workers):
                entry = worker.task
                if entry is None:
                    continue
                message = None
                try:
                    if worker.conn.poll():
                        message = worker.conn.recv()
                except (EOFError, OSError):
                    message = None
                if message is not None and message[1].get("begin"):
                    worker.started = time.monotonic()       # start-up and suite loading are not its time
                elif message is not None:
                    worker.task = None
                    on_result(entry, message[1])
                elif not worker.process.is_alive():
                    code = worker.process.exitcode
                    log = worker.log
                    self.workers[i] = self._replace(worker)
                    on_result(entry, {"ok": False, "crashed": True, "wall": time.monotonic() - worker.started,
                                      "cpu": 0.0, "error": f"the grader crashed on this submission (worker "
                                      f"exit code {code}; see {log.name}); it is not the student's fault"})
                elif time.monotonic() - worker.started > self.timeout:
                    self.workers[i] = self._replace(worker, kill=True)
                    on_result(entry, {"ok": False, "crashed": True, "wall": self.timeout, "cpu": 0.0,
                                      "error": f"grading took longer than {self.timeout:g} s and was stopped"})

    def _replace(self, worker: _Worker, kill: bool = False) -> _Worker:
        self._stop(worker, kill=kill)
        return self._spawn()

    @staticmethod
    def _stop(worker: _Worker, kill: bool = False, grace: float = 5.0) -> None:
        if kill and worker.process.is_alive():
            worker.process.terminate()
        worker.process.join(grace)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(1)
        worker.conn.close()

    def close(self, now: bool = False) -> None:
        """Stop the workers: politely when idle, SIGTERM (then SIGKILL) when NOW or still busy."""
        for worker in self.workers:
            if worker.task is None and not now:
                try:
                    worker.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
        for worker in self.workers:
            self._stop(worker, kill=now or worker.task is not None, grace=5.0 if not now else 3.0)
        self.workers = []


# --- progress -------------------------------------------------------------------------------------

def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """A progress bar with rate and ETA on a terminal; a plain line every 10% (or 10 s) otherwise."""

    def __init__(self, total: int, stream=None, width: int = 28, enabled: bool = True):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = width
        self.enabled = enabled and total > 0
        self.started = time.monotonic()
        self.done = 0
        self._last_draw = 0.0
        self._last_tenth = -1

    def line(self, current: str = "") -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else None
        pct = 100 * self.done / self.total if self.total else 100.0
        eta_text = _clock(eta) if eta is not None else "--:--"
        text = f"{self.done}/{self.total} {pct:3.0f}%  {rate:.1f}/s  ETA {eta_text}"
        if self.tty:
            filled = int(self.width * self.done / self.total) if self.total else self.width
            text = f"[{'#' * filled}{'.' * (self.width - filled)}] {text}  {current[:24]}"
        return text

    def advance(self, current: str = "") -> None:
        self.done += 1
        self.draw(current)

    def draw(self, current: str = "", force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if force or now - self._last_draw > 0.1 or self.done == self.total:
                self.stream.write("\r\x1b[K" + self.line(current))
                self.stream.flush()
                self._last_draw = now
            return
        tenth = int(10 * self.done / self.total)
        if force or tenth != self._last_tenth or now - self._last_draw > 10:
            self.stream.write("grade-all: " + self.line() + "\n")
            self.stream.flush()
            self._last_tenth, self._last_draw = tenth, now

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


# --- the batch ------------------------------------------------------------------------------------

def hidden_from_students(source: str | Path, out: Path, work_dir: Path) -> list[str]:
    """What no student's sandbox may read: the submissions (classmates' files), the gradebook and
    exports (OUT), and the extraction work folder.  The kit itself is hidden by grade() already.
    "/" and folders holding the Python installation are never hidden (the sandbox needs Python)."""
    prefix = Path(os.path.realpath(sys.base_prefix))
    hidden = []
    for path in (Path(source), out, work_dir):
        path = Path(os.path.realpath(path))
        if path == Path(path.anchor) or path == prefix or path in prefix.parents:
            continue
        if str(path) not in hidden:
            hidden.append(str(path))
    return hidden


@dataclass
class BatchSummary:
    found: int = 0
    graded: int = 0
    skipped: int = 0
    crashed: int = 0
    interrupted: bool = False
    wall: float = 0.0
    out: Path = Path(DEFAULT_OUT)
    notes: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def grade_all(source: str | Path, out: str | Path = DEFAULT_OUT, assignment: str = "yahtzee",
              stage: str = "all", jobs: int | None = None, force: bool = False,
              timeout: float = DEFAULT_TIMEOUT, nb_assignment: str | None = None,
              progress: bool = True, exports: bool = True, stream=None, only: list[str] | None = None,
              policy: lms.LatePolicy | None = None) -> BatchSummary:
    """Grade every submission in SOURCE into OUT/gradebook.sqlite and write the exports.

    ONLY: regrade just these student ids (always, changed or not); the others keep their grades.
    POLICY: the due date, extensions and late penalty, stored in the gradebook (the exports apply it).
    Raises InputError (bad SOURCE, an unknown id in ONLY) and KeyError (unknown assignment) before
    grading anything.
    """
    spec = load_assignment(assignment)
    stage = str(stage)
    if stage != "all" and not spec.suite_files(stage):
        raise InputError(f"{spec.name} has no suite for stage {stage}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    work_dir = out / ".work"
    entries, notes = discover(source, work_dir, spec, nb_assignment)
    if not entries:
        raise InputError(f"no submissions found in {source} (expected .py files, notebooks or one folder "
                         "per student)")
    if only:
        unknown = sorted(set(only) - {e.id for e in entries})
        if unknown:
            raise InputError(f"--only: no submission with id {', '.join(unknown)} in {source} "
                             f"(ids: {', '.join(e.id for e in entries[:20])}{' ...' if len(entries) > 20 else ''})")
    jobs = jobs or default_jobs()
    version = grader_version(spec)
    summary = BatchSummary(found=len(entries), out=out, notes=notes)
    started = time.monotonic()
    top = expected_max(spec, stage)
    with Gradebook(out / "gradebook.sqlite") as book:
        stored = book.fingerprints(spec.name)
        if policy is not None:
            book.set_meta(f"late_policy:{spec.name}", policy.to_json())
        if only:
            todo = [e for e in entries if e.id in set(only)]
        else:
            todo = [e for e in entries if force or stored.get(e.id) != (e.hash, stage, version)]
        summary.skipped = len(entries) - len(todo)
        run_id = book.start_run(spec.name, len(entries), jobs)
        bar = Progress(len(todo), stream=stream, enabled=progress)
        by_path = {e.id: e for e in entries}

        def on_result(entry: Entry, result: dict[str, Any]) -> None:
            if result.get("ok"):
                report = GradeReport.from_dict(result["report"])
                feedback, status, max_score = result["feedback"], "graded", None
                summary.graded += 1
            else:
                report = GradeReport(submission=entry.id, assignment=spec.name, stage=stage,
                                     error=result["error"])
                feedback = f"Grading {entry.id}: {result['error']}\n\nScore: 0 / {top:g}"
                status, max_score = ("graded" if result.get("student") else "crashed"), top
                if result.get("student"):
                    summary.graded += 1
                else:
                    summary.crashed += 1
            report.submission_info = dict(by_path[entry.id].info)
            book.record(assignment=spec.name, submission_id=entry.id, content_hash=by_path[entry.id].hash,
                        stage=stage, report=report, feedback=feedback, wall_time=result.get("wall", 0.0),
                        cpu_time=result.get("cpu", 0.0), grader_version=version, status=status,
                        source=str(entry.path), max_score=max_score)
            bar.advance(entry.id)

        pool = WorkerPool(jobs, spec.name, stage, out / "logs", timeout,
                          hidden=hidden_from_students(source, out, work_dir))
        status = "interrupted"
        try:
            bar.draw(force=True)
            for entry in [e for e in todo if e.error]:        # nothing to run: the student's error row
                on_result(entry, {"ok": False, "student": True, "error": entry.error})
            todo = [e for e in todo if not e.error]
            if todo:
                pool.run(todo, on_result)
            status = "done"
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            pool.close(now=status != "done")
            bar.close()
            book.finish_run(run_id, graded=summary.graded, skipped=summary.skipped, crashed=summary.crashed,
                            status=status)
        summary.wall = time.monotonic() - started
        if exports:
            from .export import write_exports

            summary.written = write_exports(book, spec, out)
    return summary


# --- CLI ------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submissions", help="a folder of per-student files or folders, an nbgrader "
                                            "submitted/ tree, or a zip exported by Gradescope or an LMS")
    parser.add_argument("--assignment", default="yahtzee", help="assignment to grade against (default: yahtzee)")
    parser.add_argument("--stage", default="all", choices=["1", "2", "3", "4", "5", "all"],
                        help="grade one stage or all (default: all = the core stages; an optional stage only on its own)")
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="parallel grading processes (default: the number of CPUs)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"folder for the gradebook, grades.csv, feedback/ and report.html (default: {DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true", help="regrade every submission, even unchanged ones")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds allowed per submission (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--nbgrader-assignment", default=None, metavar="NAME",
                        help="in an nbgrader submitted/ tree, the assignment folder to grade")
    parser.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    parser.add_argument("--python", default=None, metavar="PATH",
                        help="the Python that runs student code (default: the grader's own)")
    parser.add_argument("--only", default=None, metavar="ID[,ID..]",
                        help="regrade only these students (changed or not); the others keep their grades")
    parser.add_argument("--due", default=None, metavar="TIME",
                        help="the due date and time, e.g. 2026-11-20T23:59 (UTC unless it says +01:00)")
    parser.add_argument("--extensions", default=None, metavar="CSV",
                        help="a CSV of `id,due time` rows: each listed student's own due time")
    parser.add_argument("--late-penalty", type=float, default=None, metavar="PCT",
                        help="percent of the points earned taken per started day late (default 0)")
    parser.add_argument("--late-cap", type=float, default=None, metavar="PCT",
                        help="the late penalty never takes more than this percent (default 100)")


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 2
    if args.python:
        from .engine.sandbox import use_python

        problem = use_python(args.python)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    try:
        policy = policy_from_args(args, Path(args.out))
        only = [i.strip() for i in args.only.split(",") if i.strip()] if args.only else None
        summary = grade_all(args.submissions, args.out, args.assignment, args.stage, args.jobs, args.force,
                            args.timeout, args.nbgrader_assignment, progress=not args.no_progress,
                            only=only, policy=policy)
    except lms.PolicyError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    try:
        print_summary(summary)
    except BrokenPipeError:                      # `grade-all ... | head`: the grading is done all the same
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 130 if summary.interrupted else 0


def policy_from_args(args: argparse.Namespace, out: Path, assignment: str | None = None) -> lms.LatePolicy | None:
    """The late policy the options ask for, on top of the one stored in OUT's gradebook (None: no option given)."""
    if args.due is None and args.extensions is None and args.late_penalty is None and args.late_cap is None:
        return None
    policy = lms.LatePolicy()
    book_path = out / "gradebook.sqlite"
    if book_path.is_file():
        with Gradebook(book_path) as book:
            policy = lms.LatePolicy.from_json(book.get_meta(f"late_policy:{assignment or args.assignment}"))
    if args.due is not None:
        lms.parse_time(args.due)
        policy.due = args.due
    if args.extensions is not None:
        policy.extensions = lms.read_extensions(args.extensions)
    if args.late_penalty is not None:
        policy.penalty_per_day = args.late_penalty
    if args.late_cap is not None:
        policy.cap = args.late_cap
    return policy


def print_summary(summary: BatchSummary, stream=None) -> None:
    stream = stream or sys.stdout
    for note in summary.notes:
        print(f"note: {escape.plain(note)}", file=stream)
    state = "interrupted; run the same command again to resume" if summary.interrupted else "done"
    print(f"grade-all {state}: {summary.found} submissions, {summary.graded} graded, "
          f"{summary.skipped} unchanged (skipped), {summary.crashed} grader failures, "
          f"{summary.wall:.1f} s", file=stream)
    print(f"  {'gradebook':<17} {summary.out / 'gradebook.sqlite'}", file=stream)
    for path in summary.written:
        print(f"  {path.name:<17} {path}", file=stream)
