"""Exceptions -> plain dicts (frames from the student's file only); compiling the student's source."""

import sys

from .base import _BUILTIN_EXCEPTIONS, MAX_FRAMES, _exc_args, _exc_tb, _type_name
from .values import _plain, _safe_str


def exception_message(e):
    args = _exc_args(e)
    try:
        if type(e) in _BUILTIN_EXCEPTIONS and all(_plain(a) for a in args):
            text = str(e)
        elif len(args) == 1:
            text = _safe_str(args[0])
        else:
            text = ", ".join(_safe_str(a) for a in args)
    except BaseException:
        text = "<message could not be shown>"
    return text if len(text) <= 2000 else text[:2000] + "..."


def exception_info(e, filename):
    frames = []
    tb = _exc_tb(e)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            frames.append((tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    trace = [f"{filename}, line {n}, in {name}" for n, name in frames]
    if len(trace) > MAX_FRAMES:   # deep recursion: keep both ends
        trace = trace[:5] + [f"... {len(trace) - 25} more lines ..."] + trace[-20:]
    return {"type": _type_name(type(e)), "message": exception_message(e),
            "line": frames[-1][0] if frames else None, "trace": trace}


def compile_source(source, filename):
    """(code, None) or (None, error dict) for the student's source (text, or the UTF-8 bytes the
    grader sent: decoded only here, where it is compiled; a life that gets its code from its
    student root compares the bytes alone, entry.student_code)."""
    if type(source) is bytes:
        source = source.decode("utf-8", "surrogatepass")
    try:
        return compile(source, filename, "exec", dont_inherit=True), None
    except SyntaxError as e:
        text = (e.text or "").rstrip("\n")
        return None, {"type": _type_name(type(e)), "message": str(e.msg), "line": e.lineno,
                      "text": text[:500] or None, "offset": e.offset,
                      "python": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    except (MemoryError, RecursionError) as e:
        return None, {"type": _type_name(type(e)), "line": None, "text": None,
                      "message": "the code is nested too deeply for Python to compile"}
    except ValueError as e:
        return None, {"type": _type_name(type(e)), "message": exception_message(e), "line": None, "text": None}
