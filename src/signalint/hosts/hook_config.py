"""Where each host reads hooks, and merging our two hooks into that file.

Targets follow the hosts' current documentation, not the reference where
they differ (README, "Verify-after-edit hooks"):

- claude: .claude/settings.json, PostToolUse (matcher
  Edit|Write|MultiEdit|NotebookEdit) and Stop;
- codex: .codex/hooks.json, PostToolUse (apply_patch|Edit|Write) and Stop;
- cursor: .cursor/hooks.json, afterFileEdit and stop;
- vscode: .github/hooks/signalint.json, PostToolUse and Stop;
- gemini: .gemini/settings.json, AfterTool (write_file|replace) and AfterAgent.

Claude, Codex and Gemini group hooks under a matcher (`{"matcher", "hooks":
[...]}`); Cursor and VS Code list commands directly. Our entries are found
by their command (`... hooks run --runtime NAME`): an identical one is left
alone (a second install is byte-identical), a different one of ours is
replaced in place, and every other hook stays (D11: the JSONC editor keeps
comments and formatting).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from signalint.hosts import jsonc, settings_file
from signalint.hosts.settings_file import Change, SettingsError


@dataclass(frozen=True, slots=True)
class HookTarget:
    runtime: str
    path: str
    edit_event: str
    stop_event: str
    matcher: str | None  # None: flat command entries (Cursor, VS Code)
    grouped: bool
    timeout_key: str | None
    timeout_scale: int  # seconds -> the host's unit


TARGETS: Final = {
    t.runtime: t
    for t in (
        HookTarget(
            "claude",
            ".claude/settings.json",
            "PostToolUse",
            "Stop",
            "Edit|Write|MultiEdit|NotebookEdit",
            True,
            "timeout",
            1,
        ),
        HookTarget(
            "codex",
            ".codex/hooks.json",
            "PostToolUse",
            "Stop",
            "apply_patch|Edit|Write",
            True,
            "timeout",
            1,
        ),
        HookTarget("cursor", ".cursor/hooks.json", "afterFileEdit", "stop", None, False, None, 1),
        HookTarget(
            "vscode",
            ".github/hooks/signalint.json",
            "PostToolUse",
            "Stop",
            None,
            False,
            "timeout",
            1,
        ),
        HookTarget(
            "gemini",
            ".gemini/settings.json",
            "AfterTool",
            "AfterAgent",
            "write_file|replace",
            True,
            "timeout",
            1000,
        ),
    )
}
EDIT_TIMEOUT_S: Final = 120
STOP_TIMEOUT_S: Final = 600


def signalint_command(runtime: str, extra: list[str], executable: str | None = None) -> str:
    """The shell command a host runs: our CLI by absolute path, `hooks run --runtime`."""
    if executable is None:
        beside = Path(sys.executable).parent / "signalint"
        executable = str(beside) if beside.exists() else "signalint"
    return shlex.join([executable, "hooks", "run", "--runtime", runtime, *extra])


def _marker(runtime: str) -> str:
    return f"hooks run --runtime {runtime}"


def _handler(target: HookTarget, command: str, timeout_s: int) -> dict[str, Any]:
    handler: dict[str, Any] = {"command": command}
    if target.runtime != "cursor":
        handler = {"type": "command", "command": command}
    if target.runtime == "gemini":
        handler["name"] = "signalint"
    if target.timeout_key:
        handler[target.timeout_key] = timeout_s * target.timeout_scale
    return handler


def entries(target: HookTarget, command: str) -> dict[str, Any]:
    """Event name -> our entry in that event's list."""
    result: dict[str, Any] = {}
    for event, timeout_s, matcher in (
        (target.edit_event, EDIT_TIMEOUT_S, target.matcher),
        (target.stop_event, STOP_TIMEOUT_S, None),
    ):
        handler = _handler(target, command, timeout_s)
        if target.grouped:
            group: dict[str, Any] = {"matcher": matcher} if matcher else {}
            group["hooks"] = [handler]
            result[event] = group
        else:
            result[event] = handler
    return result


def _commands(item: Any) -> list[str]:
    """The commands of one event entry: a flat handler or a matcher group's handlers."""
    if not isinstance(item, dict):
        return []
    nested = item.get("hooks")
    handlers: list[Any] = nested if isinstance(nested, list) else [item]
    return [
        h["command"] for h in handlers if isinstance(h, dict) and isinstance(h.get("command"), str)
    ]


def plan(root: Path, runtime: str, extra: list[str], executable: str | None = None) -> Change:
    """The change installing our hooks for `runtime` in `root` (malformed: SettingsError)."""
    target = TARGETS[runtime]
    path = root / target.path
    text = settings_file.read_text(path)
    settings_file.load(path, "json", text)
    command = signalint_command(runtime, extra, executable)
    new = text or ""
    if runtime == "cursor" and not new.strip():
        new = '{\n  "version": 1\n}\n'
    for event, entry in entries(target, command).items():
        new = _merge(path, new, ["hooks", event], entry, runtime)
    return Change(path, text, new)


def _merge(path: Path, text: str, keys: list[str], entry: Any, runtime: str) -> str:
    try:
        if not text.strip():
            return jsonc.set_member(text, keys, [entry])
        root = jsonc.parse(text)
        node = jsonc.find(root, keys)
        if node is None:
            return jsonc.set_member(text, keys, [entry])
        if node.kind != "array":
            raise SettingsError(path, f"{'.'.join(keys)} is not a list of hooks")
        ours = _commands(entry)[0]
        for item in node.items:
            value = jsonc.to_python(item)
            commands = _commands(value)
            if value == entry or ours in commands:
                return text  # already installed (alone, or beside the user's handlers)
            if commands and all(_marker(runtime) in c for c in commands):
                return jsonc.replace_node(text, item, entry)  # an older entry of ours
        return jsonc.append_item(text, keys, entry)
    except jsonc.JsoncError as exc:
        raise SettingsError(path, f"line {exc.line} column {exc.column}: {exc.reason}") from None


__all__ = ["TARGETS", "HookTarget", "entries", "plan", "signalint_command"]
