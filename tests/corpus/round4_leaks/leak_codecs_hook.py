# The store: a list held by a codecs search function (state the fresh runner's clean-state check
# does not see: it reaches the later fresh requests the runner serves, e.g. games, and the shared
# calls of the runner that became the worker).
import codecs as _codecs

_LEAK_NAME = "leak_store_codec"


def _store():
    try:
        return _codecs.lookup(_LEAK_NAME).leak_lines
    except LookupError:
        lines = []

        def search(name, lines=lines):
            if name != _LEAK_NAME:
                return None
            info = _codecs.CodecInfo(lambda s: (s, 0), lambda s: (s, 0), name=_LEAK_NAME)
            info.leak_lines = lines
            return info
        _codecs.register(search)
        return _codecs.lookup(_LEAK_NAME).leak_lines


def _put(text):
    _store().append(text)


def _get():
    return "\n".join(_store())
