"""The sarif format: SARIF 2.1.0 with every issue of the check (D6, D13).

One run per engine, so each tool keeps its own rules and version. Paths are
project-relative URIs against `%SRCROOT%`, which `originalUriBaseIds` maps
to the project root. Each result carries our full issue id as a partial
fingerprint, so code-scanning services can track it across commits. An
engine that failed or was unavailable gets `executionSuccessful: false`
and a notification saying why (with the failure kind and its fix in the
notification's properties), rather than silently contributing nothing.
A workspace check adds its packages to each run's properties and, to each
result, the package that owns its file (as the JSON `workspace` block).
With `check --new-from-rev`, each result has its `baselineState`; the run of
an engine that failed at the revision (its states come from the lines
changed since then) says so in its properties, `signalintBaselineFallback`
(`rule`, `reason`: its failure there), and so does each of its results
(`signalintBaselineRule`).

Each run has its own `automationDetails.id`, `signalint/<engine>/`, so a
code-scanning service that keys analyses by category sees one category per
engine. A shard's log (`check --shard I/N`) names its shard in every id,
`signalint/shard-I-of-N/<engine>/`, so the logs of several shards can be
uploaded side by side, and carries its shard block in the log's
`properties.signalintShard` (`shard_report`), from which `signalint merge`
rebuilds the log of the whole check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from signalint.engines.registry import ENGINES
from signalint.model import CheckResult, EngineOutcome, Issue
from signalint.pipeline.cluster import Clustering

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "signalintIssueId/v1"
SHARD_KEY = "signalintShard"


def automation_id(engine: str, shard: Mapping[str, Any] | None = None) -> str:
    """The run's `automationDetails.id`: `signalint/<engine>/`, or in shard I
    of N `signalint/shard-I-of-N/<engine>/` (a trailing slash: the whole id
    is the category, with no run part)."""
    if shard is None:
        return f"signalint/{engine}/"
    return f"signalint/shard-{shard['index']}-of-{shard['count']}/{engine}/"


def _root_uri(project_root: str) -> str:
    # A base URI must end in "/" for relative resolution to keep its last segment.
    uri = Path(project_root).absolute().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _region(issue: Issue) -> dict[str, int]:
    region = {"startLine": issue.line, "startColumn": issue.col}
    if issue.end_line is not None:
        region["endLine"] = issue.end_line
    end_line = issue.end_line if issue.end_line is not None else issue.line
    # An end column before the start on the same line is not a valid region.
    if issue.end_col is not None and (end_line > issue.line or issue.end_col >= issue.col):
        region["endColumn"] = issue.end_col
    return region


def _rules(engine: str, issues: list[Issue]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    docs: dict[str, str | None] = {}
    for issue in issues:
        if docs.get(issue.rule) is None:
            docs[issue.rule] = issue.docs_url
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rule in sorted(docs):
        entry: dict[str, Any] = {"id": rule, "shortDescription": {"text": f"{engine} {rule}"}}
        if docs[rule]:
            entry["helpUri"] = docs[rule]
        index[rule] = len(rules)
        rules.append(entry)
    return rules, index


def _result(
    issue: Issue, rule_index: int, state: str | None = None, rule: str | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "ruleId": issue.rule,
        "ruleIndex": rule_index,
        "level": issue.severity,
        "message": {"text": issue.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(issue.file), "uriBaseId": SRCROOT},
                    "region": _region(issue),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: issue.issue_id},
    }
    if state is not None:
        entry["baselineState"] = state
    if issue.also_reported_by:
        # One problem reported by several engines (D20) is one result, in
        # the primary engine's run, naming the others.
        entry["properties"] = {"alsoReportedBy": list(issue.also_reported_by)}
    if state is not None and rule is not None:
        entry.setdefault("properties", {})["signalintBaselineRule"] = rule
    return entry


def _invocation(outcome: EngineOutcome | None) -> dict[str, Any]:
    if outcome is None or (outcome.status == "ok" and not outcome.message):
        return {"executionSuccessful": True}
    if outcome.status == "ok":
        # What an ok engine did not check (D17: links out of the root, D26)
        # reaches a code-scanning upload too, as a note.
        note = {"level": "note", "message": {"text": outcome.message}}
        return {"executionSuccessful": True, "toolExecutionNotifications": [note]}
    level = "error" if outcome.status == "error" else "warning"
    text = outcome.message or f"{outcome.engine} {outcome.status}"
    notification: dict[str, Any] = {"level": level, "message": {"text": text}}
    if outcome.failure is not None:
        # A property bag: SARIF has no field for why a tool failed or what fixes it.
        notification["properties"] = {"failureKind": outcome.failure.kind}
        if outcome.failure.fix is not None:
            notification["properties"]["fix"] = outcome.failure.fix
    return {"executionSuccessful": False, "toolExecutionNotifications": [notification]}


def _package_table(workspace: Mapping[str, Any] | None) -> dict[str, dict[str, str]]:
    """Package name -> {path, status}, as the JSON `workspace` block says them."""
    return {
        str(p["name"]): {"path": str(p["path"]), "status": str(p["status"])}
        for p in (workspace or {}).get("packages") or []
    }


def _add_packages(
    runs: list[dict[str, Any]], issues: Sequence[Issue], workspace: Mapping[str, Any] | None
) -> None:
    """Workspace checks: each run names the packages (`properties.packages`)
    and each result the package owning its file (`properties.package`; none
    outside every package), by the same rule as the JSON `workspace` block."""
    table = _package_table(workspace)
    if not table:
        return
    from signalint.pipeline.workspaces import Package, owned

    packages = [Package(name, entry["path"]) for name, entry in table.items()]
    owner = {
        issue.issue_id: name
        for name, members in owned(packages, issues).items()
        if name is not None
        for issue in members
    }
    for run in runs:
        run["properties"]["packages"] = table
        for entry in run["results"]:
            name = owner.get(entry["partialFingerprints"][FINGERPRINT_KEY])
            if name is not None:
                entry.setdefault("properties", {})["package"] = name


@dataclass(frozen=True, slots=True)
class Baseline:
    """What a check of only the new issues says in SARIF: each issue's
    `baselineState` by issue id (`new`, `unchanged`), and the engines whose
    states come from the changed-lines rule, each with `{rule, reason}`."""

    states: Mapping[str, str]
    fallback: Mapping[str, Mapping[str, object]] = field(default_factory=dict)


def build_log(
    result: CheckResult,
    versions: Mapping[str, str | None] | None = None,
    baseline: Baseline | None = None,
    *,
    workspace: Mapping[str, Any] | None = None,
    shard: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The SARIF log as a dict. Engines are runs in name order; issues keep
    `Issue.sort_key()` order. Engines found only in issues (e.g. ingested
    editor diagnostics) get a run without an outcome. `baseline`
    gives issues their SARIF `baselineState` (`check --new-from-rev`);
    issues it does not name get none; its `fallback` names the engines whose
    states come from the changed-lines rule (module docstring). `workspace`
    is the JSON `workspace` block of a workspace check (`_add_packages`). `shard` is
    the shard block of a shard's check (`shard_report.block`)."""
    by_engine: dict[str, list[Issue]] = {name: [] for name in result.outcomes}
    for issue in sorted(result.issues, key=Issue.sort_key):
        by_engine.setdefault(issue.engine, []).append(issue)
    runs = []
    for engine in sorted(by_engine):
        issues = by_engine[engine]
        rules, rule_index = _rules(engine, issues)
        driver: dict[str, Any] = {"name": engine}
        version = (versions or {}).get(engine)
        if version:
            driver["version"] = version
        if engine in ENGINES:
            driver["informationUri"] = ENGINES[engine].spec.docs_url
        driver["rules"] = rules
        fallback = None if baseline is None else baseline.fallback.get(engine)
        rule = str(fallback["rule"]) if fallback is not None else None
        properties: dict[str, Any] = {
            "signalintCheckId": result.check_id,
            "signalintFingerprint": result.fingerprint,
        }
        if fallback is not None:
            properties["signalintBaselineFallback"] = dict(fallback)
        runs.append(
            {
                "automationDetails": {"id": automation_id(engine, shard)},
                "tool": {"driver": driver},
                "invocations": [_invocation(result.outcomes.get(engine))],
                "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(result.project_root)}},
                "results": [
                    _result(
                        issue,
                        rule_index[issue.rule],
                        None if baseline is None else baseline.states.get(issue.issue_id),
                        rule,
                    )
                    for issue in issues
                ],
                "properties": properties,
            }
        )
    _add_packages(runs, result.issues, workspace)
    log: dict[str, Any] = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": runs}
    if shard is not None:
        log["properties"] = {SHARD_KEY: dict(shard)}
    return log


def render(
    result: CheckResult,
    clustering: Clustering | None = None,
    *,
    versions: Mapping[str, str | None] | None = None,
    baseline: Baseline | None = None,
    workspace: Mapping[str, Any] | None = None,
    shard: Mapping[str, Any] | None = None,
) -> str:
    """The SARIF log as JSON (indent 2), ending in a newline.

    `versions` maps engine names to the versions that ran (None: unknown);
    `baseline`, `workspace` and `shard` see `build_log`.
    `clustering` is accepted for a uniform signature and unused: SARIF lists
    every issue, uncapped.
    """
    log = build_log(result, versions, baseline, workspace=workspace, shard=shard)
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
