"""Where a CLI command's coroutines run and which process memory they use.

A command run by `signalint` itself makes a fresh `Context` and runs its
coroutines with `asyncio.run`. The same command run by the daemon on a
client's behalf (`daemon.server`) uses the daemon's one `Context` (with its
warm pool) and the daemon's one event loop, to which the workers' pipes
belong; the daemon installs that as the current `Runtime` for the life of
the process. Commands ask here (`context`, `run`) instead of deciding.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from signalint.context import Context

T = TypeVar("T")


class Runtime(Protocol):
    """A long-lived process's memory and loop, lent to the commands it runs."""

    def context(self) -> Context: ...

    def run(self, work: Coroutine[Any, Any, T]) -> T: ...


_current: list[Runtime] = []


def install(runtime: Runtime | None) -> None:
    """Make `runtime` the process's (None: back to one context per command)."""
    _current.clear()
    if runtime is not None:
        _current.append(runtime)


def context() -> Context:
    """The process memory a command's check uses: the daemon's, else a fresh one."""
    if _current:
        return _current[0].context()
    from signalint.context import Context

    return Context()


def run(work: Coroutine[Any, Any, T]) -> T:
    """`work`'s result, run on the daemon's loop when there is one."""
    if _current:
        return _current[0].run(work)
    return asyncio.run(work)
