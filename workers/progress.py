"""A one-line progress report on stderr: done/total, rate, ETA.

On a terminal the line is redrawn in place a few times a second; otherwise
(``ray job logs``, CI) a plain line is printed every ``log_every_s`` seconds so
logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _fmt_duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    def __init__(
        self,
        total: int,
        *,
        already_done: int = 0,
        enabled: bool = True,
        stream: TextIO | None = None,
        log_every_s: float = 10.0,
        label: str = "",
    ) -> None:
        self.total = total
        self.already_done = already_done
        self.done = 0
        self.errors = 0
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = 0.2 if self.tty else log_every_s
        self.label = label
        self.start = time.monotonic()
        self._last = 0.0

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = self.total - self.already_done - self.done
        eta = _fmt_duration(left / rate) if rate > 0 else "--:--"
        done = self.already_done + self.done
        pct = 100.0 * done / self.total if self.total else 100.0
        head = f"{self.label} " if self.label else ""
        return (
            f"{head}{done}/{self.total} ({pct:.0f}%) errors={self.errors} "
            f"{rate:.2f} req/s elapsed {_fmt_duration(elapsed)} eta {eta}"
        )

    def update(self, *, error: bool = False) -> None:
        self.done += 1
        self.errors += int(error)
        now = time.monotonic()
        if self.enabled and now - self._last >= self.interval:
            self._last = now
            self._emit()

    def _emit(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if not self.enabled:
            return
        self._emit()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
