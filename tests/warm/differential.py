"""The scaffolding of the warm engines' differential tests (real tier).

A `Differential` runs one engine's checks through a real `WarmPool` (the
engine's driver alone) and cold, with `use_cache=False`, and compares them
as multisets of issues. Warm checks need the cache on, so each gets an
empty cache of its own (every engine runs; nothing is reused).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from signalint.cache.context import Context
from signalint.model import Issue, Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from signalint.warm.driver import Driver
from signalint.warm.pool import WarmPool

T = TypeVar("T")


class Differential:
    """`engine`'s warm checks (its `driver`) against cold ones. `files_only`:
    checks ask as the CLI's `check FILE` does (`RunRequest.files_only`);
    `checked`: the files the engine says it checked must be equal too, and
    some."""

    def __init__(
        self, engine: str, driver: Driver, *, files_only: bool = False, checked: bool = False
    ) -> None:
        self.engine = engine
        self.driver = driver
        self.files_only = files_only
        self.checked = checked

    async def check(
        self, root: Path, context: Context | None = None, files: tuple[str, ...] = ()
    ) -> CheckRun:
        """A cold check, or with a pool in `context` a warm one; with
        `files`, a check of those alone."""
        scope = Scope(files) if files else Scope()
        config = load_config(root)
        if context is None:
            request = RunRequest(root, config, scope, use_cache=False, files_only=self.files_only)
        else:
            empty = Path(tempfile.mkdtemp(prefix="warm-cache-"))
            request = RunRequest(root, config, scope, cache_dir=empty, files_only=self.files_only)
        return await run_check(request, context)

    def issues(self, run: CheckRun) -> Counter[Issue]:
        outcome = run.result.outcomes[self.engine]
        assert outcome.status == "ok", outcome.message
        return Counter(run.result.issues)

    def pool(self) -> WarmPool:
        log = Path(tempfile.mkdtemp(prefix="warm-log-"))
        return WarmPool(4 << 30, log, {self.engine: self.driver})

    def run(self, body: Callable[[WarmPool], Awaitable[T]]) -> T:
        """`body(pool)` on one event loop, the pool closed after."""

        async def main() -> T:
            warm = self.pool()
            try:
                return await body(warm)
            finally:
                await warm.close()

        return asyncio.run(main())

    async def warm_equals_cold(self, root: Path, warm: WarmPool) -> Counter[Issue]:
        """Assert a warm check equals a cold one; the cold issues."""
        warm_run = await self.check(root, Context(warm=warm))
        cold_run = await self.check(root)
        assert warm_run.result.outcomes[self.engine].served == "warm"
        assert cold_run.result.outcomes[self.engine].served == "cold"
        assert self.issues(warm_run) == self.issues(cold_run)
        if self.checked:
            checked = warm_run.result.outcomes[self.engine].files_checked
            assert checked == cold_run.result.outcomes[self.engine].files_checked > 0
        return self.issues(cold_run)
