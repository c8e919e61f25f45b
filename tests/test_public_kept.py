"""An assignment's public checks (with the public cases none is made of) and its count of hidden
checks, kept per machine and kit version (pass 25: grading/public.py, grading/grade.count_checks,
codecache.stored): made once, read back as the very same checks, made afresh from a spoiled entry, and a new key when any file they are
made from changes (a `grade --public` process built every stage's notebook, ~1 s of CPU each)."""

from __future__ import annotations

import dataclasses
import os
import shutil

import pytest

from autograder.assignment import load_assignment
from autograder.engine.codecache import CACHE_ENV
from autograder.grading import grade as grading
from autograder.grading import public

COURSE = "cs21"          # (notebooks, public scenarios and doctests: every kind of public check)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _key(spec):
    return (spec.name, str(spec.reference), spec.reference.stat().st_mtime_ns)


def test_public_checks_are_made_once_and_read_back_the_same(cache, monkeypatch):
    spec = load_assignment(COURSE)
    made = (*public._made_checks(spec), public._unchecked(spec))
    assert made[0] and all(isinstance(n, int) for n in made[0])
    assert public._public_checks.__wrapped__(_key(spec)) == made
    entries = list(cache.glob("public-checks-*"))
    assert len(entries) == 1

    def again(spec):
        raise AssertionError("made again, not read back")

    monkeypatch.setattr(public, "_made_checks", again)
    monkeypatch.setattr(public, "_unchecked", again)
    assert public._public_checks.__wrapped__(_key(spec)) == made


@pytest.mark.parametrize("spoil", ["shape", "not json", "others may write"])
def test_a_spoiled_entry_is_made_afresh(cache, spoil):
    spec = load_assignment(COURSE)
    made = public._public_checks.__wrapped__(_key(spec))
    entry, = cache.glob("public-checks-*")
    if spoil == "shape":
        entry.write_bytes(b'{"checks": {"1": 3}, "notes": []}')
    elif spoil == "not json":
        entry.write_bytes(b"\x00print('hi')")
    else:                                   # (well formed, but not ours alone: not believed)
        entry.write_bytes(b'{"checks": {"1": "planted = True"}, "notes": [], "unchecked": {}}')
        os.chmod(entry, 0o666)
    assert public._public_checks.__wrapped__(_key(spec)) == made


def test_the_hidden_count_is_kept_and_read_back(cache, monkeypatch):
    spec = load_assignment(COURSE)
    monkeypatch.setattr(grading, "_COUNTS", {})
    counted = grading.count_checks(spec, "all")
    assert counted > 0 and len(list(cache.glob("hidden-count-*"))) == 1

    def again(spec, stage):
        raise AssertionError("collected again, not read back")

    monkeypatch.setattr(grading, "_COUNTS", {})
    monkeypatch.setattr(grading, "_count_checks", again)
    assert grading.count_checks(spec, "all") == counted
    with pytest.raises(AssertionError, match="collected again"):
        grading.count_checks(spec, "1")           # (another stage: another entry)


def test_the_key_changes_with_any_file_it_is_made_from(tmp_path):
    spec = load_assignment(COURSE)
    copy = tmp_path / COURSE
    shutil.copytree(spec.root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    moved = dataclasses.replace(spec, root=copy)
    first = moved.made_from_key()
    assert moved.made_from_key() == first
    for name in ("reference.py", "notebooks.toml", *(p.relative_to(copy).as_posix()
                                                     for p in sorted(copy.glob("scenarios/*.toml"))[:1])):
        path = copy / name
        before = path.read_bytes()
        path.write_bytes(before + b"\n")
        assert moved.made_from_key() != first, name
        path.write_bytes(before)
    assert moved.made_from_key() == first
    (copy / "samples").mkdir(exist_ok=True)                 # (nothing is made from the samples)
    (copy / "samples" / "x.py").write_text("x = 1\n")
    assert moved.made_from_key() == first
