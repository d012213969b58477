"""Pyright kept warm: the project's own `pyright-langserver --stdio`.

The worker is the language server of the Pyright package the cold command
runs (`pyright-langserver` beside `ctx.executable`: the npm package's bin,
or the PyPI wrapper's script in the project's virtual environment, which
runs the same Node package as its `pyright`), started through the
subprocess door and spoken to with pygls and lsprotocol (`warm.lsp`). It
answers the cold command `pyright --outputjson [--pythonpath PY]`
(`engines/pyright/adapter.py`) with the JSON that command prints: the same
diagnostics of the same files, so the adapter parses it to the same issues
and program (D23).

Configured as the CLI is:

- the workspace is the project root, so the server reads the same config
  chain (`pyrightconfig.json` or `[tool.pyright]`, here or above);
- the client answers `workspace/configuration` with the interpreter the
  cold command names (`python.pythonPath`), `autoSearchPaths` on (the
  CLI's default) and `diagnosticMode: "workspace"`, so every file the
  config includes is part of the program and checked, not only open ones;
- the client declares pull diagnostics, which makes the server analyse
  only when asked: each answer pulls `textDocument/diagnostic` for every
  checked file (with the result id of its last answer: unchanged files
  come back "unchanged" without being checked again). A pull returns once
  its file is checked against the current program, so the answer is
  complete when the last pull returns; nothing waits on timers or
  progress. (Pyright's `workspace/diagnostic` re-checks the whole
  workspace on every request and streams without ever finishing, so it
  cannot say when an answer is complete.)
- the LSP's hints (unused or unreachable code, deprecations: severity 4)
  are dropped, as the CLI does not report them; severities 1-3 are
  "error", "warning" and "information"; `code` is the rule.

Freshness by content (D2), on every ask: every input of the program (the
adapter's `program` superset: the project's Python files and those under
`extraPaths`/`stubPath`) is hashed and compared with the last ask (a
file is read again only when its stat moved: `project.content.DigestMemo`).

- A changed file pyright watches (under an `include` root) is told with
  `workspace/didChangeWatchedFiles`; the server marks it and its
  dependents dirty before it handles the next request.
- A checked file added or deleted is told the same way; the server then
  re-reads which files it tracks on a timer of its own, and logs "Found N
  source files" when done: the answer waits for that line with N equal to
  the number of checked files (`checked_files`), else the driver cannot
  vouch for the answer.
- Anything else (a change outside the include roots, a file added or
  deleted that pyright does not check but may import) cannot be told
  reliably: the worker is replaced (`WorkerFailed`, the pool restarts it).
- Inputs are hashed again after the pulls: a file that changed meanwhile
  makes the answer unvouched (`WorkerFailed`).

A check of some files (`ask_only`, `driver.Scopes`) pulls those files alone:
the server checks what they need, and the files the edit made dirty wait
for the next whole answer, whose pulls check them.

Not served warm (the cold command runs): a project whose nearest config
file lies above the root (the CLI, run in the root, finds it there; the
language server, whose workspace is the root, does not), and a
`pyrightconfig.json` pyright cannot parse (the cold run says so).

The worker's `WorkerKey.state` holds the executable (and its package
manifest: the Pyright version), the content of every config file the
chain reads or could read, and the Python environment stamp, so a change
to any of them starts a fresh worker. The server is given our pid
(`processId`, it exits when we die) and exits when its stdin closes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from signalint import process
from signalint.engines import adapter_paths as paths
from signalint.engines import pyenv
from signalint.engines.base import EngineContext
from signalint.engines.pyright.adapter import (
    ENGINE,
    Dialect,
    PyrightEngine,
    checked_files,
    config_chain,
    interpreter,
    settings,
)
from signalint.engines.resolve import executable_key, package_version
from signalint.process import Child, Command, ProcessResult
from signalint.project.content import DigestMemo, content_digest
from signalint.warm.driver import Refusals, WorkerFailed, WorkerKey, option_value
from signalint.warm.lsp_client import LspClient

_DIAGNOSTIC = "textDocument/diagnostic"
_SEVERITIES = {1: "error", 2: "warning", 3: "information"}
_FOUND = re.compile(r"^Found (\d+) source files?$")
_STARTING = re.compile(r"language server (\S+) starting")
# How long the server may take to list the files it tracks (at start, and
# after a checked file was added or deleted) before the answer is refused.
TRACKING_TIMEOUT_S = 120.0
INITIALIZE_TIMEOUT_S = 60.0
_WILDCARDS = frozenset("*?[")
# Notifications read and dropped: progress (three with every pull), pushed
# diagnostics (the answer pulls its own), telemetry.
_NOISE = frozenset(
    {
        "$/progress",
        "pyright/beginProgress",
        "pyright/reportProgress",
        "pyright/endProgress",
        "textDocument/publishDiagnostics",
        "telemetry/event",
    }
)


def langserver(executable: Path) -> Path | None:
    """`pyright-langserver` beside the `pyright` the cold command runs
    (`basedpyright-langserver` beside `basedpyright`)."""
    candidate = executable.with_name(f"{executable.name}-langserver")
    return candidate if os.access(candidate, os.X_OK) and candidate.is_file() else None


def _config_broken(root: Path, chain: list[str]) -> bool:
    """A `pyrightconfig.json` (or `basedpyrightconfig.json`) in the chain that
    pyright cannot parse (the cold run reports it with exit code 3; the warm
    worker does not serve it)."""
    return any(
        Path(rel).name.endswith("config.json") and paths.load_jsonc(root / rel) is None
        for rel in chain
    )


def include_roots(root: Path, dialect: Dialect | None = None) -> list[str]:
    """Absolute directories (or files) under which pyright's source watcher
    sees changes: each `include` entry up to its first wildcard."""
    config, base = settings(root, dialect or ENGINE.dialect)
    raw = config.get("include")
    entries = [e for e in raw if isinstance(e, str)] if isinstance(raw, list) else []
    home = os.path.normpath(os.path.join(root, base))
    found: list[str] = []
    for entry in entries or ["."]:
        parts: list[str] = []
        for part in os.path.normpath(os.path.expanduser(entry)).split(os.sep):
            if any(c in _WILDCARDS for c in part):
                break
            parts.append(part)
        found.append(os.path.normpath(os.path.join(home, *parts)))
    return found


def _under(path: str, tops: list[str]) -> bool:
    return any(path == top or path.startswith(top.rstrip(os.sep) + os.sep) for top in tops)


def _plain_diagnostic(file: str, raw: Any) -> dict[str, Any] | None:
    """An LSP diagnostic as `--outputjson` prints it; None for a hint."""
    if not isinstance(raw, dict):
        raise WorkerFailed(f"pyright sent a diagnostic that is not an object: {raw!r:.200}")
    severity = _SEVERITIES.get(raw.get("severity", 1))
    if severity is None:
        return None
    out: dict[str, Any] = {
        "file": file,
        "severity": severity,
        "message": raw.get("message", ""),
        "range": raw.get("range"),
    }
    code = raw.get("code")
    if isinstance(code, str) and code:
        out["rule"] = code
    return out


class FilesDiffer(WorkerFailed):
    """The server tracks another number of files than `checked_files` lists
    (an `include` outside the root, a pattern read differently): its
    answers cannot be vouched for, whatever the edits."""


@dataclass(slots=True)
class _File:
    """The last pulled report of one checked file."""

    result_id: str
    diagnostics: list[dict[str, Any]] = field(default_factory=list)


class PyrightSession:
    """One running `pyright-langserver` and what it was last told."""

    def __init__(
        self,
        child: Child,
        ctx: EngineContext,
        python: str | None,
        engine: PyrightEngine = ENGINE,
    ) -> None:
        self.child = child
        self._engine = engine
        self._dialect = engine.dialect
        self.label = f"{engine.name} (language server)"
        self.version = "unknown"
        self._root = ctx.root
        self._ctx = ctx
        self._python = python
        self._lsp = LspClient(child, raw=frozenset({_DIAGNOSTIC}), ignore=_NOISE)
        self._found: list[int] = []
        self._found_event = asyncio.Event()
        self._inputs: dict[str, str | None] = {}
        self._memo = DigestMemo()
        self._checked: list[str] = []
        self._files: dict[str, _File] = {}
        self._lsp.on("window/logMessage", self._log_message)
        self._lsp.on("workspace/configuration", self._configuration)
        for method in (
            "client/registerCapability",
            "client/unregisterCapability",
            "window/workDoneProgress/create",
            "workspace/diagnostic/refresh",
        ):
            self._lsp.on(method, lambda _params: None)

    # Server to client.

    def _log_message(self, params: types.LogMessageParams) -> None:
        message = params.message.strip()
        found = _FOUND.match(message)
        if found:
            self._found.append(int(found.group(1)))
            self._found_event.set()
        started = _STARTING.search(message)
        if started:
            self.version = started.group(1)
            self.label = f"{self._engine.name} {self.version} (language server)"

    def _configuration(self, params: types.ConfigurationParams) -> list[Any]:
        answers: list[Any] = []
        for item in params.items:
            if item.section == "python":
                python: dict[str, Any] = {
                    "analysis": {
                        "diagnosticMode": "workspace",
                        "autoSearchPaths": True,
                        "logLevel": "Information",
                        # basedpyright: never rewrite the project's baseline.
                        "baselineMode": "discard",
                    }
                }
                if self._python is not None:
                    python["pythonPath"] = self._python
                answers.append(python)
            elif item.section in ("pyright", "basedpyright"):
                answers.append({})
            else:
                answers.append(None)
        return answers

    # Start.

    async def start(self) -> None:
        self._lsp.attach()
        root_uri = from_fs_path(str(self._root)) or ""
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                configuration=True,
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=True
                ),
            ),
            text_document=types.TextDocumentClientCapabilities(
                diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=True)
            ),
        )
        initialize = self._lsp.request(
            "initialize",
            types.InitializeParams(
                capabilities=capabilities,
                process_id=os.getpid(),
                root_uri=root_uri,
                workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=self._root.name)],
            ),
        )
        try:
            await asyncio.wait_for(initialize, timeout=INITIALIZE_TIMEOUT_S)
        except TimeoutError as exc:
            raise WorkerFailed("pyright-langserver did not answer initialize") from exc
        self._lsp.notify("initialized", types.InitializedParams())
        self._inputs = self._hash_inputs()
        self._checked = checked_files(self._root, self._dialect)
        await self._tracking(0)

    async def _tracking(self, seen: int) -> None:
        """Wait for the server's "Found N source files" after the first `seen`
        ones, with N the number of checked files (module docstring)."""
        deadline = time.monotonic() + TRACKING_TIMEOUT_S
        while len(self._found) <= seen:
            self._found_event.clear()
            if self._lsp.closed is not None:
                raise WorkerFailed(self._lsp.closed)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerFailed("pyright did not list its source files in time")
            try:
                await asyncio.wait_for(self._found_event.wait(), timeout=min(remaining, 1.0))
            except TimeoutError:
                continue
        if self._found[-1] != len(self._checked):
            raise FilesDiffer(
                f"pyright tracks {self._found[-1]} files where {len(self._checked)} are checked"
            )

    # Freshness.

    def _hash_inputs(self) -> dict[str, str | None]:
        program = self._engine.program((), self._ctx, None, frozenset())
        return {path: self._memo.digest(path) for path in program.inputs}

    async def _tell(self) -> None:
        """Tell the server what changed since the last ask (module docstring)."""
        now = self._hash_inputs()
        before = self._inputs
        if now == before:
            return
        checked = checked_files(self._root, self._dialect)
        checked_abs = {os.path.join(self._root, rel) for rel in checked}
        was_checked = {os.path.join(self._root, rel) for rel in self._checked}
        watched = include_roots(self._root, self._dialect)
        events: list[types.FileEvent] = []
        tracking = False
        for path in sorted(set(now) | set(before)):
            old, new = before.get(path), now.get(path)
            if old == new:
                continue
            uri = from_fs_path(path) or ""
            if path in before and path in now:
                if not _under(path, watched):
                    raise WorkerFailed(f"{path} changed outside pyright's include roots")
                events.append(types.FileEvent(uri=uri, type=types.FileChangeType.Changed))
            elif path in now:
                if path not in checked_abs:
                    raise WorkerFailed(f"{path} was added and is not checked")
                events.append(types.FileEvent(uri=uri, type=types.FileChangeType.Created))
                tracking = True
            else:
                if path not in was_checked:
                    raise WorkerFailed(f"{path} was deleted and was not checked")
                events.append(types.FileEvent(uri=uri, type=types.FileChangeType.Deleted))
                self._files.pop(path, None)
                tracking = True
        if set(checked) != set(self._checked) and not tracking:
            raise WorkerFailed("the checked files changed without a file added or deleted")
        seen = len(self._found)
        self._lsp.notify(
            "workspace/didChangeWatchedFiles", types.DidChangeWatchedFilesParams(changes=events)
        )
        self._inputs = now
        self._checked = checked
        if tracking:
            await self._tracking(seen)

    # Asking.

    async def _pull(self, path: str) -> list[dict[str, Any]]:
        known = self._files.get(path)
        params: dict[str, Any] = {"textDocument": {"uri": from_fs_path(path) or ""}}
        if known is not None:
            params["previousResultId"] = known.result_id
        report = await self._lsp.request(_DIAGNOSTIC, params)
        if not isinstance(report, dict):
            raise WorkerFailed(f"pyright answered {_DIAGNOSTIC} with {report!r:.200}")
        kind, result_id = report.get("kind"), report.get("resultId")
        if kind == "unchanged":
            if known is None or result_id != known.result_id:
                raise WorkerFailed(f"pyright does not track {path}")
            return known.diagnostics
        items = report.get("items")
        if kind != "full" or not isinstance(items, list) or not isinstance(result_id, str):
            raise WorkerFailed(f"pyright answered {_DIAGNOSTIC} with {report!r:.200}")
        diagnostics = [d for d in (_plain_diagnostic(path, item) for item in items) if d]
        self._files[path] = _File(result_id, diagnostics)
        return diagnostics

    async def ask(self, command: Command) -> ProcessResult:
        return (await self._answer(command, None))[0]

    async def ask_only(
        self, command: Command, only: frozenset[str]
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        """`ask` for the checked files among `only`: only theirs are pulled
        (the server checks what they need, not every file an edit made
        dirty; a later whole ask pulls the rest)."""
        return await self._answer(command, only)

    async def _answer(
        self, command: Command, only: frozenset[str] | None
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        started = time.monotonic()
        try:
            await self._tell()
            checked = [os.path.join(self._root, rel) for rel in self._checked]
            if only is not None:
                checked = [path for path in checked if path in only]
            reports = await asyncio.gather(*(self._pull(path) for path in checked))
        except WorkerFailed:
            raise
        except Exception as exc:  # garbage from the server
            raise WorkerFailed(f"pyright's answer could not be read: {exc}") from exc
        if self._hash_inputs() != self._inputs:
            raise WorkerFailed("files changed while pyright was checking")
        diagnostics = [d for report in reports for d in report]
        counts = {
            s: sum(1 for d in diagnostics if d["severity"] == s) for s in _SEVERITIES.values()
        }
        elapsed = time.monotonic() - started
        report = {
            "version": self.version,
            "time": str(int(time.time() * 1000)),
            "generalDiagnostics": diagnostics,
            "summary": {
                "filesAnalyzed": len(checked),
                "errorCount": counts["error"],
                "warningCount": counts["warning"],
                "informationCount": counts["information"],
                "timeInSec": round(elapsed, 3),
            },
        }
        result = ProcessResult(
            argv=command.argv,
            exit_code=1 if counts["error"] else 0,
            stdout=json.dumps(report) + "\n",
            stderr="",
            duration_s=elapsed,
        )
        return result, None if only is None else frozenset(checked)

    def interrupt(self) -> None:
        """The check that asked was cancelled (a newer keystroke): the pulls
        still pending are cancelled (`$/cancelRequest`), so the server does
        not check every importer for an answer nobody reads (`Interrupts`)."""
        self._lsp.cancel_pending()

    async def close(self) -> None:
        await self._lsp.shut_down()


class PyrightDriver:
    """Serves `pyright --outputjson` from a warm language server (and
    `basedpyright --outputjson`, given basedpyright's adapter)."""

    def __init__(self, adapter: PyrightEngine = ENGINE) -> None:
        self.engine = adapter.name
        self._adapter = adapter
        # The states whose server tracked other files than the ones
        # checked (`FilesDiffer`).
        self._refused = Refusals(FilesDiffer)

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        return self._refused.admit(self._key(ctx, command))

    def _key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        cold = self._adapter.command(ctx, [], None)
        if command.argv != cold.argv or command.cwd != ctx.root:
            return None
        server = langserver(ctx.executable)
        if server is None:
            return None
        chain = config_chain(ctx.root, self._adapter.dialect)
        if _config_broken(ctx.root, chain) or (chain and chain[0].startswith("../")):
            return None
        configs = {rel: content_digest(ctx.root / rel) for rel in self._adapter.key_configs(ctx)}
        state = {
            "argv": list(command.argv),
            "executable": executable_key(ctx.executable),
            "version": package_version(
                os.path.realpath(ctx.executable), self._adapter.spec.provision
            ),
            "server": executable_key(server),
            "configs": configs,
            "env": pyenv.environment_stamp(interpreter(ctx, self._adapter.dialect), ctx.root),
        }
        return WorkerKey(f"{self.engine}:{ctx.root}", json.dumps(state, sort_keys=True))

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> PyrightSession:
        server = langserver(ctx.executable)
        if server is None:
            raise WorkerFailed(f"{self.engine}-langserver is not beside {self.engine}")
        started = await process.start(
            Command(argv=(str(server), "--stdio"), cwd=ctx.root, timeout_s=ctx.timeout_s),
            stderr_to=log,
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed(f"{server.name} could not start: {started.start_error}")
        key = self._key(ctx, command)
        python = option_value(command, "--pythonpath")
        session = PyrightSession(started, ctx, python, self._adapter)
        return await self._refused.started(session, key)


DRIVER = PyrightDriver()
