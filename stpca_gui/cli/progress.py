"""Progress of a long fit on stderr: the stage, its progress and the time it has left.

``stpca fit`` and ``stpca demo`` pass :class:`FitProgress` to ``ScaledTorusPCA.fit`` as its
progress callback. Nothing is shown for a fit that ends within :data:`SHOW_AFTER` seconds.
On a terminal one line is rewritten in place (at most :data:`REDRAWS_PER_SECOND` times a
second); elsewhere (a log file, a pipe) a line is written when a stage begins and every
:data:`LOG_EVERY` seconds within it. The time left is that of the stage, extrapolated from
its share done so far; spherical MDS has no known end, so its line shows the iteration and
the stress instead.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..core import ProgressEvent

#: Seconds a fit runs before its progress is shown.
SHOW_AFTER = 1.0
#: Redraws of the terminal line per second, at most.
REDRAWS_PER_SECOND = 5.0
#: Seconds between two lines of the same stage when stderr is not a terminal.
LOG_EVERY = 30.0
#: A stage's time left is estimated once this share of it is done.
ESTIMATE_FROM = 0.02
_BAR = 20


def duration(seconds: float) -> str:
    """``seconds`` as ``42 s``, ``3 min 05 s`` or ``1 h 02 min``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class FitProgress:
    """A fit's progress callback that writes its stage, progress and time left to
    ``stream`` (stderr by default); :meth:`close` ends the line when the fit ends or fails."""

    def __init__(self, stream: TextIO | None = None, *, clock=time.perf_counter) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.start = clock()
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.stage = ""
        self.stage_start = self.start
        self.last_shown = -float("inf")
        self.width = 0
        self.shown = False

    def __call__(self, event: ProgressEvent) -> bool:
        now = self.clock()
        new_stage = event.stage != self.stage
        if new_stage:
            self.stage = event.stage
            self.stage_start = now
        if now - self.start < SHOW_AFTER or event.stage == "done":
            return False
        if self.terminal:
            if new_stage or now - self.last_shown >= 1.0 / REDRAWS_PER_SECOND:
                self._rewrite(self.line(event, now))
                self.last_shown = now
        elif new_stage or now - self.last_shown >= LOG_EVERY:
            print(self.line(event, now), file=self.stream, flush=True)
            self.last_shown = now
            self.shown = True
        return False

    def line(self, event: ProgressEvent, now: float) -> str:
        """The status text of ``event`` at time ``now``."""
        elapsed = now - self.start
        text = f"fitting {duration(elapsed)}: {event.message or event.stage}"
        if event.stage in ("smds", "smds-start") or not 0.0 < event.fraction <= 1.0:
            return text
        filled = round(_BAR * event.fraction)
        text += f"  [{'#' * filled}{'.' * (_BAR - filled)}] {100 * event.fraction:3.0f}%"
        if event.fraction >= ESTIMATE_FROM and event.fraction < 1.0:
            spent = now - self.stage_start
            text += f", about {duration(spent * (1.0 - event.fraction) / event.fraction)} left"
        return text

    def _rewrite(self, text: str) -> None:
        padding = " " * max(0, self.width - len(text))
        print(f"\r{text}{padding}", end="", file=self.stream, flush=True)
        self.width = len(text)
        self.shown = True

    def close(self) -> None:
        """End the progress line (a terminal's line is cleared)."""
        if self.shown and self.terminal:
            print(f"\r{' ' * self.width}\r", end="", file=self.stream, flush=True)
        self.shown = False
