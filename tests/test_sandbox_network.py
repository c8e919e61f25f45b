"""The network walls (docs/threat-model.md, "No network"): the seccomp filter refuses every socket
(seccomp.NETWORK: socket() of any family and socketpair(), with EPERM, a clear error for the
student), in a shared worker and in a fresh request process, in a life forked by the template and
in the lives of one student root; those lives share their root's empty net namespace (one a
student, not one a life), which the filter keeps from becoming a channel between them: no
abstract unix socket or loopback connection can be made.  Without the filter (no libseccomp, or
a filter without the socket rules) each life keeps a net namespace of its own, as before."""

from __future__ import annotations

import socket
import textwrap

import pytest
from test_sandbox import ISO, call

from autograder.engine import roots, seccomp
from autograder.engine.sandbox import Sandbox, template_scope

needs_root = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                reason="student roots serve root graders with a pid namespace only")
needs_filter = pytest.mark.skipif(not seccomp.refuses_sockets(), reason="no seccomp filter here (libseccomp)")

FAMILIES = [name for name in ("AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK", "AF_PACKET", "AF_VSOCK",
                              "AF_ALG", "AF_BLUETOOTH", "AF_CAN", "AF_TIPC", "AF_RDS")
            if hasattr(socket, name)]

PROBES = textwrap.dedent("""
    import os
    import socket

    def make(names):
        out = {}
        for name in names:
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW):
                try:
                    socket.socket(getattr(socket, name), kind).close()
                    out[f"{name} {kind}"] = "made"
                except OSError as e:
                    out[f"{name} {kind}"] = e.errno
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
            try:
                for end in socket.socketpair(socket.AF_UNIX, kind):
                    end.close()
                out[f"pair {kind}"] = "made"
            except OSError as e:
                out[f"pair {kind}"] = e.errno
        return out

    def net():
        return os.readlink("/proc/self/ns/net")

    def interfaces():
        with open("/proc/net/dev") as f:
            rows = [line.split() for line in f.readlines()[2:]]
        with open("/proc/net/unix") as f:
            unix = f.readlines()[1:]
        with open("/proc/net/tcp") as f:
            tcp = f.readlines()[1:]
        try:
            with open("/proc/net/if_inet6") as f:      # (::1 only once lo is up)
                inet6 = f.read()
        except FileNotFoundError:
            inet6 = ""
        return [[row[0].rstrip(":"), int(row[1]), int(row[9])] for row in rows], len(unix), len(tcp), inet6

    def sockets_open():
        found = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                    found.append(fd)
            except OSError:
                pass                    # (listdir's own fd, closed by now)
        return found

    def listen(name):
        try:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind("\\0" + name)
            server.listen(1)
        except OSError as e:
            return e.errno
        _HELD.append(server)
        return "listening"

    def reach(name):
        try:
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("\\0" + name)
            return "connected"
        except OSError as e:
            return e.errno

    def loopback():
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=0.5).close()
            return "connected"
        except OSError as e:
            return type(e).__name__

    _HELD = []
""")


def _refused_everywhere(box: Sandbox) -> None:
    for fresh in (True, False):
        made = call(box, "make", FAMILIES, fresh=fresh)
        assert made.status == "ok", made
        assert made.value and set(made.value.values()) == {1}, made.value        # EPERM, every one
        assert call(box, "sockets_open", fresh=fresh).value == []                 # none inherited either
        assert call(box, "loopback", fresh=fresh).value == "PermissionError"


@needs_filter
@pytest.mark.skipif(not ISO["namespaces"], reason="needs the sandbox's namespaces")
def test_no_socket_of_any_family_in_a_life_forked_by_the_template():
    with Sandbox(PROBES, "yahtzee.py") as box:
        _refused_everywhere(box)
        assert box.applied["seccomp"] is True and "net" in box.applied["namespaces"]


@needs_root
@needs_filter
def test_the_lives_of_one_student_share_one_empty_net_namespace_and_no_socket():
    """A student's own life and two substitution lives (one student root): every socket refused in
    each; they share the root's net namespace (so the filter is what keeps an abstract unix socket
    or loopback from joining them: none can be made to listen, none to reach it), while a life
    forked by the template has a namespace of its own."""
    with template_scope():
        family = roots.Family([])
        lives = []
        try:
            for reference in (None, "def a():\n    return 1\n", "def b():\n    return 2\n"):
                box = Sandbox(PROBES, "yahtzee.py", reference=reference)
                box.family = family
                lives.append(box)
            for box in lives:
                _refused_everywhere(box)
                assert box.applied["started"] == "student_root" and "net" in box.applied["student_root"]
            spaces = {call(box, "net", fresh=fresh).value for box in lives for fresh in (True, False)}
            assert len(spaces) == 1, spaces
            # the root's namespace: only lo, down (no ::1), no packet in or out, no unix or TCP socket
            assert call(lives[2], "interfaces").value == [[["lo", 0, 0]], 0, 0, ""]
            assert call(lives[1], "listen", "between", fresh=False).value == 1     # EPERM: nothing listens...
            assert call(lives[0], "reach", "between").value == 1                  # ...nor could reach it
            with Sandbox(PROBES, "yahtzee.py") as alone:                            # (the template's: its own)
                assert call(alone, "net").value not in spaces
        finally:
            for box in lives:
                box.close()
            family.close()


@needs_root
@pytest.mark.parametrize("without", ["filter", "socket_rules"])
def test_without_the_socket_rules_each_life_keeps_its_own_net_namespace(monkeypatch, without):
    """No libseccomp (no filter at all), or a filter that could not take the socket rules: the
    root makes no net namespace and each life unshares its own, as before the shared one."""
    if without == "filter":
        monkeypatch.setattr(seccomp, "_cache", None)        # (filter_bpf: None, as without libseccomp)
    else:
        monkeypatch.setattr(seccomp, "refuses_sockets", lambda: False)
    with template_scope():
        family = roots.Family([])
        lives = []
        try:
            for reference in (None, "def a():\n    return 1\n"):
                box = Sandbox(PROBES, "yahtzee.py", reference=reference)
                box.family = family
                lives.append(box)
            spaces = [call(box, "net").value for box in lives]
            assert spaces[0] != spaces[1], spaces
            for box in lives:
                assert box.applied["started"] == "student_root" and "net" not in box.applied["student_root"]
                assert "net" in box.applied["namespaces"]
                assert call(box, "loopback").value != "connected"
        finally:
            for box in lives:
                box.close()
            family.close()
