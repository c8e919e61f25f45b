"""The grader's code cache (engine/codecache.py): the harness and the reference compiled once per
machine, read back only from an entry this user alone could have written."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from autograder.engine import codecache

TEXT = "def f(x):\n    return x + 1\n"
OTHER = "def f(x):\n    return x + 2\n"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("AUTOGRADER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _answer(data: bytes) -> int:
    namespace: dict = {}
    exec(marshal.loads(data), namespace)        # noqa: S102 -- our own test text
    return namespace["f"](1)


def _entry(cache: Path) -> Path:
    entries = list(cache.glob("code-*.marshal"))
    assert len(entries) == 1, entries
    return entries[0]


def test_an_entry_is_written_once_and_read_back(cache):
    assert _answer(codecache.compiled(TEXT, "<t>")) == 2
    entry = _entry(cache)
    assert entry.stat().st_mode & 0o777 == 0o600
    # what is read is the entry: a planted (but our own, private) entry is believed
    entry.write_bytes(marshal.dumps(compile(OTHER, "<t>", "exec")))
    assert _answer(codecache.compiled(TEXT, "<t>")) == 3


def test_the_key_is_the_text_and_the_name(cache):
    codecache.compiled(TEXT, "<t>")
    codecache.compiled(OTHER, "<t>")
    codecache.compiled(TEXT, "<u>")
    assert len(list(cache.glob("code-*.marshal"))) == 3


def _spoil(entry, spoil: str, planted: bytes, wrong_type: bytes, tmp_path) -> None:
    """ENTRY spoiled as SPOIL says: PLANTED written where others could write it ("group_writable",
    "world_writable"), bytes that are not marshal ("garbage"), a marshalled value of the wrong type
    (WRONG_TYPE: "not_code", "not_a_dict"), or a link to PLANTED elsewhere ("symlink")."""
    if spoil in ("group_writable", "world_writable"):
        entry.write_bytes(planted)
        entry.chmod(0o620 if spoil == "group_writable" else 0o602)
    elif spoil == "garbage":
        entry.write_bytes(b"\xff not marshal")
    elif spoil in ("not_code", "not_a_dict"):
        entry.write_bytes(wrong_type)
    else:
        target = tmp_path / "elsewhere.marshal"
        target.write_bytes(planted)
        target.chmod(0o600)
        entry.unlink()
        entry.symlink_to(target)


@pytest.mark.parametrize("spoil", ["group_writable", "world_writable", "garbage", "not_code", "symlink"])
def test_an_entry_others_could_write_or_that_does_not_read_is_compiled_afresh(cache, spoil, tmp_path):
    codecache.compiled(TEXT, "<t>")
    entry = _entry(cache)
    _spoil(entry, spoil, marshal.dumps(compile(OTHER, "<t>", "exec")), marshal.dumps({"f": 3}), tmp_path)
    assert _answer(codecache.compiled(TEXT, "<t>")) == 2
    # ... and the entry is replaced by a good one of ours
    assert not entry.is_symlink() and entry.stat().st_mode & 0o777 == 0o600
    assert _answer(entry.read_bytes()) == 2


def test_an_entry_owned_by_another_user_is_not_read(cache):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file away")
    codecache.compiled(TEXT, "<t>")
    entry = _entry(cache)
    entry.write_bytes(marshal.dumps(compile(OTHER, "<t>", "exec")))
    os.chown(entry, 65534, 65534)
    assert _answer(codecache.compiled(TEXT, "<t>")) == 2


def test_no_usable_cache_folder_still_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("AUTOGRADER_CACHE_DIR", str(blocker / "cache"))
    assert _answer(codecache.compiled(TEXT, "<t>")) == 2
    with pytest.raises(SyntaxError):
        codecache.compiled("def (", "<t>")


def test_a_build_is_kept_only_when_it_says_so_and_read_back_only_when_valid(cache):
    calls = []

    def build(keep):
        def run():
            calls.append(keep)
            return b"12345678", keep
        return run

    def valid(data):
        return len(data) % 8 == 0

    assert codecache.stored("t", "not kept", build(False), valid) == b"12345678"
    assert codecache.stored("t", "not kept", build(False), valid) == b"12345678"
    assert calls == [False, False] and not list(cache.glob("t-*.bin"))
    assert codecache.stored("t", "kept", build(True), valid) == b"12345678"
    assert codecache.stored("t", "kept", build(True), valid) == b"12345678"
    assert calls == [False, False, True]            # the second came from the entry
    (entry,) = cache.glob("t-*.bin")
    entry.write_bytes(b"1234567")                   # not valid: built again, and kept again
    assert codecache.stored("t", "kept", build(True), valid) == b"12345678"
    assert calls == [False, False, True, True] and entry.read_bytes() == b"12345678"


def test_the_seccomp_filter_from_the_cache_is_the_one_libseccomp_builds(cache, monkeypatch):
    from autograder.engine import seccomp

    built, complete = seccomp._build()
    if built is None:
        pytest.skip("no libseccomp here: the sandbox runs without a filter and says so")
    assert complete                                  # this machine's libseccomp knows every rule
    monkeypatch.setattr(seccomp, "_cache", False)
    assert seccomp.filter_bpf() == built
    (entry,) = cache.glob("seccomp-*.bin")
    assert entry.read_bytes() == built and entry.stat().st_mode & 0o777 == 0o600
    entry.write_bytes(b"\0" * 8)                     # planted, and our own: believed...
    monkeypatch.setattr(seccomp, "_cache", False)
    assert seccomp.filter_bpf() == b"\0" * 8
    entry.chmod(0o666)                               # ... but not once others could write it
    monkeypatch.setattr(seccomp, "_cache", False)
    assert seccomp.filter_bpf() == built


TABLE = 'title = "scenarios"\n[[case]]\ndice = [1, 2, 3, 4, 5]\nwant = 15\nwhy = "a small straight"\n'


def _toml_entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("toml-*.marshal"))


def test_a_table_is_parsed_once_and_read_back_as_the_same_data(cache):
    """toml.loads_kept (a course's scenario tables, engine/suite.py): the first process parses and
    keeps the data; the next ones read the entry (a planted, private entry is believed: it is
    what is read), each getting a fresh copy; another text is another entry."""
    from autograder import toml

    first = toml.loads_kept(TABLE)
    assert first == toml.loads(TABLE)
    (entry,) = _toml_entries(cache)
    assert entry.stat().st_mode & 0o777 == 0o600
    again = toml.loads_kept(TABLE)
    assert again == first and again is not first and again["case"] is not first["case"]
    entry.write_bytes(marshal.dumps({"planted": True}))
    assert toml.loads_kept(TABLE) == {"planted": True}
    toml.loads_kept(TABLE + "# another text\n")
    assert len(_toml_entries(cache)) == 2


@pytest.mark.parametrize("spoil", ["group_writable", "garbage", "not_a_dict", "symlink"])
def test_a_table_entry_others_could_write_or_that_does_not_read_is_parsed_afresh(cache, spoil, tmp_path):
    from autograder import toml

    toml.loads_kept(TABLE)
    (entry,) = _toml_entries(cache)
    _spoil(entry, spoil, marshal.dumps({"planted": True}), marshal.dumps(["case"]), tmp_path)
    assert toml.loads_kept(TABLE) == toml.loads(TABLE)
    assert not entry.is_symlink() and marshal.loads(entry.read_bytes()) == toml.loads(TABLE)


def test_a_table_marshal_cannot_hold_is_parsed_every_time_and_errors_keep_nothing(cache):
    """A TOML date (no marshal type) or a NaN (not equal to itself) is never kept; a text that is
    not TOML raises as tomllib does, and nothing is kept."""
    from autograder import toml

    dated = "due = 2026-11-20T23:59:00Z\n"
    assert toml.loads_kept(dated) == toml.loads(dated)
    assert toml.loads_kept("x = nan\n")["x"] != toml.loads_kept("x = nan\n")["x"]     # (a NaN: parsed each time)
    with pytest.raises(toml.TOMLDecodeError):
        toml.loads_kept("this is = = not toml")
    assert _toml_entries(cache) == []
