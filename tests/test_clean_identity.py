"""The clean-state check (harness/clean.py, identities.py) compares by IDENTITY what may hold the
student's objects: no __eq__ or __hash__ of theirs can make a changed process look clean.

For each kind of state the check watches (a list's items, a set's members, sys.modules' keys and
values, the harness's own names, signal handlers, the profile function, async generator hooks, a
ctypes type's dict) a request plants an object that is EQUAL to what was there (an object whose
__eq__ says True, hashed as the original; a str subclass equal to the original string): the
request after it must not see it, i.e. the runner retired and that request runs in a new process.
With each dict-version detector: "testcapi" also stands for a Python where the lists' and sets'
items cannot be read in memory (identities.PlainIds, the slow reader)."""

from __future__ import annotations

import sys

import pytest
from helpers.harness import loaded as _ns

from autograder.engine.sandbox import Limits, Request, Sandbox

DETECTORS = ("ctypes", "testcapi")

PLANTS = '''
import _signal
import os
import signal
import sys


class Same:
    """Equal to anything, hashed as what it stands for (and answering for it)."""

    def __init__(self, original):
        self.original = original

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash(self.original)

    def __call__(self, *args):
        return None

    def __getattr__(self, name):
        return getattr(self.original, name)


class Text(str):
    """A string equal to the original (str's own __eq__)."""


def named(obj, name="Same"):
    return type(obj).__name__ == name


def pid():
    return os.getpid()


def harness_names():
    names = sys._getframe(2).f_globals
    while "_RUN" not in names:                  # (the first caller of ours that is the harness)
        raise LookupError("no harness frame")
    return names


def plant_list_item():
    sys.path[-1] = Same(sys.path[-1])


def seen_list_item():
    return named(sys.path[-1])


def plant_list_text():
    sys.path[-1] = Text(sys.path[-1])


def seen_list_text():
    return type(sys.path[-1]) is not str


def plant_meta_path():
    sys.meta_path[-1] = Same(sys.meta_path[-1])


def seen_meta_path():
    return named(sys.meta_path[-1])


def plant_set_member():
    member = next(iter(os.supports_fd))
    os.supports_fd.discard(member)
    os.supports_fd.add(Same(member))             # (its hash is the member's: found where it was)


def seen_set_member():
    return any(named(f) for f in os.supports_fd)


def plant_module():
    sys.modules["types"] = Same(sys.modules["types"])


def seen_module():
    return named(sys.modules["types"])


def plant_module_key():
    sys.modules[Text("types")] = sys.modules.pop("types")


def seen_module_key():
    return any(type(k) is not str for k in sys.modules)


def plant_harness_name():
    names = harness_names()
    names["TEMPLATE_FILE"] = Text(names["TEMPLATE_FILE"])


def seen_harness_name():
    return type(harness_names()["TEMPLATE_FILE"]) is not str


def plant_signal_handler():
    _signal.signal(signal.SIGUSR1, Same(signal.SIG_DFL))    # (equal to SIG_DFL's 0)


def seen_signal_handler():
    return named(_signal.getsignal(signal.SIGUSR1))


def plant_profile():
    sys.setprofile(Same(None))


def seen_profile():
    return named(sys.getprofile())


def plant_asyncgen_hook():
    sys.set_asyncgen_hooks(firstiter=Same(None))


def seen_asyncgen_hook():
    return named(sys.get_asyncgen_hooks().firstiter)


def plant_ctypes_type():
    import ctypes
    ctypes.c_int.__module__ = Text(ctypes.c_int.__module__)


def seen_ctypes_type():
    import ctypes
    return type(vars(ctypes.c_int)["__module__"]) is not str
'''

KINDS = ("list_item", "list_text", "meta_path", "set_member", "module", "module_key", "harness_name",
         "signal_handler", "profile", "asyncgen_hook", "ctypes_type")


def _call(box, func):
    out = box.run(Request("call", func, fresh=True))
    assert out.status == "ok", (func, out)
    return out.value


@pytest.mark.parametrize("detector", DETECTORS)
def test_an_object_equal_to_what_it_replaced_retires_the_runner(detector, monkeypatch):
    if detector == "testcapi":
        pytest.importorskip("_testcapi", reason="this Python has no _testcapi")
    monkeypatch.setenv("AUTOGRADER_DICT_VERSIONS", detector)
    seen = {}
    with Sandbox(PLANTS, "yahtzee.py", Limits(wall_s=2)) as box:
        for kind in KINDS:
            runner = _call(box, "pid")
            assert _call(box, "pid") == runner          # a runner serving clean requests
            assert box.applied["fresh_runner"] == detector
            _call(box, f"plant_{kind}")
            seen[kind] = (_call(box, f"seen_{kind}"), _call(box, "pid") != runner)
    assert seen == dict.fromkeys(KINDS, (False, True))


def _readers(ns, containers):
    import ctypes  # noqa: F401  (the fast reader uses ctypes only where it is loaded)
    fast = ns.container_ids(containers, "ctypes")
    if sys.implementation.name == "cpython" and (3, 6) <= sys.version_info[:2] <= (3, 13):
        assert type(fast).__name__ == "ContainerIds"
    return [fast, ns.container_ids(containers, "testcapi")]


class Same:
    def __init__(self, original):
        self.original = original

    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(self.original)


class Text(str):
    pass


CHANGES = {
    "an item equal to anything": lambda lst, st: lst.__setitem__(1, Same(lst[1])),
    "a str subclass equal to the item": lambda lst, st: lst.__setitem__(0, Text(lst[0])),
    "an equal string, another object": lambda lst, st: lst.__setitem__(0, "".join(list(lst[0]))),
    "reversed": lambda lst, st: lst.reverse(),
    "a member with a forged hash": lambda lst, st: (st.discard("b"), st.add(Same("b"))),
    "a str subclass member": lambda lst, st: (st.discard("c"), st.add(Text("c"))),
    "grown into a table of its own": lambda lst, st: st.update(map(str, range(20))),
}
# The same objects at the same places again: the fast reader may still say changed (an item array
# moved, a set's table with a dummy entry), which only retires a runner; the slow one says same.
RESTORED = {
    "appended then popped": lambda lst, st: (lst.extend(range(100)), [lst.pop() for _ in range(100)]),
    "cleared then refilled": lambda lst, st: lst.__init__(list(lst)),
    "a member out and back": lambda lst, st: (st.discard("a"), st.add("a")),
}


@pytest.mark.parametrize("change", [*CHANGES, *RESTORED])
def test_the_readers_see_an_equal_object_as_another(change):
    """Both readers: unchanged containers read the same (a look changes nothing); any change that
    leaves an EQUAL content but not the same objects at the same places reads as changed."""
    ns = _ns()
    lst = ["first-" + str(id(change)), 2 ** 70, None]
    st = {"a", "b", "c"}
    fresh = ["never-written"]
    for reader in _readers(ns, (lst, st, fresh, [])):
        base = reader.hold()
        assert base is not None and reader.same(base) and reader.same(base)
        saved_list, saved_set = list(lst), set(st)
        {**CHANGES, **RESTORED}[change](lst, st)
        try:
            if change in CHANGES:
                assert not reader.same(base), type(reader).__name__
            elif type(reader).__name__ == "PlainIds":
                assert reader.same(base)
            else:
                reader.same(base)                    # (either answer: no crash)
        finally:
            lst[:] = saved_list
            st.clear()
            st.update(saved_set)


def test_a_reading_increfs_no_item_and_holds_what_it_read():
    """The fast reader touches none of the items (their reference counts unchanged: no page of
    theirs copied on write in a runner); it holds each item it answers for, so no address in its
    reading can be reused by another object while it is compared."""
    ns = _ns()
    item = object()
    lst = [item]
    count = sys.getrefcount(item)
    reader = _readers(ns, (lst,))[0]
    held = sys.getrefcount(item)
    base = reader.hold()
    if type(reader).__name__ == "ContainerIds":
        assert held == count + 1                    # (its holder, made with it: a tuple of the items)
        assert reader.read() == base and reader.same(base) and sys.getrefcount(item) == held
    lst[0] = object()                                # the original dropped by the list
    del item
    assert not reader.same(base)
    lst.pop()
    assert not reader.same(base)


def test_the_fast_reader_refuses_what_it_cannot_read():
    ns = _ns()
    import ctypes  # noqa: F401
    assert ns.ContainerIds.make(([], (1,))) is None          # a tuple: not a watched kind
    same = [1]
    assert ns.ContainerIds.make((same, same)) is None        # the same list twice
    assert type(ns.container_ids(((1,),), "ctypes")).__name__ == "PlainIds"
    assert type(ns.container_ids(([1],), "testcapi")).__name__ == "PlainIds"
