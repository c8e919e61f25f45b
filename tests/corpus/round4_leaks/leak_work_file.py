# The store: a file of the work folder ($HOME), which outlives a request by design.
import os as _os

_LEAK = _os.path.join(_os.environ.get("HOME", "/tmp"), "leak-store.txt")


def _put(text):
    try:
        with open(_LEAK, "a") as f:
            f.write(text + "\n")
    except OSError:
        pass


def _get():
    try:
        with open(_LEAK) as f:
            return f.read()
    except OSError:
        return ""
