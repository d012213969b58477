"""Retained snapshots: bounds, expiry, persistence, references, listing (D6, D19)."""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from signalint.features.snapshot_query import (
    STALE_CHECK,
    CursorError,
    IssueFilter,
    list_issues,
    snapshot_summary,
)
from signalint.kept.snapshot_codec import RowMemo, decode_snapshot, encode_snapshot
from signalint.kept.snapshot_store import SnapshotStore
from signalint.model import EngineOutcome
from signalint.pipeline.report import check_payload
from signalint.pipeline.snapshot import Snapshot, find_references
from signalint.server.words import tool_words
from tests.factories import issue, snapshot


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_store_returns_what_was_put_and_none_for_unknown_ids() -> None:
    store = SnapshotStore(clock=Clock())
    snap = snapshot([issue()], check_id="a")
    store.put(snap)
    assert store.get("a") is snap
    assert store.get("nope") is None


def test_store_expires_snapshots_after_the_ttl() -> None:
    clock = Clock()
    store = SnapshotStore(ttl_s=60, clock=clock)
    store.put(snapshot([], check_id="old"))
    clock.now += 30
    store.put(snapshot([], check_id="new"))
    clock.now += 30
    assert store.get("old") is None
    assert store.get("new") is not None
    clock.now += 30
    assert store.get("new") is None and len(store) == 0


def test_store_evicts_the_oldest_beyond_max_count() -> None:
    store = SnapshotStore(max_count=2, clock=Clock())
    for name in ("a", "b", "c"):
        store.put(snapshot([], check_id=name))
    assert store.get("a") is None
    assert store.get("b") is not None and store.get("c") is not None


def test_putting_an_existing_id_again_makes_it_the_newest() -> None:
    store = SnapshotStore(max_count=2, clock=Clock())
    store.put(snapshot([], check_id="a"))
    store.put(snapshot([], check_id="b"))
    store.put(snapshot([], check_id="a"))
    store.put(snapshot([], check_id="c"))
    assert store.get("b") is None and store.get("a") is not None


def test_store_rejects_nonsense_bounds() -> None:
    with pytest.raises(ValueError):
        SnapshotStore(max_count=0)


def test_stale_answer_has_the_reference_shape() -> None:
    assert STALE_CHECK["status"] == "stale" and "checkId" in STALE_CHECK["message"]


def test_summary_has_metadata_and_the_check_payload_pieces() -> None:
    issues = [issue(line=1), issue(line=2), issue(rule="eqeqeq", message="Use ===")]
    snap = snapshot(issues, check_id="abc", created_at=86400.0)
    summary = snapshot_summary(snap, tool_words)
    payload = check_payload(snap.result, snap.clustering, words=tool_words)
    assert summary["checkId"] == "abc"
    assert summary["fingerprint"] == snap.result.fingerprint
    assert summary["createdAt"] == "1970-01-02T00:00:00Z"
    assert summary["source"] == "project" and summary["targets"] == ["."]
    assert summary["status"] == "issues_found"
    for key in ("engines", "totalIssues", "clusters", "remainingIssues", "omittedIssueCount"):
        assert summary[key] == payload[key]
    assert "issues" not in summary


def test_files_snapshot_summary_reports_the_filtered_count() -> None:
    snap = snapshot([issue()], targets=("src/a.ts",))
    summary = snapshot_summary(snap, tool_words)
    assert summary["source"] == "files" and summary["filteredOutIssueCount"] == 0


def test_references_by_full_id_then_prefix() -> None:
    first, second = issue(line=1), issue(line=9)
    snap = snapshot([first, second])
    assert find_references(snap, issue_id=first.issue_id) == [first]
    assert find_references(snap, issue_id=snap.short_id(second)) == [second]
    assert find_references(snap, issue_id=first.issue_id.upper()) == [first]
    assert find_references(snap, issue_id="zz") == []
    assert find_references(snap, issue_id="") == []


def test_references_by_cluster_id_give_every_member() -> None:
    members = [issue(line=n) for n in (1, 2, 3)]
    snap = snapshot([*members, issue(rule="eqeqeq", message="Use ===")])
    cluster_id = snap.clustering.clusters[0].cluster_id
    assert find_references(snap, cluster_id=cluster_id) == members
    assert find_references(snap, cluster_id="000000000000") == []
    both = find_references(snap, cluster_id=cluster_id, issue_id=members[1].issue_id)
    assert both == [members[1]]
    with pytest.raises(ValueError):
        find_references(snap)


def test_list_issues_pages_through_every_issue_with_a_cursor() -> None:
    issues = [issue(line=n) for n in range(1, 8)]
    snap = snapshot(issues)
    seen: list[str] = []
    cursor = None
    while True:
        page = list_issues(snap, cursor=cursor, limit=3)
        assert page["checkId"] == "c0" and page["total"] == 7
        seen += [detail["issueId"] for detail in page["issues"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen == [i.issue_id for i in snap.result.issues]


def test_list_issues_details_are_full_with_short_id_and_cluster() -> None:
    snap = snapshot([issue(line=1), issue(line=2)])
    detail = list_issues(snap)["issues"][0]
    assert detail["message"] == "'x' is declared but never used."
    assert detail["shortId"] == snap.short_id(snap.result.issues[0])
    assert detail["clusterId"] == snap.clustering.clusters[0].cluster_id


def test_list_issues_filters() -> None:
    issues = [
        issue(file="src/a.ts"),
        issue(file="src/deep/b.ts", severity="warning"),
        issue(file="lib/c.ts", rule="eqeqeq", engine="eslint"),
    ]
    snap = snapshot(issues, engines={"oxlint": "ok", "eslint": "ok"})
    assert list_issues(snap, where=IssueFilter(file="src"))["total"] == 2
    assert list_issues(snap, where=IssueFilter(file="src/a.ts"))["total"] == 1
    assert list_issues(snap, where=IssueFilter(file="sr"))["total"] == 0
    assert list_issues(snap, where=IssueFilter(rule="eqeqeq"))["total"] == 1
    assert list_issues(snap, where=IssueFilter(severity="warning"))["total"] == 1
    assert list_issues(snap, where=IssueFilter(engine="eslint"))["issues"][0]["file"] == "lib/c.ts"


def test_a_cursor_from_another_check_or_filter_is_refused() -> None:
    issues = [issue(line=n) for n in range(1, 5)]
    first, other = snapshot(issues, check_id="one"), snapshot(issues, check_id="two")
    cursor = list_issues(first, limit=2)["nextCursor"]
    assert list_issues(first, cursor=cursor, limit=2)["total"] == 4
    with pytest.raises(CursorError):
        list_issues(other, cursor=cursor, limit=2)
    with pytest.raises(CursorError):
        list_issues(first, cursor=cursor, limit=2, where=IssueFilter(rule="no-unused-vars"))
    with pytest.raises(CursorError):
        list_issues(first, cursor="!!not-base64!!")


def test_list_issues_validates_the_limit() -> None:
    snap = snapshot([])
    for bad in (0, 501):
        with pytest.raises(ValueError):
            list_issues(snap, limit=bad)
    assert list_issues(snap, limit=500) == {"checkId": "c0", "total": 0, "issues": []}


# --- persistence (D19) --------------------------------------------------------


def _disk_store(directory: Path, clock: Clock | None = None, **kw: Any) -> SnapshotStore:
    warnings: list[str] = kw.pop("warnings", [])
    return SnapshotStore(clock=clock or Clock(), directory=directory, warn=warnings.append, **kw)


def _rich_snapshot(check_id: str = "0123456789abcdef") -> Snapshot:
    issues = [
        issue(line=1, end_line=2, end_col=7, docs_url="https://d/x", help="Remove it."),
        issue(line=2, fixable=True, also_reported_by=("eslint",)),
        issue(file="src/ünï code.ts", rule="TS2322", engine="tsc", message="a\n  b"),
    ]
    snap = snapshot(issues, check_id=check_id, targets=("src",), created_at=1234.5)
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok", tuple(issues[:2]), None, 12.5, 7, 3, 4),
        "tsc": EngineOutcome(
            "tsc", "error", tuple(issues[2:]), "tsc failed", 1.0, 2, 0, 2, "b skipped"
        ),
    }
    result = replace(snap.result, outcomes=outcomes)
    return Snapshot(result, snap.clustering, snap.targets, snap.kind, 5)


def test_a_snapshot_saved_by_one_store_is_read_by_another_process_store(tmp_path: Path) -> None:
    original = _rich_snapshot()
    _disk_store(tmp_path).put(original)
    loaded = _disk_store(tmp_path).get(original.check_id)
    assert loaded is not None and loaded is not original
    assert loaded.result.issues == original.result.issues
    assert [i.issue_id for i in loaded.result.issues] == [
        i.issue_id for i in original.result.issues
    ]
    assert loaded.result.check_id == original.check_id
    assert loaded.result.fingerprint == original.result.fingerprint
    assert loaded.result.created_at == 1234.5
    assert (loaded.targets, loaded.kind, loaded.filtered_out) == (("src",), "files", 5)
    tsc = loaded.result.outcomes["tsc"]
    assert (tsc.status, tsc.message, tsc.files_checked, tsc.coverage_gap) == (
        "error", "tsc failed", 2, "b skipped",
    )  # fmt: skip
    assert snapshot_summary(loaded, tool_words) == snapshot_summary(original, tool_words)


def test_decoding_what_was_encoded_gives_equal_details() -> None:
    original = _rich_snapshot()
    loaded = decode_snapshot(encode_snapshot(original))
    assert [loaded.detail(i) for i in loaded.result.issues] == [
        original.detail(i) for i in original.result.issues
    ]


def test_saved_snapshots_expire_after_the_ttl(tmp_path: Path) -> None:
    clock = Clock()
    _disk_store(tmp_path, clock, ttl_s=60).put(snapshot([], check_id="old"))
    clock.now += 61
    assert _disk_store(tmp_path, clock, ttl_s=60).get("old") is None
    assert not (tmp_path / "old.snapshot").exists()  # pruned, not only hidden


def test_only_the_newest_max_count_files_are_kept(tmp_path: Path) -> None:
    clock = Clock()
    for name in ("a", "b", "c"):
        clock.now += 1
        _disk_store(tmp_path, clock, max_count=2).put(snapshot([], check_id=name))
    reader = _disk_store(tmp_path, clock, max_count=2)
    assert reader.get("a") is None
    assert reader.get("b") is not None and reader.get("c") is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.snapshot", "c.snapshot"]


def test_a_corrupt_or_foreign_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    (tmp_path / "bad1.snapshot").write_bytes(b'{"format": "signalint-snapshot", "vers')
    (tmp_path / "bad2.snapshot").write_text('{"format": "something else"}')
    (tmp_path / "bad3.snapshot").write_text('{"format": "signalint-snapshot", "version": 1}')
    store = _disk_store(tmp_path, warnings=warnings)
    for name in ("bad1", "bad2", "bad3"):
        assert store.get(name) is None
    assert len(warnings) == 3 and all("skipping unreadable snapshot" in w for w in warnings)
    good = snapshot([issue()], check_id="good")
    store.put(good)
    assert store.resolve(snap_id := good.short_id(good.result.issues[0])) is not None, snap_id


def test_a_failed_save_is_a_warning_and_the_id_still_resolves_in_process(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    warnings: list[str] = []
    store = _disk_store(blocker / "snapshots", warnings=warnings)
    store.put(snapshot([], check_id="kept"))
    assert store.get("kept") is not None
    assert len(warnings) == 1 and "could not save check kept" in warnings[0]


def test_ids_that_could_name_other_files_are_never_looked_up(tmp_path: Path) -> None:
    (tmp_path / "secret.snapshot").write_text("{}")
    store = _disk_store(tmp_path / "snapshots")
    for bad in ("../secret", "/etc/passwd", "a/b", "", ".tmp-x"):
        assert store.get(bad) is None
        assert store.resolve(bad) is None


def test_background_saves_are_on_disk_after_flush(tmp_path: Path) -> None:
    writer = _disk_store(tmp_path, background=True)
    for n in range(5):
        writer.put(snapshot([issue(line=n + 1)], check_id=f"bg{n}"))
    writer.flush()
    reader = _disk_store(tmp_path)
    assert all(reader.get(f"bg{n}") is not None for n in range(5))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_resolve_names_a_check_a_cluster_or_an_issue(tmp_path: Path) -> None:
    members = [issue(line=n) for n in (1, 2, 3)]
    single = issue(rule="eqeqeq", message="Use ===")
    snap = snapshot([*members, single], check_id="feedc0de00000000")
    _disk_store(tmp_path).put(snap)
    store = _disk_store(tmp_path)
    found = store.resolve("feedc0de00000000")
    assert found is not None and found.kind == "check" and found.issues == ()
    cluster_id = snap.clustering.clusters[0].cluster_id
    found = store.resolve(cluster_id.upper())
    assert found is not None and found.kind == "cluster" and list(found.issues) == members
    found = store.resolve(snap.short_id(single))
    assert found is not None and found.kind == "issue" and found.issues == (single,)
    assert store.resolve("abc") is None  # too short to mean one thing
    assert store.resolve("ffffffffffff") is None


def test_resolve_prefers_the_newest_check_that_has_the_id(tmp_path: Path) -> None:
    clock = Clock()
    shared = issue()
    for check_id in ("older", "newer"):
        clock.now += 1
        _disk_store(tmp_path, clock).put(snapshot([shared], check_id=check_id))
    found = _disk_store(tmp_path, clock).resolve(shared.issue_id[:12])
    assert found is not None and found.snapshot.check_id == "newer"


def test_groups_demoted_from_the_summary_keep_resolvable_cluster_ids() -> None:
    issues = [issue(rule=f"r{n:02d}", file=f"f{i}.ts") for n in range(12) for i in (1, 2)]
    snap = snapshot(issues)
    returned = {c.cluster_id for c in snap.clustering.clusters}
    demoted = [g for g in snap.groups if g.cluster_id not in returned]
    assert len(returned) == 10 and len(demoted) == 2
    assert find_references(snap, cluster_id=demoted[0].cluster_id) == list(demoted[0].issues)
    assert snap.detail(demoted[0].issues[0])["clusterId"] == demoted[0].cluster_id


def _write_many(directory: str, prefix: str) -> None:
    store = SnapshotStore(max_count=5, directory=Path(directory), warn=_raise)
    for n in range(30):
        store.put(snapshot([issue(line=n + 1)], check_id=f"{prefix}{n:02d}"))
        for other in ("p", "q", "r"):
            store.get(f"{other}{n:02d}")  # None or whole, never a torn file


def _raise(message: str) -> None:
    raise AssertionError(message)


@pytest.mark.real  # three new interpreters writing at once: seconds
def test_processes_saving_and_reading_at_once_never_see_a_torn_file(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_write_many, args=(str(tmp_path), prefix)) for prefix in "pqr"
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert len(list(tmp_path.glob("*.snapshot"))) == 5


def test_a_file_from_another_process_is_decoded_once_until_it_changes(tmp_path: Path) -> None:
    clock = Clock()
    _disk_store(tmp_path, clock).put(snapshot([issue()], check_id="shared"))
    reader = _disk_store(tmp_path, clock)
    first = reader.get("shared")
    assert first is not None and reader.get("shared") is first
    clock.now += 1
    _disk_store(tmp_path, clock).put(snapshot([issue(), issue(line=2)], check_id="shared"))
    again = reader.get("shared")
    assert again is not None and again is not first and len(again.result.issues) == 2


def test_a_remembered_row_is_reused_only_for_the_same_issue_object() -> None:
    memo = RowMemo()
    first = _rich_snapshot()
    assert encode_snapshot(first, memo) == encode_snapshot(first)
    changed = [replace(i, help="other help") for i in first.result.issues]
    second = snapshot(changed, check_id=first.check_id, targets=first.targets, created_at=1234.5)
    second = Snapshot(
        replace(second.result, outcomes=first.result.outcomes), second.clustering,
        first.targets, first.kind, 5,
    )  # fmt: skip
    loaded = decode_snapshot(encode_snapshot(second, memo))
    assert {i.help for i in loaded.result.issues} == {"other help"}


def test_only_the_newest_written_snapshots_stay_decoded_in_memory(tmp_path: Path) -> None:
    from signalint.kept.snapshot_store import KEEP_DECODED

    store = _disk_store(tmp_path)
    snaps = [snapshot([issue(line=n + 1)], check_id=f"c{n}") for n in range(KEEP_DECODED + 3)]
    for snap in snaps:
        store.put(snap)
    newest = snaps[-KEEP_DECODED:]
    assert all(store.get(s.check_id) is s for s in newest)
    # The older ones were released from memory and are read back from their files.
    for old in snaps[:-KEEP_DECODED]:
        loaded = store.get(old.check_id)
        assert loaded is not None and loaded is not old
        assert loaded.result.issues == old.result.issues
    assert len(store) == len(snaps)


def test_a_snapshot_whose_file_could_not_be_written_stays_in_memory(tmp_path: Path) -> None:
    from signalint.kept.snapshot_store import KEEP_DECODED

    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    store = _disk_store(blocker / "snapshots", warnings=[])
    snaps = [snapshot([], check_id=f"c{n}") for n in range(KEEP_DECODED + 2)]
    for snap in snaps:
        store.put(snap)
    assert all(store.get(s.check_id) is s for s in snaps)


def test_snapshot_pieces_join_to_the_encoded_file(tmp_path: Path) -> None:
    from signalint.files import write_atomic
    from signalint.kept import snapshot_codec

    rows = snapshot_codec.CHUNK_ROWS * 2 + 7
    snap = snapshot([issue(line=n + 1, message=f"'x{n}' é unused.") for n in range(rows)])
    pieces = list(snapshot_codec.snapshot_chunks(snap))
    assert len(pieces) == 5  # the head, three pieces of rows, the tail
    target = tmp_path / "snap.json"
    write_atomic(target, iter(pieces))
    assert target.read_bytes() == encode_snapshot(snap)
    assert decode_snapshot(target.read_bytes()).result.issues == snap.result.issues


def test_snapshots_of_an_earlier_release_are_not_read_and_go_once_expired(
    tmp_path: Path,
) -> None:
    """Earlier releases kept `<id>.json`, which a project's Biome formats
    (real-world tier, resend-node): they are never read, and removed with
    the expired snapshots."""
    clock = Clock()
    legacy = tmp_path / "old.json"
    legacy.write_bytes(encode_snapshot(snapshot([], check_id="old")))
    os.utime(legacy, (clock.now, clock.now))
    store = _disk_store(tmp_path, clock, ttl_s=60)
    assert store.get("old") is None and len(store) == 0
    assert legacy.exists()  # another release's process may still name it
    clock.now += 61
    store.put(snapshot([], check_id="new"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.snapshot"]
