"""A one-line progress indicator on stderr while engines run (TTY only).

stdout is a wire for the chosen format, so progress never touches it; when
stderr is not a terminal nothing is printed at all.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TextIO


class ProgressLine:
    """Tracks running engines and redraws `checking: tsc, oxlint  1.2s`."""

    def __init__(self, stream: TextIO | None = None, interval_s: float = 0.2) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.interval_s = interval_s
        self.running: list[str] = []
        self.seen = False  # whether any engine has started
        self.started = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def __call__(self, engine: str, event: str) -> None:
        if event == "start" and engine not in self.running:
            self.running.append(engine)
            self.seen = True
        elif event == "done" and engine in self.running:
            self.running.remove(engine)
        if self.enabled:
            self._draw()

    def _draw(self) -> None:
        names = ", ".join(self.running) or ("summarizing" if self.seen else "starting")
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r\x1b[Kchecking: {names}  {elapsed:.1f}s")
        self.stream.flush()

    async def _loop(self) -> None:
        while True:
            self._draw()
            await asyncio.sleep(self.interval_s)

    def start(self) -> None:
        if self.enabled:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.stream.write("\r\x1b[K")
            self.stream.flush()


@asynccontextmanager
async def progress_line(engines: Sequence[str]) -> AsyncIterator[ProgressLine]:
    """A `service.ProgressScope`: a `ProgressLine` on stderr while the engines run.

    The line is erased when the check ends, however it ends.
    """
    line = ProgressLine()
    line.start()
    try:
        yield line
    finally:
        line.stop()
