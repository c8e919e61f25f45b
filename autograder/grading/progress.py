"""grade-all's progress line: a bar with rate and ETA on a terminal, a plain line otherwise."""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """A progress bar with rate and ETA on a terminal; a plain line every 10% (or 10 s) otherwise."""

    def __init__(self, total: int, stream=None, width: int = 28, enabled: bool = True):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = width
        self.enabled = enabled and total > 0
        self.started = time.monotonic()
        self.done = 0
        self._last_draw = 0.0
        self._last_tenth = -1

    def line(self, current: str = "") -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else None
        pct = 100 * self.done / self.total if self.total else 100.0
        eta_text = _clock(eta) if eta is not None else "--:--"
        text = f"{self.done}/{self.total} {pct:3.0f}%  {rate:.1f}/s  ETA {eta_text}"
        if self.tty:
            filled = int(self.width * self.done / self.total) if self.total else self.width
            text = f"[{'#' * filled}{'.' * (self.width - filled)}] {text}  {current[:24]}"
        return text

    def advance(self, current: str = "") -> None:
        self.done += 1
        self.draw(current)

    def draw(self, current: str = "", force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if force or now - self._last_draw > 0.1 or self.done == self.total:
                self.stream.write("\r\x1b[K" + self.line(current))
                self.stream.flush()
                self._last_draw = now
            return
        tenth = int(10 * self.done / self.total)
        if force or tenth != self._last_tenth or now - self._last_draw > 10:
            self.stream.write("grade-all: " + self.line() + "\n")
            self.stream.flush()
            self._last_tenth, self._last_draw = tenth, now

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
