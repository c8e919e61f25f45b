"""grade-all's measuring hook (the bench): with $AUTOGRADER_BATCH_TRACE set, the parent, the fork
server, every worker, its grading session and the charts' drawer append their phases and CPU to
that file, one JSON object a line ({"event", "at": epoch seconds, "pid", "cpu", ...}).  A module of
its own, importing nothing heavy: `grade` and the drawer use it without multiprocessing."""

from __future__ import annotations

import os
import time
from typing import Any

TRACE_ENV = "AUTOGRADER_BATCH_TRACE"


def trace(event: str, **fields: Any) -> None:
    """Append EVENT with this process's CPU so far (its threads included) to $AUTOGRADER_BATCH_TRACE,
    if set: one write of one short line with O_APPEND, so the processes' lines never interleave."""
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    import json

    line = json.dumps({"event": event, "at": time.time(), "pid": os.getpid(), "cpu": time.process_time(),
                       **fields}) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        pass
