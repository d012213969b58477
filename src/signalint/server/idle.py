"""Tidying the server's memory when it goes idle after an answer.

A tool call's garbage (the check's issues, clustering, derived values and
encoded payload, much of it in reference cycles) waits for the collector's
oldest generation, which a long-lived process runs rarely
(`runtime.long_lived`); until then the next check stands on it. So once a
tool call's answer has been written and no other tool call is in flight,
the server collects and gives free memory back (`runtime.tidy`), after
`DELAY_S` of quiet: a request that arrives sooner cancels it (the next
answer's write schedules it again), so a client asking back to back never
waits on it. The answer itself is already on its way.
"""

from __future__ import annotations

import asyncio

# Quiet after an answer's write before the server tidies.
DELAY_S = 0.05


class Idle:
    """Counts the tool calls in flight and tidies once they are answered."""

    def __init__(self, delay_s: float = DELAY_S) -> None:
        self._delay_s = delay_s
        self._busy = 0
        self._due = False  # a tool call was answered since the last tidy
        self._timer: asyncio.TimerHandle | None = None

    def begin(self) -> None:
        """A tool call starts: nothing is tidied while it runs."""
        self._busy += 1
        self._cancel()

    def end(self) -> None:
        """A tool call's handler returned; its answer is about to be written."""
        self._busy -= 1
        self._due = True

    def written(self) -> None:
        """A message went out: tidy after a quiet `DELAY_S` if a tool call
        was answered and none is in flight."""
        if self._busy or not self._due:
            return
        self._cancel()
        self._timer = asyncio.get_running_loop().call_later(self._delay_s, self._tidy)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tidy(self) -> None:
        self._timer = None
        if self._busy:
            return
        from signalint.pipeline.runtime import tidy

        self._due = False
        tidy()
