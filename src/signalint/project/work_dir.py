"""The work directory: what Signalint keeps that holds source files, or
links to them, lives outside the project.

A project's own tools walk its tree: ESLint 9 lints dot directories,
some Pyright releases drop their exclusion of them beside an `exclude` of
the project's, a state directory may be set to one that is not hidden
(`SIGNALINT_STATE_DIR`), and a tool that does not read `.gitignore` reads
whatever sits in the state directory. So the state directory keeps only what no tool reads as
code (the result cache, snapshots, logs, engines' caches and build info),
and everything with source files or links to them is kept here, in the
user's cache directory:

- `<base>/<name>-<digest>/` per project (`for_project`): `<digest>` is of
  the project root's real path, `<name>` its last part, for people.
  `root` names the project (a project whose root is gone is removed by
  `sweep`), `trees/` holds the copies of old revisions (`old_tree`),
  `tsc/` the build mode's wrapper configs (`engines.tsc_build`).
- `<base>/cold/` the per-run directories of checks that keep nothing
  (`--no-cache`, `cold`), removed when the run ends.

`<base>` is `SIGNALINT_WORK_DIR` when set (a relative value is taken
relative to the project root, as `SIGNALINT_STATE_DIR` is; a directory
every project shares, each under its own name), else `work` in the
user's cache directory (`platformdirs.user_cache_dir("signalint")`), the
home of the managed engines too.

`TreeLock` keeps a directory that checks share (one old revision's copy)
from being rewritten or removed while another check of the same project
uses it: one holder at a time, `flock`, so a killed holder leaves nothing
behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Final

from signalint.files import write_atomic

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

WORK_VARIABLE: Final = "SIGNALINT_WORK_DIR"
ROOT_FILE: Final = "root"
COLD_DIR: Final = "cold"
# A project directory nobody used for this long, or whose root is gone, is
# removed by the next sweep; so is a cold directory a killed run left.
STALE_S: Final = 30 * 24 * 3600
ABANDONED_COLD_S: Final = 6 * 3600
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_LOCK_POLL_S: Final = 0.05


def base_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The directory every project's work directory is in (module docstring)."""
    env = os.environ if env is None else env
    override = env.get(WORK_VARIABLE, "")
    if override:
        return Path(os.path.abspath(root / os.path.expanduser(override)))
    import platformdirs  # only where a work directory is used: not every command's start

    return Path(platformdirs.user_cache_dir("signalint")) / "work"


def project_key(root: Path) -> str:
    """The name of `root`'s work directory: its last part, then a digest of its real path."""
    real = os.path.realpath(root)
    name = _UNSAFE.sub("_", os.path.basename(real))[:40] or "root"
    return f"{name}-{hashlib.sha256(os.fsencode(real)).hexdigest()[:16]}"


def for_project(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """`root`'s work directory (not created: `prepare` does)."""
    return base_dir(root, env) / project_key(root)


# When this process last marked each project's work directory used.
_marked: dict[str, float] = {}
_MARK_EVERY_S: Final = 3600.0


def prepare(work: Path, root: Path, legacy: Path | None = None) -> bool:
    """Create the work directory `work` of the project at `root`, name the
    project in it and mark it used now (once an hour per process: every
    check calls this). A directory made now first sweeps its siblings
    (`sweep`: a new project is when old ones are looked at) and removes
    what an older Signalint kept in the state directory `legacy`
    (`remove_legacy`), before it is made. True when the directory was
    made now."""
    key = os.fspath(work)
    now = time.monotonic()
    last = _marked.get(key)
    if last is not None and now - last < _MARK_EVERY_S and work.is_dir():
        return False
    made = not work.is_dir()
    if made:
        sweep(work.parent)
        if legacy is not None:
            remove_legacy(legacy)
    with contextlib.suppress(OSError):
        work.mkdir(parents=True, exist_ok=True)
        named = work / ROOT_FILE
        real = os.path.realpath(root)
        if not named.is_file() or named.read_text(encoding="utf-8") != real:
            write_atomic(named, real.encode("utf-8"), mode=0o644)
        os.utime(named)
        _marked[key] = now
    return made


# What older versions kept in the state directory that holds source files
# or links to them; removed once a project gets its work directory.
LEGACY: Final = ("baseline", "tsc/build")


def remove_legacy(state: Path) -> None:
    """Remove from the state directory `state` what `LEGACY` names."""
    for name in LEGACY:
        shutil.rmtree(state / name, ignore_errors=True)


def sweep(base: Path, *, now: float | None = None) -> list[Path]:
    """Remove the project directories under `base` whose project is gone or
    that nobody used for `STALE_S`, and cold directories a killed run left;
    never one a check is using (its `TreeLock`s are held). Returns what was
    removed."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    with contextlib.suppress(OSError), os.scandir(base) as entries:
        for entry in list(entries):
            if not entry.is_dir(follow_symlinks=False):
                continue
            path = Path(entry.path)
            if entry.name == COLD_DIR:
                _sweep_cold(path, now)
                continue
            named = path / ROOT_FILE
            try:
                root = named.read_text(encoding="utf-8")
                used = named.stat().st_mtime
            except OSError:
                # Not named (yet): only one long untouched goes.
                root, used = "", _mtime(path, now)
            if (not root or os.path.isdir(root)) and now - used < STALE_S:
                continue
            if remove_unused(path):
                removed.append(path)
    return removed


def _mtime(path: Path, now: float) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return now


def _sweep_cold(cold: Path, now: float) -> None:
    with contextlib.suppress(OSError), os.scandir(cold) as entries:
        for entry in list(entries):
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > ABANDONED_COLD_S:
                    shutil.rmtree(entry.path, ignore_errors=True)


def remove_unused(directory: Path) -> bool:
    """Remove `directory` unless a lock in it (`*.lock`, at any depth down
    to its `trees/`) is held; True when it is gone."""
    held: list[int] = []
    try:
        for lock in [*directory.glob("*.lock"), *directory.glob("*/*.lock")]:
            fd = try_lock(lock)
            if fd is None:
                return False
            held.append(fd)
        shutil.rmtree(directory, ignore_errors=True)
        return not directory.exists()
    finally:
        for fd in held:
            os.close(fd)


@contextlib.contextmanager
def cold_dir(root: Path, label: str, env: Mapping[str, str] | None = None) -> Iterator[Path]:
    """A fresh work directory for one run that keeps nothing, removed after."""
    parent = base_dir(root, env) / COLD_DIR
    parent.mkdir(parents=True, exist_ok=True)
    made = Path(tempfile.mkdtemp(prefix=f"{_UNSAFE.sub('_', label)}-", dir=parent))
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def make_cold_dir(root: Path, label: str, env: Mapping[str, str] | None = None) -> Path:
    """`cold_dir` for a caller that removes it itself (later, off the answer's path)."""
    parent = base_dir(root, env) / COLD_DIR
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{_UNSAFE.sub('_', label)}-", dir=parent))


def try_lock(path: Path) -> int | None:
    """An exclusive lock on `path` taken now, as an open descriptor; None when held."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return os.open(os.devnull, os.O_RDONLY)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


@contextlib.asynccontextmanager
async def tree_lock(path: Path) -> AsyncIterator[None]:
    """Hold the exclusive lock `path` for the block, waiting for it without
    blocking the event loop (a cancelled wait holds nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = try_lock(path)
    while fd is None:
        await asyncio.sleep(_LOCK_POLL_S)
        fd = try_lock(path)
    try:
        yield
    finally:
        os.close(fd)


def size_of(directory: Path) -> tuple[int, int]:
    """Files and bytes under `directory`, links not followed."""
    files = size = 0
    for current, _, names in os.walk(directory):
        for name in names:
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(current, name)).st_size
                files += 1
    return files, size


__all__ = [
    "COLD_DIR",
    "LEGACY",
    "ROOT_FILE",
    "STALE_S",
    "WORK_VARIABLE",
    "base_dir",
    "cold_dir",
    "for_project",
    "make_cold_dir",
    "prepare",
    "project_key",
    "remove_legacy",
    "remove_unused",
    "size_of",
    "sweep",
    "tree_lock",
    "try_lock",
]
