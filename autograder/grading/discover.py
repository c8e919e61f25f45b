"""grade-all's input: find each student's submission in a class folder, an nbgrader submitted/
tree or an LMS / Gradescope export, and extract zips safely (no `..`, absolute paths or links;
size and zip-bomb caps).  A student's broken file is that student's row, never a failed batch.
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..assignment import Assignment
from ..engine import escape, safefs
from ..engine.submission import may_be_picked
from . import lms
from .gradebook import content_hash

SUBMISSION_SUFFIXES = (".py", ".ipynb")
IGNORED = {"__MACOSX", ".ipynb_checkpoints", "__pycache__", ".DS_Store", ".git", "Thumbs.db"}

# Zip safety caps (uncompressed bytes, entries).
MAX_ZIP_TOTAL = 512 * 1024 * 1024
MAX_ZIP_MEMBER = 64 * 1024 * 1024
MAX_ZIP_ENTRIES = 20000
MAX_RATIO = 200                  # a member expanding more than this is treated as a zip bomb
MAX_FILES_HASHED = 500           # per submission folder
UNHASHED = "<more programs than the grader hashes: graded again every run>"     # (content_hash)


class InputError(Exception):
    """SUBMISSIONS cannot be used; the message says why in one line."""


# --- finding the submissions ----------------------------------------------------------------------

@dataclass
class Entry:
    """One student's submission as found on disk."""

    id: str
    path: Path
    files: list[tuple[str, Path | None]] = field(default_factory=list)
    hash: str = ""
    error: str = ""              # set when the submission cannot be graded at all (e.g. a corrupt zip)
    info: dict = field(default_factory=dict)   # what the LMS export said: submitted_at, late, lms_id (lms.py)
    name: str = ""               # the name ID was made from (safe_id), when it is not ID itself: _unique

    def __post_init__(self) -> None:
        refused = _refused(self.path)
        if refused and not self.error:      # a link is never followed: the student's error row
            self.error = refused
            self.hash = "refused:" + hashlib.sha256(os.fsencode(refused + _link_text(self.path))).hexdigest()
        if not self.files and not refused:
            self.files = submission_files(self.path)
        if not self.hash:
            try:
                self.hash = content_hash(self.files)
            except OSError as err:
                self.error = self.error or f"{self.path.name} could not be read ({err.strerror})"
                self.hash = "unreadable:" + hashlib.sha256(os.fsencode(self.error)).hexdigest()


def _named(name: str, path: Path, **kw) -> Entry:
    """The Entry of PATH whose id is NAME made safe (NAME kept for _unique)."""
    return Entry(safe_id(name), path, name=name, **kw)


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


def submission_files(path: Path) -> list[tuple[str, Path | None]]:
    """The files whose content decides the grade: the file itself, or every file in the folder."""
    if not _is_dir(path):
        return [(path.name, path)] if _is_file(path) else []
    files = []
    for item in safefs.walk(path)[0]:           # links inside are never followed (nor hashed)
        rel = item.relative_to(path)
        if not may_be_picked(rel.parts) and any(part in IGNORED or part.startswith(".") for part in rel.parts):
            continue
        files.append((rel.as_posix(), item))
    if len(files) > MAX_FILES_HASHED:
        # the programs and notebooks first (the file graded is one of them).  On main 44bdcdc 500
        # files named a000.txt... before the program, or the program in `.work/` or `__pycache__/`
        # (skipped here, picked by the loader), kept it out of the hash: a changed program was
        # "unchanged" and its old grade kept by the next run (redteam6)
        files.sort(key=lambda f: (not may_be_picked(Path(f[0]).parts), f[0]))
        # More programs than that (a virtual environment handed in) may still hide the one the
        # loader picks: such a folder is never "unchanged" (its hash holds fresh random bytes).
        if sum(1 for name, _ in files[:MAX_FILES_HASHED + 1] if may_be_picked(Path(name).parts)) > MAX_FILES_HASHED:
            files[MAX_FILES_HASHED:] = [(UNHASHED, None)]
        else:
            del files[MAX_FILES_HASHED:]
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
            return [_named(source.stem, source)], notes
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
    out = Path(os.path.realpath(work_dir.parent))      # grade-all's OUT, when it was put in SOURCE, is
    own = [e for e in entries if _is_dir(e.path) and Path(os.path.realpath(e.path)) == out]   # never a student
    if own:                                             # (its staged copies of classmates' files were graded)
        notes.append(f"skipped {escape.name(own[0].path.name)}: grade-all's own output folder (--out)")
    return _unique([e for e in entries if not any(e is o for o in own)]), notes


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
    entries: list[Entry] = [_named(p.stem if p.suffix.lower() in (*SUBMISSION_SUFFIXES, ".zip") else p.name,
                                   p, files=[(p.name, p)]) for p in linked]
    canvas = [p for p in files if CANVAS.match(p.name)]
    if files and len(canvas) == len(files):
        # A Canvas student is its user id, not its name: on main d3a0ea6 files were grouped by the
        # name (two students of one name were one row, one's files over the other's: redteam9)
        groups: dict[str, list[Path]] = collections.defaultdict(list)
        for p in files:
            groups[CANVAS.match(p.name)["uid"]].append(p)
        names = {uid: CANVAS.match(paths[0].name)["who"] for uid, paths in groups.items()}
        shared = collections.Counter(safe_id(who) for who in names.values())
        for uid, paths in sorted(groups.items(), key=lambda group: (names[group[0]], group[0])):
            who = names[uid]
            # a name several ids share (once made safe: o'brien, "o brien") names each by its id too
            name = who if shared[safe_id(who)] == 1 else f"{who}_{uid}"
            sid = safe_id(name)
            info = lms.canvas_info(paths[0].name)
            info["late"] = any(lms.canvas_info(p.name).get("late") for p in paths)
            if len(paths) == 1 and paths[0].suffix.lower() != ".zip":
                entries.append(_named(name, paths[0], info=info))
                continue
            problems: list[str] = []
            staged = _stage_files(f"{safe_id(who)}-{uid}", paths, work_dir, notes, problems)
            if problems and not submission_files(staged):
                zips = [p for p in paths if p.suffix.lower() == ".zip"]
                entries.append(_named(name, zips[0], files=[(p.name, p) for p in paths],
                                      error="; ".join(problems), info=info))
            else:
                notes += [f"{sid}: {problem} (graded the other files)" for problem in problems]
                entries.append(_named(name, staged, info=info))
        files = []
    for p in files:
        if p.suffix.lower() == ".zip":
            try:
                entries.append(_named(p.stem, _unwrap(extract_zip(p, work_dir / "nested", notes,
                                                                          label=p.name))))
            except InputError as err:          # one student's broken zip: their error row, not the batch's
                entries.append(_named(p.stem, p, error=str(err)))
        else:
            entries.append(_named(p.stem, p))
    # A Moodle participant is one entry whatever number of plugin folders (file, onlinetext...)
    # the download gives it: on main d3a0ea6 each was a student, the online text's an error row
    # of 0 beside the program's, two rows for one participant id (redteam9)
    moodle: dict[tuple[str, str], list[Path]] = collections.defaultdict(list)
    for p in folders:
        match = MOODLE.match(p.name)
        if not match:
            entries.append(_named(p.name, p))
            continue
        moodle[match["who"], match["uid"]].append(p)
    for (who, uid), paths in moodle.items():
        # the folder graded: the first that holds a program (the file plugin's); its hash is of
        # every plugin folder's files, so a change in any of them grades it again
        path = next((p for p in paths if any(may_be_picked(Path(name).parts)
                                             for name, _ in submission_files(p))), paths[0])
        files = None
        if len(paths) > 1 and not _refused(path):
            files = [(f"{p.name}/{name}", item) for p in paths for name, item in submission_files(p)]
        entries.append(_named(f"{who}_{uid}", path, info=lms.moodle_info(path.name),
                              **({"files": files} if files else {})))
    return entries


def _stage_files(folder: str, paths: list[Path], work_dir: Path, notes: list[str],
                 problems: list[str]) -> Path:
    """Gather one LMS student's files (prefixed names, maybe a zip) into a folder of their own
    (FOLDER: a name no other student's staging has: the LMS's user id in it).

    A zip that cannot be extracted is left out and described in PROBLEMS."""
    dest = work_dir / "staged" / folder
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
            shutil.copytree(inner, dest / plain_name(Path(original).stem), dirs_exist_ok=True)
        else:
            shutil.copy2(p, dest / plain_name(original))
    return dest


def plain_name(name: str) -> str:
    """NAME (a student's file name) as ONE entry of a folder: never '', '.', '..' nor a path.  On
    main d3a0ea6 a Canvas upload '...zip' (stem '..') was staged into the folder of every staged
    classmate and its <classmate>/<student file> graded as theirs (redteam9)."""
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        return "_" + safe_id(name)
    return name


def _nbgrader(root: Path, assignment: Assignment, nb_assignment: str | None, notes: list[str]) -> list[Entry]:
    """nbgrader's submitted/<student>/<assignment>/ tree."""
    entries = []
    for student in _children(root):
        if _refused(student):
            entries.append(_named(student.name, student, files=[(student.name, student)]))
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
        entries.append(_named(student.name, chosen, info=lms.nbgrader_info(chosen)))
    return entries


def _gradescope_export(root: Path, work_dir: Path, notes: list[str]) -> list[Entry]:
    """Gradescope's 'Export Submissions' zip: submission_<n>/ folders and submission_metadata.yml.
    Every submitter of a group submission gets an entry of its folder (on main d3a0ea6 only the
    first: the others had no row, redteam9), named by its sid, else its email; a submitter with
    neither is named by the submission's folder, never by the display name they chose (until pass
    23 a display name 'S4' could take the id of the student whose sid is S4)."""
    meta = root / "submission_metadata.yml"
    try:
        if meta.stat().st_size > lms.METADATA_LIMIT * 4:
            raise lms.MetadataError(f"it is {meta.stat().st_size:,} bytes long "
                                    f"(at most {lms.METADATA_LIMIT:,} characters are read)")
        submissions = lms.gradescope_metadata(meta.read_text(encoding="utf-8", errors="replace"))
    except (OSError, lms.MetadataError) as err:
        why = err.strerror if isinstance(err, OSError) else str(err)
        raise InputError(f"cannot read Gradescope's {escape.name(meta.name)} ({why}); it names each submission's "
                         "students, so nothing was graded: download the export again from Gradescope") from None
    entries = []
    for p in _children(root):
        if _is_dir(p) or _refused(p):
            submission = submissions.get(p.name) or lms.GradescopeSubmission()
            for person in submission.submitters or [{}]:
                info = dict(submission.info)
                info.update({key: value for key, value in (("lms_id", person.get("sid") or person.get("email")),
                                                           ("lms_name", person.get("name"))) if value})
                who = person.get("sid") or person.get("email") or p.name
                entries.append(_named(who, p, files=[(p.name, p)] if _refused(p) else [], info=info))
    return entries


def _unique(entries: list[Entry]) -> list[Entry]:
    """Make ids unique: a name that is its id exactly claims it first, then the names safe_id
    changed, in file order; a clash keeps the file's full name, then a counter.  (On main d3a0ea6
    the first in file order claimed it: ' alice' or '_alice', which sort before 'alice', took
    alice's id, her row, her --only and her extension; alice became alice-2: redteam9.)"""
    seen: dict[str, int] = {}
    for entry in sorted(entries, key=lambda e: bool(e.name) and e.name != e.id):   # (stable)
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


