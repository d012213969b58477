"""Fixes the engines already know: their own safe fixes as a fix transaction.

`suggest` takes issues of a retained check, and for each engine that can
fix (an adapter with a `fix` command: ESLint, Oxlint, Biome, Ruff) runs
that engine's safe-fix mode on the issues' files in a sparse shadow copy
of the project (those files copied, everything else symlinked:
`signalint.pipeline.shadow`; nothing is written in the project). The files
that changed become full-file patches, ready for a preview transaction:
one preview, one apply, for a whole fixable cluster.

Engines fix whole files: every safe fix the project's configuration
enables in those files is part of the patch, not only the requested
issues' (the diff shows exactly what). Only safe fixes are applied
(ESLint `--fix`, Oxlint `--fix` without `--fix-suggestions`, Biome
`--write` without `--unsafe`, Ruff `--fix --no-unsafe-fixes`), in the
canonical engine order, each on the result of the previous one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.registry import ENGINES, engine_cache_dirs
from signalint.errors import SignalintError
from signalint.features.transactions import Patch, locate
from signalint.model import Issue
from signalint.pipeline.shadow import shadow_copy
from signalint.process import Command
from signalint.settings.config import Config

MAX_FILES: Final = 2000


@runtime_checkable
class AppliesFixes(Protocol):
    """An engine adapter that can apply its own safe fixes to files in place."""

    def fix(self, ctx: EngineContext, files: Sequence[str]) -> Command:
        """The command that applies the safe fixes to `files` (run in `ctx.root`)."""
        ...


class FixRefused(SignalintError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Suggestion:
    """Patches made from the engines' fixes, and what each engine did."""

    patches: tuple[Patch, ...] = ()
    # engine -> {status: "ok" | "error" | "disabled", files: n, message?}
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    # issue ids whose engine has no fix mode
    not_fixable: list[str] = field(default_factory=list)

    def explain(self) -> str:
        bad = [f"{n}: {e.get('message', e['status'])}" for n, e in self.engines.items()
               if e["status"] != "ok"]  # fmt: skip
        if not self.engines:
            return "None of these issues comes from an engine with a fix mode."
        text = "The engines' safe fixes change nothing in these files."
        return text + (" " + "; ".join(bad) if bad else "")


def fix_plan(
    issues: Sequence[Issue], only: str | None = None
) -> tuple[dict[str, list[str]], list[str]]:
    """Files per fixing engine (canonical order; only engine `only` if given), and
    the issue ids no engine can fix."""
    files: dict[str, set[str]] = {}
    not_fixable: list[str] = []
    for issue in issues:
        # An issue several engines reported (D20) is fixed by any of them.
        fixers = [
            name
            for name in (issue.engine, *issue.also_reported_by)
            if isinstance(ENGINES.get(name), AppliesFixes) and only in (None, name)
        ]
        for name in fixers:
            files.setdefault(name, set()).add(issue.file)
        if not fixers:
            not_fixable.append(issue.issue_id)
    ordered = {name: sorted(files[name]) for name in ENGINES if name in files}
    return ordered, not_fixable


async def suggest(
    root: Path, config: Config, issues: Sequence[Issue], only: str | None = None
) -> Suggestion:
    """The engines' safe fixes for the files of `issues` (module docstring); only
    engine `only`'s when given."""
    plan, not_fixable = fix_plan(issues, only)
    suggestion = Suggestion(not_fixable=not_fixable)
    every = sorted({file for files in plan.values() for file in files})
    if len(every) > MAX_FILES:
        raise FixRefused("too_many_files", f"{len(every)} files; at most {MAX_FILES} at once")
    originals: dict[str, bytes] = {}
    for file in every:
        locate(root, file)  # inside the root, no symlink: the patch could not write it
        try:
            originals[file] = (root / file).read_bytes()
        except FileNotFoundError:
            continue  # deleted since the check
    if not originals:
        return suggestion
    with shadow_copy(root, only=list(originals), skip=engine_cache_dirs()) as shadow:
        for name, files in plan.items():
            files = [f for f in files if f in originals]
            engine = ENGINES[name]
            assert isinstance(engine, AppliesFixes)
            ctx = await _fix_context(root, shadow, config, name)
            if not isinstance(ctx, EngineContext):
                suggestion.engines[name] = ctx
                continue
            result = await process.run(engine.fix(ctx, files))
            entry: dict[str, Any] = {"status": "ok", "files": len(files)}
            if not result.finished or result.exit_code not in (0, 1):
                entry["status"] = "error"
                entry["message"] = _first_line(result)
            suggestion.engines[name] = entry
        patches = []
        for file, before in originals.items():
            after = (shadow / file).read_bytes()
            if after == before:
                continue
            try:
                old, new = before.decode("utf-8"), after.decode("utf-8")
            except UnicodeDecodeError:
                continue
            fixers = [n for n, files in plan.items() if file in files]
            patches.append(Patch(file, old, new, f"safe fixes of {', '.join(fixers)}"))
    suggestion.patches = tuple(patches)
    return suggestion


async def _fix_context(
    root: Path, shadow: Path, config: Config, name: str
) -> EngineContext | dict[str, Any]:
    """How engine `name` runs its fixes in `shadow`, or what to report
    instead: disabled, not installed, or hung on its `--version`."""
    from signalint.engines.resolve import (
        Unremembered,
        VersionUnanswered,
        engine_version,
        project_python,
        resolve,
    )

    setting = config.engines[name]
    if not setting.enabled:
        return {"status": "disabled", "files": 0, "message": "disabled in the configuration"}
    engine = ENGINES[name]
    resolved = resolve(engine, root)
    if resolved.path is None:
        return {"status": "disabled", "files": 0, "message": "not installed"}
    timeout_s = config.timeouts_ms[name] / 1000
    # The fix command's options depend on the major (ESLint 8 has no
    # --no-warn-ignored), as the check's do.
    try:
        told = await engine_version(resolved, engine.spec.provision, timeout_s, Unremembered())
    except VersionUnanswered as unanswered:
        return {"status": "error", "files": 0, "message": f"{name} {unanswered}"}
    return EngineContext(
        root=shadow,
        executable=resolved.path,
        timeout_s=timeout_s,
        state_dir=shadow / ".signalint" / name,
        options=setting.options,
        python=project_python(root),
        version=told,
    )


def _first_line(result: process.ProcessResult) -> str:
    if result.timed_out:
        return "timed out"
    if result.missing or result.start_error:
        return result.start_error or "could not start"
    text = (result.stderr or result.stdout).strip().splitlines()
    return text[0][:200] if text else f"exited with code {result.exit_code}"


__all__ = ["AppliesFixes", "FixRefused", "Suggestion", "fix_plan", "suggest"]
