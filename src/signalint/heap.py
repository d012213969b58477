"""The C allocator of a process that checks again and again (glibc only).

Python hands objects larger than 512 bytes, and every C extension its
buffers, to the C library's `malloc`. glibc gives each thread that
allocates its own arena (up to eight per core), and memory freed in one
arena serves only that arena's later requests; a long-lived server whose
checks run on the event loop, the snapshot writer, the hashing threads and
the result store's threads spreads its garbage over several arenas, and
the process keeps each one's high-water mark. Freed memory at the top of an
arena is returned to the system only past a threshold that grows with the
largest block ever freed.

A long-lived process (the MCP server, the daemon, `watch`:
`runtime.long_lived`) therefore asks for one arena more at most
(`one_arena`: arenas that exist already stay; a thread started later
shares them), and gives free memory back before each check
(`give_back`: `malloc_trim`, well under a millisecond). On the
3,000-module benchmark the cap took the server's peak from 146-153 to
about 135 MiB (docs/benchmarks.md). Elsewhere (musl, macOS, Windows) both are
no-ops.
"""

from __future__ import annotations

import sys
from typing import Any

# glibc's `mallopt` parameter for the number of arenas (malloc.h).
M_ARENA_MAX = -8
ARENAS = 1

_libc: list[Any] = []


def _glibc() -> Any | None:
    """The C library, when it is glibc (it has `malloc_trim`); else None."""
    if not sys.platform.startswith("linux"):
        return None
    if not _libc:
        try:
            import ctypes

            libc = ctypes.CDLL(None)
            found = libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
        except (OSError, AttributeError):
            found = None
        _libc.append(found)
    return _libc[0]


def one_arena() -> bool:
    """Cap glibc's arenas at `ARENAS` for threads started from now on (module
    docstring); whether the cap was set."""
    libc = _glibc()
    return libc is not None and libc.mallopt(M_ARENA_MAX, ARENAS) == 1


def give_back() -> bool:
    """Return the C heap's free memory to the system; whether any was."""
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1
