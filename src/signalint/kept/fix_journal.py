"""Crash-safe multi-file writes: a write-ahead journal and its recovery (D9).

`write_all` replaces a set of project files so that, whatever happens to
the process (an exception, `kill -9`, a power cut), every file ends all-old
or all-new once `recover` has run:

1. Under the journal lock (`<state>/journal/.lock`, `flock`), each file's
   current content is compared with its `original` once more (`Drifted`),
   then the originals of the files that exist are written to
   `<state>/journal/<id>/originals` (one file) and the plan (`plan.json`:
   each file, whether it existed, its mode bits, where its original lies,
   the SHA-256 of its original and of its new content, the parent
   directories the apply will create) beside them. Both files and both
   directories are fsynced, and `plan.json` appears by a rename: until it
   exists no source file has been touched.
2. Each file's new content is written to an adjacent
   `.signalint-tmp-<id>-<n>` with the original's mode bits (missing parent
   directories are created first); all of them are fsynced (in parallel)
   before the first rename, then each is renamed over its target (one
   atomic step per file).
3. The parents are fsynced; removing `plan.json` is the commit point; the
   journal directory is then removed.

An apply that fails with an exception before its commit point is undone at
once (`JournalError.undone`). One that was killed is undone by `recover`,
which every start of the CLI and of the MCP server calls: files whose
content is the new content get their original back (mode bits included),
new files and the directories made for them are removed, temporary files
are deleted. A file whose content is neither (someone wrote it after the
crash) is left as found and its original is kept under
`<state>/journal/recovered/<id>/<file>.original` (a name no tool reads as
code), named in the report. The lock keeps
recovery from touching an apply that is still running in another process:
an applier holds it from its first journal write to its commit.

`write_all` calls its `checkpoint` (a no-op unless the caller gives one)
between every two steps that change the disk, with whether the
transaction is committed; `checkpoints(n)` says how many a transaction of
n files passes. Tests inject faults there (a `SIGKILL`, an `OSError` as a
full disk would raise); production code passes none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from signalint.files import locked
from signalint.settings.config import state_dir

PLAN: Final = "plan.json"
ORIGINALS: Final = "originals"
LOCK: Final = ".lock"
RECOVERED: Final = "recovered"
ORIGINAL: Final = ".original"
TEMP_PREFIX: Final = ".signalint-tmp-"
_FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class Write:
    """One file of a transaction: project-relative `file`, its new bytes, and
    its original bytes (None: the file does not exist and is created)."""

    file: str
    patched: bytes
    original: bytes | None


@dataclass
class Recovered:
    """What `recover` did for one interrupted transaction."""

    transaction_id: str
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # file -> where its original was kept, because the file held other content
    conflicts: dict[str, str] = field(default_factory=dict)

    def sentence(self) -> str:
        parts = [f"interrupted fix transaction {self.transaction_id} undone"]
        if self.restored:
            parts.append(f"restored {', '.join(self.restored)}")
        if self.removed:
            parts.append(f"removed new {', '.join(self.removed)}")
        if not self.restored and not self.removed:
            parts.append("no file had been changed")
        for file, kept in self.conflicts.items():
            parts.append(f"{file} was changed since and left as found (original kept in {kept})")
        return "; ".join(parts)


class JournalError(Exception):
    """A write failed. `undone`: every file was put back (otherwise the
    journal is kept and the next `recover` finishes the undo)."""

    def __init__(self, message: str, *, undone: bool) -> None:
        super().__init__(message)
        self.undone = undone


class Drifted(JournalError):
    """Files whose content is not their `original` any more, found under the
    lock right before the plan is written; nothing was written."""

    def __init__(self, files: list[str]) -> None:
        super().__init__(f"changed after being read: {', '.join(files)}", undone=True)
        self.files = files


def journal_dir(root: Path) -> Path:
    return state_dir(root) / "journal"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checkpoints(count: int) -> int:
    """How many fault-injection checkpoints `write_all` passes for `count` files."""
    return 3 + 4 * count + 2


Checkpoint = Callable[[bool], None]
"""Called between steps of `write_all` with whether the transaction is committed."""


def _no_checkpoint(committed: bool) -> None:
    return None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes, mode: int | None = None) -> None:
    """Create `path` (it must not exist) with `data`, fsynced; `mode` if given."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _missing_dirs(root: Path, file: str) -> list[str]:
    """Parent directories of `file` that do not exist yet, outermost first."""
    missing: list[str] = []
    parent = Path(file).parent
    while str(parent) not in ("", ".") and not (root / parent).exists():
        missing.append(parent.as_posix())
        parent = parent.parent
    return list(reversed(missing))


def _temp_name(target: Path, transaction_id: str, index: int) -> Path:
    return target.with_name(f"{TEMP_PREFIX}{transaction_id}-{index}")


def write_all(
    root: Path,
    transaction_id: str,
    writes: Sequence[Write],
    *,
    checkpoint: Checkpoint = _no_checkpoint,
) -> None:
    """Write every file of `writes` under `root`, all or nothing (module docstring).

    The caller has checked the paths (inside the root, no symlink); each
    file's current content is compared with its `original` once more under
    the lock (`Drifted`). Raises `JournalError` when a write fails; the
    files are then put back (`undone`), or, if even that failed, the
    journal stays for `recover`.
    """
    directory = journal_dir(root)
    tx_dir = directory / transaction_id
    try:
        with locked(directory / LOCK):
            _write_locked(root, tx_dir, transaction_id, writes, checkpoint)
    except JournalError:
        raise
    except OSError as exc:
        undone = True
        if (tx_dir / PLAN).exists():  # source files may have been written: put them back
            try:
                _undo(root, tx_dir, Recovered(transaction_id))
            except (OSError, ValueError, KeyError):
                undone = False
        else:  # no plan: no source file was touched
            shutil.rmtree(tx_dir, ignore_errors=True)
        raise JournalError(str(exc), undone=undone) from exc


def _write_locked(
    root: Path,
    tx_dir: Path,
    transaction_id: str,
    writes: Sequence[Write],
    checkpoint: Checkpoint,
) -> None:
    """`write_all` under the journal lock."""
    checkpoint(False)
    # Checked again under the lock, just before the plan: the last moment
    # another writer's change can be noticed without undoing anything.
    drifted = [w.file for w in writes if _read(root / w.file) != w.original]
    if drifted:
        raise Drifted(drifted)
    tx_dir.mkdir()
    entries, blob = _plan_entries(root, writes)
    _write_synced(tx_dir / ORIGINALS, blob)
    checkpoint(False)
    plan = {"format": _FORMAT, "transactionId": transaction_id, "entries": entries}
    _write_synced(tx_dir / (PLAN + ".tmp"), json.dumps(plan).encode())
    os.rename(tx_dir / (PLAN + ".tmp"), tx_dir / PLAN)
    _fsync_dir(tx_dir)
    _fsync_dir(tx_dir.parent)
    checkpoint(False)  # the plan is durable: source writes may begin
    temps: list[Path] = []
    parents: set[Path] = set()
    for index, (write, entry) in enumerate(zip(writes, entries, strict=True)):
        target = root / write.file
        for made_dir in entry["newDirs"]:
            (root / made_dir).mkdir()
            parents.add((root / made_dir).parent)
        temp = _temp_name(target, transaction_id, index)
        checkpoint(False)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            half = len(write.patched) // 2
            _write_fd(fd, write.patched[:half])
            checkpoint(False)  # a half-written temporary file
            _write_fd(fd, write.patched[half:])
            if entry["mode"] is not None:
                os.fchmod(fd, entry["mode"])
        finally:
            os.close(fd)
        temps.append(temp)
        checkpoint(False)
    # Every new content is durable before the first rename, so a power cut
    # can never leave a renamed file without its data. fsync releases the
    # GIL: syncing in parallel lets the filesystem commit them together.
    _in_parallel(_fsync_file, temps)
    for write, temp in zip(writes, temps, strict=True):
        target = root / write.file
        os.rename(temp, target)
        parents.add(target.parent)
        checkpoint(False)
    _in_parallel(_fsync_dir, sorted(parents))
    (tx_dir / PLAN).unlink()  # the commit point
    # Committed: what follows only tidies up, and cannot fail the transaction.
    with contextlib.suppress(OSError):
        _fsync_dir(tx_dir)
    checkpoint(True)
    shutil.rmtree(tx_dir, ignore_errors=True)
    checkpoint(True)


def _plan_entries(root: Path, writes: Sequence[Write]) -> tuple[list[dict[str, Any]], bytes]:
    """The plan's entry of each write (its file's mode bits, the offset of
    its original in the originals file, the digests of both contents, the
    directories it makes) and every original in one blob: one fsync, not
    one per file."""
    entries: list[dict[str, Any]] = []
    made: set[str] = set()
    blob = bytearray()
    for write in writes:
        target = root / write.file
        mode = offset = None
        if write.original is not None:
            mode = os.lstat(target).st_mode & 0o7777
            offset = len(blob)
            blob += write.original
        dirs = [d for d in _missing_dirs(root, write.file) if d not in made]
        made.update(dirs)
        entries.append(
            {
                "file": write.file,
                "existed": write.original is not None,
                "mode": mode,
                "offset": offset,
                "size": None if write.original is None else len(write.original),
                "original": None if write.original is None else digest(write.original),
                "patched": digest(write.patched),
                "newDirs": dirs,
            }
        )
    return entries, bytes(blob)


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _in_parallel(action: Callable[[Path], None], paths: Sequence[Path]) -> None:
    if len(paths) <= 1:
        for path in paths:
            action(path)
        return
    with ThreadPoolExecutor(max_workers=min(8, len(paths))) as pool:
        list(pool.map(action, paths))  # re-raises the first OSError


def recover(root: Path) -> list[Recovered]:
    """Undo every interrupted transaction of the project at `root` (module docstring).

    Cheap when there is nothing to do (one directory listing). Transactions
    whose plan was never completed or already committed only lose their
    leftover journal directory and are not reported.
    """
    directory = journal_dir(root)
    try:
        names = sorted(n for n in os.listdir(directory) if not n.startswith(".") and n != RECOVERED)
    except OSError:
        return []
    if not names:
        return []
    done: list[Recovered] = []
    with locked(directory / LOCK):
        for name in names:
            tx_dir = directory / name
            if not tx_dir.is_dir():
                continue
            if not (tx_dir / PLAN).exists():
                # Never planned (no source written) or committed: nothing to undo.
                shutil.rmtree(tx_dir, ignore_errors=True)
                continue
            report = Recovered(name)
            _undo(root, tx_dir, report)
            done.append(report)
    return done


def _undo(root: Path, tx_dir: Path, report: Recovered) -> None:
    """Put every file of the plan in `tx_dir` back, then drop the journal entry."""
    plan = json.loads((tx_dir / PLAN).read_text(encoding="utf-8"))
    entries: list[dict[str, Any]] = plan["entries"]
    parents: set[Path] = set()
    for index in reversed(range(len(entries))):
        entry = entries[index]
        target = root / entry["file"]
        parents.add(target.parent)
        with contextlib.suppress(FileNotFoundError):
            _temp_name(target, report.transaction_id, index).unlink()
        current = _read(target)
        if entry["existed"]:
            original = _original(tx_dir, entry)
            if current is not None and digest(current) == entry["original"]:
                if os.lstat(target).st_mode & 0o7777 != entry["mode"]:
                    os.chmod(target, entry["mode"])
                continue
            if current is None or digest(current) == entry["patched"]:
                temp = _temp_name(target, report.transaction_id, index)
                _write_synced(temp, original, entry["mode"])
                os.rename(temp, target)
                report.restored.append(entry["file"])
            else:
                report.conflicts[entry["file"]] = _keep(root, tx_dir, report, entry, original)
        else:
            if current is None:
                pass
            elif digest(current) == entry["patched"]:
                target.unlink()
                report.removed.append(entry["file"])
            else:
                report.conflicts[entry["file"]] = "(it did not exist before)"
        for made in reversed(entry["newDirs"]):
            with contextlib.suppress(OSError):  # not empty: someone else's files
                (root / made).rmdir()
                parents.add((root / made).parent)
    for parent in parents:
        with contextlib.suppress(OSError):
            _fsync_dir(parent)
    report.restored.reverse()
    report.removed.reverse()
    (tx_dir / PLAN).unlink()
    shutil.rmtree(tx_dir, ignore_errors=True)


def _original(tx_dir: Path, entry: dict[str, Any]) -> bytes:
    with open(tx_dir / ORIGINALS, "rb") as handle:
        handle.seek(entry["offset"])
        data = handle.read(entry["size"])
    if digest(data) != entry["original"]:
        raise ValueError(f"the journal's copy of {entry['file']} is damaged")
    return data


def _read(target: Path) -> bytes | None:
    """The content of `target`; None when it is missing (or is no regular file)."""
    try:
        if not target.is_file() or target.is_symlink():
            return None
        return target.read_bytes()
    except OSError:
        return None


def _keep(
    root: Path, tx_dir: Path, report: Recovered, entry: dict[str, Any], original: bytes
) -> str:
    # Named `<file>.original`: a source file kept in the state directory
    # would be read by the project's own tools (a type checker with an
    # `exclude` of its own walks `.signalint/` too).
    kept = journal_dir(root) / RECOVERED / report.transaction_id / f"{entry['file']}{ORIGINAL}"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(original)
    return os.path.relpath(kept, root)


def recover_and_report(root: Path, say: Callable[[str], None]) -> list[Recovered]:
    """Run `recover` for `root`, telling `say` one sentence per transaction.

    What every start of the CLI and of the MCP server calls. Never raises:
    a recovery problem is reported, and the journal stays for the next start.
    """
    try:
        done = recover(root)
    except (OSError, ValueError, KeyError) as exc:
        say(f"could not recover an interrupted fix transaction: {exc}")
        return []
    for report in done:
        say(report.sentence())
    return done


__all__ = [
    "Checkpoint",
    "JournalError",
    "Recovered",
    "Write",
    "checkpoints",
    "journal_dir",
    "recover",
    "recover_and_report",
    "write_all",
]
