"""The harness's line I/O (harness/lines.py) and the zygote's batch read one line at a time
(Zygote.read_batch): what the pass that cut the pages a life's serving writes could have broken.

- A line split over several reads, several lines in one read, a last line without its end.
- Every read lands in a private mapping: a fork's reads never show in its parent's (MAP_PRIVATE).
- Parts written by writev: more parts than one writev takes, and a writev that writes only some
  of them (a signal, a full pipe: finished by the fallback), arrive whole and in order.
- A batch that stops early: the lines after the request it stopped at are read to the batch's end
  and never run, so the next request the grader sends is read as itself.
"""

from __future__ import annotations

import os
import threading

import pytest
from helpers.harness import in_child, loaded
from test_sandbox import ISO

from autograder.engine.sandbox import Request, Sandbox


@pytest.fixture(scope="module")
def h():
    return loaded()


def test_lines_are_read_whole_however_the_reads_cut_them(h):
    r, w = os.pipe()
    try:
        lines = h.Lines(r)
        os.write(w, b'{"a":1}\n{"b"')
        assert lines.readline() == b'{"a":1}'
        os.write(w, b':2}\n{"c":3}\n{"d":4}\n')
        assert [lines.readline() for _ in range(3)] == [b'{"b":2}', b'{"c":3}', b'{"d":4}']
        big = b"x" * (3 * h._CHUNK + 17)        # longer than one read
        writer = threading.Thread(target=lambda: os.write(w, big + b"\nlast"))
        writer.start()
        assert lines.readline() == big
        writer.join()
        os.close(w)
        w = -1
        assert lines.readline() is None         # (a last line without its end is not a line)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_a_forks_reads_never_reach_its_parents_scratch(h):
    r, w = os.pipe()
    try:
        os.write(w, b"parent\n")
        buf = bytearray()
        assert h.read_into(r, buf) == 7
        assert bytes(h._SCRATCH[1][:7]) == b"parent\n"

        def child():
            os.write(w, b"CHILD!\n")
            h.read_into(r, bytearray())
            return bytes(h._SCRATCH[1][:7]).decode()
        assert in_child(child) == "CHILD!\n"
        assert bytes(h._SCRATCH[1][:7]) == b"parent\n"
    finally:
        os.close(r)
        os.close(w)


def test_parts_arrive_whole_and_in_order_when_a_writev_takes_only_some(h, monkeypatch):
    def some(fd, parts):            # (the first part and a byte of the second, at most)
        return os.write(fd, b"".join(parts[:2])[:len(parts[0]) + 1])
    monkeypatch.setattr(os, "writev", some)
    parts = [b"%d," % i for i in range(3 * h._IOV)] + [memoryview(b"y" * 300_000), b"end"]
    r, w = os.pipe()
    got = bytearray()

    def drain():
        while chunk := os.read(r, 1 << 16):
            got.extend(chunk)
    reader = threading.Thread(target=drain)
    reader.start()
    try:
        h.write_parts(w, parts)
        h.write_all(w, b"data", b"\n")
    finally:
        os.close(w)
        reader.join()
        os.close(r)
    assert bytes(got) == b"".join(parts) + b"data\n"


NOTES = '''
import os


def note(n):
    with open("notes.txt", "a") as f:
        f.write(f"{n} ")
    with open("notes.txt") as f:
        return f.read()


def die():
    os._exit(3)
'''


@pytest.mark.skipif(not ISO["pid_namespace"], reason="the kept worker's checks need a pid namespace of its own (root)")
def test_a_batch_that_stops_early_reads_its_other_lines_and_runs_none_of_them():
    def call(func, *args):
        return Request("call", func, list(args), fresh=False)
    with Sandbox(NOTES, "notes.py") as box:
        outcomes = box.run_batch([call("note", 1), call("die"), call("note", 2), call("note", 3)])
        assert [o.status for o in outcomes] == ["ok", "exit"]
        after = box.run(call("note", 4))
        assert (after.status, after.value) == ("ok", "1 4 ")
        again = box.run_batch([call("note", 5), call("note", 6)])
        assert [o.value for o in again] == ["1 4 5 ", "1 4 5 6 "]
