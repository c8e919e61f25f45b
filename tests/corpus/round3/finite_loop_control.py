# The control of finite_loop_at_import: the same table built with a counter that changes every
# pass (a new int object each time), which the endless-loop proof never took for a cycle.
import collections as _collections

_TABLE = _collections.defaultdict(int)
_N = 0
while _N < 300_000:
    _TABLE[_N]
    _N = _N + 1
