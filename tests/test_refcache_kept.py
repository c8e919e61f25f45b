"""A reference cache file read once per process (engine/refcache.py `load`, pass 24): the same file,
unchanged, is not parsed again; a changed one is, a same-size rewrite in place included; what a
caller does to the dicts it got is not seen by the next.  No timing is asserted."""

from __future__ import annotations

import json
import os
import time

from autograder.engine import refcache
from autograder.engine.sandbox import Outcome, Request


def _save(folder, value: int):
    request = Request("call", "f", [value], {}, None, None, None, True, None)
    outcomes = {"k": Outcome("ok", value=value, stdout=f"out {value}")}
    return refcache.save(folder, "demo", "key", outcomes, {"suite.py::test_f": [request]})


def _parses(monkeypatch) -> list[int]:
    """Counts refcache's JSON parses (a real json.loads underneath)."""
    counted: list[int] = []
    real = json.loads

    def counting(text, *args, **kwargs):
        counted.append(1)
        return real(text, *args, **kwargs)
    monkeypatch.setattr(refcache.json, "loads", counting)
    return counted


def _settled(path) -> None:
    """Wait until PATH's stamps are older than refcache's settling time (its ctime cannot be set)."""
    while time.time_ns() - os.stat(path).st_ctime_ns <= refcache._SETTLED_NS:
        time.sleep(0.1)


def test_an_unchanged_file_is_parsed_once_and_its_dicts_are_the_callers(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "_LOADED", {})
    path = _save(tmp_path, 1)
    _settled(path)
    parses = _parses(monkeypatch)
    outcomes, plan = refcache.load(path)
    outcomes.clear()
    plan["extra"] = []
    again_outcomes, again_plan = refcache.load(path)
    assert len(parses) == 1
    assert again_outcomes["k"].value == 1 and again_outcomes["k"].stdout == "out 1"
    assert list(again_plan) == ["suite.py::test_f"] and again_plan["suite.py::test_f"][0].args == [1]


def test_a_same_size_rewrite_in_place_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "_LOADED", {})
    path = _save(tmp_path, 1)
    _settled(path)
    assert refcache.load(path)[0]["k"].value == 1            # kept
    text = path.read_text(encoding="utf-8")
    rewritten = text.replace('"out 1"', '"out 2"')
    assert len(rewritten) == len(text) and rewritten != text
    with open(path, "r+", encoding="utf-8") as f:            # the same inode, the same size, at once
        f.write(rewritten)
    parses = _parses(monkeypatch)
    assert refcache.load(path)[0]["k"].stdout == "out 2"
    assert len(parses) == 1


def test_a_new_file_is_read_again_and_a_fresh_one_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(refcache, "_LOADED", {})
    path = _save(tmp_path, 1)
    parses = _parses(monkeypatch)
    refcache.load(path)
    refcache.load(path)                                      # written just now: not kept yet
    assert len(parses) == 2
    _settled(path)
    refcache.load(path)
    _save(tmp_path, 3)                                       # replaced (a new inode), as the grader writes it
    assert refcache.load(path)[0]["k"].value == 3
    assert len(parses) == 4
    path.write_text("not json", encoding="utf-8")
    assert refcache.load(path) is None                       # a damaged file is ignored, as before
