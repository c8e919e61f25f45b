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
