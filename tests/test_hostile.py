"""Hostile and broken submissions: each gets EXACTLY the points it earned, and nothing escapes.

The corpus is tests/corpus/: one small .py per case and tests/corpus/expected.toml with the
exact expected outcome of each (see the head of that file for the fields).  Most cases are
the reference solution with hostile code appended (a later `def` replaces the reference's
function), so they never drift from the reference.

Every case is graded twice, and both runs start together (module fixture `runs`):
  * alone, with grade() and short Limits, in a process pool of 2;
  * inside ONE `python -m autograder grade-all --jobs 2` batch, together with the honest
    submissions and a few broken files (AUTOGRADER_LIMITS gives the batch the same limits).
For every case the tests assert: the exact score; the feedback says what happened in plain
words (the case's phrases) and leaks nothing (hidden files, the grader's environment, the
canary); nothing outside its working folder changed (a canary folder, the kit's files, /tmp);
no process outlived it (the grading process is a child subreaper: orphans come back to it);
the wall time stayed bounded.

HOSTILE_DUMP=path.json writes what each case actually got (to review expected.toml by hand);
with HOSTILE_DEBUG=1 it also lists every non-ok outcome of each case's requests.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from helpers import cli
from helpers.hostile import (
    BAD_FILES,
    BAD_MESSAGES,
    BY_NAME,
    CASES,
    CORPUS,
    EXPECTED,
    HIDDEN_TEXT,
    ISO,
    LIMITS_ENV,
    REPO,
    RUNNABLE,
    SECRET_ENV,
    WATCHED,
    Case,
    _grade_alone,
    _worker_init,
    folder_state,
    planted_files,
    source_for,
    tree_hash,
    wall_bound,
)

# make test runs this file alone (tests/run.py): its grader pool of two and its `grade-all --jobs 2`
# fill both cores themselves, and it bounds each case's wall time.
pytestmark = pytest.mark.serial

SUBREAPER = cli.SUBREAPER
run_cli = cli.run_cli


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return cli.cli_env(LIMITS_ENV, extra)


# ---------------------------------------------------------------------------------------------
# The world the corpus runs in, and both runs
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def world():
    root = Path(tempfile.mkdtemp(prefix="hostile-"))
    sacrifice = f".sacrifice-{secrets.token_hex(6)}"
    (CORPUS / sacrifice).write_text("the corpus's delete_files case must not be able to delete this\n")
    token = f"canary-{secrets.token_hex(8)}"
    secret = f"secret-{secrets.token_hex(8)}"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    connections: list[str] = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, addr = listener.accept()
            except OSError:
                continue
            connections.append(str(addr))
            conn.close()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    old_secret = os.environ.get(SECRET_ENV)
    os.environ[SECRET_ENV] = secret
    try:
        yield {"root": root, "sacrifice": sacrifice, "token": token, "secret": secret,
               "connections": connections, "port": listener.getsockname()[1],
               "placeholders": {"@REPO@": str(REPO), "@PORT@": str(listener.getsockname()[1]),
                                "@SACRIFICE@": sacrifice}}
    finally:
        stop.set()
        acceptor.join(2)
        listener.close()
        (CORPUS / sacrifice).unlink(missing_ok=True)
        if old_secret is None:
            os.environ.pop(SECRET_ENV, None)
        else:
            os.environ[SECRET_ENV] = old_secret
        shutil.rmtree(root, ignore_errors=True)


def _canary(world: dict, name: str) -> Path:
    folder = world["root"] / "canaries" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "canary.txt").write_text(world["token"] + "\n")
    return folder


@pytest.fixture(scope="module")
def runs(world):
    root = world["root"]
    repo_before = tree_hash(WATCHED, skip={world["sacrifice"]})
    planted_before = planted_files()
    class_dir, alone_dir, out = root / "class", root / "alone", root / "batch-out"
    class_dir.mkdir()
    canaries = {}
    jobs = []
    for case in RUNNABLE:
        canaries[case.name] = _canary(world, case.name)
        placeholders = dict(world["placeholders"], **{"@CANARY@": str(canaries[case.name])})
        text = source_for(case, dict(world, placeholders=placeholders))
        folder = alone_dir / case.name
        folder.mkdir(parents=True)
        (folder / "yahtzee.py").write_text(text, encoding="utf-8")
        (class_dir / f"{case.name}.py").write_text(text, encoding="utf-8")
        jobs.append((case.name, str(folder / "yahtzee.py"), str(canaries[case.name])))
    for name, data in BAD_FILES.items():
        (class_dir / name).write_bytes(data)
    (class_dir / "notes.txt").write_text("not a submission\n")
    (class_dir / "bad_no_code").mkdir()
    (class_dir / "bad_no_code" / "README.txt").write_text("I could not get it to work, sorry\n")
    batch_cwd = root / "batch-cwd"
    batch_cwd.mkdir()
    batch_report = root / "batch.json"
    wrapper = subprocess.Popen(
        [sys.executable, str(SUBREAPER), str(batch_report), sys.executable, "-m", "autograder",
         "grade-all", str(class_dir), "--jobs", "2", "--out", str(out), "--no-progress"],
        cwd=batch_cwd, env=cli_env(), start_new_session=True)
    t0 = time.monotonic()
    slow_first = sorted(jobs, key=lambda job: BY_NAME[job[0]].honest)     # honest ones last
    alone = {}
    ctx = multiprocessing.get_context("spawn")
    env = {SECRET_ENV: world["secret"]}
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx, initializer=_worker_init,
                                                initargs=(env,)) as pool:
        futures = [pool.submit(_grade_alone, *job) for job in slow_first]
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            alone[result["name"]] = result
    alone_wall = time.monotonic() - t0
    try:
        wrapper.wait(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(wrapper.pid, 9)
        wrapper.wait()
    batch = json.loads(batch_report.read_text()) if batch_report.exists() else {"code": None, "left": []}
    total_wall = time.monotonic() - t0
    rows = {}
    if (out / "gradebook.sqlite").exists():
        from autograder.grading.gradebook import Gradebook

        with Gradebook(out / "gradebook.sqlite") as book:
            rows = {row.submission_id: row for row in book.rows("yahtzee")}
    result = {"alone": alone, "batch": batch, "rows": rows, "out": out, "class_dir": class_dir,
              "canaries": canaries, "repo_before": repo_before,
              "repo_after": tree_hash(WATCHED, skip={world["sacrifice"]}), "planted_before": planted_before,
              "planted_after": planted_files(), "alone_wall": alone_wall, "total_wall": total_wall,
              "batch_cwd": batch_cwd}
    dump = os.environ.get("HOSTILE_DUMP")
    if dump:
        Path(dump).write_text(json.dumps({
            "alone": {k: {x: v[x] for x in ("score", "wall", "text", "leftovers", "debug")} for k, v in alone.items()},
            "batch": {k: {"score": r.score, "wall": r.wall_time, "status": r.status, "feedback": r.feedback}
                      for k, r in rows.items()}, "batch_run": batch}, indent=1))
    return result


# ---------------------------------------------------------------------------------------------
# The corpus itself
# ---------------------------------------------------------------------------------------------
def test_corpus_is_complete():
    files = {p.stem for p in CORPUS.glob("*.py")}
    assert files == set(BY_NAME), f"files without an entry: {files - set(BY_NAME)}; " \
                                  f"entries without a file: {set(BY_NAME) - files}"
    assert len(BY_NAME) == len(CASES)
    hostile = [c for c in CASES if not c.honest]
    assert len(hostile) >= 30
    assert {"reference", "honest_mutant"} <= {c.name for c in CASES if c.honest}
    for case in CASES:
        assert case.base in ("solution", "starter", "none"), case.name
        assert case.phrases and case.why, case.name
        assert case.needs in ("", "namespaces", "uid_drop"), case.name
        assert not case.same_as or case.same_as in BY_NAME, case.name
    top = EXPECTED["max_score"]
    assert all(0 <= c.score <= top for c in CASES)
    assert BY_NAME["reference"].score == top


# ---------------------------------------------------------------------------------------------
# Every case, graded alone
# ---------------------------------------------------------------------------------------------
def corpus_line(case: Case, number: int) -> int:
    """Line NUMBER of the corpus file as a line of the graded file (after the base and two blank lines)."""
    if case.base == "none":
        return number
    base = (REPO / case.base / "yahtzee.py").read_text(encoding="utf-8")
    return len(base.rstrip("\n").splitlines()) + 2 + number


def _check_feedback(case: Case, text: str, world: dict, where: str, phrases: bool = True) -> None:
    for phrase in case.phrases if phrases else ():
        # "{corpus line N}": the line of the case's own code, wherever the base file ends today
        phrase = re.sub(r"\{corpus line (\d+)\}", lambda m: str(corpus_line(case, int(m[1]))), phrase)
        assert phrase.lower() in text.lower(), f"{where}: the feedback does not say {phrase!r}:\n{text[:3000]}"
    for bad in case.forbidden + HIDDEN_TEXT + [world["token"], world["secret"]]:
        assert bad not in text, f"{where}: the feedback shows {bad!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_graded_alone(case, runs, world):
    if not case.runnable:
        pytest.skip(f"needs {case.needs}, which this machine does not give the sandbox")
    got = runs["alone"][case.name]
    assert got["max_score"] == EXPECTED["max_score"], "the suites changed: re-check expected.toml by hand"
    assert round(got["score"], 4) == case.score, f"{case.name}: {case.why}\n{got['text'][:4000]}"
    if case.same_as:
        assert got["score"] == runs["alone"][case.same_as]["score"]
    _check_feedback(case, got["text"], world, case.name)
    _check_feedback(case, got["json"], world, case.name, phrases=False)     # every field of the report
    assert not got["leftovers"], f"processes outlived {case.name}: {got['leftovers']}"
    assert got["threads"] == 0
    assert not got["canary_changed"], f"{case.name} changed its canary folder"
    bound = wall_bound(runs["alone"]["reference"]["wall"])
    assert got["wall"] < bound, f"{case.name} took {got['wall']:.1f} s (bound {bound:.1f} s)"
    if ISO["uid_drop"]:
        assert got["uids"] and all(uid >= 40000 for uid in got["uids"])


# ---------------------------------------------------------------------------------------------
# Every case again, inside one grade-all batch
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_graded_in_batch(case, runs, world):
    if not case.runnable:
        pytest.skip(f"needs {case.needs}, which this machine does not give the sandbox")
    row = runs["rows"].get(case.name)
    assert row is not None, f"no gradebook row for {case.name}; batch: {runs['batch']}"
    assert row.status == "graded", row.error
    assert row.max_score == EXPECTED["max_score"]
    assert round(row.score, 4) == case.score, f"{case.name}: {case.why}\n{row.feedback[:4000]}"
    _check_feedback(case, row.feedback, world, f"{case.name} (batch)")
    # The batch's reference row is a replay of its verdicts (~0.0-0.2 s whatever the load), so the
    # load anchor is the larger of it and the reference graded alone in the same run (CI at load
    # 11: the reference alone 2.5 s against 0.3-0.4 quiet, memory_bomb 30.9 s against ~10).
    bound = wall_bound(max(runs["rows"]["reference"].wall_time, runs["alone"]["reference"]["wall"]))
    assert row.wall_time < bound, f"{case.name} took {row.wall_time:.1f} s in the batch (bound {bound:.1f} s)"


def test_batch_finished_cleanly(runs):
    batch = runs["batch"]
    assert batch["code"] == 0, batch
    assert not batch["left"], f"processes outlived the batch: {batch['left']}"
    expected = len(RUNNABLE) + len(BAD_MESSAGES)
    assert f"{expected} submissions, {expected} graded" in batch["stdout"], batch["stdout"]
    assert "0 grader failures" in batch["stdout"]
    assert "ignored 1 file(s) that are not submissions: notes.txt" in batch["stdout"]
    assert set(runs["rows"]) == {c.name for c in RUNNABLE} | set(BAD_MESSAGES)
    assert list(runs["batch_cwd"].iterdir()) == [], "the batch left files in its working folder"


@pytest.mark.parametrize("name", sorted(BAD_MESSAGES))
def test_batch_records_a_clear_row_for_a_broken_file(runs, name):
    row = runs["rows"][name]
    assert row.status == "graded" and row.score == 0
    assert BAD_MESSAGES[name] in row.error
    assert row.feedback.count(BAD_MESSAGES[name]) == 1, row.feedback


# ---------------------------------------------------------------------------------------------
# Nothing outside the submissions' working folders changed
# ---------------------------------------------------------------------------------------------
def test_nothing_outside_the_working_folder_changed(runs, world):
    before, after = runs["repo_before"], runs["repo_after"]
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"the kit's files changed while the corpus ran: {changed}"
    for path in WATCHED:
        for found in path.rglob("*planted*"):
            pytest.fail(f"a submission planted {found}")
    assert (CORPUS / world["sacrifice"]).exists(), "delete_files deleted a file of the kit"
    for name, folder in runs["canaries"].items():
        assert folder_state(folder) == {"canary.txt": hashlib.sha256((world["token"] + "\n").encode()).hexdigest()}, name
    assert runs["planted_after"] == runs["planted_before"], "files were planted in shared folders"
    if ISO["namespaces"]:
        assert world["connections"] == [], "a submission reached the test's listening socket"


def test_timings(runs, capsys):
    """Not a check: prints the wall time of every case (alone and in the batch)."""
    rows = runs["rows"]
    lines = [f"{'case':<28} {'score':>8} {'alone s':>8} {'batch s':>8}"]
    for case in sorted(RUNNABLE, key=lambda c: -runs["alone"][c.name]["wall"]):
        row = rows.get(case.name)
        lines.append(f"{case.name:<28} {case.score:>8g} {runs['alone'][case.name]['wall']:>8.1f} "
                     f"{row.wall_time if row else float('nan'):>8.1f}")
    lines.append(f"alone (pool of 2): {runs['alone_wall']:.0f} s; both runs together: {runs['total_wall']:.0f} s; "
                 f"batch alone: {runs['batch'].get('wall', 0):.0f} s")
    with capsys.disabled():
        print("\n[hostile corpus timings]\n" + "\n".join(lines))


# ---------------------------------------------------------------------------------------------
# Bad input to the kit itself
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bad_inputs(world):
    folder = world["root"] / "bad-input"
    folder.mkdir()
    paths = {"missing": str(folder / "missing.py")}
    for name, data in BAD_FILES.items():
        (folder / name).write_bytes(data)
        paths[Path(name).stem] = str(folder / name)
    (folder / "notes.txt").write_text("meeting notes, not Python\n")
    paths["not_python"] = str(folder / "notes.txt")
    (folder / "class-export.zip").write_bytes(b"PK\x03\x04 this is not really a zip archive")
    paths["unreadable_zip"] = str(folder / "class-export.zip")
    return paths


CLI_CASES = {
    # input -> (exit status, the one message)
    "missing": (2, "error: no such file or folder"),
    "not_python": (2, "error: notes.txt is not a Python file (.py) or a notebook (.ipynb)"),
    "unreadable_zip": (2, "error: class-export.zip is not a Python file (.py) or a notebook (.ipynb)"),
    "bad_encoding": (0, BAD_MESSAGES["bad_encoding"]),
    "bad_empty_notebook": (0, BAD_MESSAGES["bad_empty_notebook"]),
    "bad_corrupt_notebook": (0, BAD_MESSAGES["bad_corrupt_notebook"]),
}


@pytest.mark.parametrize("what", sorted(CLI_CASES))
def test_cli_gives_one_clear_message_for_bad_input(bad_inputs, what, world):
    code, message = CLI_CASES[what]
    proc = run_cli(["grade", bad_inputs[what]], cwd=world["root"], env=cli_env())
    output = proc.stdout + proc.stderr
    assert proc.returncode == code, output[-2000:]
    assert output.count(message.removeprefix("error: ")) == 1, output[-3000:]
    assert "Traceback" not in output
    if code == 2:
        assert proc.stdout == "" and proc.stderr.strip() == message or proc.stderr.startswith(message)
        assert len(proc.stderr.strip().splitlines()) == 1
    else:
        assert proc.stdout.rstrip().endswith("Score: 0 / 100")
        assert len(proc.stdout.splitlines()) < 40, "the same message repeated for every check"


def test_one_students_unreadable_zip_is_an_error_row_not_a_failed_batch(world):
    folder = world["root"] / "zip-class"
    folder.mkdir()
    shutil.copy(REPO / "solution" / "yahtzee.py", folder / "alice.py")
    (folder / "bob.zip").write_bytes(b"PK\x03\x04 this is not really a zip archive")
    out = world["root"] / "zip-class-out"
    proc = run_cli(["grade-all", str(folder), "--out", str(out), "--no-progress", "--jobs", "1"],
                   cwd=world["root"], env=cli_env())
    assert proc.returncode == 0, proc.stderr
    from autograder.grading.gradebook import Gradebook

    with Gradebook(out / "gradebook.sqlite") as book:
        rows = {r.submission_id: r for r in book.rows()}
    assert rows["alice"].score == EXPECTED["max_score"]
    assert "bob" in rows and "zip" in rows["bob"].error


def test_bad_batch_input_loses_nothing_in_the_gradebook(runs, bad_inputs, world):
    from autograder.grading.gradebook import Gradebook

    out = runs["out"]
    with Gradebook(out / "gradebook.sqlite") as book:
        before = {r.submission_id: (r.score, r.content_hash, r.times_graded) for r in book.rows()}
    assert before
    for what, message in (("unreadable_zip", "cannot read"), ("missing", "no such file or folder")):
        proc = run_cli(["grade-all", bad_inputs[what], "--out", str(out), "--no-progress"], cwd=world["root"],
                       env=cli_env())
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr.startswith("error: ") and message in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    # A later batch with one new honest file and one broken file: both recorded, nothing else touched.
    extra = world["root"] / "late-class"
    extra.mkdir()
    shutil.copy(REPO / "solution" / "yahtzee.py", extra / "late_student.py")
    (extra / "late_broken.py").write_bytes(BAD_FILES["bad_encoding.py"])
    proc = run_cli(["grade-all", str(extra), "--out", str(out), "--no-progress", "--jobs", "1"],
                   cwd=world["root"], env=cli_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with Gradebook(out / "gradebook.sqlite") as book:
        after = {r.submission_id: (r.score, r.content_hash, r.times_graded) for r in book.rows()}
    assert {k: after[k] for k in before} == before
    assert after["late_student"][0] == EXPECTED["max_score"] and after["late_broken"][0] == 0
