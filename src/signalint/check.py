"""The check pipeline: walk -> engines (concurrently) -> filter -> CheckResult.

Engines run concurrently, each through the shared runner; one engine's
failure is data in its outcome and never hides the others' issues. The result
keeps every issue (no caps here); clustering and caps belong to reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from signalint import ids
from signalint.cache import ResultCache
from signalint.config import Config, state_dir
from signalint.context import Context
from signalint.engines.registry import ENGINES
from signalint.engines.runner import Progress, run_engine
from signalint.file_cache import run_file_engine
from signalint.merge import merge_reports
from signalint.model import CheckResult, EngineOutcome, Issue, Scope
from signalint.program_cache import ProgramRequest, run_program_engine
from signalint.project import walk


@dataclass(frozen=True, slots=True, repr=False)
class CheckRun:
    """A check's result plus what the scope filtered out."""

    result: CheckResult
    filtered_out: int
    files_walked: int

    def __repr__(self) -> str:
        return f"CheckRun({self.result!r}, filtered_out={self.filtered_out})"


def _keep(issue: Issue, ignored: pathspec.GitIgnoreSpec, walked: frozenset[str]) -> bool:
    # A walked file passed the ignore rules, or was named as a target (see
    # project.walk): its issues are reported, or the check would call a file
    # it checked clean.
    if issue.file in walked:
        return True
    if "node_modules" in issue.file.split("/"):
        return False
    return not ignored.match_file(issue.file)


async def _run_one(
    name: str,
    root: Path,
    config: Config,
    scope: Scope,
    files: list[str],
    cache: ResultCache | None,
    context: Context,
    progress: Progress | None,
    reported: Callable[[str], bool],
) -> EngineOutcome:
    engine = ENGINES[name]
    memo = context.walk_memo(root)
    options = dict(config.engines[name].options)
    timeout_s = config.timeouts_ms[name] / 1000
    state = state_dir(root)
    if engine.spec.whole_program:
        # Freshness needs every candidate input, not only the scope's files.
        def project_files() -> list[str]:
            return files if scope.whole_project else walk(root, config.ignore, memo=memo)

        request = ProgramRequest(
            root=root,
            project_files=project_files,
            options=options,
            target=scope.targets[0],
            timeout_s=timeout_s,
            state_dir=state,
            in_scope=reported,
            progress=progress,
        )
        return await run_program_engine(engine, cache, context, request)
    common: dict[str, Any] = {
        "root": root,
        "timeout_s": timeout_s,
        "state_dir": state,
        "options": options,
        "progress": progress,
    }
    if cache is None:
        run = await run_engine(engine, files=files, target=scope.targets[0], **common)
        return run.outcome
    return await run_file_engine(engine, cache, context, files=files, **common)


def _merge(kept: tuple[Issue, ...]) -> tuple[tuple[Issue, ...], str]:
    """The check's issues, sorted, and their fingerprint."""
    merged = {issue.issue_id: issue for issue in merge_reports(kept)}
    return tuple(sorted(merged.values(), key=Issue.sort_key)), ids.fingerprint(merged)


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
    context: Context | None = None,
) -> CheckRun:
    """Check `scope` of the project at `root` (canonical) with `config`.

    With `use_cache` (the default) unchanged results are reused from the
    state directory's cache (signalint.file_cache, signalint.program_cache);
    without it every enabled engine runs and nothing is stored. `context` is
    the caller's process memory (a server or a watch session keeps one for
    its lifetime); a new one is made when omitted.
    """
    context = context or Context()
    scope = scope or Scope()
    files = walk(root, config.ignore, scope.targets, context.walk_memo(root))
    cache = context.cache(state_dir(root), config.cache_max_rows) if use_cache else None
    enabled = [name for name in ENGINES if config.engines[name].enabled]
    ignored = pathspec.GitIgnoreSpec.from_lines(config.ignore)
    walked = frozenset(files)

    def reported(rel_path: str) -> bool:
        """Whether issues in this project file would be reported: in scope, not
        ignored. A whole-program engine covers only such files (D17)."""
        # The walk already applied the ignore rules to the files it found.
        return scope.contains(rel_path) and (rel_path in walked or not ignored.match_file(rel_path))

    outcomes = await asyncio.gather(
        *(
            _run_one(name, root, config, scope, files, cache, context, progress, reported)
            for name in enabled
        )
    )
    outcomes = [_settled(ENGINES[o.engine].spec.whole_program, o) for o in outcomes]
    verdicts: dict[str, bool] = {}  # per file: many issues share a file
    seen: dict[str, Issue] = {}
    filtered_out = 0
    for outcome in outcomes:
        for issue in outcome.issues:
            keep = verdicts.get(issue.file)
            if keep is None:
                keep = verdicts[issue.file] = _keep(issue, ignored, walked)
            if not keep or issue.issue_id in seen:
                continue
            if not scope.contains(issue.file):
                filtered_out += 1
                continue
            seen[issue.issue_id] = issue
    # One problem, one issue (D20): after filtering, so only kept issues pair.
    issues, fingerprint = context.merged(tuple(seen.values()), _merge)
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=fingerprint,
        project_root=str(root),
        outcomes={o.engine: o for o in outcomes},
        issues=issues,
        created_at=time.time(),
        files_in_scope=len(files),
        whole_project=scope.whole_project,
    )
    return CheckRun(result=result, filtered_out=filtered_out, files_walked=len(files))
