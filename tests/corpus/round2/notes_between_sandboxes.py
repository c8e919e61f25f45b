# Charge-once substitution runs one student's program in several sandbox lives: its own, and one
# per stage holding the reference WITHOUT that stage's functions.  Each life of this program works
# out which one it is (the names of the reference functions its memory holds), leaves a note
# through every channel two lives could share (files in /tmp, /var/tmp and /dev/shm and in the
# shared read-only root, the host name, an abstract unix socket held by its long-lived worker, a
# POSIX message queue) and looks for the notes of the others and for processes of another uid
# (signals, /proc/<pid>/mem).  Finding any, it breaks every function it is graded on.  Every life
# has its own mount, ipc and pid namespaces, private folders and uid, no socket (the filter), and
# the root, host name and empty net namespace they share hold nothing: nothing is found, 100.
import gc as _gc
import os as _os
import socket as _socket
import sys as _sys
import types as _types

_HELD = []     # what keeps this life's notes alive (the shared worker keeps its module)


def _who():
    names = set()
    spaces = [obj for obj in _gc.get_objects() if isinstance(obj, dict)]
    frame = _sys._getframe()
    while frame is not None:
        spaces.append(frame.f_globals)
        frame = frame.f_back
    for space in spaces:
        for value in list(space.values()):
            if isinstance(value, _types.CodeType) and value.co_filename == "<reference>":
                names.update(c.co_name for c in value.co_consts if isinstance(c, _types.CodeType))
    return "own" if not names else "ref%08x" % (hash(",".join(sorted(names))) & 0xFFFFFFFF)


def _message_queue():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mq_open.restype = ctypes.c_int
        return libc, libc.mq_open(b"/notes", _os.O_CREAT | _os.O_RDWR | _os.O_NONBLOCK, 0o600, None)
    except (OSError, AttributeError, ImportError):
        return None, -1


_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/", "/etc", "/proc", "/dev")   # the last four: the
#                                                      read-only root one student root builds for all


def _leave_notes(me):
    try:
        _socket.sethostname(f"note-{me}")       # the uts namespace is the student root's
    except OSError:
        pass
    for folder in _FOLDERS:
        try:
            with open(f"{folder}/note-{me}", "w") as f:
                f.write(me)
        except OSError:
            pass
    try:
        server = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        server.bind(f"\0note-{me}")
        server.listen(1)
        _HELD.append(server)
    except OSError:
        pass
    libc, queue = _message_queue()
    if queue >= 0:
        libc.mq_send(queue, me.encode(), len(me), 0)


def _notes_of_others(me):
    found = []
    if _socket.gethostname().startswith("note-") and _socket.gethostname() != f"note-{me}":
        found.append("hostname " + _socket.gethostname())
    for folder in _FOLDERS:
        try:
            found += [f"{folder}/{n}" for n in _os.listdir(folder) if n.startswith("note-") and n != f"note-{me}"]
        except OSError:
            pass
    try:
        with open("/proc/net/unix") as f:
            found += [line.split()[-1] for line in f if "@note-" in line and f"@note-{me}" not in line]
    except OSError:
        pass
    libc, queue = _message_queue()
    if queue >= 0:
        import ctypes
        buf = ctypes.create_string_buffer(1 << 13)
        while True:
            n = libc.mq_receive(queue, buf, len(buf), None)
            if n < 0:
                break
            if buf.raw[:n].decode() != me:
                found.append("mq:" + buf.raw[:n].decode())
        libc.mq_send(queue, me.encode(), len(me), 0)
    mine = _os.getuid()
    for pid in _os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/status") as f:
                    uids = [line.split()[1] for line in f if line.startswith("Uid:")]
            except OSError:
                continue
            if uids and int(uids[0]) != mine:
                found.append(f"pid {pid} of uid {uids[0]}")
    return found


_ME = _who()
_FOUND = _notes_of_others(_ME)
_leave_notes(_ME)

if _FOUND:
    def _broken(*args, **kwargs):
        raise RuntimeError("a note from another sandbox: " + ", ".join(_FOUND)[:300])
    for _name, _value in list(globals().items()):
        if isinstance(_value, _types.FunctionType) and not _name.startswith("_"):
            globals()[_name] = _broken
