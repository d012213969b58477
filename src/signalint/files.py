"""Writing a file whole, and holding a lock: the two file primitives of every store.

`write_atomic` writes under a temporary name in the same directory and
renames it over the target, so a reader in any process sees the old file or
the complete new one, never a part; the temporary file outlives only a
killed process (a dot name with the target's suffix, so stores that expire
files by suffix remove it). `locked` holds an exclusive advisory `flock` on a lock file for the
duration of a block; closing the descriptor releases it, so a process that
dies (even by `kill -9`) never leaves a lock behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


class LockUnavailable(OSError):
    """An exclusive lock was required but the platform or the disk cannot give one."""


def write_atomic(
    path: Path,
    data: bytes | Iterable[bytes],
    *,
    mode: int | None = None,
    durable: bool = False,
    mtime: float | None = None,
) -> None:
    """Replace `path` with `data` in one step (module docstring); `data`
    may come in pieces, written in order (a large file need not be whole in
    memory).

    `mode` sets the permission bits (default 0o600: state is private); `durable` fsyncs
    the data before the rename, for files whose loss after a power cut
    matters; `mtime` sets the access and modification times. Missing parent
    directories are created. Raises OSError.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # A dot name ending in the target's suffix: hidden from listings of
    # live files, yet found by a store that prunes its old files by suffix.
    fd, temp = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        if mtime is not None:
            os.utime(temp, (mtime, mtime))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


@contextlib.contextmanager
def locked(
    path: Path, *, required: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[bool]:
    """Hold an exclusive lock on the lock file `path` (created if missing).

    Yields whether the lock is held. With `required` (the default) a lock
    that cannot be taken raises `LockUnavailable`; without it the block runs
    unlocked, for stores whose only risk is interleaved writers. `on_wait`
    is called once, before blocking, when another holder has the lock.
    """
    fd: int | None = None
    try:
        if fcntl is None:
            raise LockUnavailable(f"no file locking on this platform for {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError as exc:
        if fd is not None:
            os.close(fd)
            fd = None
        if required:
            if isinstance(exc, LockUnavailable):
                raise
            raise LockUnavailable(f"cannot lock {path}: {exc.strerror or exc}") from exc
    try:
        yield fd is not None
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


__all__ = ["LockUnavailable", "locked", "write_atomic"]
