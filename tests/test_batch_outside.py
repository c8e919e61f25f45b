"""What grade-all spends outside its grades, made smaller without changing what it writes:
  * the fork server ends by os._exit once its atexit functions ran (preloading.exit_quickly):
    only in a fork server, and with its exit status 0 and its log flushed;
  * the pages' templates' compiled code is kept in the kit's cache folder (report._env) and read
    back from there by the next process: the very pages, and no entry others could write is read;
  * the drawer's matplotlib import leaves matplotlib as it found it (charts.warm), and a set()
    made after it has its signature (the charts themselves: test_report_drawer);
  * grade_all puts the collector's thresholds back;
  * the pool's module leaves the worker's module to its first worker's start (not on the way
    to the fork server's start).
Each in a fresh interpreter where it changes process-wide state; ~2 s of CPU in all.
"""

from __future__ import annotations

import gc
import json
import os
import stat
import subprocess
import sys

import pytest
from helpers.hostile import REPO


def _run(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> dict:
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_exit_quickly_does_nothing_outside_a_fork_server():
    out = _run("""
import atexit, json
import multiprocessing.forkserver    # (its util registers its own atexit function when imported)
from autograder.grading import preloading
before = atexit._ncallbacks()
preloading.exit_quickly()
print(json.dumps([before, atexit._ncallbacks()]))
""")
    assert out[0] == out[1]


def test_the_fork_server_exits_at_once_with_status_0_and_its_log_flushed(tmp_path):
    """A real fork server of grade-all's pool: told to stop (its last client gone), it runs its
    atexit functions (here one registered before its own, that prints without flushing), flushes,
    exits 0 and tears nothing down."""
    out = _run(f"""
import json, os, sys, time
from multiprocessing import forkserver
from pathlib import Path
from autograder.grading.workers import WorkerPool
logs = Path({str(tmp_path)!r}) / "logs"
pool = WorkerPool(1, "yahtzee", "all", logs, 60.0)
pool.ctx.set_forkserver_preload(["helpers.atexit_print"] + forkserver._forkserver._preload_modules)
pool.start()
server = forkserver._forkserver
pid = server._forkserver_pid
os.close(server._forkserver_alive_fd)         # its last client gone: it ends once its preload is done
_, status, usage = os.wait4(pid, 0)
pool.close(now=True)
print(json.dumps([os.waitstatus_to_exitcode(status), (logs / "fork-server.log").read_text()]))
""", env={"PYTHONPATH": str(REPO / "tests")})
    code, log = out
    assert code == 0
    assert "preloaded" in log and "atexit ran" in log        # its atexit functions ran, their output flushed
    assert "torn down" not in log                            # and no teardown after them


def test_the_templates_compiled_code_is_kept_and_read_back(tmp_path):
    cache = tmp_path / "cache"
    page = """
import json, time
from autograder.grading import report
report.compile_templates()
env = report._env()
html = env.get_template("feedback.html.j2").render(title="t", student="<ana>", headline="h", error="", notes=[],
    flags=[], late="", stages=[], graded_at="now", strategy_plot="")
print(json.dumps(html))
"""
    first = _run(page, {"AUTOGRADER_CACHE_DIR": str(cache)})
    entries = sorted(cache.glob("jinja-*.bin"))
    assert len(entries) == 4                                 # the feedback page, its problems' block, the report, their base
    assert all(stat.S_IMODE(e.stat().st_mode) == 0o600 for e in entries)
    stamps = [e.stat().st_mtime_ns for e in entries]
    again = _run(page, {"AUTOGRADER_CACHE_DIR": str(cache)})
    assert again == first and "&lt;ana&gt;" in first
    assert [e.stat().st_mtime_ns for e in entries] == stamps   # read back, not written again
    # an entry others could write is never read: compiled afresh (and the page the same)
    for entry in entries:
        entry.write_bytes(b"not code")
        entry.chmod(0o666)
    assert _run(page, {"AUTOGRADER_CACHE_DIR": str(cache)}) == first
    # no cache folder to use: compiled as before
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    assert _run(page, {"AUTOGRADER_CACHE_DIR": str(blocked)}) == first


def test_the_template_cache_key_names_what_the_code_is_made_from():
    from autograder.grading import report

    env = report._env()

    class Bucket:
        environment, key, checksum = env, "k", "c"

    base = report._template_key(Bucket())
    other = Bucket()
    other.checksum = "d"                                     # another text
    assert report._template_key(other) != base
    other = Bucket()
    other.key = "l"                                          # another name or file
    assert report._template_key(other) != base
    changed = env.overlay(autoescape=False)                  # another option the compiler reads

    class Changed(Bucket):
        environment = changed

    assert report._template_key(Changed()) != base


def test_the_drawers_import_leaves_matplotlib_as_it_found_it():
    out = _run("""
import json
import matplotlib.artist as artist
kwdoc, update = artist.kwdoc, artist.Artist.__dict__["_update_set_signature_and_docstring"]
from autograder.grading import charts
charts.warm()
import inspect
import matplotlib.patches
class Later(matplotlib.patches.Rectangle):
    pass
print(json.dumps([artist.kwdoc is kwdoc,
                  artist.Artist.__dict__["_update_set_signature_and_docstring"] is update,
                  getattr(matplotlib.patches.Rectangle.set, "_autogenerated_signature", False),
                  Later.set is not matplotlib.patches.Rectangle.set,
                  "width" in inspect.signature(Later.set).parameters,
                  "Supported properties" in (Later.set.__doc__ or "")]))
""")
    assert out == [True, True, True, True, True, True]


@pytest.mark.parametrize("threshold", [(700, 10, 10), (50_000, 5, 5)])
def test_grade_all_puts_the_collectors_thresholds_back(tmp_path, threshold):
    from autograder.grading.discover import InputError
    from autograder.grading.grade_all import grade_all

    saved = gc.get_threshold()
    gc.set_threshold(*threshold)
    try:
        empty = tmp_path / "empty"
        empty.mkdir()
        with pytest.raises(InputError):
            grade_all(empty, tmp_path / "out", progress=False)
        assert gc.get_threshold() == threshold
    finally:
        gc.set_threshold(*saved)


def test_the_pool_imports_the_workers_module_only_to_start_a_worker(tmp_path):
    """grade-all starts its fork server as soon as it has its pool: importing the pool's module
    and starting the fork server imports neither the worker's module nor the engine's results
    (~5 ms, then imported while the fork server boots); a worker's start imports it."""
    out = _run(f"""
import json, sys
from pathlib import Path
from autograder.grading.workers import WorkerPool
pool = WorkerPool(1, "yahtzee", "all", Path({str(tmp_path)!r}) / "logs", 60.0)
pool.start()
before = ["autograder.grading.worker" in sys.modules, "autograder.engine.results" in sys.modules]
pool.workers.append(pool._spawn())      # (stopped by close)
after = "autograder.grading.worker" in sys.modules
pool.close(now=True)
print(json.dumps([before, after]))
""")
    assert out == [[False, False], True]
