"""The check pipeline: walk -> engines (concurrently) -> filter -> CheckResult.

Engines run concurrently, each through the shared runner; one engine's
failure is data in its outcome and never hides the others' issues. The result
keeps every issue (no caps here); clustering and caps belong to reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from signalint import ids
from signalint.cache import ResultCache
from signalint.config import Config, state_dir
from signalint.engines.registry import ENGINES
from signalint.engines.runner import Progress, run_engine
from signalint.incremental import run_file_engine, run_tsc
from signalint.merge import merge_reports
from signalint.model import CheckResult, EngineOutcome, Issue
from signalint.project import walk


@dataclass(frozen=True, slots=True)
class Scope:
    """What a check covers: project-relative targets, and whether it is a file check.

    `targets` are already validated by `project.safe_relative`. Issues outside
    the targets are filtered out and counted (whole-program engines report
    on their whole program).
    """

    targets: tuple[str, ...] = (".",)

    @property
    def whole_project(self) -> bool:
        return "." in self.targets

    def contains(self, rel_path: str) -> bool:
        if self.whole_project:
            return True
        return rel_path in self.targets or rel_path.startswith(_prefixes(self.targets))


@functools.lru_cache(maxsize=64)
def _prefixes(targets: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t.rstrip("/") + "/" for t in targets)


@dataclass(frozen=True, slots=True, repr=False)
class CheckRun:
    """A check's result plus what the scope filtered out."""

    result: CheckResult
    filtered_out: int
    files_walked: int

    def __repr__(self) -> str:
        return f"CheckRun({self.result!r}, filtered_out={self.filtered_out})"


def _keep(issue: Issue, ignored: pathspec.GitIgnoreSpec, explicit: frozenset[str]) -> bool:
    if "node_modules" in issue.file.split("/"):
        return False
    # A file named as a target was walked, so checked, despite `ignore`
    # (see project.walk): its issues are reported, or the check would call
    # a file it checked clean.
    return issue.file in explicit or not ignored.match_file(issue.file)


_caches: dict[tuple[Path, int], ResultCache] = {}


def _cache_for(state: Path, max_rows: int) -> ResultCache:
    """One cache object per state dir and process: its file-hash memo then
    lives as long as a server does."""
    key = (state, max_rows)
    if key not in _caches:
        _caches[key] = ResultCache(state, max_rows=max_rows)
    return _caches[key]


async def _run_one(
    name: str,
    root: Path,
    config: Config,
    scope: Scope,
    files: list[str],
    cache: ResultCache | None,
    progress: Progress | None,
    reported: Callable[[str], bool],
) -> EngineOutcome:
    engine = ENGINES[name]
    common: dict[str, Any] = {
        "root": root,
        "timeout_s": config.timeouts_ms[name] / 1000,
        "state_dir": state_dir(root),
        "options": dict(config.engines[name].options),
        "progress": progress,
    }
    if engine.spec.whole_program:
        # Freshness needs every candidate input, not only the scope's files.
        def project_files() -> list[str]:
            return files if scope.whole_project else walk(root, config.ignore)

        # Without a cache run_tsc runs cold (no build info from earlier runs).
        return await run_tsc(
            engine,
            cache,
            project_files=project_files,
            target=scope.targets[0],
            in_scope=reported,
            **common,
        )
    if cache is None:
        run = await run_engine(engine, files=files, target=scope.targets[0], **common)
        return run.outcome
    return await run_file_engine(engine, cache, files=files, **common)


def _settled(whole_program: bool, outcome: EngineOutcome) -> EngineOutcome:
    """`outcome` with `files_checked` counting only what was really covered (D17).

    A disabled engine covered nothing. A failed engine without a declared
    coverage gap covered only what came from the cache (a file engine's
    hits); its producer may have counted the files it was asked to check.
    """
    if outcome.status == "disabled":
        covered = 0
    elif outcome.status == "error" and outcome.coverage_gap is None:
        covered = 0 if whole_program else min(outcome.files_checked, outcome.cache_hits)
    else:
        return outcome
    if covered == outcome.files_checked:
        return outcome
    return dataclasses.replace(outcome, files_checked=covered)


async def run_check(
    root: Path,
    config: Config,
    scope: Scope | None = None,
    *,
    progress: Progress | None = None,
    use_cache: bool = True,
) -> CheckRun:
    """Check `scope` of the project at `root` (canonical) with `config`.

    With `use_cache` (the default) unchanged results are reused from the
    state directory's cache (see signalint.incremental); without it every
    enabled engine runs and nothing is stored.
    """
    scope = scope or Scope()
    files = walk(root, config.ignore, scope.targets)
    cache = _cache_for(state_dir(root), config.cache_max_rows) if use_cache else None
    enabled = [name for name in ENGINES if config.engines[name].enabled]
    ignored = pathspec.GitIgnoreSpec.from_lines(config.ignore)
    explicit = frozenset(scope.targets).intersection(files)

    def reported(rel_path: str) -> bool:
        """Whether issues in this project file would be reported: in scope, not
        ignored. A whole-program engine covers only such files (D17)."""
        return scope.contains(rel_path) and (
            rel_path in explicit or not ignored.match_file(rel_path)
        )

    outcomes = await asyncio.gather(
        *(_run_one(name, root, config, scope, files, cache, progress, reported) for name in enabled)
    )
    outcomes = [_settled(ENGINES[o.engine].spec.whole_program, o) for o in outcomes]
    verdicts: dict[str, bool] = {}  # per file: many issues share a file
    seen: dict[str, Issue] = {}
    filtered_out = 0
    for outcome in outcomes:
        for issue in outcome.issues:
            keep = verdicts.get(issue.file)
            if keep is None:
                keep = verdicts[issue.file] = _keep(issue, ignored, explicit)
            if not keep or issue.issue_id in seen:
                continue
            if not scope.contains(issue.file):
                filtered_out += 1
                continue
            seen[issue.issue_id] = issue
    # One problem, one issue (D20): after filtering, so only kept issues pair.
    merged = {issue.issue_id: issue for issue in merge_reports(seen.values())}
    issues = tuple(sorted(merged.values(), key=Issue.sort_key))
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=ids.fingerprint(merged),
        project_root=str(root),
        outcomes={o.engine: o for o in outcomes},
        issues=issues,
        created_at=time.time(),
        files_in_scope=len(files),
        whole_project=scope.whole_project,
    )
    return CheckRun(result=result, filtered_out=filtered_out, files_walked=len(files))
