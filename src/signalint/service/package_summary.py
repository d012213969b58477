"""Per-package summary of a workspace check: which package each issue belongs to.

An issue belongs to the package whose directory holds its file (the
deepest one when packages nest); issues in no package are counted apart.
A package's engines are the per-package engines' runs on its own program
(`ok`, `error`, `disabled`, or `skipped` with the reason) and the other
enabled engines' outcome for the whole check. Its status is `error` when
one of those engines did not run ok, else `issues_found`, `not_checked`
(every engine skipped it: no engine covered it, so it is not clean) or
`clean`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from signalint.model import CheckResult, Issue
from signalint.pipeline.check_run import CheckRun
from signalint.pipeline.workspaces import owned


class Counts(TypedDict):
    errors: int
    warnings: int
    issues: int


class PackageEngine(TypedDict, total=False):
    status: str
    filesChecked: int
    cached: bool
    note: str


class PackageSummary(TypedDict):
    name: str
    path: str
    status: str
    counts: Counts
    engines: dict[str, PackageEngine]


class WorkspaceSummary(TypedDict, total=False):
    source: str
    packages: list[PackageSummary]
    outsidePackages: Counts
    warning: str


def counts(issues: Sequence[Issue]) -> Counts:
    errors = sum(1 for i in issues if i.severity == "error")
    return {"errors": errors, "warnings": len(issues) - errors, "issues": len(issues)}


def package_status(engines: Mapping[str, PackageEngine], issues: Sequence[Issue]) -> str:
    """A package's status from its engines' entries and its issues (module docstring)."""
    if any(e["status"] in ("error", "disabled") for e in engines.values()):
        return "error"
    if issues:
        return "issues_found"
    if all(e["status"] == "skipped" for e in engines.values()):
        return "not_checked"
    return "clean"


def summarize(run: CheckRun, result: CheckResult | None = None) -> WorkspaceSummary | None:
    """The workspace block of a check's answer; None when no workspace was planned
    and planning raised no warning. `result` defaults to the run's (a caller
    that filtered issues, e.g. `--new-from-rev`, passes its own)."""
    result = result or run.result
    if run.workspace is None:
        return {"warning": run.workspace_warning} if run.workspace_warning else None
    by_package = owned(run.workspace.packages, result.issues)
    runs: dict[str, dict[str, PackageEngine]] = {}
    for package_run in run.package_runs:
        entry: PackageEngine
        if package_run.outcome is None:
            entry = {"status": "skipped", "note": package_run.note or ""}
        else:
            outcome = package_run.outcome
            entry = {"status": outcome.status, "filesChecked": outcome.files_checked}
            if outcome.cache_hits and not outcome.cache_misses:
                entry["cached"] = True
            if outcome.status != "ok" and outcome.message:
                entry["note"] = outcome.message
        runs.setdefault(package_run.package.name, {})[package_run.engine] = entry
    per_package = {r.engine for r in run.package_runs}
    shared = {
        name: PackageEngine(status=o.status)
        for name, o in result.outcomes.items()
        if name not in per_package
    }
    packages: list[PackageSummary] = []
    for package in run.packages:
        engines = {**shared, **runs.get(package.name, {})}
        issues = by_package.get(package.name, [])
        packages.append(
            {
                "name": package.name,
                "path": package.path,
                "status": package_status(engines, issues),
                "counts": counts(issues),
                "engines": dict(sorted(engines.items())),
            }
        )
    summary: WorkspaceSummary = {
        "source": run.workspace.source,
        "packages": packages,
        "outsidePackages": counts(by_package.get(None, [])),
    }
    return summary


__all__ = ["PackageSummary", "WorkspaceSummary", "counts", "package_status", "summarize"]
