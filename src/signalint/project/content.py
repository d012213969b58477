"""A file's content digest, and a process's memo of the digests it took.

A digest is sha256 of the bytes. A memo reuses it while the file's stat
(size, mtime, ctime, inode) is the one it had when it was read, and only
for a file not written within `RACY_WINDOW_NS` before the read: a write
within one timestamp tick (ext4 ~4 ms, FAT 2 s) can leave the stat as it
was (git's "racy clean" problem), so such a file is read again next time.
The result cache's memo rows (`storage.results`) follow the same rule.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from typing import Final

RACY_WINDOW_NS: Final = 2_000_000_000
StatId = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
_wall_ns = time.time_ns  # module attribute so tests can age files


def stat_id(st: os.stat_result) -> StatId:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def hash_file(path: str) -> tuple[str, StatId] | None:
    """(sha256 hex, stat of the open file after reading) or None if unreadable.

    The stat is taken after reading so a write during the read (or a replace
    between the caller's stat and this open) shows up as a key mismatch.
    """
    try:
        with open(path, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
            return digest, stat_id(os.fstat(handle.fileno()))
    except OSError:
        return None


def content_digest(path: str | os.PathLike[str]) -> str | None:
    """The sha256 hex of a file's content, or None if it cannot be read."""
    hashed = hash_file(os.fspath(path))
    return hashed[0] if hashed is not None else None


class DigestMemo:
    """Digests of regular files, each read again only when its stat moved
    or it was too recently written to trust its stat (module docstring)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[StatId, str]] = {}

    def digest(self, path: str) -> str | None:
        """sha256 hex of `path`'s content; None when it is missing,
        unreadable or not a regular file."""
        try:
            st = os.stat(path)
        except OSError:
            self._seen.pop(path, None)
            return None
        if not stat.S_ISREG(st.st_mode):
            self._seen.pop(path, None)
            return None
        ident = stat_id(st)
        known = self._seen.get(path)
        if known is not None and known[0] == ident:
            return known[1]
        hashed = hash_file(path)
        if hashed is None:
            self._seen.pop(path, None)
            return None
        digest, after = hashed
        if after == ident and max(ident[1], ident[2]) < _wall_ns() - RACY_WINDOW_NS:
            self._seen[path] = (ident, digest)
        else:
            self._seen.pop(path, None)
        return digest
