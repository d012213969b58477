"""The file primitives every store uses: whole-file writes and exclusive locks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from signalint import files
from signalint.files import LockUnavailable, locked, write_atomic


def test_a_write_replaces_the_file_whole_with_the_mode_and_time_asked(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "state.json"
    write_atomic(target, b"old")
    write_atomic(target, b"new", mode=0o640, mtime=1_000_000.0, durable=True)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_mtime == 1_000_000.0
    assert os.listdir(target.parent) == ["state.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["state.json"]


def test_a_held_lock_excludes_every_other_holder_until_released(tmp_path: Path) -> None:
    import fcntl

    lock = tmp_path / "x" / ".lock"

    def try_lock() -> bool:
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        return True

    with locked(lock) as held:
        assert held
        assert not try_lock()  # another open file description is shut out
    assert try_lock()


def test_a_lock_that_cannot_be_taken_is_an_error_only_when_required(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    impossible = blocker / "sub" / ".lock"  # a parent that is a file
    with pytest.raises(LockUnavailable, match="cannot lock"), locked(impossible):
        pass
    with locked(impossible, required=False) as held:
        assert held is False


def test_without_platform_locking_a_required_lock_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "fcntl", None)
    with pytest.raises(LockUnavailable, match="no file locking"), locked(tmp_path / ".lock"):
        pass
    with locked(tmp_path / ".lock", required=False) as held:
        assert held is False
