"""The harness's own folders in a life's work folder (redteam, round three of the corpus).

A fresh request runs in a new folder `/tmp/work/run-N` (N: the life's request count) and the
shared worker in `/tmp/work/shared`.  The work folder outlives a request, and the names are
predictable: a request that left a folder of the next run folder's name, or a file (or a link)
named `shared`, or that replaced the work folder itself (a link, a file) or took its rights
away, made every later request of its life "the grader could not run your program (internal
error)" (the request process's mkdir failed).  The harness now renames whatever it
finds at its folder's name aside (`harness/base.enter_own_folder`): each request runs in its own
new, empty folder, as a fork of its own always did (corpus round3 `plant_run_folders`).
"""

from __future__ import annotations

import pytest

from autograder.engine.sandbox import Limits, Request, Sandbox, isolation

SOURCE = '''
import os


def look():
    return [os.getcwd(), sorted(os.listdir("."))]


def plant_run_folders(count):
    base, leaf = os.path.split(os.getcwd())
    for k in range(1, count + 1):
        folder = os.path.join(base, "run-%d" % (int(leaf[4:]) + k))
        os.makedirs(folder)
        with open(os.path.join(folder, "planted.txt"), "w") as f:
            f.write("left by an earlier request")
    os.symlink("/tmp/work", os.path.join(base, "run-%d" % (int(leaf[4:]) + count + 1)))
    return leaf


def replace_work(kind):
    os.chdir("/")
    if kind == "link":                  # the work folder moved, a link left in its place (dangling
        os.rename("/tmp/work", "/tmp/elsewhere")    # once the zygote empties /tmp)
        os.symlink("/tmp/elsewhere", "/tmp/work")
    elif kind == "file":
        os.rename("/tmp/work", "/tmp/elsewhere")
        open("/tmp/work", "w").close()
    else:
        os.chmod("/tmp/work", 0)
    return kind


def plant_shared(kind):
    path = "/tmp/work/shared"
    if kind == "file":
        with open(path, "w") as f:
            f.write("not a folder")
    elif kind == "link":
        os.symlink("/tmp/work/elsewhere", path)
    else:
        os.makedirs(path)
        with open(os.path.join(path, "kept.txt"), "w") as f:
            f.write("the shared folder's own file")
        if kind == "closed":
            os.chmod(path, 0)
    return kind
'''

pytestmark = pytest.mark.skipif(not isolation()["private_tmp"], reason="needs the sandbox's private /tmp")


def test_a_planted_run_folder_is_moved_aside_and_the_request_runs_in_an_empty_one():
    with Sandbox(SOURCE, "m.py", Limits(wall_s=4.0)) as box:
        first = box.run(Request("call", "plant_run_folders", [3], fresh=True))
        assert first.status == "ok", first.message
        for _ in range(5):                          # three planted folders, a planted link, one more
            outcome = box.run(Request("call", "look", fresh=True))
            assert outcome.status == "ok", outcome.message
            cwd, listed = outcome.value
            assert cwd.startswith("/tmp/work/run-") and listed == []


@pytest.mark.parametrize("kind", ["link", "file", "chmod"])
def test_a_work_folder_a_request_replaced_or_closed_is_made_a_folder_again(kind):
    """The work folder replaced by a link or a file, or its owner's rights taken away: the next
    request process (its owner) renames it aside or gives the rights back, then makes its folder."""
    with Sandbox(SOURCE, "m.py", Limits(wall_s=4.0)) as box:
        assert box.run(Request("call", "replace_work", [kind], fresh=True)).value == kind
        for fresh in (True, True, False):
            outcome = box.run(Request("call", "look", fresh=fresh))
            assert outcome.status == "ok", outcome.message
            cwd, listed = outcome.value
            assert listed == [] and (cwd.startswith("/tmp/work/run-") if fresh else cwd == "/tmp/work/shared")


@pytest.mark.parametrize("kind, listed", [("file", []), ("link", []), ("folder", ["kept.txt"]),
                                          ("closed", ["kept.txt"])])
def test_the_shared_worker_starts_in_its_own_folder_whatever_was_left_at_its_name(kind, listed):
    """A file or a link at the shared folder's name is moved aside (a new worker is never sent
    into a folder of the student's choosing); a real folder is kept, as before (its files are
    the life's own, visible to its requests)."""
    with Sandbox(SOURCE, "m.py", Limits(wall_s=4.0)) as box:
        assert box.run(Request("call", "plant_shared", [kind], fresh=True)).value == kind
        for _ in range(2):
            outcome = box.run(Request("call", "look", fresh=False))
            assert outcome.status == "ok", outcome.message
            assert outcome.value == ["/tmp/work/shared", listed]
