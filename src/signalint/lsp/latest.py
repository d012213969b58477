"""Debounced work where only the newest request counts.

`Latest.schedule(key, work)` waits `delay_s`, then runs `work()`; a newer
schedule of the same key cancels the older one, whether it is still waiting
or already running (a running check is cancelled through `process.run`,
which kills its engines' process groups, so a cancelled check never
publishes). `Latest.idle(keys)` waits until those keys have no work left
(a pull request answers after the checks it would otherwise race).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable

_log = logging.getLogger(__name__)


class Latest:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}

    def schedule(
        self, key: Hashable, work: Callable[[], Awaitable[None]], delay_s: float | None = None
    ) -> asyncio.Task[None]:
        self.cancel(key)
        wait = self.delay_s if delay_s is None else delay_s

        async def run() -> None:
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.exception("signalint: %s failed", key)
            finally:
                if self._tasks.get(key) is asyncio.current_task():
                    del self._tasks[key]

        task = asyncio.get_running_loop().create_task(run())
        self._tasks[key] = task
        return task

    def cancel(self, key: Hashable) -> None:
        task = self._tasks.pop(key, None)
        if task is not None:
            task.cancel()

    def busy(self) -> bool:
        """Whether work other than the running task's own waits or runs."""
        current = asyncio.current_task()
        return any(task is not current for task in self._tasks.values())

    def pending(self, key: Hashable) -> asyncio.Task[None] | None:
        return self._tasks.get(key)

    async def idle(self, *keys: Hashable) -> None:
        """Wait until none of `keys` (every key when none is named) has work
        waiting or running; work that replaces work waited for is waited for
        too."""
        while True:
            wanted = keys or tuple(self._tasks)
            tasks = [
                task
                for key in wanted
                if (task := self._tasks.get(key)) is not None
                and not task.done()
                and task is not asyncio.current_task()
            ]
            if not tasks:
                return
            await asyncio.wait(tasks)

    async def cancel_all(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


__all__ = ["Latest"]
