"""Answer shapes of the live tools (ingest_diagnostics, get_live_diagnostics, clear_live).

Their input schemas are in `schemas`. The TypedDicts are the wire shapes
(mypy checks the builders key by key); the output schemas advertise the
same keys (tests/features/test_live.py holds them together, as
tests/server/test_payload_types.py does for the check tools).
"""

from typing import Final, Literal, NotRequired, TypedDict

from signalint.payloads import ClusterEntry, FlatEntry, IssueDetail
from signalint.server import outputs
from signalint.server.schemas import Schema


class EvictedSet(TypedDict):
    source: str
    file: str
    issueCount: int


class Eviction(TypedDict):
    """Sets evicted to make room for a batch (D8: never silent)."""

    issueCount: int
    sets: list[EvictedSet]
    message: str


class IngestAnswer(TypedDict):
    """ingest_diagnostics: the batch's snapshot summary and the buffer's state."""

    snapshotId: str
    checkId: str
    source: str
    status: Literal["clean", "issues_found"]
    totalIssues: int
    clusters: list[ClusterEntry]
    remainingIssues: list[FlatEntry]
    omittedIssueCount: int
    filesReplaced: int
    filesCleared: int
    bufferedIssues: int
    bufferCapacity: int
    evicted: NotRequired[Eviction]
    nextStep: NotRequired[str]


class LiveAnswer(TypedDict):
    """get_live_diagnostics: the merged live view, summarized and in full."""

    status: Literal["clean", "issues_found"]
    totalIssues: int
    clusters: list[ClusterEntry]
    remainingIssues: list[FlatEntry]
    omittedIssueCount: int
    issues: list[IssueDetail]
    checkId: NotRequired[str]
    checkIds: NotRequired[list[str]]
    sources: list[str]
    supersededIssueCount: NotRequired[int]
    mergedReportCount: NotRequired[int]
    nextStep: NotRequired[str]


class ClearAnswer(TypedDict):
    """clear_live: the diagnostics and (source, file) sets removed, the diagnostics left."""

    removed: int
    removedSets: int
    bufferedIssues: int
    nextStep: NotRequired[str]


_STR: Final[Schema] = {"type": "string"}
_INT: Final[Schema] = {"type": "integer"}
_STATUS: Final[Schema] = {"enum": ["clean", "issues_found"]}
_SUMMARY: Final[dict[str, Schema]] = {
    "status": _STATUS,
    "totalIssues": _INT,
    "clusters": {"type": "array", "items": outputs.CLUSTER, "maxItems": 10},
    "remainingIssues": {"type": "array", "items": outputs.FLAT, "maxItems": 100},
    "omittedIssueCount": _INT,
}

INGEST_OUTPUT: Final = outputs.output(
    {
        "snapshotId": _STR,
        "checkId": _STR,
        "source": _STR,
        **_SUMMARY,
        "filesReplaced": _INT,
        "filesCleared": _INT,
        "bufferedIssues": _INT,
        "bufferCapacity": _INT,
        "evicted": {"type": "object", "required": ["issueCount", "sets", "message"]},
        "nextStep": _STR,
    },
    sorted(IngestAnswer.__required_keys__),
)
LIVE_OUTPUT: Final = outputs.output(
    {
        **_SUMMARY,
        "issues": {"type": "array", "items": outputs.DETAIL},
        "checkId": _STR,
        "checkIds": {"type": "array", "items": _STR},
        "sources": {"type": "array", "items": _STR},
        "supersededIssueCount": _INT,
        "mergedReportCount": _INT,
        "nextStep": _STR,
    },
    sorted(LiveAnswer.__required_keys__),
)
CLEAR_OUTPUT: Final = outputs.output(
    {"removed": _INT, "removedSets": _INT, "bufferedIssues": _INT, "nextStep": _STR},
    sorted(ClearAnswer.__required_keys__),
)
