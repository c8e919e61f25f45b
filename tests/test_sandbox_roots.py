"""The root template (roots.RootTemplate, harness/entry.py root_template_main): the session's
template forks one per distinct student-root setup, which builds the minimal read-only root and
prepares the filter once and forks each student root; a student root makes only its own mount,
uts (and net) namespaces.  Two students' roots and lives share nothing writable, and the root
template holds no student data and no reference (docs/threat-model.md, "One student root per
student")."""

from __future__ import annotations

import os

import pytest
from test_sandbox import ISO, call
from test_sandbox_family import _memory_holds, _ppid

from autograder.engine import launch, roots, seccomp
from autograder.engine.sandbox import Sandbox, template_scope

needs_root = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                reason="student roots serve root graders with a pid namespace only")

STUDENT = """\
import os

MARK = "SOURCE-OF-{name}"

def leave_notes():
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        with open(os.path.join(folder, "note-{name}"), "w") as f:
            f.write(MARK)
    return True

def notes():
    return sorted(name for folder in ("/tmp", "/var/tmp", "/dev/shm") for name in os.listdir(folder)
                  if name.startswith("note-"))

def mounts():
    with open("/proc/self/mountinfo") as f:
        return f.read()
"""


def _ns(pid: int, kind: str) -> str:
    return os.readlink(f"/proc/{pid}/ns/{kind}")


def _student(name: str, hidden: list[str], reference: str | None = None) -> tuple[Sandbox, roots.Family]:
    box = Sandbox(STUDENT.format(name=name), "yahtzee.py", hidden_paths=hidden, reference=reference)
    box.family = roots.Family(box.hidden_paths)
    return box, box.family


@needs_root
def test_two_students_roots_come_from_one_root_template_and_share_nothing_writable(tmp_path):
    """Both students' roots are forked by the one root template of their setup; each root has
    its own mount and uts namespaces (and net, when the filter refuses sockets), none of them the
    root template's; each life has its own mounts and private folders: a note one student's life
    leaves in /tmp, /var/tmp or /dev/shm is not in the other's, and no mount of one is the other's."""
    hidden = [str(tmp_path)]
    with template_scope():
        (a, fam_a), (b, fam_b) = _student("alice", hidden), _student("bob", hidden)
        try:
            assert call(a, "leave_notes", fresh=False).value is True
            assert call(b, "notes", fresh=False).value == []
            assert call(a, "notes", fresh=False).value == ["note-alice"] * 3
            assert call(b, "leave_notes", fresh=False).value is True
            assert call(a, "notes", fresh=False).value == ["note-alice"] * 3
            assert a.applied["started"] == b.applied["started"] == "student_root"
            template = launch._templates[launch._python()]
            made = [root for root in template.roots.values() if root is not None]
            assert len(made) == 1, "one root template for one setup"
            rt = made[0].handle.pid
            ra, rb = fam_a.root.handle.pid, fam_b.root.handle.pid
            assert _ppid(ra) == _ppid(rb) == rt and _ppid(rt) == template.popen.pid
            kinds = ["mnt", "uts"] + (["net"] if seccomp.refuses_sockets() else [])
            for kind in kinds:
                assert len({_ns(ra, kind), _ns(rb, kind), _ns(rt, kind)}) == 3, kind
            tmp_a, tmp_b = ([line for line in call(box, "mounts").value.splitlines() if " /tmp " in line]
                            for box in (a, b))
            assert len(tmp_a) == len(tmp_b) == 1 and tmp_a != tmp_b     # (mount ids differ: each its own)
            assert _memory_holds(ra, b"SOURCE-OF-alice"), "the probe cannot see a root's memory"
            assert not _memory_holds(rt, b"SOURCE-OF-"), "the root template holds a student's source"
        finally:
            for box, family in ((a, fam_a), (b, fam_b)):
                box.close()
                family.close()


@needs_root
def test_the_root_template_never_holds_the_reference_nor_a_config(tmp_path):
    """The root template is told only the setup (filter, whether sockets are refused, the hidden
    paths) and its student roots' environment: never a source, a config or the reference."""
    marker = "reference_only_function_of_the_root_template_test"
    with template_scope():
        own, family = _student("carol", [str(tmp_path)])
        variant = Sandbox(STUDENT.format(name="carol"), "yahtzee.py", hidden_paths=[str(tmp_path)],
                          reference=f"def {marker}():\n    return 'SECRET-{marker}'\n")
        variant.family = family
        try:
            assert call(own, "notes").value == []
            assert call(variant, "notes", substitute={"names": [marker], "keep": ["notes"]}).status == "ok"
            template = launch._templates[launch._python()]
            rt = next(root for root in template.roots.values() if root is not None).handle.pid
            assert _ppid(family.root.handle.pid) == rt
            assert not _memory_holds(rt, marker.encode()), "the root template holds the reference"
            assert not _memory_holds(rt, b"SOURCE-OF-carol"), "the root template holds the source"
            assert not _memory_holds(rt, b'"workdir"'), "the root template holds a config"
        finally:
            for box in (own, variant):
                box.close()
            family.close()


@needs_root
def test_a_root_template_that_died_is_replaced_and_students_still_get_roots(tmp_path):
    with template_scope():
        first, fam1 = _student("dave", [str(tmp_path)])
        try:
            assert call(first, "notes").value == []
            template = launch._templates[launch._python()]
            old = next(root for root in template.roots.values() if root is not None)
            old.handle.kill()
            old.handle.wait(timeout=5)
            second, fam2 = _student("erin", [str(tmp_path)])
            try:
                assert call(second, "notes").value == []
                assert second.applied["started"] == "student_root"
                new = next(root for root in template.roots.values() if root is not None)
                assert new is not old and _ppid(fam2.root.handle.pid) == new.handle.pid
            finally:
                second.close()
                fam2.close()
        finally:
            first.close()
            fam1.close()


def _prebuilt(hidden: list[str]) -> launch.Booted:
    """A template booted as grade-all's parent boots one for a worker, asked for the root template
    of HIDDEN before its adopter exists (workers.WorkerPool.prepare_roots)."""
    booted = launch.Booted()
    booted.root = roots.ask_root_template(booted.sock, hidden)
    return booted


@needs_root
def test_a_root_template_asked_by_the_templates_booter_serves_the_adopters_students(tmp_path):
    """grade-all's parent asks each worker's booted template for its first students' root template
    (roots.ask_root_template: the template forks it while the fork server boots); the worker adopts
    both (launch.adopt_template): its students' roots come from that root template, no other is
    started for their setup, and its booter reaps the template with the root template's CPU."""
    hidden = [str(tmp_path)]
    booted = _prebuilt(hidden)
    key = booted.root[0]
    with template_scope():
        assert launch.adopt_template(booted.handoff(), booted.root)    # (its sockets: the same objects here)
        template = launch._templates[launch._python()]
        assert list(template.roots) == [key]
        prebuilt = template.roots[key]
        assert prebuilt is not None and prebuilt.alive() and _ppid(prebuilt.handle.pid) == template.popen.pid
        box, family = _student("frank", hidden)
        try:
            assert call(box, "notes").value == []
            assert box.applied["started"] == "student_root"
            assert list(template.roots) == [key] and template.roots[key] is prebuilt, "a second root template"
            assert _ppid(family.root.handle.pid) == prebuilt.handle.pid
            assert not _memory_holds(prebuilt.handle.pid, b"SOURCE-OF-frank")
        finally:
            box.close()
            family.close()
    assert booted.reap(10.0) is not None and booted.popen.returncode == 0


@needs_root
def test_a_prebuilt_root_template_of_another_setup_is_never_used_and_ends_with_its_template(tmp_path):
    """A root template asked for other hidden folders than a student's (the batch's first
    submission lives elsewhere) keeps its key: that student's root comes from a root template
    of its own setup, started as before; both end with the template's scope."""
    (tmp_path / "elsewhere").mkdir()
    booted = _prebuilt([str(tmp_path / "elsewhere")])
    with template_scope():
        assert launch.adopt_template(booted.handoff(), booted.root)    # (its sockets: the same objects here)
        template = launch._templates[launch._python()]
        prebuilt = template.roots[booted.root[0]]
        box, family = _student("grace", [str(tmp_path)])
        try:
            assert call(box, "notes").value == []
            assert len(template.roots) == 2
            own = next(root for key, root in template.roots.items() if key != booted.root[0])
            assert _ppid(family.root.handle.pid) == own.handle.pid != prebuilt.handle.pid
        finally:
            box.close()
            family.close()
        pids = (prebuilt.handle.pid, own.handle.pid)
    assert booted.reap(10.0) is not None
    assert not any(os.path.exists(f"/proc/{pid}/status") and "zombie" not in open(f"/proc/{pid}/status").read()
                   for pid in pids), "a root template outlived its template"


@needs_root
def test_a_booted_template_whose_answer_cannot_be_read_is_let_go_whole(tmp_path, monkeypatch):
    """Should the template not answer the root template's ask when its adopter reads it (stopped
    here), the adopter lets the template go with it: an answer read later would be taken for that
    of another ask.  Its session then boots a template of its own, and students are graded."""
    import signal

    booted = _prebuilt([str(tmp_path)])
    os.kill(booted.popen.pid, signal.SIGSTOP)
    monkeypatch.setattr(launch, "START_TIMEOUT", 0.5)
    try:
        with template_scope():
            assert not launch.adopt_template(booted.handoff(), booted.root)
            assert launch._python() not in launch._templates
            monkeypatch.setattr(launch, "START_TIMEOUT", 20.0)
            box, family = _student("heidi", [str(tmp_path)])
            try:
                assert call(box, "notes").value == []
                assert launch._templates[launch._python()].popen.pid != booted.popen.pid
            finally:
                box.close()
                family.close()
    finally:
        os.kill(booted.popen.pid, signal.SIGCONT)
    booted.reap(10.0)
    assert booted.popen.returncode is not None
