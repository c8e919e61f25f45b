# Builds a table at import with a loop whose every name keeps the same object from pass to pass:
# its progress is inside a collections.defaultdict, which a subscript grows through its C
# factory (no Python frame runs).  The endless-loop proof (harness/endless.py) took a subscript
# for an opcode that changes nothing and proved this finite loop endless at its first look: the
# import timed out in every request, 0.  A subscript now counts as still only on a list, tuple,
# str, bytes, dict or range that a load named: the loop runs to its end, full marks.
import collections as _collections

_TABLE = _collections.defaultdict(int)
while len(_TABLE) < 300_000:
    _TABLE[len(_TABLE)]
