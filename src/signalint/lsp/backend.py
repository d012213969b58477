"""The language server's one seam to the check service: every answer it needs.

The language server asks three things, and only through `Backend`:

- `check_disk`: the whole project on disk, as `signalint check` checks it (the
  result cache, the process's warm engines), its snapshot kept so the ids
  it reports resolve in `signalint show`;
- `check_buffer`: one file's unsaved content, checked by the engines that
  check a file on its own and by the whole-program engines of its language
  that can check a buffer (`BUFFER_PROGRAMS`: tsc, Pyright, basedpyright), in a sparse
  shadow copy of the project where the files being edited hold their
  buffers (`signalint.pipeline.shadow`: those files copied, everything else a link
  into the project), nothing written in the project. The copy is the
  overlay: every engine reads the buffer there as it would read the saved
  file, through its own adapter and command, so the answer is the cold
  check's of that content (D23). The copy lasts while the same files are
  edited, so its own warm workers (the TypeScript worker's kept program,
  Pyright's language server) and its own result cache (in the copy, keyed
  by content like any) answer the next keystroke; a file joining the
  edited set makes a new copy, whose first check starts them cold;
- `fixed_text`: the buffer after the engines' own safe fixes
  (`fixes.suggest`, run on such a shadow copy).

`check_disk` goes to the project's daemon (`daemon.client.check`, started
on demand), which owns the project's one warm pool: an editor, an agent's
MCP server, its hooks and a terminal share one worker per engine. The
shadow copy is another root, whose buffers no other front end sees, so its
workers are this process's own, for as long as the copy lasts. The rest of
the language server sees the same `Checked` values either way.

The copy's checks that a whole-program engine takes part in run on an
event loop of their own, in a thread (`CopyLoop`; their warm pool belongs
to that loop): the walk of the copy, parsing a whole program's answer and
merging it are seconds of work on a large project, and the server's loop
goes on reading and answering the editor's messages meanwhile (a newer
change cancels the copy's check from there, as it would on one loop). A
check by the linters alone (a keystroke's first answer) runs on the
server's loop with a pool of its own, so it never waits behind them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Coroutine, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Final, TypeVar

from signalint.cache.context import Context
from signalint.daemon import client
from signalint.engines.registry import ENGINES, engine_cache_dirs
from signalint.kept.snapshot_store import SnapshotStore, snapshot_dir
from signalint.model import Issue
from signalint.pipeline.request import ProgressScope, no_progress
from signalint.service import check_service as service
from signalint.settings.config import Config, load_config

# The shadow copy and its warm pool (`signalint.pipeline.shadow`, `signalint.warm`)
# are imported where a buffer is first checked: a session whose checks the
# daemon answers never loads them (tests/daemon/test_thin_clients.py).

# The whole-program engines that check a buffer in the shadow copy (their
# spec's `checks_buffer`: tsc, Pyright and basedpyright). mypy
# does not: its warm worker is a second `dmypy`-sized process per copy and
# its cold start in a fresh copy takes longer than a save (issue 38: mypy
# answers on save).
BUFFER_PROGRAMS: Final = frozenset(n for n, e in ENGINES.items() if e.spec.checks_buffer)
# How long closing waits for a daemon it was the last client of to be gone.
LEAVE_DAEMON_S: Final = 2.0


def buffer_engines(config: Config, language: str | None = None) -> tuple[str, ...]:
    """The enabled engines that check a buffer of `language`: every engine
    that checks a file on its own, and the `BUFFER_PROGRAMS` of `language`
    (none when it is None)."""
    return tuple(
        n
        for n in config.enabled_engines
        if not ENGINES[n].spec.whole_program
        or (n in BUFFER_PROGRAMS and language is not None and ENGINES[n].spec.language == language)
    )


def buffer_linters(config: Config, language: str | None = None) -> tuple[str, ...]:
    """The engines of `buffer_engines` that check a file on its own: they
    answer a keystroke first, before the whole-program engines."""
    return tuple(n for n in buffer_engines(config, language) if not ENGINES[n].spec.whole_program)


def buffer_programs(config: Config, language: str | None) -> tuple[str, ...]:
    """The whole-program engines of `buffer_engines` for `language` (tsc,
    Pyright): they answer a keystroke after the linters."""
    return tuple(n for n in buffer_engines(config, language) if ENGINES[n].spec.whole_program)


def unseen_engines(config: Config, language: str | None) -> tuple[str, ...]:
    """The enabled whole-program engines of `language` that do not check a
    buffer: they answer for it once it is saved."""
    checking = buffer_engines(config, language)
    return tuple(
        n
        for n in config.enabled_engines
        if ENGINES[n].spec.whole_program
        and n not in checking
        and ENGINES[n].spec.language == language
    )


T = TypeVar("T")


class CopyLoop:
    """An event loop in a thread of its own, where the shadow copy's checks
    run (module docstring): started at the first, stopped by `close`."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="signalint-shadow-copy", daemon=True
            )
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """`work`'s answer, run on this loop; cancelling the caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    async def close(self) -> None:
        """Cancel what still runs on the loop and wait for it to end (a
        cancelled engine run ends its process group), then stop the loop."""
        loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        finished = asyncio.run_coroutine_threadsafe(_cancel_the_rest(), loop)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(finished), CLOSE_S)
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        loop.close()


# How long closing waits for the copy's cancelled checks to end their
# engines (a process group is killed, then waited for).
CLOSE_S = 10.0


async def _cancel_the_rest() -> None:
    """Cancel every other task of the running loop and wait for them."""
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


@dataclasses.dataclass(frozen=True, slots=True)
class _Copy:
    """A shadow copy held (`stack` removes it), with the memory and warm
    workers of its checks: `linters` on the server's loop, for a check by
    the engines that check a file on its own alone (a keystroke's first
    answer, never queued behind a whole program's work); `programs` on the
    `CopyLoop`, for every check a whole-program engine takes part in (its
    linters answer from the copy's result cache, filled by the first)."""

    stack: ExitStack
    path: Path
    linters: Context
    programs: Context


def _only(config: Config, names: Sequence[str]) -> Config:
    engines = {
        name: setting if name in names else dataclasses.replace(setting, enabled=False)
        for name, setting in config.engines.items()
    }
    return dataclasses.replace(config, engines=engines)


class Backend:
    """The check service as the language server uses it, for one project root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = load_config(root)
        # Disk checks go to the daemon, or run here cold when it cannot serve.
        self._context = Context()
        self._store = self._new_store()
        self._buffers: dict[str, bytes] = {}  # file -> what the copy holds
        self._shadow: _Copy | None = None
        self.copy_loop = CopyLoop()  # where the copy's checks run

    def _new_store(self) -> SnapshotStore:
        return SnapshotStore(
            self.config.snapshot_max,
            self.config.snapshot_ttl_s,
            directory=snapshot_dir(self.root),
            background=True,
        )

    async def restart(self) -> Config:
        """Read the settings again and start every warm engine afresh (a
        settings file, lockfile or installed tool changed)."""
        await self.close()  # leaves the daemon: started by us alone, it stops
        self._buffers.clear()
        self.config = load_config(self.root)
        self._context = Context()
        self._store = self._new_store()
        return self.config

    async def check_disk(self, progress: ProgressScope = no_progress) -> service.Checked:
        """The whole project, as `signalint check` checks it."""
        request = service.CheckRequest(self.root, self.config, progress=progress)
        services = service.Services(self._context, self._store)
        return await client.check(request, services, kind="lsp", start=True)  # type: ignore[no-any-return]

    async def _copy_holding(self, file: str, data: bytes) -> _Copy:
        """The shadow copy with `file` holding `data` (a new copy when `file`
        is not among the copied files yet)."""
        known = self._shadow is not None and file in self._buffers
        self._buffers[file] = data
        if self._shadow is not None and known:
            target = self._shadow.path / file
            if target.read_bytes() != data:
                target.write_bytes(data)
            return self._shadow
        await self._close_shadow()
        from signalint.pipeline.shadow import shadow_copy
        from signalint.warm.pool import open_pool

        stack = ExitStack()
        path = stack.enter_context(
            shadow_copy(
                self.root, self._buffers, only=list(self._buffers), skip=engine_cache_dirs()
            )
        )
        self._shadow = _Copy(
            stack,
            path,
            Context(warm=open_pool(path, self.config)),
            Context(warm=open_pool(path, self.config)),
        )
        return self._shadow

    async def check_buffer(
        self,
        file: str,
        text: str,
        engines: Sequence[str],
        *,
        files_only: bool = False,
    ) -> service.Checked:
        """`file` (project-relative) holding `text`, by `engines` (a part of
        `buffer_engines`; the other open buffers as the copy holds them:
        their unsaved text until saved or closed). `files_only`: the
        whole-program engines' warm workers may answer for `file` alone
        (`CheckRequest.files_only`: the TypeScript worker's `only`, Pyright's
        pull of that file), not re-checking its dependents first."""
        config = _only(self.config, engines)
        copy = await self._copy_holding(file, text.encode("utf-8"))
        request = service.CheckRequest(
            copy.path, config, [file], kind="files", files_only=files_only
        )
        if any(ENGINES[name].spec.whole_program for name in engines):
            work = service.check(request, service.Services(copy.programs))
            checked = await self.copy_loop.run(work)
        else:  # the linters alone: a few ms of work, never queued behind a program's
            checked = await service.check(request, service.Services(copy.linters))
        self._store.put(checked.snapshot)
        return checked

    async def check_copy(self, engines: Sequence[str]) -> service.Checked | None:
        """The whole shadow copy as it holds the unsaved buffers now, by
        `engines` (whole-program ones: what they say of the buffers'
        dependents). None when no copy is held."""
        if self._shadow is None:
            return None
        copy = self._shadow
        request = service.CheckRequest(copy.path, _only(self.config, engines))
        return await self.copy_loop.run(service.check(request, service.Services(copy.programs)))

    def release(self, file: str) -> None:
        """`file` is saved or closed: the copy holds what is on disk again."""
        if file not in self._buffers or self._shadow is None:
            return
        try:
            data = (self.root / file).read_bytes()
        except OSError:
            return
        self._buffers[file] = data
        target = self._shadow.path / file
        if target.read_bytes() != data:
            target.write_bytes(data)

    async def _close_shadow(self) -> None:
        if self._shadow is None:
            return
        copy, self._shadow = self._shadow, None
        if copy.linters.warm is not None:
            await copy.linters.warm.close()
        if copy.programs.warm is not None:
            await self.copy_loop.run(copy.programs.warm.close())
        copy.stack.close()

    async def fixed_text(
        self, file: str, text: str, issues: Sequence[Issue], engine: str | None
    ) -> str | None:
        """`text` of `file` after the safe fixes of `engine` (every fixing
        engine of `issues` when None); None when nothing changes."""
        from signalint.features.engine_fixes import suggest
        from signalint.pipeline.shadow import shadow_copy

        data = {file: text.encode("utf-8")}
        with shadow_copy(self.root, data, only=[file], skip=engine_cache_dirs()) as shadow:
            suggestion = await suggest(shadow, self.config, issues, engine)
        for patch in suggestion.patches:
            if patch.file == file:
                return patch.patched
        return None

    def flush(self) -> None:
        """Wait for the kept snapshots to be written."""
        self._store.flush()

    async def close(self) -> None:
        """Stop the warm engines and write what is kept."""
        self._store.flush()
        await self._close_shadow()
        await self.copy_loop.close()
        if self._context.warm is not None:
            await self._context.warm.close()
        # A daemon this server started stops when its last client leaves.
        await asyncio.to_thread(client.leave, self.root, "lsp", LEAVE_DAEMON_S)


__all__ = [
    "BUFFER_PROGRAMS",
    "Backend",
    "CopyLoop",
    "buffer_engines",
    "buffer_linters",
    "buffer_programs",
    "unseen_engines",
]
