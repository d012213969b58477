"""Fix transactions without a server: paths, drift, retention, diffs, rollback, recovery.

Write failures are injected (`tests.faults.FailAt`, as a full disk
would fail a write) at every checkpoint of a transaction; the kill -9
trials are in test_journal_kill.py.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from signalint import ids
from signalint.features.transactions import (
    DIFF_FILE_CHARS,
    Patch,
    Prepared,
    TransactionRefused,
    TransactionStore,
    locate,
    make_patches,
    preview_payload,
    write,
)
from signalint.kept import fix_journal as journal
from signalint.server.words import tool_words
from tests.faults import FailAt, journal_with


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.ts").write_text("a\n")
    (root / "src" / "b.ts").write_text("b\n")
    (root / "src" / "b.ts").chmod(0o700)
    return root


def _patch(file: str, old: str, new: str) -> dict[str, str]:
    return {"file": file, "originalContent": old, "patchedContent": new}


def _prepared(root: Path) -> Prepared:
    patches = make_patches(
        root,
        [_patch("src/a.ts", "a\n", "A\n"), _patch("src/b.ts", "b\n", "B\n"),
         _patch("gen/deep/c.ts", "", "C\n")],
    )  # fmt: skip
    return Prepared("tx-test", patches, time.time())


def test_new_files_may_be_created_in_new_directories(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert locate(root, "gen/deep/c.ts") == "gen/deep/c.ts"
    assert locate(root, "./src//a.ts") == "src/a.ts"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("src", "directory"),
        ("src/a.ts/x", "not a directory"),
        (".signalint/cache", ".signalint"),
        ("node_modules/x/index.js", "node_modules"),
        ("a\0b", "NUL"),
        ("src\\a.ts", "relative"),
        ("..", "escapes"),
        ("linked/new.ts", "symlink"),
    ],
)
def test_a_path_no_fix_may_write_is_refused_naming_the_field(
    tmp_path: Path, path: str, reason: str
) -> None:
    root = _root(tmp_path)
    os.symlink(root / "src", root / "linked")
    with pytest.raises(TransactionRefused) as refused:
        locate(root, path, "patches[3].file")
    assert refused.value.code == "path_refused" and refused.value.field == "patches[3].file"
    assert reason in refused.value.message


def test_one_file_twice_and_stale_originals_are_refused_at_preview(tmp_path: Path) -> None:
    root = _root(tmp_path)
    with pytest.raises(TransactionRefused, match=r"already patched by patches\[0\]"):
        make_patches(root, [_patch("src/a.ts", "a\n", "1"), _patch("src/a.ts", "a\n", "2")])
    with pytest.raises(TransactionRefused) as drift:
        make_patches(root, [_patch("src/a.ts", "old\n", "1"), _patch("src/new.ts", "x", "y")])
    assert drift.value.code == "file_drift_detected"
    assert drift.value.files == ["src/a.ts", "src/new.ts"]  # a missing expected file is drift


def test_previews_are_kept_twenty_at_most_for_fifteen_minutes(tmp_path: Path) -> None:
    now = [1000.0]
    store = TransactionStore(clock=lambda: now[0])
    patch = (Patch("src/a.ts", "a\n", "A\n"),)
    first = store.put(patch)
    for _ in range(20):
        store.put(patch)
    assert len(store) == 20
    with pytest.raises(TransactionRefused) as evicted:
        store.get(first.transaction_id, tool_words)
    assert evicted.value.code == "transaction_expired" and evicted.value.status == "stale"
    recent = store.put(patch)
    now[0] += 15 * 60
    with pytest.raises(TransactionRefused, match="expired"):
        store.get(recent.transaction_id, tool_words)
    with pytest.raises(TransactionRefused) as unknown:
        store.get("tx-never", tool_words)
    assert unknown.value.code == "transaction_unknown"
    kept = store.put(patch)
    assert store.discard(kept.transaction_id) is True
    assert store.discard(kept.transaction_id) is False


def test_the_preview_diff_is_bounded_and_says_when_it_was_cut() -> None:
    big = "".join(f"line {n}\n" for n in range(5000))
    prepared = Prepared("tx", (Patch("src/a.ts", "a\n", big), Patch("src/b.ts", "b\n", "B\n")), 0)
    payload = preview_payload(prepared, tool_words)
    first, second = payload["patchesPreview"]
    assert first["diffTruncated"] is True and len(first["diff"]) <= DIFF_FILE_CHARS
    assert first["diff"].endswith("\n") and first["linesAdded"] == 5000
    assert second["diff"].startswith("--- a/src/b.ts\n+++ b/src/b.ts\n")
    assert "diffTruncated" not in second and "cut" in payload["note"]
    assert (payload["filesCount"], payload["status"]) == (2, "pending")


def test_apply_writes_every_file_keeps_mode_bits_and_leaves_no_journal(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert write(root, _prepared(root)) == ["src/a.ts", "src/b.ts", "gen/deep/c.ts"]
    assert (root / "src" / "b.ts").read_text() == "B\n"
    assert stat.S_IMODE((root / "src" / "b.ts").stat().st_mode) == 0o700
    assert (root / "gen" / "deep" / "c.ts").read_text() == "C\n"
    assert [p.name for p in journal.journal_dir(root).iterdir()] == [".lock"]


@pytest.mark.parametrize("fail_at", range(1, journal.checkpoints(3) - 1))
def test_a_failed_write_puts_every_file_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    root = _root(tmp_path)
    prepared = _prepared(root)
    monkeypatch.setattr(journal, "write_all", journal_with(FailAt(fail_at)))
    with pytest.raises(TransactionRefused) as aborted:
        write(root, prepared)
    assert aborted.value.code == "transaction_aborted_and_rolled_back"
    assert (root / "src" / "a.ts").read_text() == "a\n"
    assert (root / "src" / "b.ts").read_text() == "b\n"
    assert stat.S_IMODE((root / "src" / "b.ts").stat().st_mode) == 0o700
    assert not (root / "gen").exists()
    assert not list(root.rglob(f"{journal.TEMP_PREFIX}*"))
    assert [p.name for p in journal.journal_dir(root).iterdir()] == [".lock"]


def test_a_change_between_preflight_and_write_is_drift_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    prepared = _prepared(root)
    writes = [
        journal.Write(p.file, p.patched.encode(), p.original.encode() if p.original else None)
        for p in prepared.patches
    ]
    (root / "src" / "b.ts").write_text("someone else\n")
    with pytest.raises(journal.Drifted) as drifted:
        journal.write_all(root, "tx-race", writes)
    assert drifted.value.files == ["src/b.ts"]
    assert (root / "src" / "a.ts").read_text() == "a\n"


def test_recovery_keeps_a_file_someone_changed_after_the_crash_and_its_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(tmp_path)
    prepared = _prepared(root)

    def undo_fails(*args: object) -> None:
        raise OSError("the disk went away")

    real_undo = journal._undo
    monkeypatch.setattr(journal, "_undo", undo_fails)
    last_write_done = FailAt(journal.checkpoints(3) - 2)
    monkeypatch.setattr(journal, "write_all", journal_with(last_write_done))
    with pytest.raises(TransactionRefused) as aborted:
        write(root, prepared)
    assert aborted.value.code == "transaction_aborted"
    monkeypatch.setattr(journal, "_undo", real_undo)
    (root / "src" / "a.ts").write_text("edited after the crash\n")
    [report] = journal.recover(root)
    assert report.restored == ["src/b.ts"] and report.removed == ["gen/deep/c.ts"]
    kept = report.conflicts["src/a.ts"]
    assert (root / kept).read_text() == "a\n"
    assert kept.endswith("src/a.ts.original")  # no tool reads it as code
    assert (root / "src" / "a.ts").read_text() == "edited after the crash\n"
    assert "left as found" in report.sentence()
    assert journal.recover(root) == []


def test_a_check_id_says_when_it_was_made() -> None:
    check_id = ids.new_check_id()
    made = ids.check_id_time(check_id)
    assert made is not None and abs(made - time.time()) < 5
    assert ids.check_id_time("not-a-check") is None
