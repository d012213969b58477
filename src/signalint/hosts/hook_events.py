"""Host hook events: what each runtime sends on stdin, read into one `HookEvent`.

Shapes (recorded payloads in tests/fixtures/hooks, sources in its README):

- claude: `PostToolUse` with `tool_name` Edit/Write/MultiEdit (`tool_input.
  file_path`) or NotebookEdit (`tool_input.notebook_path`); `Stop` and
  `SubagentStop` with `stop_hook_active`.
- codex: `PostToolUse` for `apply_patch` (the patch text in `tool_input.
  command`, whose `*** Add/Update/Delete File:` and `*** Move to:` lines name
  the files) or Edit/Write (`file_path`); `Stop` with `stop_hook_active`.
- cursor: `afterFileEdit` with `file_path`; `stop` with `loop_count` (a stop
  that follows one of our follow-ups has `loop_count` > 0).
- vscode: `PostToolUse` (`tool_input.files`, `filePath` or `file_path`;
  the event name as `hookEventName` or `hook_event_name`); `Stop` with
  `stop_hook_active`.
- gemini: `AfterTool` for write_file/replace (`tool_input.file_path`);
  `AfterAgent` with `stop_hook_active`.

Anything else is kind "other" (the hook answers with no decision).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from signalint.errors import SignalintError

RUNTIMES: Final = ("claude", "codex", "cursor", "gemini", "vscode")
Kind = Literal["edit", "stop", "other"]

EDIT_EVENTS: Final = {
    "claude": "PostToolUse",
    "codex": "PostToolUse",
    "cursor": "afterFileEdit",
    "vscode": "PostToolUse",
    "gemini": "AfterTool",
}
STOP_EVENTS: Final = {
    "claude": ("Stop", "SubagentStop"),
    "codex": ("Stop",),
    "cursor": ("stop",),
    "vscode": ("Stop", "SubagentStop"),
    "gemini": ("AfterAgent",),
}
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
)


class EventError(SignalintError):
    """The payload is not a hook event we can read (named, with what is accepted)."""


@dataclass(frozen=True, slots=True)
class HookEvent:
    """`files` as the host wrote them (absolute or relative to `cwd`)."""

    runtime: str
    name: str
    kind: Kind
    files: tuple[str, ...] = ()
    stop_active: bool = False
    session: str = ""
    cwd: str | None = None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def _patch_files(patch: str) -> list[str]:
    found: list[str] = []
    for line in patch.splitlines():
        match = _PATCH_FILE.match(line)
        if match:
            found.append(match.group(1) or match.group(2))
    return found


def _edited(runtime: str, payload: Mapping[str, Any]) -> list[str]:
    if runtime == "cursor":
        return _strings(payload.get("file_path"))
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, str):  # some hosts pass the arguments as JSON text
        import json

        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = {}
    if not isinstance(tool_input, dict):
        return []
    files: list[str] = []
    for key in ("file_path", "notebook_path", "filePath", "path", "files", "filePaths"):
        files += _strings(tool_input.get(key))
    for key in ("command", "input", "patch"):
        text = tool_input.get(key)
        if isinstance(text, str) and "*** " in text:
            files += _patch_files(text)
    return files


def parse_event(runtime: str, payload: Any) -> HookEvent:
    """Read one host payload; raises `EventError` for a non-object payload."""
    if runtime not in RUNTIMES:
        raise EventError(f"--runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    if not isinstance(payload, dict):
        raise EventError("the hook payload must be a JSON object (the host's event)")
    name = payload.get("hook_event_name") or payload.get("hookEventName") or ""
    name = name if isinstance(name, str) else ""
    session = payload.get("session_id") or payload.get("sessionId")
    session = payload.get("conversation_id", session) if runtime == "cursor" else session
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    if not isinstance(cwd, str) and isinstance(roots, list) and roots:
        cwd = roots[0] if isinstance(roots[0], str) else None
    event = HookEvent(
        runtime,
        name,
        "other",
        session=session if isinstance(session, str) else "",
        cwd=cwd if isinstance(cwd, str) else None,
    )
    if name == EDIT_EVENTS[runtime]:
        files = tuple(dict.fromkeys(_edited(runtime, payload)))
        return replace(event, kind="edit", files=files)
    if name in STOP_EVENTS[runtime]:
        if runtime == "cursor":
            loops = payload.get("loop_count")
            active = isinstance(loops, int) and loops > 0
        else:
            active = payload.get("stop_hook_active") is True
        return replace(event, kind="stop", stop_active=active)
    return event


__all__ = ["EDIT_EVENTS", "RUNTIMES", "STOP_EVENTS", "EventError", "HookEvent", "parse_event"]
