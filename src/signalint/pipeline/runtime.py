"""Where a CLI command's coroutines run and how a long-lived process keeps its memory.

A command run by `signalint` makes a fresh `Context` and runs its
coroutines with `asyncio.run` (`context`, `run`); the daemon serves
request values and never runs a command's code on its loop. A process
that checks again and again (the MCP server, the daemon, `watch`) sets
its collector and C heap here (`long_lived`, `before_check`, `tidy`).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from signalint import heap

if TYPE_CHECKING:
    from signalint.cache.context import Context

T = TypeVar("T")


# Set once by `long_lived`: this process checks again and again.
_long_lived: list[bool] = []

# The collector's thresholds in a process that checks again and again.
LONG_LIVED_GC = (50_000, 50, 100)


def long_lived() -> None:
    """Set the collector for a process that checks again and again (the MCP
    server, the daemon, `watch`).

    Each check of a large program makes and drops tens of thousands of
    objects (a warm tsc answer re-reads every diagnostic of the program),
    on a heap holding the programs' kept records: with the default
    thresholds the collector ran about 45 times per edit of a 3,000-module
    project, 40 ms of a 250 ms answer (docs/benchmarks.md). Young objects
    are now collected every 50,000 allocations, and what was loaded before
    this call (modules, the tool catalogue) is never scanned again. The C
    allocator gets one arena at most more (`heap.one_arena`), and free
    memory is given back before each check (`before_check`).
    """
    gc.freeze()
    gc.set_threshold(*LONG_LIVED_GC)
    heap.one_arena()
    _long_lived.append(True)


def before_check() -> None:
    """In a long-lived process (`long_lived`), give the C heap's free memory
    back to the system before a check (`heap.give_back`): the garbage of
    the last answer is not what the next check's peak stands on."""
    if _long_lived:
        heap.give_back()


def tidy() -> None:
    """In a long-lived process (`long_lived`), collect the garbage of the
    last answers and give the C heap's free memory back to the system: run
    when the process is idle after an answer was written (the MCP server's
    `server.idle`), never on an answer's path. A check's cyclic garbage
    (its issues, clustering and derived values) otherwise waits for the
    oldest generation's rare collection, and the next check's peak stands
    on it."""
    if _long_lived:
        gc.collect()
        heap.give_back()


def context() -> Context:
    """A fresh process memory for a command's check."""
    from signalint.cache.context import Context

    return Context()


def run(work: Coroutine[Any, Any, T]) -> T:
    """`work`'s result, run on a loop of its own."""
    return asyncio.run(work)
