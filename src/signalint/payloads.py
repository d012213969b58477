"""The shapes of every answer Signalint sends, as types mypy checks key by key.

Each tool payload (and each nested object in one) is a `TypedDict` whose
keys are the wire keys: a builder that misspells a key, or a reader that
asks for one the shape does not have, fails type checking. `NotRequired`
keys are left out when unset (never sent as null). The MCP output schemas
(`server.outputs`) advertise the same shapes and are tested against these
types, key for key (tests/server/test_payload_types.py).

Only the full-key check payload is typed: compact keys are a renaming of
it (`report.compact_keys`), applied last.
"""

# No `from __future__ import annotations` here: TypedDict reads `NotRequired`
# from evaluated annotations (Python 3.11 cannot see it in strings), and the
# schema tests compare `__required_keys__` with the advertised schemas.
from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict, TypeVar, cast

from signalint.model import CheckStatus, FailureKind, OutcomeStatus, Served, Severity

P = TypeVar("P", bound=Mapping[str, object])

SourceKind = Literal["linter", "compiler"]


class IssueEntry(TypedDict):
    """The one dict form of an issue (`report.issue_entry`): deltas, watch.

    `issueId` is the id the reader can resolve (the snapshot's short id in
    deltas, the full id in watch). Every other issue shape extends it.
    """

    issueId: str
    file: str
    line: int
    col: int
    engine: str
    rule: str
    severity: Severity
    summary: str


class UnobservedEntry(IssueEntry):
    """An issue one check could not observe, listed (deltas without `summarize`)."""

    reason: str


class IssueDetail(IssueEntry):
    """One issue in full (D5): issue detail, issue listings, `signalint show`."""

    shortId: str
    message: str
    fixable: bool
    endLine: NotRequired[int]
    endCol: NotRequired[int]
    alsoReportedBy: NotRequired[list[str]]
    clusterId: NotRequired[str]
    sourceKind: SourceKind
    docsUrl: NotRequired[str]
    help: NotRequired[str]


class FlatEntry(TypedDict):
    """One `remainingIssues[]` record: no engine, no message (by design)."""

    issueId: str
    file: str
    line: int
    col: int
    rule: str
    severity: Severity
    fixable: bool


class ClusterEntry(TypedDict):
    """One `clusters[]` element."""

    clusterId: str
    rootCauseSummary: str
    ruleIds: list[str]
    issueCount: int
    fileCount: int
    priority: int
    suggestedAction: NotRequired[str]
    sampleIssueIds: NotRequired[list[str]]


class FailureEntry(TypedDict):
    """Why an engine did not run ok (`model.Failure`)."""

    kind: FailureKind
    fix: NotRequired[str]


class EngineEntry(TypedDict):
    """One engine's outcome in a check (D17)."""

    status: OutcomeStatus
    message: NotRequired[str]
    failure: NotRequired[FailureEntry]
    filesChecked: int
    coverageGap: NotRequired[str]
    served: NotRequired[Served]
    scoped: NotRequired[bool]


class LoopEntry(TypedDict):
    """A signature that keeps coming back; `hint` on the warning of a check."""

    signature: str
    occurrences: int
    files: list[str]
    hint: NotRequired[str]


class ChurnEntry(TypedDict):
    """A file/rule pair that keeps flipping; `hint` on the warning of a check."""

    file: str
    rule: str
    checkCount: int
    hint: NotRequired[str]


class CheckWarnings(TypedDict, total=False):
    """The active warnings of a check; an inactive one is left out."""

    loopWarning: LoopEntry | None
    fileRuleChurnWarning: ChurnEntry | None


class CheckPayload(TypedDict):
    """The schema 1.4 check response with full keys (`report.check_payload`)."""

    schemaVersion: str
    status: CheckStatus
    projectRoot: str
    engines: dict[str, EngineEntry]
    totalIssues: int
    clusters: list[ClusterEntry]
    remainingIssues: list[FlatEntry]
    omittedIssueCount: int
    filteredOutIssueCount: NotRequired[int]
    nextStep: str
    truncated: bool
    coverageWarning: NotRequired[str]
    loopWarning: NotRequired[LoopEntry]
    fileRuleChurnWarning: NotRequired[ChurnEntry]
    checkId: str
    fingerprint: str
    code: NotRequired[str]
    message: NotRequired[str]
    # The per-package summary of a workspace check (`package_summary`).
    workspace: NotRequired[dict[str, object]]
    # Only what is new since a revision (`baseline.OnlyNew.block`).
    baseline: NotRequired[dict[str, object]]
    # What the shared result store did for this check (`remoteCache`).
    remoteCache: NotRequired[dict[str, int]]


class SnapshotSummary(TypedDict):
    """A retained check re-read: metadata, then the check's summary keys."""

    checkId: str
    fingerprint: str
    createdAt: str
    source: Literal["project", "files", "lsp"]
    targets: list[str]
    status: CheckStatus
    engines: dict[str, EngineEntry]
    totalIssues: int
    clusters: list[ClusterEntry]
    remainingIssues: list[FlatEntry]
    omittedIssueCount: int
    filteredOutIssueCount: NotRequired[int]
    nextStep: str
    truncated: bool
    coverageWarning: NotRequired[str]
    code: NotRequired[str]
    message: NotRequired[str]


class IssuePage(TypedDict):
    """One page of a retained check's issues, in full."""

    checkId: str
    total: int
    issues: list[IssueDetail]
    nextCursor: NotRequired[str]


class DetailAnswer(TypedDict):
    """Issue detail: the issues matching an id, in full, at most 100."""

    issues: list[IssueDetail]
    total: NotRequired[int]
    nextStep: NotRequired[str]


class UnobservedSummary(TypedDict):
    """Counts of issues one check could not observe (deltas with `summarize`)."""

    byFile: dict[str, int]
    moreFiles: NotRequired[int]
    byEngine: dict[str, int]
    byReason: dict[str, int]


class DeltaCounts(TypedDict):
    introduced: int
    resolved: int
    unobserved: int
    newlyObserved: int
    persisting: int


class Delta(TypedDict):
    """A comparison of two checks (also a check's `delta`): `delta.compare`."""

    baselineCheckId: str
    currentCheckId: str
    introduced: list[IssueEntry]
    resolved: list[IssueEntry]
    unobserved: UnobservedSummary | list[UnobservedEntry]
    newlyObserved: UnobservedSummary | list[UnobservedEntry]
    counts: DeltaCounts
    errorsIntroduced: int
    errorsResolved: int
    netDelta: int
    coverageComplete: bool
    truncated: bool
    nextStep: str


class DependentEntry(TypedDict):
    """One error an edit broke or moved in another file (`dependents.issues[]`)."""

    issueId: str
    file: str
    line: int
    col: int
    engine: str
    rule: str
    summary: str


class DependentsBlock(TypedDict):
    """What a check's edit did to the files that depend on the checked ones
    (`ripple.block`): errors to fix now (`total`: `broken` plus `moved`),
    the files holding them (`fileCount`), the first `issues`, the check
    retaining them (`checkId`, with the step listing the rest) and the
    errors it `repaired`."""

    checkId: NotRequired[str]
    total: int
    broken: int
    moved: int
    repaired: int
    fileCount: int
    issues: list[DependentEntry]
    nextStep: NotRequired[str]


class LoopStatus(TypedDict):
    """Loop status: what is looping or churning now."""

    looping: bool
    signatures: list[LoopEntry]
    loopingSignatureCount: NotRequired[int]
    fileChurning: bool
    fileRuleChurns: list[ChurnEntry]
    fileRuleChurnCount: NotRequired[int]
    checksObserved: int


class Pong(TypedDict):
    pong: bool
    projectRoot: str


class Refusal(TypedDict):
    """Every refusal (`server.errors`); lookups send only the first four keys."""

    status: Literal["error", "stale"]
    code: str
    message: str
    field: NotRequired[str]
    engine: NotRequired[str]
    retryable: NotRequired[bool]
    nextStep: NotRequired[str]
    projectRoot: NotRequired[str]


def laid_out(payload: P, keys: tuple[str, ...]) -> P:
    """`payload` with its keys in the order of `keys` (its type's declaration order).

    Payloads are built key by key, so mypy checks every key; where the wire
    order is part of the contract (the reference's check response) this
    lays them out.
    """
    return cast(P, {key: payload[key] for key in keys if key in payload})


__all__ = [
    "CheckPayload",
    "CheckWarnings",
    "ChurnEntry",
    "ClusterEntry",
    "Delta",
    "DeltaCounts",
    "DependentEntry",
    "DependentsBlock",
    "DetailAnswer",
    "EngineEntry",
    "FailureEntry",
    "FlatEntry",
    "IssueDetail",
    "IssueEntry",
    "IssuePage",
    "LoopEntry",
    "LoopStatus",
    "Pong",
    "Refusal",
    "SnapshotSummary",
    "SourceKind",
    "UnobservedEntry",
    "UnobservedSummary",
    "laid_out",
]
