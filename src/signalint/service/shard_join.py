"""Shards back into one check: the report `signalint merge` prints (docs/ci.md).

Each input is the output of `signalint check --shard I/N` in the json or
sarif format; each carries its shard block (`shard_report`). Together the
inputs must be shards 1..N of one check: one format, one N, every index
once, the same targets and key style and the same workspace packages.
Anything else is refused with a `MergeError` naming the file and what is
wrong.

The merge rebuilds the whole check's `CheckResult` and renders it with the
writers the unsharded check uses, so the report equals the unsharded
check's: the same issues, clusters, counts and order; only `checkId` is
new (it names no retained snapshot). From the shards:

- issues: the union, sorted, with any issue a shard's per-package
  program reported in a file another shard owns (`elsewhere`) that no
  shard reported (one issue, as in the unsharded check); the fingerprint
  is recomputed;
- engine outcomes: from the shards where the engine had work (`parts`):
  the worst status (`error` when any failed, or when it ran in some and
  was missing in others; `disabled` when missing in all), their distinct
  messages and coverage gaps joined, files checked, cache counts and
  durations summed; an engine with work in no shard keeps the first
  shard's outcome;
- files in scope, the filtered-out count and the shared store's counts
  (`remoteCache`): summed;
- the workspace summary: each package from the shard that owns it, in the
  check's package order, with the merged status of the engines shared by
  every package, its counts and status recomputed from the merged issues;
- checked against a revision (`--new-from-rev`, every shard against the
  same commit): the new issues (JSON) or every issue with its
  `baselineState` (SARIF); the `baseline` block with `new` and
  `unchanged` counted over the whole check, `checkedAtRev` and
  `reusedPackages` joined in the check's order, the engines not ok at the
  revision and the changed-lines fallbacks joined.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, get_args
from urllib.parse import unquote, urlparse

from signalint import ids
from signalint.engines.registry import ENGINES
from signalint.errors import SignalintError
from signalint.model import CheckResult, EngineOutcome, Issue, OutcomeStatus, Severity
from signalint.pipeline.cluster import Clustering, cluster
from signalint.pipeline.workspaces import Package, owned
from signalint.service.package_summary import PackageEngine, counts, package_status
from signalint.service.shard_report import BlockError, read_block, read_issue, read_outcome
from signalint.steps import Words

Format = Literal["json", "sarif"]
FORMATS: tuple[Format, ...] = get_args(Format)


class MergeError(SignalintError):
    """Inputs that are not the shards of one check; the message names the file."""


@dataclass(frozen=True, slots=True)
class ShardOutput:
    """One input: its name as given, its format, the document and its shard block."""

    name: str
    format: Format
    document: dict[str, Any]
    block: dict[str, Any]

    @property
    def index(self) -> int:
        return int(self.block["index"])

    @property
    def count(self) -> int:
        return int(self.block["count"])

    @property
    def compact(self) -> bool:
        return self.format == "json" and "schemaVersion" not in self.document


@dataclass(frozen=True, slots=True)
class Merged:
    """The whole check rebuilt: its result, clustering, workspace summary,
    filtered-out count and (SARIF) engine versions.

    Checked against a revision: `judged` is the result the report counts
    (the new issues; `result` is the same for JSON, every issue for
    SARIF), `baseline` the merged `baseline` block, and for SARIF `states`
    each issue's `baselineState` and `fallback` the engines judged by
    changed lines.
    """

    result: CheckResult
    clustering: Clustering
    workspace: dict[str, Any] | None
    filtered_out: int | None
    versions: dict[str, str | None]
    judged: CheckResult
    baseline: dict[str, Any] | None = None
    states: dict[str, str] | None = None
    fallback: dict[str, dict[str, object]] | None = None


def read(path: Path, name: str | None = None) -> ShardOutput:
    """One shard output from `path` (named `name` in messages). Raises MergeError."""
    shown = name or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MergeError(f"{shown}: cannot be read ({exc})") from exc
    return parse(text, shown)


def parse(text: str, name: str) -> ShardOutput:
    """One shard output from its text. Raises MergeError."""
    not_ours = (
        f"{name} is not a Signalint check output (`signalint check --format json` "
        "or `--format sarif`)"
    )
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise MergeError(f"{not_ours}: it is not JSON ({exc})") from exc
    if not isinstance(document, dict):
        raise MergeError(f"{not_ours}: it is not a JSON object")
    found: Format
    if isinstance(document.get("runs"), list) and "version" in document:
        found, raw = "sarif", (document.get("properties") or {}).get("signalintShard")
        if not all(isinstance(r, dict) for r in document["runs"]):
            raise MergeError(f"{not_ours}: its `runs` are not SARIF runs")
    elif "schemaVersion" in document or "v" in document:
        found, raw = "json", document.get("shard")
    else:
        raise MergeError(not_ours)
    if raw is None:
        raise MergeError(
            f"{name} is the {found} output of a whole check, not of a shard "
            "(`signalint check --shard I/N`)"
        )
    where = "properties.signalintShard" if found == "sarif" else "shard"
    try:
        block = read_block(raw, where)
    except BlockError as exc:
        raise MergeError(f"{name}: {exc}") from exc
    return ShardOutput(name, found, document, block)


def check_set(outputs: Sequence[ShardOutput], wanted: Format | None) -> Format:
    """The format of `outputs` once they are known to be shards 1..N of one
    check (module docstring). Raises MergeError."""
    if not outputs:
        raise MergeError("no shard output given")
    first = outputs[0]
    if wanted is not None and first.format != wanted:
        raise MergeError(f"{first.name} is a {first.format} shard output, not {wanted}")
    seen: dict[int, str] = {}
    for out in outputs:
        if out.format != first.format:
            raise MergeError(
                f"{out.name} is a {out.format} shard output and {first.name} a {first.format} "
                "one: merge the outputs of one format"
            )
        if out.count != first.count:
            raise MergeError(
                f"{out.name} is shard {out.index} of {out.count}, but {first.name} is shard "
                f"{first.index} of {first.count}: merge the shards of one check"
            )
        if out.index in seen:
            raise MergeError(
                f"{out.name} and {seen[out.index]} are both shard {out.index} of {out.count}"
            )
        seen[out.index] = out.name
        for key, what in (
            ("targets", "checked other paths"),
            ("packages", "saw other workspace packages"),
            ("wholeProject", "checked another scope"),
        ):
            if out.block[key] != first.block[key]:
                raise MergeError(
                    f"{out.name} {what} than {first.name} ({key}: {out.block[key]} and "
                    f"{first.block[key]}): merge the shards of one check"
                )
        mine, theirs = out.block.get("baseline"), first.block.get("baseline")
        if (mine is None) != (theirs is None):
            with_rev = out.name if mine is not None else first.name
            raise MergeError(
                f"{with_rev} was checked against a revision (--new-from-rev) and the other "
                "shards were not: merge the shards of one check"
            )
        if mine is not None and theirs is not None:
            for key in ("rev", "commit", "mergeBase"):
                if mine.get(key) != theirs.get(key):
                    raise MergeError(
                        f"{out.name} was compared with {mine.get('commit')} and {first.name} "
                        f"with {theirs.get('commit')}: merge the shards of one check"
                    )
        if out.compact != first.compact:
            raise MergeError(
                f"{out.name} and {first.name} use different key styles (--compact): "
                "merge the outputs of one check"
            )
    missing = [i for i in range(1, first.count + 1) if i not in seen]
    if missing:
        named = ", ".join(str(i) for i in missing)
        given = ", ".join(str(i) for i in sorted(seen))
        what = (
            f"shard {named} of {first.count} is"
            if len(missing) == 1
            else (f"shards {named} of {first.count} are")
        )
        shown = f"shard {given}" if len(seen) == 1 else f"shards {given}"
        raise MergeError(f"{what} missing (given: {shown}): merge every shard's output")
    return first.format


def combine(name: str, outcomes: Sequence[EngineOutcome], parts: Sequence[bool]) -> EngineOutcome:
    """One engine's outcome from its shards' (module docstring)."""
    working = [o for o, part in zip(outcomes, parts, strict=True) if part]
    if not working:
        return outcomes[0]
    statuses = {o.status for o in working}
    status: OutcomeStatus = (
        "error"
        if "error" in statuses or len(statuses) > 1
        else "disabled"
        if statuses == {"disabled"}
        else "ok"
    )

    def joined(values: Sequence[str | None]) -> str | None:
        return "; ".join(dict.fromkeys(v for v in values if v)) or None

    return EngineOutcome(
        engine=name,
        status=status,
        message=joined([o.message for o in working]),
        duration_ms=sum(o.duration_ms for o in working),
        files_checked=sum(o.files_checked for o in working),
        cache_hits=sum(o.cache_hits for o in working),
        cache_misses=sum(o.cache_misses for o in working),
        coverage_gap=joined([o.coverage_gap for o in working]),
        failure=next((o.failure for o in working if o.failure is not None), None),
    )


def _outcomes(outputs: Sequence[ShardOutput]) -> dict[str, EngineOutcome]:
    first = outputs[0]
    names = list(first.block["outcomes"])
    for out in outputs:
        if sorted(out.block["outcomes"]) != sorted(names):
            raise MergeError(
                f"{out.name} ran other engines than {first.name} "
                f"({', '.join(sorted(out.block['outcomes']))} and {', '.join(sorted(names))}): "
                "merge the shards of one check"
            )
    merged: dict[str, EngineOutcome] = {}
    for name in names:
        outcomes = []
        for out in outputs:
            try:
                outcomes.append(read_outcome(name, out.block["outcomes"][name], "outcome"))
            except BlockError as exc:
                raise MergeError(f"{out.name}: the shard block's {name} {exc}") from exc
        merged[name] = combine(name, outcomes, [name in out.block["parts"] for out in outputs])
    return merged


def _records(out: ShardOutput, key: str) -> list[Issue]:
    """The issues the shard block lists under `key` (`issues`, `elsewhere`)."""
    records = out.block.get(key)
    if not isinstance(records, list):
        raise MergeError(f"{out.name}: its shard block lists no `{key}`")
    where = "shard" if out.format == "json" else "properties.signalintShard"
    try:
        return [read_issue(r, f"{where}.{key}[{n}]") for n, r in enumerate(records)]
    except BlockError as exc:
        raise MergeError(f"{out.name}: {exc}") from exc


def _sarif_issues(out: ShardOutput) -> list[Issue]:
    """The issues a shard's SARIF log lists, rebuilt as far as the log says
    (all that the SARIF writer reads back)."""
    from signalint.formats.sarif import FINGERPRINT_KEY

    found: list[Issue] = []
    for r, run in enumerate(out.document["runs"]):
        where = f"runs[{r}]"
        try:
            engine = str(run["tool"]["driver"]["name"])
            rules = run["tool"]["driver"].get("rules") or []
            for n, entry in enumerate(run.get("results") or []):
                where = f"runs[{r}].results[{n}]"
                place = entry["locations"][0]["physicalLocation"]
                region = place["region"]
                level = entry["level"]
                if level not in get_args(Severity):
                    raise ValueError(f"level {level!r}")
                rule = rules[entry["ruleIndex"]] if "ruleIndex" in entry else {}
                also = (entry.get("properties") or {}).get("alsoReportedBy") or []
                found.append(
                    Issue.restore(
                        str(entry["partialFingerprints"][FINGERPRINT_KEY]),
                        engine=engine,
                        file=unquote(str(place["artifactLocation"]["uri"])),
                        line=int(region["startLine"]),
                        col=int(region["startColumn"]),
                        rule=str(entry["ruleId"]),
                        severity=cast(Severity, level),
                        message=str(entry["message"]["text"]),
                        end_line=region.get("endLine"),
                        end_col=region.get("endColumn"),
                        docs_url=rule.get("helpUri"),
                        also_reported_by=tuple(str(a) for a in also),
                    )
                )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise MergeError(
                f"{out.name}: {where} is not a result the SARIF writer makes ({exc!r})"
            ) from exc
    return found


def _sarif_root(out: ShardOutput) -> str:
    for run in out.document["runs"]:
        uri = ((run.get("originalUriBaseIds") or {}).get("%SRCROOT%") or {}).get("uri")
        if isinstance(uri, str) and uri.startswith("file:"):
            return unquote(urlparse(uri).path).rstrip("/") or "/"
    return ""


def _sarif_versions(outputs: Sequence[ShardOutput]) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for out in outputs:
        for run in out.document["runs"]:
            driver = (run.get("tool") or {}).get("driver") or {}
            name = driver.get("name")
            if isinstance(name, str) and not versions.get(name):
                version = driver.get("version")
                versions[name] = version if isinstance(version, str) else None
    return versions


def _workspace(
    outputs: Sequence[ShardOutput],
    outcomes: Mapping[str, EngineOutcome],
    issues: Sequence[Issue],
) -> dict[str, Any] | None:
    blocks = [(out, out.block.get("workspace")) for out in outputs]
    present = [(out, b) for out, b in blocks if b is not None]
    if not present:
        return None
    first_out, first = present[0]
    if "packages" not in first:
        return dict(first)  # planning fell back to the root: the warning alone
    entries: dict[str, dict[str, Any]] = {}
    owners: dict[str, str] = {}
    for out, summary in present:
        for entry in summary.get("packages") or []:
            name = str(entry["name"])
            if name in entries:
                raise MergeError(
                    f"{out.name} and {owners[name]} both checked the package {name}: "
                    "merge the shards of one check"
                )
            entries[name], owners[name] = entry, out.name
    order = list(first_out.block["packages"])
    missing = [name for name in order if name not in entries]
    if missing:
        raise MergeError(
            f"no shard output checked the package {missing[0]}: merge the shards of one check"
        )
    packages = [Package(name, str(entries[name]["path"])) for name in order]
    by_package = owned(packages, issues)
    shared = {
        name: PackageEngine(status=o.status)
        for name, o in outcomes.items()
        if not (name in ENGINES and ENGINES[name].spec.per_package)
    }
    listed = []
    for package in packages:
        entry = entries[package.name]
        own = {k: v for k, v in entry["engines"].items() if k not in shared}
        engines = dict(sorted({**shared, **own}.items()))
        members = by_package.get(package.name, [])
        listed.append(
            {
                "name": package.name,
                "path": package.path,
                "status": package_status(engines, members),
                "counts": counts(members),
                "engines": engines,
            }
        )
    return {
        "source": first["source"],
        "packages": listed,
        "outsidePackages": counts(by_package.get(None, [])),
    }


def _states(out: ShardOutput) -> dict[str, str]:
    """The SARIF `baselineState` of each result of a shard's log, by issue id."""
    from signalint.formats.sarif import FINGERPRINT_KEY

    states: dict[str, str] = {}
    for run in out.document["runs"]:
        for entry in run.get("results") or []:
            state = entry.get("baselineState")
            if state not in ("new", "unchanged"):
                raise MergeError(
                    f"{out.name}: a result has no baselineState new or unchanged, but the "
                    "shard was checked against a revision"
                )
            states[str(entry["partialFingerprints"][FINGERPRINT_KEY])] = state
    return states


def _fallback(outputs: Sequence[ShardOutput]) -> dict[str, dict[str, object]]:
    """Per engine, the changed-lines rule the SARIF runs name (`signalintBaselineFallback`)."""
    found: dict[str, dict[str, object]] = {}
    for out in outputs:
        for run in out.document["runs"]:
            named = (run.get("properties") or {}).get("signalintBaselineFallback")
            engine = ((run.get("tool") or {}).get("driver") or {}).get("name")
            if isinstance(named, dict) and isinstance(engine, str):
                found.setdefault(engine, dict(named))
    return found


def _baseline_block(
    outputs: Sequence[ShardOutput], new: int, unchanged: int, package_paths: Sequence[str]
) -> dict[str, Any]:
    """One `baseline` block from the shards' (module docstring)."""
    blocks = [out.block["baseline"] for out in outputs]
    first = blocks[0]
    order = {path: n for n, path in enumerate(package_paths)}
    names = {name: n for n, name in enumerate(outputs[0].block["packages"])}

    def union(key: str, rank: Mapping[str, int]) -> list[Any]:
        seen = list(dict.fromkeys(v for b in blocks for v in b.get(key) or []))
        return sorted(seen, key=lambda v: (rank.get(v, len(rank)), seen.index(v)))

    fallback: dict[str, Any] = {}
    for b in blocks:
        for entry in b.get("fallback") or []:
            fallback.setdefault(str(entry["engine"]), entry)
    return {
        "rev": first["rev"],
        "commit": first["commit"],
        "mergeBase": first["mergeBase"],
        "new": new,
        "unchanged": unchanged,
        "checkedAtRev": union("checkedAtRev", order),
        "reusedPackages": union("reusedPackages", names),
        "enginesNotOkAtRev": sorted({e for b in blocks for e in b.get("enginesNotOkAtRev") or []}),
        "fallback": [fallback[e] for e in sorted(fallback)],
        "borrowedIgnoredFiles": max(int(b.get("borrowedIgnoredFiles") or 0) for b in blocks),
        "borrowedAllIgnoredFiles": all(b.get("borrowedAllIgnoredFiles", True) for b in blocks),
    }


def _gathered(
    outputs: Sequence[ShardOutput], form: Format, since: bool
) -> tuple[dict[str, Issue], dict[str, str], set[str]]:
    """Every shard's issues once, by id (with a revision, `since`: their
    SARIF states, and the ids of the unchanged issues the JSON names). An
    issue a shard reported in another's files (`elsewhere`) is taken only
    when no shard reported it itself."""
    unique: dict[str, Issue] = {}
    states: dict[str, str] = {}
    for out in outputs:
        for issue in _records(out, "issues") if form == "json" else _sarif_issues(out):
            unique.setdefault(issue.issue_id, issue)
        if since and form == "sarif":
            states.update(_states(out))
    listed = set(unique)
    unchanged_ids = {i for out in outputs for i in out.block.get("unchangedIssueIds") or []}
    # What some shard reported itself (the JSON lists only new issues, and
    # names the unchanged ones) is not taken from another's `elsewhere`.
    reported = listed | unchanged_ids
    for out in outputs:
        elsewhere_states = out.block.get("elsewhereStates") or {}
        for issue in _records(out, "elsewhere"):
            if issue.issue_id in reported or issue.issue_id in unique:
                continue
            state = elsewhere_states.get(issue.issue_id)
            if since and form == "json" and state != "new":
                unchanged_ids.add(issue.issue_id)  # the JSON lists only new issues
                continue
            unique[issue.issue_id] = issue
            if state is not None:
                states[issue.issue_id] = state
    return unique, states, unchanged_ids


def _remote_counts(outputs: Sequence[ShardOutput]) -> dict[str, int] | None:
    """What the shards' shared result store did, summed (None: none had one)."""
    remote: dict[str, int] | None = None
    for out in outputs:
        counts_of = out.block.get("remoteCache")
        if counts_of is not None:
            remote = remote or {}
            for key, value in counts_of.items():
                remote[key] = remote.get(key, 0) + value
    return remote


def merge(outputs: Sequence[ShardOutput], wanted: Format | None = None) -> tuple[Format, Merged]:
    """The whole check rebuilt from its shards' outputs (module docstring)."""
    form = check_set(outputs, wanted)
    outputs = sorted(outputs, key=lambda o: o.index)
    outcomes = _outcomes(outputs)
    since = "baseline" in outputs[0].block
    unique, states, unchanged_ids = _gathered(outputs, form, since)
    issues = tuple(sorted(unique.values(), key=Issue.sort_key))
    filtered = [out.block["filteredOut"] for out in outputs]
    root = (
        str(outputs[0].document.get("projectRoot", ""))
        if form == "json"
        else _sarif_root(outputs[0])
    )
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=ids.fingerprint(unique),
        project_root=root,
        outcomes=outcomes,
        issues=issues,
        created_at=time.time(),
        files_in_scope=sum(int(out.block["filesInScope"]) for out in outputs),
        whole_project=bool(outputs[0].block["wholeProject"]),
        remote_cache=_remote_counts(outputs),
    )
    # What the report counts: with a revision, only the new issues.
    judged = result
    if since and form == "sarif":
        new = tuple(i for i in issues if states.get(i.issue_id) == "new")
        judged = dataclasses.replace(
            result, issues=new, fingerprint=ids.fingerprint(i.issue_id for i in new)
        )
    workspace = _workspace(outputs, outcomes, judged.issues)
    baseline = None
    if since:
        paths = [str(p["path"]) for p in (workspace or {}).get("packages") or []]
        if form == "json":
            baseline = _baseline_block(outputs, len(issues), len(unchanged_ids), paths)
        else:
            new_count = len(judged.issues)
            baseline = _baseline_block(outputs, new_count, len(issues) - new_count, paths)
    versions = _sarif_versions(outputs) if form == "sarif" else {}
    filtered_out = None if all(f is None for f in filtered) else sum(f or 0 for f in filtered)
    return form, Merged(
        result,
        cluster(judged.issues),
        workspace,
        filtered_out,
        versions,
        judged=judged,
        baseline=baseline,
        states=states if since and form == "sarif" else None,
        fallback=_fallback(outputs) if since and form == "sarif" else None,
    )


def render(
    form: Format, merged: Merged, *, compact: bool = False, words: Words | None = None
) -> str:
    """The merged report in `form`, as `signalint check` would print it;
    `words` phrase its `nextStep` (default: the CLI's, `command_words`)."""
    if form == "sarif":
        from signalint.formats import sarif

        states = merged.states
        return sarif.render(
            merged.result,
            versions=merged.versions,
            workspace=merged.workspace,
            baseline=None if states is None else sarif.Baseline(states, merged.fallback or {}),
        )
    from signalint.formats.commands import command_words
    from signalint.formats.json_format import dump
    from signalint.pipeline.report import Additions, check_payload

    added = Additions(merged.filtered_out, workspace=merged.workspace, baseline=merged.baseline)
    payload = check_payload(
        merged.result,
        merged.clustering,
        compact=compact,
        added=added,
        words=command_words if words is None else words,
    )
    return dump(payload)


__all__ = [
    "FORMATS",
    "Format",
    "MergeError",
    "Merged",
    "ShardOutput",
    "check_set",
    "combine",
    "merge",
    "parse",
    "read",
    "render",
]
