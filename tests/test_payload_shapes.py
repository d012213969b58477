"""One definition of an issue, and payloads that are what their types say.

Every dict form of an issue (detail, flat record, delta entry, watch entry)
starts from `report.issue_entry`, so they agree on every key they share.
Built payloads carry every required key of their type and no other key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from signalint import payloads
from signalint.features.delta import compare
from signalint.features.loops import LoopTracker
from signalint.features.snapshot_query import list_issues, snapshot_summary
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import (
    Additions,
    check_payload,
    flat_entry,
    issue_detail,
    issue_entry,
)
from signalint.server.words import tool_words
from signalint.service.watching import WatchState

from .factories import issue, snapshot

RICH = issue(
    "src/b.ts",
    4,
    "no-debugger",
    "Unexpected 'debugger' statement.\nRemove it.",
    end_line=4,
    end_col=12,
    docs_url="https://oxc.rs/docs/no-debugger",
    help="Delete the statement.",
    fixable=True,
)


def assert_shape(value: Mapping[str, Any], shape: Any) -> None:
    present = set(value)
    assert set(shape.__required_keys__) <= present, shape.__name__
    assert present <= set(shape.__required_keys__) | set(shape.__optional_keys__), shape.__name__


def test_every_issue_shape_agrees_with_the_one_entry() -> None:
    found = [RICH, issue("src/a.ts", 1)]
    entry = issue_entry(RICH, RICH.issue_id)
    assert entry == {
        "issueId": RICH.issue_id,
        "file": "src/b.ts",
        "line": 4,
        "col": 3,
        "engine": "oxlint",
        "rule": "no-debugger",
        "severity": "error",
        "summary": "Unexpected 'debugger' statement. Remove it.",
    }
    detail = issue_detail(RICH, "short")
    assert {key: value for key, value in detail.items() if key in entry} == entry
    record = next(r for r in cluster(found).flat if r.issue is RICH)
    flat = flat_entry(record)
    assert {k: v for k, v in flat.items() if k != "fixable"} == {
        k: v for k, v in issue_entry(RICH, record.short_id).items() if k in flat
    }
    before = snapshot([issue("src/a.ts", 1)], targets=("src",))
    after = snapshot(found, check_id="c1", targets=("src",))
    (introduced,) = compare(before, after, words=tool_words)["introduced"]
    assert introduced == issue_entry(RICH, after.short_id(RICH))


def test_a_watch_entry_is_the_one_entry_with_the_full_id() -> None:
    from signalint.pipeline.check_run import CheckRun

    start = snapshot([RICH]).result
    state = WatchState(CheckRun(start, 0, 1), ["."])
    update = state.absorb(None, (), ["src/b.ts"], full=False)
    assert update.resolved == [issue_entry(RICH, RICH.issue_id)]


@pytest.mark.parametrize("summarize", [True, False])
def test_built_payloads_carry_exactly_the_keys_of_their_types(summarize: bool) -> None:
    found = [RICH, issue("src/a.ts", 1), issue("src/a.ts", 2)]
    snap = snapshot(found, targets=("src",))
    payload = check_payload(
        snap.result, snap.clustering, added=Additions(filtered_out=0), words=tool_words
    )
    assert_shape(payload, payloads.CheckPayload)
    for engine in payload["engines"].values():
        assert_shape(engine, payloads.EngineEntry)
    for item in payload["clusters"]:
        assert_shape(item, payloads.ClusterEntry)
    for record in payload["remainingIssues"]:
        assert_shape(record, payloads.FlatEntry)
    assert list(payload) == [k for k in payloads.CheckPayload.__annotations__ if k in payload]
    assert_shape(snapshot_summary(snap, tool_words), payloads.SnapshotSummary)
    page = list_issues(snap, limit=2)
    assert_shape(page, payloads.IssuePage)
    for detail in page["issues"]:
        assert_shape(detail, payloads.IssueDetail)
    delta = compare(
        snapshot([issue("src/c.ts", 9)], check_id="c0"), snap, summarize=summarize, words=tool_words
    )
    assert_shape(delta, payloads.Delta)
    assert_shape(delta["counts"], payloads.DeltaCounts)
    unobserved = delta["unobserved"]
    if isinstance(unobserved, list):
        for entry in unobserved:
            assert_shape(entry, payloads.UnobservedEntry)
    else:
        assert_shape(unobserved, payloads.UnobservedSummary)
    assert_shape(LoopTracker().status(), payloads.LoopStatus)
