"""Hook policy (D10) and each host's decision format.

Post-edit: only the edited files are checked, with the configured engines,
ignores and timeouts; the issues found in them go to the model in the
host's context field, the new ones first (those this hook had not reported
for the file before, remembered in the state directory), then those still
open. Before them comes what the edit did to the files that depend on the
edited ones, when a whole-program engine ran its whole program and knew
its previous run (`ripple`): the errors it broke or moved there, listed,
and those it repaired. Advisory: it never blocks the edit; the stop hook,
which checks the project, blocks on a broken dependent as on any error.

Stop: the project is checked with the configured engines. The hook blocks
the stop when any returned cluster or flat record has priority at or under
the threshold (clusters count, unlike the reference), or when coverage is
incomplete (an engine failed, is missing, or covered nothing) unless
`allow_partial`. A chain of stops the host continues because of us
(`stop_hook_active`, or Cursor's `loop_count` > 0) is counted in the state
directory; a fresh stop resets the count. After `max_blocks` consecutive
blocks the hook lets the host stop with a warning instead of looping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from signalint import answers
from signalint.files import write_atomic
from signalint.hosts.hook_events import HookEvent
from signalint.wording import count

MAX_LISTED: Final = 12
STATE_FILE: Final = "hooks-stop.json"
SEEN_FILE: Final = "hooks-seen.json"


@dataclass(frozen=True, slots=True)
class Decision:
    """`block`: the stop is refused with `reason`; `context`: for the model;
    `warning`: for the person (shown by hosts that have a place for it);
    `repeatable`: the same event on the same files would be answered the
    same and change no state (so the answer may be kept, `answers`)."""

    block: bool = False
    reason: str = ""
    context: str = ""
    warning: str = ""
    repeatable: bool = False


def render(event: HookEvent, decision: Decision) -> dict[str, Any]:
    """`decision` in `event.runtime`'s output format (an empty object: no decision)."""
    runtime = event.runtime
    out: dict[str, Any] = {}
    if event.kind == "edit":
        if not decision.context:
            return out
        if runtime == "cursor":
            return {"additional_context": decision.context}
        return {
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": decision.context,
            }
        }
    if event.kind != "stop":
        return out
    if decision.block:
        if runtime == "cursor":
            out["followup_message"] = decision.reason
        elif runtime == "gemini":
            out.update(decision="deny", reason=decision.reason)
        elif runtime == "vscode":
            out["hookSpecificOutput"] = {
                "hookEventName": event.name,
                "decision": "block",
                "reason": decision.reason,
            }
        else:
            out.update(decision="block", reason=decision.reason)
    if decision.warning and runtime != "cursor":
        out["systemMessage"] = decision.warning
    return out


class StopCounter:
    """Consecutive stop blocks per runtime and session, in the state directory."""

    def __init__(self, state: Path) -> None:
        self.path = state / STATE_FILE

    def _read(self) -> dict[str, int]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, int)}

    def _write(self, data: dict[str, int]) -> None:
        write_atomic(self.path, json.dumps(data, sort_keys=True).encode())

    def count(self, key: str) -> int:
        return self._read().get(key, 0)

    def set(self, key: str, value: int) -> None:
        data = self._read()
        if value:
            data[key] = value
        else:
            data.pop(key, None)
        self._write(data)


def counter_key(event: HookEvent) -> str:
    return f"{event.runtime}:{event.session or '-'}"


def issue_lines(issues: Any, limit: int = MAX_LISTED) -> list[str]:
    """One line per issue (`file:line:col severity rule: message`), capped, with a tail."""
    lines = [
        f"{i.file}:{i.line}:{i.col} {i.severity} {i.rule}: {i.message.splitlines()[0]}"
        for i in list(issues)[:limit]
    ]
    extra = len(issues) - limit
    if extra > 0:
        lines.append(f"... and {extra} more (signalint check lists them all)")
    return lines


def coverage_gaps(result: Any) -> list[str]:
    """Why coverage is incomplete: engines that failed, are missing or covered nothing."""
    gaps = [
        f"{name} {o.status}: {(o.message or '').splitlines()[0] if o.message else 'no detail'}"
        for name, o in result.outcomes.items()
        if o.status != "ok"
    ]
    if not gaps and result.coverage_warning:
        gaps.append(str(result.coverage_warning))
    if not result.outcomes:
        gaps.append("no engine is enabled")
    elif not gaps and getattr(result, "code", None) is not None:
        gaps.append("no engine checked any file")
    return gaps


def post_edit(
    checked: Any, files: list[str], skipped: list[str], seen: SeenIssues | None = None
) -> Decision:
    """The post-edit context: the new issues of the edited files first (not in
    `seen`, the ids this hook last reported for them), then the ones still
    open from before, and engine problems. `seen` is updated."""
    result = checked.result
    parts = _ripple_lines(checked)
    before = seen.ids(files) if seen is not None else set()
    new = [i for i in result.issues if i.issue_id not in before]
    old = [i for i in result.issues if i.issue_id in before]
    edited = "the edited file" if len(files) == 1 else "the edited files"
    where = f"{edited} ({', '.join(files)}); check {result.check_id}"
    if new:
        parts.append(f"Signalint: {count(len(new), 'new issue')} in {where}:")
        parts += issue_lines(new)
    if old:
        lead = "Still open from before" if new else f"No new issues in {where}; still open"
        parts.append(f"{lead} ({len(old)}):")
        parts += issue_lines(old, max(MAX_LISTED - len(new), 3))
    gaps = [g for g in coverage_gaps(result) if "checked no file" not in g]
    if gaps:
        parts.append("Not fully checked: " + "; ".join(gaps))
    if skipped and parts:
        parts.append("Skipped: " + "; ".join(skipped))
    if seen is not None:
        seen.update(files, [i for i in result.issues], result.outcomes)
    # Nothing new: what this hook remembers as reported stays as it is. An
    # edit's ripple is known once (the next check of the same content finds
    # the programs' records fresh), so its answer is not kept.
    repeatable = (
        not new
        and not getattr(checked, "ripple", None)
        and result.status != "error"
        and result.remote_cache is None
    )
    return Decision(context="\n".join(parts), repeatable=repeatable)


def _ripple_lines(checked: Any) -> list[str]:
    """What the edit did to the files that depend on the edited ones
    (`ripple.told`), first: the errors it broke or moved there, listed."""
    from signalint.formats.commands import command_words
    from signalint.pipeline.ripple import told

    ripple = getattr(checked, "ripple", None)
    if not ripple:
        return []
    dependents = getattr(checked, "dependents", None)
    check_id = "" if dependents is None else dependents.check_id
    lines = ["Signalint: " + told(ripple, check_id, command_words)]
    return lines + issue_lines(ripple.now)


class SeenIssues:
    """The issue ids the post-edit hook last reported per file (state directory)."""

    def __init__(self, state: Path) -> None:
        self.path = state / SEEN_FILE
        answers.note((str(self.path),))
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            data = {}
        self.data: dict[str, list[str]] = {
            k: [i for i in v if isinstance(i, str)]
            for k, v in (data.items() if isinstance(data, dict) else [])
            if isinstance(v, list)
        }

    def ids(self, files: list[str]) -> set[str]:
        return {i for f in files for i in self.data.get(f, [])}

    def update(self, files: list[str], issues: list[Any], outcomes: Any) -> None:
        """Record what was reported; a file an engine failed on keeps its old ids."""
        if any(o.status != "ok" for o in outcomes.values()):
            return  # incomplete: what is missing now is not known to be fixed
        before = dict(self.data)
        for file in files:
            self.data[file] = sorted(i.issue_id for i in issues if i.file == file)
            if not self.data[file]:
                del self.data[file]
        if self.data != before:  # unchanged: not rewritten (a kept answer read it)
            write_atomic(self.path, json.dumps(self.data, sort_keys=True).encode())


def stop(
    checked: Any,
    event: HookEvent,
    counter: StopCounter,
    *,
    threshold: int,
    allow_partial: bool,
    max_blocks: int,
) -> Decision:
    """The stop decision (module docstring)."""
    from signalint.pipeline.report import fails_priority

    result = checked.result
    key = counter_key(event)
    previous = counter.count(key) if event.stop_active else 0
    reasons: list[str] = []
    if fails_priority(checked.clustering, threshold):
        clustering = checked.clustering
        urgent = [i for c in clustering.clusters if c.priority <= threshold for i in c.issues]
        urgent += [r.issue for r in clustering.flat if r.priority <= threshold]
        reasons.append(
            f"Signalint check {result.check_id} found issues at priority {threshold} or "
            f"more urgent ({count(len(result.issues), 'issue')} in all). Fix them before stopping:"
        )
        reasons += issue_lines(urgent)
    gaps = coverage_gaps(result) if result.status == "error" else []
    if gaps and not allow_partial:
        reasons.append(
            "The check is incomplete, so the project cannot be called clean: "
            + "; ".join(gaps)
            + ". Fix the engine setup (signalint doctor says how)."
        )
    if not reasons:
        counter.set(key, 0)
        return Decision()
    if previous >= max_blocks:
        counter.set(key, 0)
        return Decision(
            warning=f"Signalint let the agent stop after {previous} consecutive blocks; "
            f"still open: {reasons[0]}"
        )
    counter.set(key, previous + 1)
    return Decision(block=True, reason="\n".join(reasons))


__all__ = [
    "Decision",
    "SeenIssues",
    "StopCounter",
    "coverage_gaps",
    "issue_lines",
    "post_edit",
    "render",
    "stop",
]
