"""What a shard's output carries so that `signalint merge` can rebuild the whole check.

A check's JSON answer summarizes (clusters, capped flat records) and its
SARIF log leaves out what SARIF has no field for (cache counts, files in
scope, the per-package engine runs), so neither alone can be put back
together into the unsharded answer. A shard's output therefore carries a
*shard block*: in JSON the key `shard` of the payload, in SARIF the log's
`properties.signalintShard`. It holds the shard (`index`, `count`), what
the check was asked (`targets`) and the shard's own result: every engine
outcome in full, whether the engine had work in this shard (`parts`), the
files in scope, the filtered-out count, the workspace summary of the
packages it owns with every package of the check in check order, what
the shared result store did for it (`remoteCache`, when one is set), and (JSON
only: SARIF lists them as results) every issue in full. `elsewhere` lists
in full the issues its per-package programs reported in files another
shard owns (`check.CheckRun.elsewhere`): `merge` adds any of them that no
shard reported.

`block` writes one; `read_block`, `read_issue` and `read_outcome` read
them back, refusing anything that is not what `block` writes with a
`BlockError` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast, get_args

from signalint.model import (
    FAILURE_KINDS,
    EngineOutcome,
    Failure,
    Issue,
    OutcomeStatus,
    Severity,
)
from signalint.pipeline.check_run import CheckRun

if TYPE_CHECKING:
    from signalint.service.baseline import OnlyNew

# Bumped when the block changes shape; `merge` refuses other versions.
BLOCK_VERSION = 1


class BlockError(ValueError):
    """A shard block (or part of one) that is not what `block` writes."""


def issue_record(issue: Issue) -> dict[str, Any]:
    """An issue with every field, keyed as the JSON answer keys them."""
    record: dict[str, Any] = {
        "issueId": issue.issue_id,
        "engine": issue.engine,
        "file": issue.file,
        "line": issue.line,
        "col": issue.col,
        "rule": issue.rule,
        "severity": issue.severity,
        "message": issue.message,
        "fixable": issue.fixable,
    }
    optional = {
        "endLine": issue.end_line,
        "endCol": issue.end_col,
        "docsUrl": issue.docs_url,
        "help": issue.help,
        "alsoReportedBy": list(issue.also_reported_by) or None,
    }
    record.update({k: v for k, v in optional.items() if v is not None})
    return record


def outcome_record(outcome: EngineOutcome) -> dict[str, Any]:
    """An engine outcome with every field but its issues (they are listed apart)."""
    record: dict[str, Any] = {
        "status": outcome.status,
        "filesChecked": outcome.files_checked,
        "cacheHits": outcome.cache_hits,
        "cacheMisses": outcome.cache_misses,
        "durationMs": round(outcome.duration_ms, 3),
    }
    if outcome.message is not None:
        record["message"] = outcome.message
    if outcome.coverage_gap is not None:
        record["coverageGap"] = outcome.coverage_gap
    if outcome.failure is not None:
        failure: dict[str, str] = {"kind": outcome.failure.kind}
        if outcome.failure.fix is not None:
            failure["fix"] = outcome.failure.fix
        record["failure"] = failure
    return record


def block(
    run: CheckRun,
    targets: Sequence[str],
    filtered_out: int | None,
    workspace: Mapping[str, object] | None,
    *,
    with_issues: bool,
    only: OnlyNew | None = None,
) -> dict[str, Any]:
    """The shard block of a shard's check (`run.shard` must be set).

    A check of what is new since a revision passes what it found there
    (`baseline.OnlyNew`: its `baseline` block, and each of its issues'
    SARIF `baselineState`): `elsewhere` issues then carry theirs in
    `elsewhereStates`, the ids of its unchanged issues are listed
    (`unchangedIssueIds`: the JSON lists only the new ones), and the block
    holds the new issues only."""
    result = run.result if only is None else only.result
    shard = run.shard
    if shard is None:
        raise ValueError("a shard block describes a shard's check")
    out: dict[str, Any] = {
        "version": BLOCK_VERSION,
        "index": shard.index,
        "count": shard.count,
        "targets": list(targets),
        "wholeProject": "." in targets,
        "filesInScope": result.files_in_scope or 0,
        "filteredOut": filtered_out,
        "parts": sorted(run.parts),
        "outcomes": {name: outcome_record(o) for name, o in sorted(result.outcomes.items())},
        "packages": [p.name for p in run.all_packages],
        "workspace": None if workspace is None else dict(workspace),
        "remoteCache": None if result.remote_cache is None else dict(result.remote_cache),
    }
    if with_issues:
        out["issues"] = [issue_record(i) for i in result.issues]
    out["elsewhere"] = [issue_record(i) for i in run.elsewhere]
    if only is not None:
        from signalint.service.baseline import split

        parts = split(run.elsewhere, only.found)
        out["baseline"] = dict(only.block)
        out["unchangedIssueIds"] = sorted(
            i for i, state in only.states.items() if state == "unchanged"
        )
        out["elsewhereStates"] = {
            **{i.issue_id: "new" for i in parts.new},
            **{i.issue_id: "unchanged" for i in parts.unchanged},
        }
    return out


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise BlockError(f"{where} has no `{key}`")
    value = data[key]
    # bool is an int to Python, never to us.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        raise BlockError(f"{where}.{key} is not {_described(kind)}")
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _described(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "a number", bool: "true or false", list: "a list"}
    names.update({dict: "an object", float: "a number", type(None): "null"})
    return " or ".join(names.get(k, k.__name__) for k in _kinds(kind))


def _optional(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if data.get(key) is None:
        return None
    return _field(data, key, kind, where)


def read_issue(record: object, where: str) -> Issue:
    """An issue from its `issue_record`; its id must be the one its fields give."""
    if not isinstance(record, dict):
        raise BlockError(f"{where} is not an object")
    severity = _field(record, "severity", str, where)
    if severity not in get_args(Severity):
        raise BlockError(f"{where}.severity is neither error nor warning")
    also = _optional(record, "alsoReportedBy", list, where) or []
    if not all(isinstance(name, str) for name in also):
        raise BlockError(f"{where}.alsoReportedBy is not a list of engine names")
    issue = Issue(
        engine=_field(record, "engine", str, where),
        file=_field(record, "file", str, where),
        line=_field(record, "line", int, where),
        col=_field(record, "col", int, where),
        rule=_field(record, "rule", str, where),
        severity=cast(Severity, severity),
        message=_field(record, "message", str, where),
        fixable=_field(record, "fixable", bool, where),
        end_line=_optional(record, "endLine", int, where),
        end_col=_optional(record, "endCol", int, where),
        docs_url=_optional(record, "docsUrl", str, where),
        help=_optional(record, "help", str, where),
        also_reported_by=tuple(also),
    )
    if issue.issue_id != _field(record, "issueId", str, where):
        raise BlockError(f"{where}.issueId is not the id of the issue it describes")
    return issue


def read_outcome(name: str, record: object, where: str) -> EngineOutcome:
    """An engine outcome (without issues) from its `outcome_record`."""
    if not isinstance(record, dict):
        raise BlockError(f"{where} is not an object")
    status = _field(record, "status", str, where)
    if status not in get_args(OutcomeStatus):
        raise BlockError(f"{where}.status is not one of ok, error, disabled")
    failure = None
    found = _optional(record, "failure", dict, where)
    if found is not None:
        kind = _field(found, "kind", str, f"{where}.failure")
        if kind not in FAILURE_KINDS:
            raise BlockError(f"{where}.failure.kind {kind!r} is not a failure kind")
        failure = Failure(kind, _optional(found, "fix", str, f"{where}.failure"))
    return EngineOutcome(
        engine=name,
        status=cast(OutcomeStatus, status),
        message=_optional(record, "message", str, where),
        duration_ms=float(_field(record, "durationMs", (int, float), where)),
        files_checked=_field(record, "filesChecked", int, where),
        cache_hits=_field(record, "cacheHits", int, where),
        cache_misses=_field(record, "cacheMisses", int, where),
        coverage_gap=_optional(record, "coverageGap", str, where),
        failure=failure,
    )


def read_block(data: object, where: str) -> dict[str, Any]:
    """A shard block checked field by field (values as `block` writes them)."""
    if not isinstance(data, dict):
        raise BlockError(f"{where} is not an object")
    version = _field(data, "version", int, where)
    if version != BLOCK_VERSION:
        raise BlockError(
            f"{where}.version is {version}; this Signalint merges version {BLOCK_VERSION} "
            "(merge with the Signalint version that wrote the shards)"
        )
    for key in ("index", "count", "filesInScope"):
        _field(data, key, int, where)
    _field(data, "wholeProject", bool, where)
    _optional(data, "filteredOut", int, where)
    _field(data, "elsewhere", list, where)
    for key in ("targets", "parts", "packages"):
        if not all(isinstance(v, str) for v in _field(data, key, list, where)):
            raise BlockError(f"{where}.{key} is not a list of strings")
    _field(data, "outcomes", dict, where)
    _optional(data, "workspace", dict, where)
    if _optional(data, "baseline", dict, where) is not None:
        if not all(isinstance(v, str) for v in _field(data, "unchangedIssueIds", list, where)):
            raise BlockError(f"{where}.unchangedIssueIds is not a list of issue ids")
        states = _field(data, "elsewhereStates", dict, where)
        if not all(v in ("new", "unchanged") for v in states.values()):
            raise BlockError(f"{where}.elsewhereStates holds a state other than new or unchanged")
    remote = _optional(data, "remoteCache", dict, where) or {}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in remote.values()):
        raise BlockError(f"{where}.remoteCache is not a set of counts")
    return data


__all__ = [
    "BLOCK_VERSION",
    "BlockError",
    "block",
    "issue_record",
    "outcome_record",
    "read_block",
    "read_issue",
    "read_outcome",
]
