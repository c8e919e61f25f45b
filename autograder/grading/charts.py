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
