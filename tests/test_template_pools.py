"""The template's partly used pymalloc pools filled before it forks (harness entry._fill_pools):
inert zero bytes, fd 2 as it was, and no fill (only its speed lost) where the allocator's
statistics are not there."""

from __future__ import annotations

import os
import sys

from helpers.harness import in_child as _in_child
from helpers.harness import loaded as _harness


def test_the_fill_takes_the_free_blocks_with_inert_bytes_and_leaves_fd_2_alone():
    h = _harness()

    def job():
        before_fd2 = os.fstat(2)
        before = h._free_blocks()
        held = h._fill_pools()
        after_fd2 = os.fstat(2)
        sizes = {sys.getsizeof(b) for b in held}
        return (type(held) is list, all(type(b) is bytes and not any(b) for b in held),
                sizes <= {size for size in before if size > 32},
                len(held) >= sum(n for size, n in before.items() if size > 32) // 2,
                (before_fd2.st_ino, before_fd2.st_dev) == (after_fd2.st_ino, after_fd2.st_dev))

    assert _in_child(job) == str((True, True, True, True, True))


def test_without_the_allocator_statistics_nothing_is_filled():
    h = _harness()

    def job():
        del sys._debugmallocstats
        return h._fill_pools()

    assert _in_child(job) == "None"
