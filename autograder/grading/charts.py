"""The class report's charts, drawn by matplotlib as static SVG (text stays text, nothing external).

Each function returns an ``<svg>`` element ready to inline in a page: real axes with ticks and
labels, a title, and no script.  A bare Figure (no pyplot, no GUI backend) and a fixed hash salt
keep the output the same from run to run.  grade-all has them drawn by a Drawer: a process that
imports matplotlib on CPU nothing else wants while the workers grade.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .tracing import trace

BLUE, ORANGE, GREY = "#3d7bd9", "#d97706", "#5b6b7f"

Chart = tuple[Callable[..., str], tuple[Any, ...], dict[str, Any]]        # (function, args, kwargs)


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
        import matplotlib.artist

        # Each Artist class's set() gets a docstring listing its properties when the class is
        # made (artist.kwdoc: ~50 ms of the ~0.3 s import); nothing we draw reads a docstring,
        # so they are left short while the figure's modules load, and kwdoc is itself again after.
        kwdoc = matplotlib.artist.kwdoc
        matplotlib.artist.kwdoc = _no_kwdoc
        try:
            import matplotlib.backends.backend_svg  # noqa: F401
            import matplotlib.figure  # noqa: F401
        finally:
            matplotlib.artist.kwdoc = kwdoc
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _no_kwdoc(artist: Any) -> str:
    return "Properties: (not listed: imported for drawing only)"


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


def draw(charts: list[Chart], drawer: Drawer | None = None) -> list[str]:
    """Each (function, args, kwargs) drawn: by DRAWER if it can (grade-all's, below), else here,
    the last chart in a forked child while this process
    draws the others (matplotlib holds the GIL: ~40-80 ms a chart, on the otherwise idle second
    core at the end of a grade-all).  The child only draws and sends the SVG text back through a
    pipe; should it fail in any way, the chart is drawn here.  One process drawing serially when
    fork is unsafe (another thread is running, or no fork on this platform)."""
    if drawer is not None:
        drawn = drawer.draw(charts)
        trace("charts", by="drawer" if drawn is not None else "here")
        if drawn is not None:
            return drawn
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


# --- the drawer: matplotlib imported by another process, on CPU nothing else wants ------------------

# The drawer's program (`python -S -c`; its path, given whole: the package this process runs, then
# this one's path).  Its main thread only starts the thread that imports everything else (this
# module too) at SCHED_IDLE; should that fail, the drawer exits and is never ready.
_SERVE = """
import os, sys, threading
sys.path[:] = sys.argv[1:]
done = []
def importing():
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))     # this thread only
    except OSError:
        pass                # (refused: imported at the normal priority, as the parent would)
    from autograder.grading import charts
    charts.warm()
    charts.rate_bars([("a", 0.5)], "warm", "warm")        # (font, text layout: ~5 ms less for the first chart)
    charts.trace("drawer-imported", policy=os.sched_getscheduler(0))
    done.append(charts)
thread = threading.Thread(target=importing, daemon=True)          # (Ctrl-C: no wait for it)
thread.start()
thread.join()
if not done:
    os._exit(1)
done[0]._serve()
"""
_ROOT = str(Path(__file__).resolve().parents[2])
_READY = b"R"
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
LAGGING_AFTER = 1.0         # s: while the workers grade, a drawer not ready this long after its start
LAGGING_SHARE = 0.1         # that got less than this share of a core since is lagging (a busy machine)
STARVED_WINDOW = 0.1        # s: when the charts are wanted, a drawer still importing that got less than
STARVED_SHARE = 0.5         # this share of a core over the last window is starved (a busy machine),
READY_AT_MOST = 1.0         # and one that is not ready after this long is given up


class Drawer:
    """A process that imports matplotlib while grade-all's workers grade, on CPU nothing else
    wants, and draws the class report's charts at the end.

    Its import runs in a thread at SCHED_IDLE (on Linux a thread's own policy): it gets a core
    only when no other process wants it (a worker waiting on its sandbox, the last grades'
    wind-down), so its ~0.25 s of CPU is not taken from the workers, as the parent's own import
    was.  Its main thread, at the normal priority, draws once the import is done (a thread
    cannot leave SCHED_IDLE again without privileges).  It is sent chart data only (numbers
    and the course's titles: nothing a student's program produced) and sends SVG text back;
    anything else (it is not ready, it starves, dies, hangs or answers nonsense) and the caller
    draws the charts itself, as before."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.ready = False
        self.sent: list[Chart] | None = None
        self.started = time.monotonic()

    @classmethod
    def start(cls) -> Drawer | None:
        """A new drawer (importing at once), or None where a thread cannot run at SCHED_IDLE."""
        if not hasattr(os, "SCHED_IDLE") or not os.path.exists("/proc/self/stat"):
            return None
        try:
            process = subprocess.Popen([sys.executable, "-S", "-c", _SERVE, _ROOT, *sys.path],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        except OSError:
            return None
        return cls(process)

    def send(self, charts: list[Chart]) -> None:
        """Have CHARTS drawn now if the drawer is ready, without waiting (draw(CHARTS) collects them)."""
        try:
            if self.sent is None and self._wait_ready(patience=0.0):
                self._send(charts)
        except (OSError, ValueError):
            self.close()                    # (draw() then says None: the caller draws them)

    def lagging(self, last: bool = False) -> bool:
        """Whether the drawer is not ready and either the LAST grades run (a short batch, or a slow
        import) or it got under LAGGING_SHARE of a core since its start (LAGGING_AFTER at least),
        or it is gone: the caller then gives it up while the workers still grade and imports
        matplotlib itself, as before, not after the last grade."""
        try:
            if self.ready or self._wait_ready(patience=0.0):
                return False
        except (OSError, ValueError):
            return True
        cpu, elapsed = self._cpu(), time.monotonic() - self.started
        if cpu is None:
            return True
        return last or (elapsed >= LAGGING_AFTER and cpu < LAGGING_SHARE * elapsed)

    def _send(self, charts: list[Chart]) -> None:
        self.sent = charts
        self.process.stdin.write(pickle.dumps(charts))
        self.process.stdin.close()
        trace("charts-sent")

    def draw(self, charts: list[Chart], timeout: float = 60.0) -> list[str] | None:
        """CHARTS drawn by the drawer, or None (the caller draws them): the drawer is then stopped."""
        try:
            if self.sent is None:
                if not self._wait_ready():
                    return None
                self._send(charts)
            elif self.sent != charts:
                return None
            data = self._read_all(time.monotonic() + timeout)
            if data is None or self.process.wait(timeout) != 0:
                return None
            drawn = pickle.loads(data)
        except Exception:       # noqa: BLE001 -- whatever the drawer or its answer did: drawn here instead
            return None
        finally:
            self.close()
        if (isinstance(drawn, list) and len(drawn) == len(charts)
                and all(isinstance(svg, str) and svg.startswith("<svg") for svg in drawn)):
            return drawn
        return None

    def _wait_ready(self, patience: float = READY_AT_MOST) -> bool:
        """True once the drawer says its import is done; False when it is starved (under
        STARVED_SHARE of a core over a STARVED_WINDOW: the machine is busy, and the caller, at the
        normal priority, imports sooner than it would), slow (PATIENCE) or gone."""
        if self.ready:
            return True
        out = self.process.stdout.fileno()
        began = window = time.monotonic()
        used = self._cpu()
        while used is not None:
            if select.select([out], [], [], min(0.01, patience))[0]:
                self.ready = os.read(out, 1) == _READY
                return self.ready
            now, cpu = time.monotonic(), self._cpu()
            if cpu is None or now - began >= patience:
                return False
            if now - window >= STARVED_WINDOW:
                if cpu - used < STARVED_SHARE * (now - window):
                    return False
                used, window = cpu, now
        return False

    def _cpu(self) -> float | None:
        """The drawer's CPU so far (s, all its threads; in clock ticks), None once it has exited."""
        if self.process.poll() is not None:
            return None
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / _TICKS        # utime + stime

    def _read_all(self, deadline: float) -> bytes | None:
        out, parts = self.process.stdout.fileno(), []
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([out], [], [], left)[0]:
                break
            part = os.read(out, 1 << 16)
            if not part:
                return b"".join(parts)
            parts.append(part)
        return None

    def close(self) -> None:
        """Stop the drawer (if it still runs) and reap it: its CPU counts as this process's children's."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def _serve() -> None:
    """The drawer's side, its import done (_SERVE): say so, then draw what comes on stdin (a
    pickled list of charts) and send the SVG texts back on stdout."""
    out = sys.stdout.buffer
    out.write(_READY)
    out.flush()
    charts = pickle.loads(sys.stdin.buffer.read())
    drawn = draw(charts)
    trace("drawer-drew")
    out.write(pickle.dumps(drawn))
    out.flush()
    os._exit(0)             # now: the caller reads to our end (no teardown of matplotlib's objects)
