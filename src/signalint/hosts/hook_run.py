"""Run one hook event: find the project, check what the policy says, decide.

The project root is found from the event's `cwd` (or the hook's working
directory) the way the CLI finds it. Edited paths from the host are
untrusted: each must resolve inside the root (`project.paths.safe_relative`:
no escapes, symlinks out, NUL or option-like names), must not be ignored
by the configuration, must exist, and must be a file an enabled engine
checks; the others are skipped (and named in the context when something
else was found). Checks go through the one check service with the
configured engines and timeouts, and keep their snapshot so the ids in the
answer resolve with `signalint show` (D19).

A whole-program engine answers for its whole program, also through the
daemon (never `CheckRequest.files_only`): the post-edit verdict names the
errors the edit broke in other files first (`ripple`), which a worker
answering for the edited files alone could not tell. Kept warm, that costs
what the edit affects: tsc 5 and 6's builder checks the edited file again
and, only when its exported shape changed, the files that may see the
change, answering the others from what it kept; TypeScript 7's API checks
the program again (it did for the global diagnostics even for one file);
Pyright's server every file importing the edited one; mypy's daemon what
depends on what changed (docs/engines.md, "The post-edit hook, kept warm").
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from signalint.hosts.hook_events import HookEvent
from signalint.hosts.hook_policy import (
    Decision,
    SeenIssues,
    StopCounter,
    post_edit,
    render,
    stop,
)


def edited_targets(
    root: Path, config: Any, event: HookEvent, base: Path
) -> tuple[list[str], list[str]]:
    """(targets to check, skipped with reasons) for the event's edited files."""
    from signalint.engines.registry import ENGINES
    from signalint.project.ignores import ignored_reason
    from signalint.project.paths import PathRefused, safe_relative

    enabled = [ENGINES[name] for name in config.enabled_engines]
    targets: list[str] = []
    skipped: list[str] = []
    for raw in event.files:
        if "\0" in raw:
            skipped.append(f"{raw!r}: a NUL byte in the path")
            continue
        full = raw if os.path.isabs(raw) else os.path.join(base, raw)
        real = os.path.realpath(full)
        if not (real == str(root) or real.startswith(str(root) + os.sep)):
            skipped.append(f"{raw}: outside the project {root}")
            continue
        rel = os.path.relpath(real, root).replace(os.sep, "/")
        try:
            rel = safe_relative(root, rel)
        except PathRefused as exc:
            skipped.append(f"{raw}: {exc}")
            continue
        if os.path.isdir(real):
            skipped.append(f"{raw}: a directory")
            continue
        why = ignored_reason(rel, config.ignore, is_dir=False)
        if why is not None:
            skipped.append(f"{raw}: {why}")
            continue
        if not any(engine.relevant(rel) for engine in enabled):
            continue  # a README or a lockfile: nothing of ours checks it
        if rel not in targets:
            targets.append(rel)
    return targets, skipped


def _check(root: Path, config: Any, paths: list[str], kind: str) -> Any:
    from signalint.daemon import client
    from signalint.kept.snapshot_store import SnapshotStore, snapshot_dir
    from signalint.pipeline import runtime
    from signalint.service import check_service as service

    store = SnapshotStore(
        config.snapshot_max, config.snapshot_ttl_s, directory=snapshot_dir(root), background=True
    )
    # Through the project's daemon when one runs (`daemon.client.check`).
    checked = runtime.run(
        client.check(
            service.CheckRequest(
                root,
                config,
                paths,
                locate=service.from_root(root),
                kind="files" if kind == "files" else "project",
                # Never `files_only`: the verdict counts what the edit broke in
                # other files, which only an answer for the whole program tells
                # (module docstring).
            ),
            service.Services(runtime.context(), store),
            kind="hook",
        )
    )
    store.flush()
    return checked


def decide(
    event: HookEvent, *, cwd: Path, threshold: int, allow_partial: bool, max_blocks: int
) -> tuple[Decision, Path | None]:
    """The decision, and the project root when the decision may be kept
    (`Decision.repeatable`)."""
    if event.kind == "other":
        return Decision(), None
    from signalint.project.roots import discover_root
    from signalint.settings.config import load_config, state_dir

    root = discover_root(cwd=cwd)
    config = load_config(root)
    if event.kind == "edit":
        targets, skipped = edited_targets(root, config, event, cwd)
        if not targets:
            return Decision(), None
        checked = _check(root, config, targets, "files")
        decision = post_edit(checked, targets, skipped, SeenIssues(state_dir(root)))
        return decision, root if decision.repeatable else None
    checked = _check(root, config, [], "project")
    decision = stop(
        checked,
        event,
        StopCounter(state_dir(root)),
        threshold=threshold,
        allow_partial=allow_partial,
        max_blocks=max_blocks,
    )
    return decision, None


def answer(
    event: HookEvent, *, cwd: Path, threshold: int, allow_partial: bool, max_blocks: int
) -> tuple[dict[str, Any], Path | None]:
    """The host-format JSON object answering `event` (module docstring), and
    the project root when that answer may be kept (`decide`)."""
    decision, kept = decide(
        event, cwd=cwd, threshold=threshold, allow_partial=allow_partial, max_blocks=max_blocks
    )
    return render(event, decision), kept


def run_event(
    runtime: str, text: str, threshold: int, allow_partial: bool, max_blocks: int
) -> tuple[int, Path | None]:
    """`hooks run`'s work on the event `text` from host `runtime`: the answer
    is printed on stdout; returns the exit code (0 answered, 1 a payload or
    setting it cannot use, said on stderr) and the project root when the
    answer may be kept (`decide`)."""
    from signalint.hosts.hook_events import parse_event

    try:
        data = json.loads(text) if text.strip() else None
    except ValueError as exc:
        sys.stderr.write(f"signalint hooks run: the payload is not JSON: {exc}\n")
        return 1, None
    try:
        event = parse_event(runtime, data)
        decision, kept = answer(
            event,
            cwd=Path(event.cwd) if event.cwd else Path(os.getcwd()),
            threshold=threshold,
            allow_partial=allow_partial,
            max_blocks=max_blocks,
        )
    except Exception as exc:  # a hook must answer; the reason goes to the host's log
        from signalint.errors import SignalintError

        what = str(exc) if isinstance(exc, SignalintError) else f"{type(exc).__name__}: {exc}"
        sys.stderr.write(f"signalint hooks run: {what}\n")
        return 1, None
    sys.stdout.write(json.dumps(decision) + "\n")
    return 0, kept


def run_command(
    runtime: str, payload: str | None, threshold: int, allow_partial: bool, max_blocks: int
) -> int:
    """`signalint hooks run`: answer the event `payload` gives, else the one on
    standard input (as hosts send it), keeping an answer the same event
    would get again (`answers`); returns the exit code."""
    import functools

    from signalint import answers

    text = payload if payload is not None else sys.stdin.read()
    work = functools.partial(run_event, runtime, text, threshold, allow_partial, max_blocks)
    return answers.keeping(work, "" if payload is not None else text)


__all__ = ["answer", "decide", "edited_targets", "run_command", "run_event"]
