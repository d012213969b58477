"""Hand-built issues, check results and snapshots for snapshot/delta/history tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from signalint.model import CheckResult, EngineOutcome, Issue, OutcomeStatus
from signalint.pipeline.cluster import cluster
from signalint.pipeline.snapshot import Snapshot, SnapshotKind


def issue(
    file: str = "src/a.ts",
    line: int = 1,
    rule: str = "no-unused-vars",
    message: str = "'x' is declared but never used.",
    **fields: Any,
) -> Issue:
    values: dict[str, Any] = {
        "engine": "oxlint",
        "file": file,
        "line": line,
        "col": 3,
        "rule": rule,
        "severity": "error",
        "message": message,
    }
    values.update(fields)
    return Issue(**values)


def result(
    issues: Sequence[Issue],
    *,
    check_id: str = "c0",
    engines: dict[str, OutcomeStatus] | None = None,
    created_at: float = 0.0,
) -> CheckResult:
    statuses: dict[str, OutcomeStatus] = engines if engines is not None else {"oxlint": "ok"}
    return CheckResult(
        check_id=check_id,
        fingerprint="f" * 16,
        project_root="/p",
        outcomes={name: _outcome(name, status) for name, status in statuses.items()},
        issues=tuple(sorted(issues, key=Issue.sort_key)),
        created_at=created_at,
    )


def _outcome(name: str, status: OutcomeStatus) -> EngineOutcome:
    # An engine that ran fine checked something: a hand-built "ok" outcome
    # with no file would be an uncovered engine (D17).
    return EngineOutcome(name, status, files_checked=1 if status == "ok" else 0)


def snapshot(
    issues: Sequence[Issue],
    *,
    check_id: str = "c0",
    targets: tuple[str, ...] = (".",),
    engines: dict[str, OutcomeStatus] | None = None,
    created_at: float = 0.0,
) -> Snapshot:
    kind: SnapshotKind = "project" if targets == (".",) else "files"
    return Snapshot(
        result=result(issues, check_id=check_id, engines=engines, created_at=created_at),
        clustering=cluster(list(issues)),
        targets=targets,
        kind=kind,
        filtered_out=0,
    )
