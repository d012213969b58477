"""`project.content.DigestMemo`: a file is read again whenever its content
may have changed, and only then."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from signalint.project import content


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every path whose content the memo reads."""
    calls: list[str] = []
    real = content.hash_file

    def spy(path: str) -> tuple[str, content.StatId] | None:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(content, "hash_file", spy)
    yield calls


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the files the test writes are older than the racy window."""
    real = content._wall_ns
    monkeypatch.setattr(content, "_wall_ns", lambda: real() + 10 * content.RACY_WINDOW_NS)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A file holding `x = 1`."""
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    return path


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.usefixtures("settled")
def test_a_settled_file_is_read_once_while_its_stat_holds(source: Path, reads: list[str]) -> None:
    path = source
    memo = content.DigestMemo()
    assert memo.digest(str(path)) == sha(b"x = 1\n")
    assert memo.digest(str(path)) == sha(b"x = 1\n")
    assert reads == [str(path)]


@pytest.mark.usefixtures("settled")
def test_a_same_size_edit_with_its_mtime_put_back_is_read_again(
    source: Path, reads: list[str]
) -> None:
    path = source
    memo = content.DigestMemo()
    memo.digest(str(path))
    before = path.stat()
    path.write_bytes(b"x = 2\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert memo.digest(str(path)) == sha(b"x = 2\n")
    assert len(reads) == 2


def test_a_file_written_within_the_racy_window_is_read_every_time(
    source: Path, reads: list[str]
) -> None:
    path = source
    memo = content.DigestMemo()
    memo.digest(str(path))
    memo.digest(str(path))
    assert len(reads) == 2


@pytest.mark.usefixtures("settled")
def test_missing_unreadable_and_non_regular_files_have_no_digest(
    tmp_path: Path, source: Path
) -> None:
    path = source
    memo = content.DigestMemo()
    assert memo.digest(str(path)) is not None
    path.unlink()
    assert memo.digest(str(path)) is None
    assert memo.digest(str(tmp_path)) is None
    path.write_bytes(b"x = 1\n")
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything
        return
    assert memo.digest(str(path)) is None
