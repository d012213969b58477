"""ty kept warm: its own language server, `ty server`.

The worker is `ty server` of the ty binary the cold command runs, started
through the subprocess door and spoken to with pygls (`warm.lsp`). It
answers the cold command `ty check --output-format gitlab --no-progress -vv
[--python PY]` (`engines/ty/adapter.py`) with what that command prints: the GitLab
JSON on stdout and, on stderr, a "Checking file '<path>'" line for every
file of the project, so the adapter parses it to the same issues and
program (D23).

Configured as the CLI is (verified against ty 0.0.104):

- the workspace is the project root, so the server reads the same
  `ty.toml` or `[tool.ty]` and the user's `ty.toml`;
- the client answers the `ty` section of `workspace/configuration` with
  `diagnosticMode: "workspace"` (every file of the project is checked, not
  only open ones) and, when the cold command names an interpreter
  (`--python PY`), the same one as inline configuration
  (`configuration.environment.python`);
- the client asks for `positionEncoding` "utf-32", so ranges count code
  points as the GitLab output's columns do;
- each answer is one `workspace/diagnostic` pull: it returns once the
  project is checked, so the answer is complete when it returns. (With
  the default `openFilesOnly` the same request waits for a change and
  never answers.) It sends the result ids of the files reported before
  and unchanged since, which ty answers "unchanged" when their
  diagnostics hash the same, and one of a file that does not exist,
  which ty always answers: a pull whose every report would be unchanged
  is held until a later change (`TySession._pull`);
- a diagnostic's message is the GitLab `description` after "<rule>: "
  followed by the sub-diagnostics ("info: ..." after a blank line), which
  the GitLab output leaves out: the message is cut at its first blank
  line. Severities 1-3 are "major", "minor" and "info"; 4 (a hint) is
  dropped, as the CLI prints none.

Which files ty checks: the server's log (`logFile`, `logLevel: "debug"`)
says "Checking file '<path>'" for each file it checks, and "Indexed N
file(s)" when it lists the project's files at start. The first answer
checks every file, and they must be N; later answers check only what an
edit touched, and the log says "Adding file `X` to project" for a file
created (and for every file changed, already there) and "Removing file
`X` from project" for one deleted. The driver keeps the project's files
so told and the union of the checked ones, and refuses to answer
(`WorkerFailed`) when they differ or the server lists its files again.
The log is written behind the answers: the driver reads it up to the line
that ends the check it answered ("Checking all files took"), waiting for
it up to `LOG_TIMEOUT_S`.

Freshness by content (D2), on every ask: every input of the program (the
adapter's `program`: the project's Python and ignore files and the search
paths outside it) is hashed and compared with the last ask. A Python file
inside the root changed, added or deleted is told with
`workspace/didChangeWatchedFiles`; anything else (an ignore file, a file
outside the root) replaces the worker (`WorkerFailed`, the pool restarts
it). Inputs are hashed again after the pull: a file that changed
meanwhile makes the answer unvouched.

The worker's `WorkerKey.state` holds the executable, the content of
`ty.toml`, `pyproject.toml` and the user's config, and the Python
environment stamp, so a change to any of them starts a fresh worker.

A configuration the CLI refuses (exit code 2: "ty failed", "is not a
valid `pyproject.toml`") does not stop the server: it logs "ERROR Failed
to load project ..." (0.0.44: "Failed to create project") and checks with
its defaults. So the driver waits, at start, for the log to say the
project was loaded ("Adding new file root '<dir>' of kind Project", which
follows that ERROR), and any ERROR line in the log refuses the answer
(`Refused`); a worker refused at start is not started again for the same
state, and the cold run reports the error. A newer ty lists the project's
files at start too ("Indexed N file(s)", for the file watchers); an older
one (0.0.44) lists them in the first pull, so the start does not wait for
that line: the first answer reads it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from signalint import process
from signalint.engines import adapter_paths as paths
from signalint.engines import pyprogram
from signalint.engines.base import EngineContext
from signalint.engines.resolve import executable_key
from signalint.engines.ty.adapter import CONFIG_NAMES, ENGINE, TyEngine, settings, user_config
from signalint.process import Child, Command, ProcessResult
from signalint.project.content import DigestMemo, content_digest
from signalint.warm.driver import Refusals, WorkerFailed, WorkerKey, option_value
from signalint.warm.lsp_client import LspClient

_WORKSPACE = "workspace/diagnostic"
_SEVERITIES = {1: "major", 2: "minor", 3: "info"}
_CHECKING = re.compile(r"Checking file '(.+)'\s*$")
_INDEXED = re.compile(r"Indexed (\d+) file")
_PROJECT_ROOT = re.compile(r"Adding new file root '.+' of kind Project")
_CHECKED_ALL = re.compile(r"Checking all files took")
_ERROR = re.compile(r"^\S+ \S+\s+ERROR (.*)$")
_ADDED = re.compile(r"Adding file `(.+)` to project")
_REMOVED = re.compile(r"Removing file `(.+)` from project")
INITIALIZE_TIMEOUT_S = 60.0
# How long the server's log may lag behind its answer.
LOG_TIMEOUT_S = 10.0
_NOISE = frozenset({"$/progress", "textDocument/publishDiagnostics", "telemetry/event"})
# The result id sent for a file that does not exist (`TySession._pull`).
_SENTINEL_ID = "signalint"


@dataclass(frozen=True, slots=True)
class _Report:
    """One file's last full report: its result id and its diagnostics as
    GitLab JSON objects, written once (comma-joined)."""

    result_id: str | None
    text: str
    major: bool
    other: bool


def _point(raw: dict[str, Any], span: dict[str, Any], key: str) -> dict[str, int]:
    at = span.get(key)
    if not isinstance(at, dict):
        raise WorkerFailed(f"ty sent a range without {key}: {raw!r:.200}")
    return {"line": int(at["line"]) + 1, "column": int(at["character"]) + 1}


def _gitlab(rel: str, raw: Any) -> dict[str, Any] | None:
    """An LSP diagnostic of the file at `rel` (project-relative) as
    `--output-format gitlab` prints it; None for a hint."""
    if not isinstance(raw, dict):
        raise WorkerFailed(f"ty sent a diagnostic that is not an object: {raw!r:.200}")
    severity = _SEVERITIES.get(raw.get("severity", 1))
    if severity is None:
        return None
    span = raw.get("range")
    if not isinstance(span, dict):
        raise WorkerFailed(f"ty sent a diagnostic without a range: {raw!r:.200}")
    code = raw.get("code")
    rule = code if isinstance(code, str) and code else "ty"
    message = str(raw.get("message", "")).split("\n\n", 1)[0]
    return {
        "check_name": rule,
        "description": f"{rule}: {message}",
        "severity": severity,
        "location": {
            "path": rel,
            "positions": {"begin": _point(raw, span, "start"), "end": _point(raw, span, "end")},
        },
    }


class Refused(WorkerFailed):
    """The server's log says ERROR (it failed to load the project's
    configuration, or anything else): its answers cannot be vouched for
    as long as the worker's state is the same."""


class TySession:
    """One running `ty server` and what it was last told."""

    def __init__(self, child: Child, ctx: EngineContext, python: str | None, log: Path) -> None:
        self.child = child
        self.label = "ty (language server)"
        self._root = ctx.root
        self._ctx = ctx
        self._python = python
        self._log = log
        self._log_at = 0
        self._lsp = LspClient(child, raw=frozenset({_WORKSPACE, "initialize"}), ignore=_NOISE)
        self._inputs: dict[str, str | None] = {}
        # Path -> its last full report; a URI ty sent -> its path.
        self._reports: dict[str, _Report] = {}
        self._paths: dict[str, str] = {}
        self._sentinel = from_fs_path(str(log.parent / "no-such-file.py")) or ""
        terminal = settings(ctx.root)[0].get("terminal")
        self._strict = isinstance(terminal, dict) and terminal.get("error-on-warning") is True
        self._memo = DigestMemo()
        self._checked: set[str] = set()
        self._indexed: int | None = None
        # The log said the project was loaded (its file root added).
        self._root_added = False
        # The project's files: those of the first check, then as the log
        # says files were added to or removed from the project.
        self._project: set[str] | None = None
        self._lsp.on("workspace/configuration", self._configuration)
        for method in (
            "client/registerCapability",
            "client/unregisterCapability",
            "window/workDoneProgress/create",
            "workspace/diagnostic/refresh",
            "window/logMessage",
            "window/showMessage",
        ):
            self._lsp.on(method, lambda _params: None)

    def _configuration(self, params: types.ConfigurationParams) -> list[Any]:
        answers: list[Any] = []
        for item in params.items:
            if item.section == "ty":
                options: dict[str, Any] = {"diagnosticMode": "workspace"}
                if self._python is not None:
                    options["configuration"] = {"environment": {"python": self._python}}
                answers.append(options)
            else:
                answers.append(None)
        return answers

    async def start(self) -> None:
        self._lsp.attach()
        root_uri = from_fs_path(str(self._root)) or ""
        initialize = self._lsp.request(
            "initialize",
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    general=types.GeneralClientCapabilities(
                        position_encodings=[types.PositionEncodingKind.Utf32]
                    ),
                    workspace=types.WorkspaceClientCapabilities(
                        configuration=True,
                        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                            dynamic_registration=True
                        ),
                    ),
                    text_document=types.TextDocumentClientCapabilities(
                        diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=False)
                    ),
                ),
                process_id=os.getpid(),
                root_uri=root_uri,
                workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=self._root.name)],
                initialization_options={"logLevel": "debug", "logFile": str(self._log)},
            ),
        )
        try:
            answer = await asyncio.wait_for(initialize, timeout=INITIALIZE_TIMEOUT_S)
        except TimeoutError as exc:
            raise WorkerFailed("ty server did not answer initialize") from exc
        # Read as plain JSON: lsprotocol cannot structure ty's notebook filters.
        answer = answer if isinstance(answer, dict) else {}
        capabilities = answer.get("capabilities")
        encoding = capabilities.get("positionEncoding") if isinstance(capabilities, dict) else None
        if encoding != "utf-32":
            raise WorkerFailed(f"ty server chose the position encoding {encoding!r}, not utf-32")
        info = answer.get("serverInfo")
        version = info.get("version") if isinstance(info, dict) else None
        if isinstance(version, str) and version:
            self.label = f"ty {version} (language server)"
        self._lsp.notify("initialized", types.InitializedParams())
        self._inputs = self._hash_inputs()
        await self._loaded()

    async def _loaded(self) -> None:
        """Wait for the server's log to say the project was loaded (its
        file root added, or its files listed); `Refused` when it says it
        failed to load the project (a config the cold run refuses with exit
        code 2: the server would check with its defaults instead)."""
        deadline = time.monotonic() + INITIALIZE_TIMEOUT_S
        while True:
            self._read_log_once()
            if self._root_added or self._indexed is not None:
                return
            if self._lsp.closed is not None:
                raise WorkerFailed(self._lsp.closed)
            if time.monotonic() > deadline:
                raise WorkerFailed("ty server did not list the project's files")
            await asyncio.sleep(0.01)

    # What the server's log says it checked.

    async def _read_log(self) -> None:
        """Read the log up to the end of the check just answered (its line
        "Checking all files took"): the server writes its log behind its
        answers."""
        deadline = time.monotonic() + LOG_TIMEOUT_S
        while not self._read_log_once():
            if time.monotonic() > deadline:
                raise WorkerFailed("ty server's log did not say its check ended")
            await asyncio.sleep(0.005)

    def _read_log_once(self) -> bool:
        ended = False
        try:
            with open(self._log, "rb") as handle:
                handle.seek(self._log_at)
                chunk = handle.read()
        except OSError as exc:
            raise WorkerFailed(f"ty server's log cannot be read: {exc}") from exc
        end = chunk.rfind(b"\n") + 1
        self._log_at += end
        prefix = os.fspath(self._root).rstrip(os.sep) + os.sep
        for line in chunk[:end].decode("utf-8", "replace").splitlines():
            error = _ERROR.match(line)
            if error:
                raise Refused(f"ty server: {error.group(1)}")
            checking = _CHECKING.search(line)
            if checking and checking.group(1).startswith(prefix):
                self._checked.add(checking.group(1))
            indexed = _INDEXED.search(line)
            if indexed:
                if self._project is not None:
                    raise WorkerFailed("ty server listed the project's files again")
                self._indexed = int(indexed.group(1))
            elif (added := _ADDED.search(line)) and self._project is not None:
                self._project.add(added.group(1))
            elif (removed := _REMOVED.search(line)) and self._project is not None:
                self._project.discard(removed.group(1))
                self._checked.discard(removed.group(1))
            self._root_added = self._root_added or _PROJECT_ROOT.search(line) is not None
            ended = ended or _CHECKED_ALL.search(line) is not None
        return ended

    # Freshness.

    def _hash_inputs(self) -> dict[str, str | None]:
        program = ENGINE.program((), self._ctx, None, frozenset())
        return {path: self._memo.digest(path) for path in program.inputs}

    def _tell(self) -> set[str]:
        """Tell the server of every input changed since the last ask; the
        paths told."""
        now = self._hash_inputs()
        before = self._inputs
        if now == before:
            return set()
        prefix = os.fspath(self._root).rstrip(os.sep) + os.sep
        events: list[types.FileEvent] = []
        told: set[str] = set()
        for path in sorted(set(now) | set(before)):
            if before.get(path) == now.get(path) and (path in now) == (path in before):
                continue
            if not path.startswith(prefix) or not paths.has_suffix(path, pyprogram.SUFFIXES):
                raise WorkerFailed(f"{path} changed: ty server is not told of it")
            kind = (
                types.FileChangeType.Changed
                if path in before and path in now
                else types.FileChangeType.Created
                if path in now
                else types.FileChangeType.Deleted
            )
            events.append(types.FileEvent(uri=from_fs_path(path) or "", type=kind))
            told.add(path)
        self._lsp.notify(
            "workspace/didChangeWatchedFiles", types.DidChangeWatchedFilesParams(changes=events)
        )
        self._inputs = now
        return told

    # Asking.

    async def ask(self, command: Command) -> ProcessResult:
        started = time.monotonic()
        try:
            await self._pull(self._tell())
        except WorkerFailed:
            raise
        except Exception as exc:  # garbage from the server
            raise WorkerFailed(f"ty server's answer could not be read: {exc}") from exc
        if self._hash_inputs() != self._inputs:
            raise WorkerFailed("files changed while ty was checking")
        await self._read_log()
        if self._project is None:
            if self._indexed != len(self._checked):
                raise WorkerFailed(
                    f"ty server indexed {self._indexed} files where it said it checked "
                    f"{len(self._checked)}"
                )
            self._project = set(self._checked)
        if self._project != self._checked:
            raise WorkerFailed("ty server's project files are not the files it checked")
        reports = [self._reports[path] for path in sorted(self._reports)]
        errors = any(r.major for r in reports)
        warnings = any(r.other for r in reports)
        stderr = "".join(f"DEBUG Checking file '{path}'\n" for path in sorted(self._checked))
        return ProcessResult(
            argv=command.argv,
            exit_code=1 if errors or (self._strict and warnings) else 0,
            stdout="[" + ", ".join(r.text for r in reports) + "]\n",
            stderr=stderr,
            duration_s=time.monotonic() - started,
        )

    async def _pull(self, told: set[str]) -> None:
        """One `workspace/diagnostic` pull, sending the result id of every
        file reported before and not changed since (`told`): ty answers
        "unchanged" for those whose diagnostics hash the same. A changed
        file's id is not sent (its diagnostics may hash the same, as byte
        offsets, where their lines moved). The id of a file that does not
        exist is always sent, so ty answers it (an empty full report) and
        never holds the pull, as it holds one whose every report would be
        unchanged. When a file sent with an id is not reported at all,
        the pull is made again without ids."""
        sent = {
            path: report.result_id
            for path, report in self._reports.items()
            if report.result_id is not None and path not in told
        }
        answer = await self._lsp.request(_WORKSPACE, self._previous(sent))
        if not self._merge(answer, sent):
            sent = {}
            answer = await self._lsp.request(_WORKSPACE, self._previous(sent))
            self._merge(answer, sent)

    def _previous(self, sent: dict[str, str]) -> dict[str, Any]:
        uris = {path: uri for uri, path in self._paths.items()}
        previous = [{"uri": uris[path], "value": value} for path, value in sent.items()]
        previous.append({"uri": self._sentinel, "value": _SENTINEL_ID})
        return {"previousResultIds": previous}

    def _merge(self, answer: Any, sent: dict[str, str]) -> bool:
        """Take a pull's reports: a full one replaces its file's, an
        unchanged one keeps it, a file not reported has no diagnostics.
        False (nothing taken) when a file sent with an id is missing."""
        items = answer.get("items") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise WorkerFailed(f"ty answered {_WORKSPACE} with {answer!r:.200}")
        reports: dict[str, _Report] = {}
        seen: set[str] = set()
        for entry in items:
            if not isinstance(entry, dict):
                raise WorkerFailed(f"ty answered a report that is not an object: {entry!r:.200}")
            uri = str(entry.get("uri", ""))
            if uri == self._sentinel and entry.get("kind") == "full" and not entry.get("items"):
                continue
            path = self._path(uri, entry)
            seen.add(path)
            if entry.get("kind") == "unchanged" and path in sent:
                if entry.get("resultId") != sent[path]:
                    raise WorkerFailed(f"ty answered another result id: {entry!r:.200}")
                reports[path] = self._reports[path]
            elif entry.get("kind") == "full" and isinstance(entry.get("items"), list):
                report = self._report(path, entry)
                if report is not None:
                    reports[path] = report
            else:
                raise WorkerFailed(f"ty answered a report it cannot: {entry!r:.200}")
        if not seen.issuperset(sent):
            return False
        self._reports = reports
        return True

    def _path(self, uri: str, entry: Any) -> str:
        path = self._paths.get(uri)
        if path is None:
            path = to_fs_path(uri)
            if not path:
                raise WorkerFailed(f"ty answered a report without a file: {entry!r:.200}")
            self._paths[uri] = path
        return path

    def _report(self, path: str, entry: dict[str, Any]) -> _Report | None:
        """A full report as the file's GitLab objects; None without any."""
        rel = os.path.relpath(path, self._root)
        found = [d for d in (_gitlab(rel, raw) for raw in entry["items"]) if d]
        if not found:
            return None
        result_id = entry.get("resultId")
        return _Report(
            result_id=result_id if isinstance(result_id, str) and result_id else None,
            text=", ".join(json.dumps(d) for d in found),
            major=any(d["severity"] == "major" for d in found),
            other=any(d["severity"] != "major" for d in found),
        )

    async def close(self) -> None:
        await self._lsp.shut_down()
        try:
            self._log.unlink()
            self._log.parent.rmdir()
        except OSError:
            pass


class TyDriver:
    """Serves `ty check --output-format gitlab` from a warm `ty server`."""

    engine = "ty"

    def __init__(self, adapter: TyEngine = ENGINE) -> None:
        self._adapter = adapter
        # The states whose server said ERROR (`Refused`).
        self._refused = Refusals(Refused)

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        return self._refused.admit(self._key(ctx, command))

    def _key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        cold = self._adapter.command(ctx, [], None)
        if command.argv != cold.argv or command.cwd != ctx.root:
            return None
        configs = {name: content_digest(ctx.root / name) for name in CONFIG_NAMES}
        program_key = self._adapter.program_key(ctx)
        state = {
            "argv": list(command.argv),
            "executable": executable_key(ctx.executable),
            "configs": configs,
            "user": content_digest(user_config()),
            "env": program_key.extra if program_key is not None else None,
        }
        return WorkerKey(f"ty:{ctx.root}", json.dumps(state, sort_keys=True))

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> TySession:
        started = await process.start(
            Command(argv=(str(ctx.executable), "server"), cwd=ctx.root, timeout_s=ctx.timeout_s),
            stderr_to=log,
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed(f"ty server could not start: {started.start_error}")
        server_log = Path(tempfile.mkdtemp(prefix="signalint-ty-")) / "server.log"
        session = TySession(started, ctx, option_value(command, "--python"), server_log)
        return await self._refused.started(session, self._key(ctx, command))


DRIVER = TyDriver()
