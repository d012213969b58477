"""Retained snapshots: store bounds and expiry, summaries, references, listing (D6)."""

from __future__ import annotations

import pytest

from signalint.report import check_payload
from signalint.snapshots import (
    STALE_CHECK,
    CursorError,
    SnapshotStore,
    find_references,
    list_issues,
    snapshot_summary,
)
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
    summary = snapshot_summary(snap)
    payload = check_payload(snap.result, snap.clustering)
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
    summary = snapshot_summary(snap)
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
    assert list_issues(snap, file="src")["total"] == 2
    assert list_issues(snap, file="src/a.ts")["total"] == 1
    assert list_issues(snap, file="sr")["total"] == 0
    assert list_issues(snap, rule="eqeqeq")["total"] == 1
    assert list_issues(snap, severity="warning")["total"] == 1
    assert list_issues(snap, engine="eslint")["issues"][0]["file"] == "lib/c.ts"


def test_a_cursor_from_another_check_or_filter_is_refused() -> None:
    issues = [issue(line=n) for n in range(1, 5)]
    first, other = snapshot(issues, check_id="one"), snapshot(issues, check_id="two")
    cursor = list_issues(first, limit=2)["nextCursor"]
    assert list_issues(first, cursor=cursor, limit=2)["total"] == 4
    with pytest.raises(CursorError):
        list_issues(other, cursor=cursor, limit=2)
    with pytest.raises(CursorError):
        list_issues(first, cursor=cursor, limit=2, rule="no-unused-vars")
    with pytest.raises(CursorError):
        list_issues(first, cursor="!!not-base64!!")


def test_list_issues_validates_the_limit() -> None:
    snap = snapshot([])
    for bad in (0, 501):
        with pytest.raises(ValueError):
            list_issues(snap, limit=bad)
    assert list_issues(snap, limit=500) == {"checkId": "c0", "total": 0, "issues": []}
