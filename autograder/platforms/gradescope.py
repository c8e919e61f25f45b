"""Verb `gradescope`: a Gradescope autograder zip that runs this same grader.

    python -m autograder gradescope OUT.zip [--assignment NAME] [--stage N|all]

Upload OUT.zip as the assignment's autograder ("Zip file upload").  Gradescope unzips it into
/autograder/source, runs setup.sh once to build the image, then runs run_autograder once per
submission with the student's files in /autograder/submission; run_autograder writes
/autograder/results/results.json.

The zip holds, at its top level:

* ``setup.sh``: apt python3, python3-pip, python3-venv; a venv at /autograder/venv with the
  runtime dependencies pinned in pyproject.toml (pytest, pytest-timeout; no nbgrader); then a
  self-check that grades the reference (a warning only, it never fails the image build);
* ``run_autograder``: ``python3 -m autograder grade /autograder/submission --assignment NAME
  --stage STAGE --format gradescope > /autograder/results/results.json`` from /autograder/source.
  STAGE is the bundle's (``--stage``, default all): the stage is the grader's decision, never the
  submission's (a notebook's metadata names a stage; one that names another stage than the
  upload's is graded on the upload's, with a note saying so).  Whatever
  happens (no Python file in the submission, the grader crashing or running too long, Python
  missing), it leaves a valid results.json: score 0 and a plain message.  Overrides for tests and
  local dry runs: AUTOGRADER_ROOT (instead of /autograder), AUTOGRADER_PYTHON (the interpreter),
  AUTOGRADER_TIME_LIMIT (seconds, default 540: under Gradescope's 10 minutes);
* the ``autograder`` package (engine, this assignment with its suites and scenarios; no other
  assignment, no caches but one: ``refcache/<name>-<key>.json``, the reference's outcomes and the
  request plan of this grader version, computed here so no submission recomputes them; the
  reference is the assignment's reference.py) and ``pyproject.toml``.  No tests/, samples/,
  notebooks/ or .venv, nor the assignment's authoring files (samples, mutants, scenario plan).

The zip is reproducible: sorted entries, fixed timestamps.
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim

from ..assignment import (
    AUTHORING_ONLY,
    DEFAULT_ASSIGNMENT,
    PACKAGE_DIR,
    REPO_ROOT,
    Assignment,
    add_assignment_argument,
    load_assignment,
    load_for_cli,
    needs_repository,
)

EXCLUDED_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".ipynb_checkpoints", "refcache"}
EXCLUDED_SUFFIXES = {".pyc", ".pyo"}
EXCLUDED_NAMES = {".DS_Store", "Thumbs.db"}

TIME_LIMIT = 540                     # seconds; Gradescope stops a submission at 600
ZIP_DATE = (1980, 1, 1, 0, 0, 0)     # fixed timestamps: the same sources give the same zip

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder image (@TITLE@).
# Built by `python -m autograder gradescope`; the pins come from pyproject.toml.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --no-cache-dir @REQUIREMENTS@
"$ROOT/venv/bin/python" -c "import pytest, pytest_timeout"

# Self-check: grade the reference and print its score (100% expected).  A warning only: never fails the build.
cd "$ROOT/source"
if "$ROOT/venv/bin/python" -m autograder grade @SOLUTION@ --assignment @NAME@ > /tmp/autograder-selfcheck.txt 2>&1; then
    tail -n 1 /tmp/autograder-selfcheck.txt
else
    echo "WARNING: the self-check of the autograder failed:" >&2
    cat /tmp/autograder-selfcheck.txt >&2
fi
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this once per submission (@TITLE@; built by `python -m autograder gradescope`).
# It always leaves a valid results.json: a grader failure gives score 0 and a plain message.
# Overrides (tests, local dry runs): AUTOGRADER_ROOT, AUTOGRADER_PYTHON, AUTOGRADER_TIME_LIMIT.
set -u
ASSIGNMENT=@NAME@
STAGE=@STAGE@
STUDENT_FILE=@STUDENT_FILE@
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
SUBMISSION="$ROOT/submission"
RESULTS="$ROOT/results/results.json"
LIMIT="${AUTOGRADER_TIME_LIMIT:-@TIME_LIMIT@}"
PY="${AUTOGRADER_PYTHON:-}"
if [ -z "$PY" ]; then
    if [ -x "$ROOT/venv/bin/python" ]; then PY="$ROOT/venv/bin/python"; else PY=python3; fi
fi
mkdir -p "$ROOT/results"
ERRORS="$(mktemp)"
STARTED=$(date +%s)

cd "$SOURCE" || exit 1
if command -v timeout > /dev/null 2>&1; then
    timeout -k 10 "$LIMIT" "$PY" -m autograder grade "$SUBMISSION" --assignment "$ASSIGNMENT" --stage "$STAGE" \
        --format gradescope > "$RESULTS" 2> "$ERRORS"
else
    "$PY" -m autograder grade "$SUBMISSION" --assignment "$ASSIGNMENT" --stage "$STAGE" \
        --format gradescope > "$RESULTS" 2> "$ERRORS"
fi
STATUS=$?
ELAPSED=$(( $(date +%s) - STARTED ))

# What the grader said on stderr is for the instructor (Gradescope shows this script's output
# to instructors only); the student sees results.json.
if [ -s "$ERRORS" ]; then
    echo "--- grader stderr (exit status $STATUS) ---"
    cat "$ERRORS"
fi

# Keep results.json when it is a valid report; otherwise replace it with score 0 and a message.
"$PY" - "$RESULTS" "$STATUS" "$ERRORS" "$ELAPSED" "$STUDENT_FILE" "$LIMIT" <<'PYTHON' || \
    printf '%s\n' '{"score": 0, "execution_time": 0, "output": "The autograder could not run (a fault in the grader, not in your code). Please tell your instructor.", "output_format": "text", "tests": []}' > "$RESULTS"
import json
import sys

results, status, errors, elapsed, student_file, limit = sys.argv[1:7]
status = int(status)
try:
    with open(results, encoding="utf-8") as handle:
        data = json.load(handle)
    valid = (isinstance(data, dict) and isinstance(data.get("score"), (int, float))
             and isinstance(data.get("tests"), list))
except (OSError, ValueError):
    valid = False
if valid:
    sys.exit(0)
try:
    with open(errors, encoding="utf-8", errors="replace") as handle:
        said = [line.strip()[len("error:"):].strip() for line in handle if line.startswith("error:")]
except OSError:
    said = []
if status == 2:
    message = ("Your submission could not be graded: " + ("; ".join(said) or "there is nothing to grade")
               + f".\nUpload {student_file} (or your notebook, .ipynb) and submit again.")
elif status in (124, 137):
    message = (f"Grading did not finish within {limit} seconds. This is unusual (every check has its own "
               "time limit, so a slow or endless program only fails its checks): please submit again, "
               "and tell your instructor if it happens again.")
else:
    message = (f"The autograder failed on this submission (exit status {status}). This is a fault in "
               "the grader, not in your code: please tell your instructor, who can see the details.")
report = {"score": 0, "execution_time": float(elapsed), "output": message, "output_format": "text",
          "visibility": "visible", "stdout_visibility": "hidden", "tests": []}
with open(results, "w", encoding="utf-8") as handle:
    json.dump(report, handle, indent=2)
PYTHON
rm -f "$ERRORS"
exit 0
"""


def runtime_requirements(pyproject: Path = REPO_ROOT / "pyproject.toml") -> list[str]:
    """The runtime dependencies pinned in pyproject.toml ([project].dependencies)."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return list(data["project"]["dependencies"])


def fill(template: str, **values: str) -> str:
    """TEMPLATE with every @KEY@ replaced (no str.format: the scripts are full of braces)."""
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    return template


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _double_quote(text: str) -> str:
    """A requirement in double quotes, readable in setup.sh (markers hold single quotes)."""
    if any(c in text for c in '"$`\\'):
        raise ValueError(f"cannot quote the requirement {text!r} for setup.sh")
    return f'"{text}"'


def setup_script(spec: Assignment) -> str:
    return fill(SETUP_SH, TITLE=spec.title, NAME=_shell_quote(spec.name),
                SOLUTION=_shell_quote(assignment_member(spec, spec.reference)),
                REQUIREMENTS=" ".join(_double_quote(r) for r in runtime_requirements()))


def run_script(spec: Assignment, time_limit: int = TIME_LIMIT, stage: str = "all") -> str:
    return fill(RUN_AUTOGRADER, TITLE=spec.title, NAME=_shell_quote(spec.name), STAGE=_shell_quote(stage),
                STUDENT_FILE=_shell_quote(spec.student_file), TIME_LIMIT=str(time_limit))


def bundle_stage(spec: Assignment, stage: str | int) -> str:
    """STAGE as the bundle's run_autograder passes it: "all" or the number of a stage SPEC has a
    suite for (ValueError otherwise, with what it has)."""
    stage = str(stage).strip()
    if stage == "all" or (stage.isdigit() and stage.isascii() and spec.suite_files(stage)):
        return stage
    have = ", ".join(str(s.number) for s in spec.stages if spec.suite_files(str(s.number)))
    raise ValueError(f"{spec.name} has no stage {stage!r}; give all or one of: {have}")


def _skipped(path: Path) -> bool:
    return (any(part in EXCLUDED_DIRS for part in path.parts) or path.suffix in EXCLUDED_SUFFIXES
            or path.name in EXCLUDED_NAMES or any(part.endswith(".egg-info") for part in path.parts))


def package_files(spec: Assignment) -> list[Path]:
    """The autograder package with only SPEC's assignment, without caches (absolute paths)."""
    assignments = PACKAGE_DIR / "assignments"
    files = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if not path.is_file() or _skipped(path.relative_to(REPO_ROOT)):
            continue
        inside = path.relative_to(assignments).parts if assignments in path.parents else None
        if inside and len(inside) > 1 and (inside[0] != spec.name or inside[1] in AUTHORING_ONLY):
            continue                        # another assignment, or what only authors use
        files.append(path)
    return files


def assignment_member(spec: Assignment, path: Path) -> str:
    """The bundle's name for PATH, a file of SPEC's folder: under autograder/assignments/<name>/,
    where the bundled package finds it by name (an assignment from a folder outside the package too)."""
    return (PACKAGE_DIR.relative_to(REPO_ROOT) / "assignments" / spec.name / path.relative_to(spec.root)).as_posix()


def outside_files(spec: Assignment) -> list[Path]:
    """The grading files of an assignment loaded from a folder outside the package (none for a
    packaged one): its folder without what only authors use nor its generated views."""
    if spec.root.parent == PACKAGE_DIR / "assignments":
        return []
    skip = AUTHORING_ONLY | {spec.solution.parent.name, spec.starter.parent.name}
    return [path for path in sorted(spec.root.rglob("*"))
            if path.is_file() and not _skipped(path.relative_to(spec.root))
            and path.relative_to(spec.root).parts[0] not in skip]


def bundle_members(spec: Assignment, stage: str = "all") -> dict[str, bytes | Path]:
    """Zip member name -> content (bytes) or the file to copy (STAGE: what run_autograder grades)."""
    if not spec.reference.is_file():
        raise FileNotFoundError(f"the reference {spec.reference} is missing")
    members: dict[str, bytes | Path] = {
        "setup.sh": setup_script(spec).encode(),
        "run_autograder": run_script(spec, stage=stage).encode(),
        "pyproject.toml": REPO_ROOT / "pyproject.toml",
    }
    for path in package_files(spec):
        members[path.relative_to(REPO_ROOT).as_posix()] = path
    members.update((assignment_member(spec, path), path) for path in outside_files(spec))
    members.update(reference_cache_member(spec))
    return members


def reference_cache_member(spec: Assignment) -> dict[str, Path]:
    """The reference's outcomes and the request plan for this grader version (engine/refcache.py),
    inside the assignment's folder: no submission on Gradescope recomputes the reference."""
    from ..engine import refcache
    from ..grading.grade import ensure_reference_cache

    path = ensure_reference_cache(spec)
    return {assignment_member(spec, spec.root / refcache.BUNDLED / path.name): path}


EXECUTABLE = {"setup.sh", "run_autograder"}


def build_bundle(out: str | Path, assignment: str | Assignment = DEFAULT_ASSIGNMENT,
                 stage: str | int = "all") -> list[str]:
    """Write the Gradescope autograder zip OUT for ASSIGNMENT, grading STAGE ("all" or a stage's
    number: every submission is graded on it, whatever a notebook's metadata says); return the
    member names."""
    spec = load_assignment(assignment) if isinstance(assignment, str) else assignment
    members = bundle_members(spec, bundle_stage(spec, stage))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(members):
            content = members[name]
            data = content.read_bytes() if isinstance(content, Path) else content
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if name in EXECUTABLE else 0o100644) << 16
            archive.writestr(info, data)
    tmp.replace(out)
    return sorted(members)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="the zip to write, e.g. yahtzee-gradescope.zip")
    add_assignment_argument(parser, "assignment to grade")
    parser.add_argument("--stage", default="all", metavar="N|all",
                        help="the stage every submission to this upload is graded on (default: all = the "
                             "core stages); a notebook's metadata never chooses it")


def run(args: argparse.Namespace) -> int:
    refusal = needs_repository("`gradescope` (the bundle copies the kit's pyproject.toml and package)")
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    spec = load_for_cli(args.assignment)
    if spec is None:
        return 2
    out = Path(args.out)
    if out.is_dir():
        print(f"error: {out} is a folder; give the zip file to write", file=sys.stderr)
        return 2
    try:
        stage = bundle_stage(spec, args.stage)
        names = build_bundle(out, spec, stage)
    except (FileNotFoundError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    size = out.stat().st_size
    points = spec.total_points if stage == "all" else spec.stage_points(int(stage))
    which = "" if stage == "all" else f", stage {stage}"
    print(f"wrote {out} ({len(names)} files, {size / 1024:.0f} KB): the Gradescope autograder for "
          f"{spec.title} ({spec.name}{which}, {points:g} points)")
    print("upload it under Configure Autograder > Zip file upload; set the assignment's total to "
          f"{points:g} points")
    return 0
