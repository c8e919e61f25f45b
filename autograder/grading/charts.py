"""The class report's charts, drawn by matplotlib as static SVG (text stays text, nothing external).

Each function returns an ``<svg>`` element ready to inline in a page: real axes with ticks and
labels, a title, and no script.  A bare Figure (no pyplot, no GUI backend) and a fixed hash salt
keep the output the same from run to run.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

BLUE, ORANGE, GREY = "#3d7bd9", "#d97706", "#5b6b7f"


def _figure(figsize: tuple[float, float]):
    """A figure and its axes, without pyplot (its import and figure manager: ~0.3 s of an export)."""
    import matplotlib

    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "autograder-report",
                                "font.size": 11, "axes.spines.top": False, "axes.spines.right": False,
                                "font.family": "DejaVu Sans"})
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def warm() -> None:
    """Import matplotlib's figure and SVG backend now (~0.3 s of CPU): grade-all calls it from a
    thread while its workers grade, so the class report at the end does not wait for it.

    The collector is off meanwhile and what the import made is frozen after it: the import's
    ~10^5 objects all live as long as the process, and collecting them young cost grade-all's
    parent ~200 collections, ~45 ms (7 % of its CPU).  (Process-wide: a cycle another thread
    dropped during that ~0.3 s is frozen too and never freed, a few objects at most.)"""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        import matplotlib.backends.backend_svg  # noqa: F401
        import matplotlib.figure  # noqa: F401
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _svg(fig, chart_id: str, label: str, data: str = "") -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]                           # no XML prolog or DOCTYPE inside HTML
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    extra = f' data-values="{data}"' if data else ""
    return text.replace("<svg ", f'<svg id="{chart_id}" class="chart" role="img" aria-label="{label}"{extra} ', 1)


def histogram(percents: list[float], bins: int = 10) -> str:
    """Students per score band (0-10 %, ..., 90-100 %; 100 % lands in the last band)."""
    counts = [0] * bins
    for p in percents:
        counts[min(bins - 1, max(0, int(p * bins // 100)))] += 1
    fig, ax = _figure((7, 3))
    edges = [i * 100 / bins for i in range(bins)]
    bars = ax.bar(edges, counts, width=100 / bins * 0.9, align="edge", color=BLUE)
    ax.bar_label(bars, labels=[str(c) if c else "" for c in counts], padding=2)
    ax.set_xlim(0, 100)
    ax.set_xticks([i * 100 / bins for i in range(bins + 1)])
    ax.set_xlabel("score (% of the maximum)")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(0, max(counts + [1]) * 1.2)
    ax.set_title(f"Scores of {len(percents)} submissions", loc="left")
    return _svg(fig, "histogram", "Histogram of scores in percent", ",".join(map(str, counts)))


def rate_bars(items: list[tuple[str, float]], chart_id: str, title: str, flag_below: float = 0.0,
              axis: str = "% passed") -> str:
    """Horizontal bars, one per (label, share 0..1), on a 0-100 % axis; shares under FLAG_BELOW orange."""
    labels = [label if len(label) <= 42 else label[:40] + "..." for label, _ in items]
    shares = [100 * share for _, share in items]
    fig, ax = _figure((7, 0.9 + 0.32 * max(1, len(items))))
    colors = [ORANGE if share < 100 * flag_below else BLUE for share in shares]
    bars = ax.barh(range(len(items)), shares, color=colors, height=0.7)
    ax.bar_label(bars, labels=[f"{s:.0f}%" for s in shares], padding=3, fontsize=10)
    ax.set_yticks(range(len(items)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 110)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel(axis)
    ax.set_title(title, loc="left")
    return _svg(fig, chart_id, title, ",".join(f"{s:.0f}" for s in shares))


def draw(charts: list[tuple[Callable[..., str], tuple[Any, ...], dict[str, Any]]]) -> list[str]:
    """draw_here, by the running Drawer if there is one (it has matplotlib loaded already; should
    it fail in any way, the charts are drawn here)."""
    drawer = _DRAWER[0] if _DRAWER else None
    if drawer is not None and charts:
        drawn = drawer.draw(charts)
        if drawn is not None:
            return drawn
    return draw_here(charts)


class Drawer:
    """A forked copy of this process that imports matplotlib at once, then draws the class report's
    charts when asked (draw_here: the last in a child of its own) and sends the SVG text back.

    grade-all starts it first thing (start()), so the ~0.3 s import runs while its fork server
    boots and this process waits for it (a core otherwise idle), in a process of its own (this
    one's GIL stays free for the loop that feeds the workers), and never in this process at all.
    It draws only what it is sent (grader code, chart data); its stdout and stderr are /dev/null
    (it never holds a pipe reading ours open); it ignores Ctrl-C (ours to handle) and ends when
    it reads the end of its pipe or is killed (close()).  Should it fail in any way, the charts
    are drawn here."""

    TIMEOUT = 60.0          # seconds to wait for the charts: a drawer that hangs costs this, once

    def __init__(self, pid: int, send: int, receive: int):
        self.pid, self.send, self.receive = pid, send, receive

    @classmethod
    def start(cls) -> Drawer | None:
        """Fork one (None where fork is unsafe: another thread running, or no fork here)."""
        if not hasattr(os, "fork") or threading.active_count() > 1:
            return None
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        requests, answers = os.pipe(), os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (*requests, *answers):
                os.close(fd)
            return None
        if pid == 0:                                        # the drawer
            code = 1
            try:
                os.close(requests[1])
                os.close(answers[0])
                _serve(requests[0], answers[1])
                code = 0
            finally:
                os._exit(code)                              # no atexit, no flushing of our buffers
        os.close(requests[0])
        os.close(answers[1])
        return cls(pid, requests[1], answers[0])

    def draw(self, charts: list[tuple[Callable[..., str], tuple[Any, ...], dict[str, Any]]]) -> list[str] | None:
        """The charts' SVG text, or None (the drawer failed, is gone or took longer than TIMEOUT)."""
        if self.send < 0:
            return None
        try:
            _send(self.send, pickle.dumps(charts))
            data = _receive(self.receive, self.TIMEOUT)
            drawn = pickle.loads(data) if data else None
        except Exception:           # noqa: BLE001 -- any failure of the drawer: drawn here instead
            drawn = None
        if not (isinstance(drawn, list) and len(drawn) == len(charts) and all(isinstance(d, str) for d in drawn)):
            self.close()
            return None
        return drawn

    def close(self) -> None:
        """End it (at once: it may still be importing) and reap it."""
        if self.send < 0:
            return
        for fd in (self.send, self.receive):
            os.close(fd)
        self.send = self.receive = -1
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


_DRAWER: list[Drawer] = []


def use(drawer: Drawer | None) -> None:
    """Let draw() send its charts to DRAWER (None: draw them here again)."""
    _DRAWER[:] = [drawer] if drawer is not None else []


def _serve(requests: int, answers: int) -> None:
    """The drawer's life: matplotlib first, then each request's charts drawn and sent back."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(10)             # mostly what the grading leaves idle, never much of the path to a grade
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    _DRAWER.clear()
    warm()
    while True:
        data = _receive(requests, None)
        if not data:
            return
        _send(answers, pickle.dumps(draw_here(pickle.loads(data))))


def _send(fd: int, data: bytes) -> None:
    view = memoryview(len(data).to_bytes(8, "big") + data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, timeout: float | None) -> bytes:
    """One message (b"" at the end of the pipe); TimeoutError after TIMEOUT seconds without one."""
    import select
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: list[bytes] = []
    need, header = 8, True
    while need:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("the chart drawer did not answer")
        chunk = os.read(fd, min(need, 1 << 20))
        if not chunk:
            return b""
        chunks.append(chunk)
        need -= len(chunk)
        if not need and header:
            need, header, chunks = int.from_bytes(b"".join(chunks), "big"), False, []
    return b"".join(chunks)


def draw_here(charts: list[tuple[Callable[..., str], tuple[Any, ...], dict[str, Any]]]) -> list[str]:
    """Each (function, args, kwargs) drawn: the last chart in a forked child while this process
    draws the others (matplotlib holds the GIL: ~40-80 ms a chart, on the otherwise idle second
    core at the end of a grade-all).  The child only draws and sends the SVG text back through a
    pipe; should it fail in any way, the chart is drawn here.  One process drawing serially when
    fork is unsafe (another thread is running, or no fork on this platform)."""
    if len(charts) < 2 or not hasattr(os, "fork") or threading.active_count() > 1:
        return [function(*args, **kwargs) for function, args, kwargs in charts]
    function, args, kwargs = charts[-1]
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return [function(*args, **kwargs) for function, args, kwargs in charts]
    if pid == 0:                                         # the child: draw, send, exit at once
        code = 1
        try:
            os.close(read)
            data = pickle.dumps(function(*args, **kwargs))
            view = memoryview(data)
            while view:
                view = view[os.write(write, view):]
            code = 0
        finally:
            os._exit(code)                              # no atexit, no flushing of our buffers
    os.close(write)
    try:
        out = [function(*args, **kwargs) for function, args, kwargs in charts[:-1]]
    finally:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
    last = pickle.loads(data) if status == 0 and data else None
    return out + [last if isinstance(last, str) else function(*args, **kwargs)]
