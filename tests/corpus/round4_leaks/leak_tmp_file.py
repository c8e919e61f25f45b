# The store: a file of the private /tmp (emptied after every fresh request, not after a shared call).
_LEAK = "/tmp/leak-store.txt"


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
