"""Schema 1.4 check payloads, compact keys, and the one dict form of an issue.

The payload is a plain JSON-ready dict with the field order of the
reference "Normal check response", plus our `fingerprint` (D4). The MCP
server and the CLI's json format both render from `check_payload`, so the
two can never disagree about a field. Its shapes are the types of
`signalint.payloads`.

An issue becomes a dict in one place, `issue_entry`: every other issue
shape (the full detail, a flat summary record, a delta or watch entry)
starts from it, so a key is named and its value derived once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, overload

from signalint import SCHEMA_VERSION
from signalint.engines.registry import ENGINES
from signalint.model import CheckResult, EngineOutcome, Issue, covered, uncovered_reason
from signalint.payloads import (
    CheckPayload,
    CheckWarnings,
    ClusterEntry,
    EngineEntry,
    FailureEntry,
    FlatEntry,
    IssueDetail,
    IssueEntry,
    laid_out,
)
from signalint.pipeline.cluster import Cluster, Clustering, FlatRecord
from signalint.steps import Step, Words
from signalint.wording import count

# Full key -> compact key (reference "Compact keys are a separate option").
COMPACT_KEYS: dict[str, str] = {
    "schemaVersion": "v",
    "totalIssues": "total",
    "remainingIssues": "remaining",
    "omittedIssueCount": "omitted",
    "filteredOutIssueCount": "filteredOut",
}


def engine_status(outcome: EngineOutcome) -> EngineEntry:
    """`{status, message?, failure?, filesChecked, coverageGap?, served?}` (D17).

    `filesChecked` is always present (0 for a disabled engine); `message`,
    `failure` (`{kind, fix?}`: what kind of failure, and the setting or
    command that fixes it), `coverageGap` and `served` ("warm": a kept-warm
    worker answered; "fallback": a worker failed and the cold run
    answered; absent for a cold run or the cache) are left out when unset,
    and `scoped` (true: a warm whole-program engine checked the requested
    files alone) when false.
    """
    entry: EngineEntry = {
        "status": outcome.status,
        "filesChecked": outcome.files_checked if covered(outcome) else 0,
    }
    if outcome.message is not None:
        entry["message"] = outcome.message
    if outcome.failure is not None:
        failure: FailureEntry = {"kind": outcome.failure.kind}
        if outcome.failure.fix is not None:
            failure["fix"] = outcome.failure.fix
        entry["failure"] = failure
    if outcome.coverage_gap is not None:
        entry["coverageGap"] = outcome.coverage_gap
    if outcome.served in ("warm", "fallback"):
        entry["served"] = outcome.served
    if outcome.scoped:
        entry["scoped"] = True
    return entry


def cluster_entry(item: Cluster) -> ClusterEntry:
    """One `clusters[]` element; optional fields appear only when set."""
    entry: ClusterEntry = {
        "clusterId": item.cluster_id,
        "rootCauseSummary": item.summary,
        "ruleIds": list(item.rule_ids),
        "issueCount": item.issue_count,
        "fileCount": item.file_count,
        "priority": item.priority,
    }
    if item.suggested_action is not None:
        entry["suggestedAction"] = item.suggested_action
    if item.sample_ids:
        entry["sampleIssueIds"] = list(item.sample_ids)
    return entry


def issue_entry(issue: Issue, issue_id: str) -> IssueEntry:
    """The one dict form of an issue: `{issueId, file, line, col, engine, rule,
    severity, summary}`.

    `issue_id` is the id the reader can resolve (a snapshot's short id, or
    the full id). Every other issue shape starts from this one.
    """
    return {
        "issueId": issue_id,
        "file": issue.file,
        "line": issue.line,
        "col": issue.col,
        "engine": issue.engine,
        "rule": issue.rule,
        "severity": issue.severity,
        "summary": issue.summary,
    }


def flat_entry(record: FlatRecord) -> FlatEntry:
    """One `remainingIssues[]` element: no engine, no message (by design)."""
    entry = issue_entry(record.issue, record.short_id)
    return {
        "issueId": entry["issueId"],
        "file": entry["file"],
        "line": entry["line"],
        "col": entry["col"],
        "rule": entry["rule"],
        "severity": entry["severity"],
        "fixable": record.issue.fixable,
    }


def nothing_checked_message(result: CheckResult) -> str:
    """Why no engine checked any file: the scope, then one clause per engine."""
    if not result.outcomes:
        return (
            "Nothing was checked: no engine is enabled for this project "
            "(`engines` in signalint.config.json)."
        )
    head = "Nothing was checked"
    if result.files_in_scope == 0:
        head += (
            ": the scope holds no file once ignore rules are applied "
            "(`ignore` in signalint.config.json, .gitignore, node_modules)"
        )
    reasons = []
    for name in sorted(result.outcomes):
        outcome = result.outcomes[name]
        reason = uncovered_reason(outcome)
        if outcome.message:
            reason += f" ({outcome.message})"
        reasons.append(reason)
    return head + ". " + "; ".join(reasons) + "."


def left_out_step(
    check_id: str, omitted: int, filtered_out: int, words: Words, scoped: Sequence[str] = ()
) -> str | None:
    """Guidance for what the summary left out, or None when nothing was.

    `scoped` names the whole-program engines that checked the requested
    files alone (kept warm), so their diagnostics elsewhere were not
    counted. The steps are worded by the front end that shows them
    (`words`, see `signalint.steps`): the CLI names `signalint` commands,
    the server its tools.
    """
    parts = []
    if omitted > 0:
        head = count(omitted, "more issue", "is not listed here")
        parts.append(f"{head}. {words(Step('see_all', check_id))}")
    if filtered_out > 0:
        parts.append(
            f"{count(filtered_out, 'diagnostic', 'was filtered out')} (outside the requested "
            f"paths); {words(Step('check_whole'))} to see the whole project."
        )
    if scoped:
        parts.append(
            f"{' and '.join(scoped)} (kept warm) checked the requested paths alone, so "
            f"diagnostics elsewhere were not counted; {words(Step('check_whole'))} to see "
            "the whole project."
        )
    return " ".join(parts) if parts else None


@dataclass(frozen=True, slots=True)
class Standing:
    """How a check stands, as its `nextStep` reads it: its status, whether
    it checked nothing at all, and the engines kept warm that answered for
    the requested paths alone."""

    status: str = "issues_found"
    nothing_checked: bool = False
    scoped: Sequence[str] = ()

    @classmethod
    def of(cls, result: CheckResult) -> Standing:
        return cls(result.status, result.code is not None, result.scoped_engines)


def next_step(
    check_id: str,
    omitted: int,
    filtered_out: int,
    words: Words,
    standing: Standing = Standing(),
) -> str:
    """The check payload's `nextStep`, present in every answer.

    What the summary left out (`left_out_step`) when it left something out;
    otherwise what to do with a complete answer, by how the check stands
    (one that checked nothing, an engine failure, issues, or none), worded
    by `words` as `left_out_step` is.
    """
    step = left_out_step(check_id, omitted, filtered_out, words, standing.scoped)
    if step is not None:
        return step
    status = standing.status
    if standing.nothing_checked:
        return "Nothing was checked (see message); fix that before trusting a result."
    if status == "error":
        return "An engine did not run ok (see engines): fix it, then check again."
    if status == "clean":
        return "No issues found: nothing to fix."
    return f"Every issue is listed here; {words(Step('expand', check_id))}"


# The reference's field order: a payload is built by key, then laid out in
# the order `CheckPayload` declares its keys.
_CHECK_ORDER: Final = tuple(CheckPayload.__annotations__)


@dataclass(frozen=True, slots=True)
class Additions:
    """What an answer adds to a check's result, each where given: how many
    diagnostics the scope filtered out, the loop and churn warnings, the
    per-package summary (`package_summary.summarize`) and what a check of
    only the new issues compared with (its baseline block)."""

    filtered_out: int | None = None
    warnings: CheckWarnings | None = None
    workspace: Mapping[str, object] | None = None
    baseline: Mapping[str, object] | None = None


NOTHING_ADDED: Final = Additions()


@overload
def check_payload(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: Literal[False] = False,
    added: Additions = NOTHING_ADDED,
    words: Words,
) -> CheckPayload: ...


@overload
def check_payload(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: bool,
    added: Additions = NOTHING_ADDED,
    words: Words,
) -> Mapping[str, Any]: ...


def check_payload(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: bool = False,
    added: Additions = NOTHING_ADDED,
    words: Words,
) -> Mapping[str, Any]:
    """The schema 1.4 check response for `result`, summarized by `clustering`.

    `totalIssues` is `clustering.total` (the issues that were summarized, so
    a file check passes its filtered clustering). `added` (`Additions`):
    `filtered_out` adds
    `filteredOutIssueCount` (even when 0; which checks report one is
    `snapshots.Snapshot.reported_filtered_out`); the reference's equal alias
    `filteredOutCount` is not repeated. `nextStep` is always present
    (`next_step`). `warnings` holds the warning
    objects (`loopWarning`, `fileRuleChurnWarning`; None when inactive, then
    left out); they go between `truncated` and `checkId`, after
    `coverageWarning` (present when some engine checked no file while others
    did, D17). `compact` renames keys per `COMPACT_KEYS` and leaves out
    `projectRoot`. `words` is the front end's wording of the steps in
    `nextStep` (see `next_step`). `workspace` (the per-package summary,
    `package_summary.summarize`) and `baseline` (what a check of only the
    new issues compared with) come last when given, then `remoteCache`
    (what the shared result store did) when one is configured.

    This is the one builder of the check answer: the MCP tools and the
    CLI's `--format json` both get it through `service.Checked.payload`.
    """
    payload: CheckPayload = {
        "schemaVersion": SCHEMA_VERSION,
        "status": result.status,
        "projectRoot": result.project_root,
        "engines": {name: engine_status(o) for name, o in sorted(result.outcomes.items())},
        "totalIssues": clustering.total,
        "clusters": [cluster_entry(item) for item in clustering.clusters],
        "remainingIssues": [flat_entry(record) for record in clustering.flat],
        "omittedIssueCount": clustering.omitted,
        "nextStep": next_step(
            result.check_id,
            clustering.omitted,
            added.filtered_out or 0,
            words,
            Standing.of(result),
        ),
        "truncated": clustering.truncated,
        "checkId": result.check_id,
        "fingerprint": result.fingerprint,
    }
    if added.filtered_out is not None:
        payload["filteredOutIssueCount"] = added.filtered_out
    warning = result.coverage_warning
    if warning is not None:
        payload["coverageWarning"] = warning
    # Inactive warnings are omitted, never null.
    extras = added.warnings or {}
    loop = extras.get("loopWarning")
    if loop is not None:
        payload["loopWarning"] = loop
    churn = extras.get("fileRuleChurnWarning")
    if churn is not None:
        payload["fileRuleChurnWarning"] = churn
    if result.code is not None:
        payload["code"] = result.code
        payload["message"] = nothing_checked_message(result)
    if added.workspace is not None:
        payload["workspace"] = dict(added.workspace)
    if added.baseline is not None:
        payload["baseline"] = dict(added.baseline)
    if result.remote_cache is not None:
        payload["remoteCache"] = dict(result.remote_cache)
    ordered = laid_out(payload, _CHECK_ORDER)
    return compact_keys(ordered) if compact else ordered


def compact_keys(payload: Mapping[str, object]) -> dict[str, Any]:
    """Rename top-level keys to their compact aliases and drop `projectRoot`."""
    renamed: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "projectRoot":
            continue
        renamed[COMPACT_KEYS.get(key, key)] = value
    return renamed


def issue_detail(issue: Issue, short_id: str, cluster_id: str | None = None) -> IssueDetail:
    """The normalized detail of one issue: its `issue_entry` plus the D5 extras.

    `issueId` is the full id and `shortId` the prefix emitted in summaries.
    `summary` is the one-line form; `message` is the engine's full text.
    Optional fields (end position, other engines, cluster, docs, help)
    appear only when set.
    """
    engine = ENGINES.get(issue.engine)
    # mypy cannot know that an IssueEntry carries none of the detail's
    # optional keys (a structural subtype could); `issue_entry` never does.
    detail: IssueDetail = {
        **issue_entry(issue, issue.issue_id),  # type: ignore[typeddict-item]
        "shortId": short_id,
        "message": issue.message,
        "fixable": issue.fixable,
        "sourceKind": engine.spec.kind if engine is not None else "linter",
    }
    if issue.end_line is not None:
        detail["endLine"] = issue.end_line
    if issue.end_col is not None:
        detail["endCol"] = issue.end_col
    if issue.also_reported_by:
        detail["alsoReportedBy"] = list(issue.also_reported_by)
    if cluster_id is not None:
        detail["clusterId"] = cluster_id
    if issue.docs_url:
        detail["docsUrl"] = issue.docs_url
    if issue.help:
        detail["help"] = issue.help
    return detail


def _record_priority(record: Mapping[str, Any]) -> int:
    # Flat records carry no priority in schema 1.4; derive it the same way
    # cluster.issue_priority does.
    if isinstance(record.get("priority"), int):
        return int(record["priority"])
    error = record.get("severity") == "error"
    fixable = bool(record.get("fixable"))
    return (3 if fixable else 2) if error else (5 if fixable else 4)


def fails_priority(source: Clustering | Mapping[str, Any], threshold: int) -> bool:
    """Whether any returned cluster or flat record has priority <= `threshold`.

    Accepts a `Clustering` or a (full or compact) check payload. Omitted flat
    records are not examined, and engine errors are not considered here: the
    CLI fails on those separately (D14).
    """
    if isinstance(source, Clustering):
        priorities = [c.priority for c in source.clusters]
        priorities += [r.priority for r in source.flat]
    else:
        priorities = [int(c["priority"]) for c in source.get("clusters", [])]
        records = source.get("remainingIssues", source.get("remaining", []))
        priorities += [_record_priority(r) for r in records]
    return any(p <= threshold for p in priorities)


__all__ = [
    "check_payload",
    "compact_keys",
    "fails_priority",
    "issue_detail",
    "issue_entry",
    "left_out_step",
    "next_step",
]
