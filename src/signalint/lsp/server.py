"""`signalint lsp`: the project's diagnostics as a language server (pygls 2).

One server checks one project root: `SIGNALINT_PROJECT_ROOT` when set, else
the root found upward (as the CLI finds it) from the client's first
workspace folder, its `rootUri`, or the working directory.

What the server does, in order of a session:

- `initialized`: the first whole-project check, with work-done progress
  (`$/progress`, one report per engine finished) when the client offers it;
  then diagnostics are published for every file with issues.
- `didOpen`: the file's diagnostics from the last check are published.
- `didChange`: the buffer is checked (a newer change cancels the older
  check, all of its steps) in the backend's shadow copy holding the
  buffer: at once by the engines that check a file on its own, published
  with an Information diagnostic naming tsc or Pyright as pending
  (`convert.unseen_notice`); `PROGRAM_DEBOUNCE_S` after the change by
  every buffer engine (`backend.buffer_engines`), tsc and Pyright
  answering for this file alone first; then, `DEPENDENTS_QUIET_S` later,
  the other files whose tsc or Pyright diagnostics the unsaved buffers
  change (`check_dependents`). mypy answers when it is saved, and until
  then the buffer's diagnostics (and its dependents') carry the notice
  naming the engines that have not seen it, never their older
  diagnostics beside the new; an engine that failed on the buffer is named
  there too (as failed; its reason shown, below), never silently left out.
- `didSave` (and a changed file the client watches): the project is
  checked again (debounced; a newer save cancels an older check) and every
  file with issues, or that had some, is published if what it shows
  changed (a check of a large project re-sends none of the files it left
  as they were: an importer's new diagnostics are not queued behind
  thousands of unchanged ones).
- `didClose`: the file shows what the last check of the disk says.
- Pull: `textDocument/diagnostic` and `workspace/diagnostic` answer what
  was last published.
- Code actions: for a diagnostic an engine can fix, that engine's safe fixes
  of the file (`quickfix`); `source.fixAll.signalint` applies every fixing
  engine's safe fixes. The edit is made when the client resolves the
  action (`codeAction/resolve`), on the buffer's text.
- An engine that failed is shown once (`window/showMessage`) with its
  reason, again only after it ran well in between.
- Settings: `workspace/didChangeConfiguration`, or a change of Signalint's
  settings, a lockfile or the installed tools (`signalint.lsp.restarts`),
  restarts the backend and checks again.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from signalint import __version__
from signalint.lsp import convert
from signalint.lsp.documents import Document, DocumentTooLarge, check_size, project_file
from signalint.lsp.latest import Latest
from signalint.lsp.restarts import PATTERNS, Stamp, affects_engines

if TYPE_CHECKING:
    from signalint.engines.runner import Progress
    from signalint.lsp.backend import Backend
    from signalint.model import CheckResult, Issue
    from signalint.settings.config import Config

_log = logging.getLogger(__name__)

DEBOUNCE_S: Final = 0.15  # disk checks: after a save or a watched change
# A keystroke's buffer: the linters (the engines that check a file on its
# own, a few ms warm) start at once, a newer change cancelling them; the
# whole-program engines (tsc, Pyright) no sooner than this after it.
LINT_DEBOUNCE_S: Final = 0.0
PROGRAM_DEBOUNCE_S: Final = 0.1
# Quiet after a buffer's own answer before its dependents are checked
# (every importer, by the whole-program engines of the buffers' copy): that
# check's own work holds the event loop for a while on a large project, and
# a keystroke arriving meanwhile waits for it (0.3 s made the linters' part
# 380-540 ms on 3,000 TS modules, docs/benchmarks-history.md).
DEPENDENTS_QUIET_S: Final = 1.0
DEPENDENTS: Final = "dependents"
# Quiet after a check's diagnostics are published before the server tidies.
TIDY_DELAY_S: Final = 0.05
FIX_ALL: Final = "source.fixAll.signalint"
PROJECT: Final = "project"
_JS: Final = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
# Components: their checkers (vue-tsc, svelte-check, astro check) are
# JavaScript's whole-program engines, so a buffer's notice names them.
_COMPONENTS: Final = (".vue", ".svelte", ".astro")
_PY: Final = (".py", ".pyi")


def _language(file: str) -> str | None:
    if file.endswith(_JS + _COMPONENTS):
        return "javascript"
    if file.endswith(_PY):
        return "python"
    return None


def _by_file(result: CheckResult, engines: Sequence[str]) -> dict[str, dict[str, list[Issue]]]:
    """engine -> file -> the issues `engines` reported in `result` (each
    engine's own, before merging)."""
    found: dict[str, dict[str, list[Issue]]] = {}
    for name in engines:
        outcome = result.outcomes.get(name)
        files = found.setdefault(name, {})
        for issue in outcome.issues if outcome is not None else ():
            files.setdefault(issue.file, []).append(issue)
    return found


def _keys(issues: Sequence[Issue] | None) -> list[tuple[object, ...]]:
    return sorted(
        (i.issue_id, i.line, i.col, i.end_line, i.end_col, i.severity, i.message)
        for i in issues or ()
    )


def _dependents(
    result: CheckResult,
    programs: Sequence[str],
    disk: dict[str, dict[str, list[Issue]]],
    dirty: set[str],
    config: Config,
) -> dict[str, list[Issue]]:
    """file -> its issues as a cold check with the buffers saved shows them,
    for each file not `dirty` whose issues of `programs` in `result` (the
    copy's check) differ from the disk check's (`disk`): those engines'
    issues from `result`, the other buffer engines' from `disk`, merged."""
    from signalint.lsp.backend import buffer_engines
    from signalint.model import Issue
    from signalint.pipeline.engine_merge import merge_reports

    now = _by_file(result, programs)
    changed: set[str] = set()
    for name in programs:
        before = disk.get(name, {})
        for file in set(now.get(name, {})) | set(before):
            if file not in dirty and _keys(now[name].get(file)) != _keys(before.get(file)):
                changed.add(file)
    found: dict[str, list[Issue]] = {}
    for file in sorted(changed):
        kept = [
            issue
            for name in buffer_engines(config, _language(file))
            for issue in (now if name in programs else disk).get(name, {}).get(file, [])
        ]
        merged = {issue.issue_id: issue for issue in merge_reports(kept)}
        found[file] = sorted(merged.values(), key=Issue.sort_key)
    return found


def _disk_lines(uri: str) -> list[str] | None:
    path = convert.path_of(uri)
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class Notice:
    """What a file's diagnostics say of the engines that have not seen its
    content: `unseen` (named in the notice), `pending` (checking the buffer
    now), `failed` (they failed on the buffer: never a silent gap) and
    `buffers` (the unsaved files, when these are a dependent's)."""

    unseen: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    buffers: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()


def _failed(result: CheckResult) -> tuple[str, ...]:
    """The engines that failed on a buffer: named in its notice as not
    having seen it (their reason goes to `window/showMessage`)."""
    return tuple(n for n, o in result.outcomes.items() if o.status == "error")


NO_NOTICE: Final = Notice()


@dataclass(frozen=True, slots=True)
class _Source:
    """What a file's diagnostics are made of: equal sources make equal
    diagnostics (the encoding is the session's)."""

    issues: tuple[Issue, ...]
    notice: Notice
    version: int | None
    text: object  # the buffer's text, or the file's stat on disk


def _text_key(root: Path | None, doc: Document | None, issues: Sequence[Issue]) -> object:
    """The text a file's diagnostics convert their columns on: the
    buffer's, else (with issues) the disk's, known by its stat."""
    if doc is not None:
        return doc.text
    if not issues or root is None:
        return None
    try:
        st = os.stat(os.path.join(root, issues[0].file))
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Session:
    """The state of one client's session with the server."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.root: Path | None = None
        self.backend: Backend | None = None
        self.stamp: Stamp | None = None
        self.documents: dict[str, Document] = {}
        self.project: dict[str, list[Issue]] = {}  # file -> issues of the last check
        self.published: dict[str, list[types.Diagnostic]] = {}  # uri -> what was sent
        self.sent_versions: dict[str, int | None] = {}  # uri -> the version it was sent with
        # uri -> what its sent diagnostics were made of (`publish` skips
        # building them again from the same), and its project-relative file.
        self.sources: dict[str, _Source] = {}
        self.published_files: dict[str, str] = {}
        self._uris: dict[str, str] = {}  # project-relative file -> its uri
        self.buffer_issues: dict[str, list[Issue]] = {}  # uri -> issues of its buffer
        # uri -> issues of a file published from the unsaved buffers' program
        # (a dependent of theirs), until they are saved or closed.
        self.from_buffers: dict[str, list[Issue]] = {}
        # engine -> file -> the issues each engine reported there in the
        # last disk check (before merging: what a dependent's are made of).
        self.disk_issues: dict[str, dict[str, list[Issue]]] = {}
        self.checks = Latest(DEBOUNCE_S)
        self.shown: dict[str, str] = {}  # engine -> the failure last shown
        self.progress = False
        self.first_check = True
        self.ready = asyncio.Event()
        self.early: list[tuple[str, str, int]] = []  # documents opened before the backend
        self._tidy: asyncio.TimerHandle | None = None

    # -- memory -----------------------------------------------------------------

    def _hold_tidy(self) -> None:
        """A check starts: no tidying while it runs."""
        if self._tidy is not None:
            self._tidy.cancel()
            self._tidy = None

    def _tidy_later(self) -> None:
        """A check's diagnostics are published: after `TIDY_DELAY_S` of quiet,
        collect its garbage and give free memory back (`runtime.tidy`, as the
        MCP server does when idle); a check starting sooner cancels it."""
        from signalint.pipeline.runtime import tidy

        self._hold_tidy()
        if not self.checks.busy():
            self._tidy = asyncio.get_running_loop().call_later(TIDY_DELAY_S, tidy)

    # -- the backend ------------------------------------------------------------

    def start(self, params: types.InitializeParams) -> None:
        from signalint.project.roots import discover_root

        where: str | None = None
        if params.workspace_folders:
            where = str(convert.path_of(params.workspace_folders[0].uri) or "")
        elif params.root_uri:
            where = str(convert.path_of(params.root_uri) or "")
        elif params.root_path:
            where = params.root_path
        self.root = discover_root(cwd=where or os.getcwd())
        caps = params.capabilities.window
        self.progress = bool(caps and caps.work_done_progress)

    def open_backend(self) -> Backend:
        from signalint.lsp.backend import Backend
        from signalint.pipeline.runtime import long_lived

        assert self.root is not None
        self.backend = Backend(self.root)
        # A process that checks again and again: the collector set for it,
        # what is loaded by now never scanned again (`runtime.long_lived`).
        long_lived()
        self.stamp = Stamp(self.root)
        self.ready.set()
        early, self.early = self.early, []
        for uri, text, version in early:
            self.opened(uri, text, version)
        return self.backend

    async def restart(self) -> None:
        if self.backend is None:
            return
        await self.checks.cancel_all()
        await self.backend.restart()
        self.documents = {
            uri: doc
            for uri, doc in self.documents.items()
            if project_file(self.backend.root, self.backend.config, uri) is not None
        }
        self.schedule_project(delay_s=0)
        for uri, doc in self.documents.items():
            if doc.dirty:  # their buffers are checked again by the engines now enabled
                self.checks.schedule(uri, functools.partial(self.check_buffer, uri), 0)

    # -- checks -----------------------------------------------------------------

    def schedule_project(self, delay_s: float | None = None) -> None:
        self.checks.schedule(PROJECT, self.check_disk, delay_s)

    async def check_disk(self) -> None:
        await self.ready.wait()
        self._hold_tidy()
        backend = self.backend
        assert backend is not None and self.stamp is not None
        if self.stamp.changed():
            await backend.restart()
        if self.first_check and self.progress:
            checked = await backend.check_disk(self._progress_scope)
        else:
            checked = await backend.check_disk()
        self.first_check = False
        _log.debug("checked the project: %d issues", len(checked.result.issues))
        self._tell_failures(checked.result)
        files: dict[str, list[Issue]] = {}
        for issue in checked.result.issues:
            files.setdefault(issue.file, []).append(issue)
        self.project = files
        self.disk_issues = _by_file(checked.result, list(checked.result.outcomes))
        dirty = any(doc.dirty for doc in self.documents.values())
        if not dirty:
            self.from_buffers.clear()
        # uri -> its project-relative file: a check's files are the
        # project's already (no path test per file, `_file_of`).
        wanted = {self._uri_of(file): file for file in files}
        for uri, open_doc in self.documents.items():
            wanted[uri] = open_doc.file
        for uri, file in self.published_files.items():
            wanted.setdefault(uri, file)
        for uri in sorted(wanted):
            doc = self.documents.get(uri)
            if doc is not None and doc.dirty:
                continue  # its buffer's diagnostics stand until it is saved
            if uri in self.from_buffers:
                continue  # the unsaved buffers' dependents: checked again below
            self.buffer_issues.pop(uri, None)
            self.publish(uri, self.project.get(wanted[uri], []), doc, only_changed=True)
        self._tidy_later()
        if dirty:  # the dependents of what is unsaved, against this check
            self.checks.schedule(DEPENDENTS, self.check_dependents, DEPENDENTS_QUIET_S)

    def _program_engines(self) -> tuple[str, ...]:
        from signalint.engines.registry import ENGINES
        from signalint.lsp.backend import BUFFER_PROGRAMS

        assert self.backend is not None
        return tuple(
            n
            for n in self.backend.config.enabled_engines
            if n in BUFFER_PROGRAMS and ENGINES[n].spec.whole_program
        )

    async def check_buffer(self, uri: str) -> None:
        """A keystroke's check (`changed`): the linters' answer published
        first, its notice naming the whole-program engines still checking
        the buffer; then every buffer engine's answer, the whole-program
        engines answering for this file alone (its dependents come after,
        `check_dependents`). A newer change cancels the whole of it."""
        from signalint.lsp.backend import buffer_linters, buffer_programs

        began = asyncio.get_running_loop().time()
        await self.ready.wait()
        backend = self.backend
        doc = self.documents.get(uri)
        if backend is None or doc is None or not doc.dirty:
            return
        text, version = doc.text, doc.version
        self._hold_tidy()
        language = _language(doc.file)
        linters = buffer_linters(backend.config, language)
        programs = buffer_programs(backend.config, language)
        unseen = self._unseen(doc.file)
        if programs:
            if linters:
                checked = await backend.check_buffer(doc.file, text, linters)
                if self.documents.get(uri) is not doc or doc.version != version:
                    return  # a newer change or a close came meanwhile
                self._tell_failures(checked.result)
                issues = [i for i in checked.result.issues if i.file == doc.file]
                self.buffer_issues[uri] = issues
                failed = _failed(checked.result)
                notice = Notice((*programs, *unseen, *failed), tuple(programs), failed=failed)
                self.publish(uri, issues, doc, notice)
            wait = PROGRAM_DEBOUNCE_S - (asyncio.get_running_loop().time() - began)
            if wait > 0:
                await asyncio.sleep(wait)
        checked = await backend.check_buffer(doc.file, text, (*linters, *programs), files_only=True)
        if self.documents.get(uri) is not doc or doc.version != version:
            return  # a newer change or a close came meanwhile
        self._tell_failures(checked.result)
        issues = [i for i in checked.result.issues if i.file == doc.file]
        self.buffer_issues[uri] = issues
        failed = _failed(checked.result)
        self.publish(uri, issues, doc, Notice((*unseen, *failed), failed=failed))
        self._tidy_later()
        if programs:
            self.checks.schedule(DEPENDENTS, self.check_dependents, DEPENDENTS_QUIET_S)

    async def check_dependents(self) -> None:
        """The files the unsaved buffers' whole-program engines (tsc,
        Pyright) now report otherwise than on disk, published as a cold
        check of the buffers' content would show them: those engines'
        issues from the shadow copy, the other buffer engines' from the
        disk's check (the file itself is as on disk), merged as a check
        merges them (D20); the engines that answer on save are named. A
        file that went back to the disk's diagnostics gets them."""
        from signalint.engines.registry import ENGINES

        await self.ready.wait()
        backend = self.backend
        if backend is None:
            return
        dirty = {doc.file for doc in self.documents.values() if doc.dirty}
        languages = {_language(f) for f in dirty}
        programs = [n for n in self._program_engines() if ENGINES[n].spec.language in languages]
        found: dict[str, list[Issue]] = {}
        if dirty and programs:
            whole = await backend.check_copy(programs)
            if whole is None:
                return
            for name in programs:
                outcome = whole.result.outcomes.get(name)
                if outcome is None or outcome.status != "ok":
                    return  # the failure is the buffer's own check's to show
            # Per-issue work on thousands of issues: off the server's loop.
            found = await asyncio.to_thread(
                _dependents, whole.result, programs, self.disk_issues, dirty, backend.config
            )
        buffers = sorted(dirty)
        for uri in list(self.from_buffers):
            rel = self._file_of(uri)
            if rel is None or rel not in found:
                del self.from_buffers[uri]
                doc = self.documents.get(uri)
                if rel is not None and (doc is None or not doc.dirty):
                    self.publish(uri, self.project.get(rel, []), doc, only_changed=True)
        for file, issues in found.items():
            uri = convert.uri_of(backend.root, file)
            doc = self.documents.get(uri)
            if doc is not None and doc.dirty:
                continue
            self.from_buffers[uri] = issues
            unseen = self._unseen(file)
            self.publish(
                uri, issues, doc, Notice(tuple(unseen), buffers=tuple(buffers)), only_changed=True
            )
        self._tidy_later()

    def _unseen(self, file: str) -> list[str]:
        from signalint.lsp.backend import unseen_engines

        assert self.backend is not None
        return list(unseen_engines(self.backend.config, _language(file)))

    def _uri_of(self, file: str) -> str:
        uri = self._uris.get(file)
        if uri is None:
            assert self.backend is not None
            uri = self._uris[file] = convert.uri_of(self.backend.root, file)
        return uri

    def _file_of(self, uri: str) -> str | None:
        if self.backend is None:
            return None
        return project_file(self.backend.root, self.backend.config, uri)

    @asynccontextmanager
    async def _progress_scope(self, engines: Sequence[str]) -> AsyncIterator[Progress | None]:
        token = f"signalint-{uuid.uuid4().hex[:12]}"
        progress = self.server.work_done_progress
        try:
            await asyncio.wait_for(progress.create_async(token), timeout=5)
        except Exception:
            yield None
            return
        total = max(1, len(engines))
        done: list[str] = []
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Signalint", message=f"checking with {', '.join(engines)}", percentage=0
            ),
        )

        def report(engine: str, event: str) -> None:
            if event != "done":
                return
            done.append(engine)
            progress.report(
                token,
                types.WorkDoneProgressReport(
                    message=f"{engine} done", percentage=min(100, 100 * len(done) // total)
                ),
            )

        try:
            yield report
        finally:
            progress.end(token, types.WorkDoneProgressEnd(message="checked"))

    def _tell_failures(self, result: CheckResult) -> None:
        for name, outcome in result.outcomes.items():
            if outcome.status == "error":
                reason = outcome.message or "it failed without saying why"
                if self.shown.get(name) != reason:
                    self.shown[name] = reason
                    self.server.window_show_message(
                        types.ShowMessageParams(
                            types.MessageType.Error, f"signalint: {name} failed: {reason}"
                        )
                    )
            elif outcome.status == "ok":
                self.shown.pop(name, None)

    # -- publishing -------------------------------------------------------------

    def diagnostics(
        self, uri: str, issues: Sequence[Issue], doc: Document | None, notice: Notice
    ) -> list[types.Diagnostic]:
        lines = doc.lines if doc is not None else _disk_lines(uri) if issues else None
        encoding = str(self.server.server_capabilities.position_encoding or "utf-16")
        found = [convert.diagnostic(issue, uri, lines, encoding) for issue in issues]
        if notice.unseen:
            found.append(
                convert.unseen_notice(notice.unseen, notice.pending, notice.buffers, notice.failed)
            )
        return found

    def publish(
        self,
        uri: str,
        issues: Sequence[Issue],
        doc: Document | None,
        notice: Notice = NO_NOTICE,
        *,
        only_changed: bool = False,
    ) -> None:
        """Send `uri`'s diagnostics, with the `notice` of the engines that
        have not seen it; with `only_changed`, not when the client already
        has these, of this version."""
        version = doc.version if doc is not None else None
        source = _Source(tuple(issues), notice, version, _text_key(self.root, doc, issues))
        if only_changed and self.sources.get(uri) == source:
            return  # what was sent was made of the same: the same diagnostics
        found = self.diagnostics(uri, issues, doc, notice)
        if not found and uri not in self.published:
            return
        if (
            only_changed
            and found == self.published.get(uri)
            and self.sent_versions.get(uri, -1) == version
        ):
            self.sources[uri] = source
            return
        if found:
            self.published[uri] = found
            self.sent_versions[uri] = version
            self.sources[uri] = source
            file = doc.file if doc is not None else issues[0].file if issues else None
            if file is not None:
                self.published_files[uri] = file
        else:
            self.published.pop(uri, None)
            self.sent_versions.pop(uri, None)
            self.sources.pop(uri, None)
            self.published_files.pop(uri, None)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )

    # -- documents --------------------------------------------------------------

    def opened(self, uri: str, text: str, version: int) -> None:
        if self.backend is None:
            self.early.append((uri, text, version))
            return
        file = self._file_of(uri)
        if file is None:
            return
        try:
            check_size(uri, text)
        except DocumentTooLarge as exc:
            self._refuse(uri, exc)
            return
        doc = Document(uri, file, version, text)
        self.documents[uri] = doc
        self.publish(uri, self.project.get(file, []), doc)

    def changed(self, uri: str, text: str, version: int) -> None:
        doc = self.documents.get(uri)
        if doc is None:
            self.early = [(u, text, version) if u == uri else (u, t, v) for u, t, v in self.early]
            return
        try:
            check_size(uri, text)
        except DocumentTooLarge as exc:
            self._refuse(uri, exc)
            return
        doc.set_text(text, version)
        doc.dirty = True
        self.checks.cancel(DEPENDENTS)
        self.checks.schedule(uri, functools.partial(self.check_buffer, uri), LINT_DEBOUNCE_S)

    def saved(self, uri: str, text: str | None) -> None:
        doc = self.documents.get(uri)
        if doc is not None:
            if text is not None:
                doc.set_text(text, doc.version)
            doc.dirty = False
            self.checks.cancel(uri)
            self.checks.cancel(DEPENDENTS)
            if self.backend is not None:
                self.backend.release(doc.file)
        if doc is not None or self._file_of(uri) is not None:
            self.schedule_project()

    def closed(self, uri: str) -> None:
        self.early = [entry for entry in self.early if entry[0] != uri]
        doc = self.documents.pop(uri, None)
        if doc is None:
            return
        self.checks.cancel(uri)
        self.buffer_issues.pop(uri, None)
        if doc.dirty:
            self.checks.cancel(DEPENDENTS)
        if self.backend is not None:
            self.backend.release(doc.file)
        self.publish(uri, self.project.get(doc.file, []), None)
        if doc.dirty:
            self.schedule_project()  # what the buffer said is gone; the disk's stands

    def _refuse(self, uri: str, exc: DocumentTooLarge) -> None:
        self.documents.pop(uri, None)
        self.checks.cancel(uri)
        self.server.window_show_message(
            types.ShowMessageParams(types.MessageType.Error, f"signalint: {exc}")
        )

    def watched(self, changes: Sequence[types.FileEvent]) -> None:
        if self.backend is None:
            return
        paths = [convert.path_of(change.uri) for change in changes]
        if any(p is not None and affects_engines(self.backend.root, p) for p in paths):
            asyncio.get_running_loop().create_task(self.restart())
        elif any(p is not None and self._file_of(p.as_uri()) is not None for p in paths):
            self.schedule_project()

    # -- code actions -----------------------------------------------------------

    def actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        doc = self.documents.get(uri)
        if doc is None or self.backend is None:
            return []
        from signalint.engines.registry import ENGINES
        from signalint.features.engine_fixes import AppliesFixes

        only = params.context.only
        found: list[types.CodeAction] = []
        fixers: set[str] = set()
        for diag in params.context.diagnostics:
            data = diag.data if isinstance(diag.data, dict) else None
            if not data or not data.get("fixable"):
                continue
            for name in data.get("engines", []):
                if not isinstance(ENGINES.get(name), AppliesFixes):
                    continue
                fixers.add(name)
                if only and types.CodeActionKind.QuickFix not in only:
                    continue
                found.append(
                    types.CodeAction(
                        title=f"Apply {name}'s safe fixes to this file",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        data={"uri": uri, "engine": name, "version": doc.version},
                    )
                )
        wants_all = not only or any(FIX_ALL.startswith(k) or k == FIX_ALL for k in only)
        if wants_all and self._fixable_here(doc):
            found.append(
                types.CodeAction(
                    title="Apply every engine's safe fixes (Signalint)",
                    kind=FIX_ALL,
                    data={"uri": uri, "engine": None, "version": doc.version},
                )
            )
        return found

    def _fixable_here(self, doc: Document) -> bool:
        issues = self.buffer_issues.get(doc.uri) if doc.dirty else self.project.get(doc.file)
        return any(issue.fixable for issue in issues or ())

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        doc = self.documents.get(uri) if isinstance(uri, str) else None
        if doc is None or self.backend is None:
            return action
        engine = data.get("engine")
        issues = self.buffer_issues.get(doc.uri) if doc.dirty else self.project.get(doc.file)
        issues = list(issues or ())  # every engine with a fix mode fixes the file whole
        if engine is not None:
            issues = [i for i in issues if engine in convert.engines_of(i)]
        if not issues:
            return action
        text, version = doc.text, doc.version
        new = await self.backend.fixed_text(doc.file, text, issues, engine)
        if new is None or self.documents.get(doc.uri) is not doc or doc.version != version:
            return action
        end = types.Position(len(doc.lines), 0)
        edit = types.TextEdit(types.Range(types.Position(0, 0), end), new)
        action.edit = types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    types.OptionalVersionedTextDocumentIdentifier(doc.uri, version), [edit]
                )
            ]
        )
        return action

    # -- pull -------------------------------------------------------------------

    async def pull(self, uri: str) -> types.RelatedFullDocumentDiagnosticReport:
        """`uri`'s diagnostics once the checks scheduled for it (its buffer's,
        the project's after a save) have answered: a pull right after a
        change or a save gets that change's answer, even when it equals what
        was pushed before and so is not pushed again."""
        await self.checks.idle(uri, PROJECT)
        return types.RelatedFullDocumentDiagnosticReport(items=self.published.get(uri, []))

    async def pull_all(self) -> types.WorkspaceDiagnosticReport:
        await self.checks.idle()
        items: list[types.WorkspaceDocumentDiagnosticReport] = []
        for uri, found in sorted(self.published.items()):
            doc = self.documents.get(uri)
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, items=found, version=doc.version if doc is not None else None
                )
            )
        return types.WorkspaceDiagnosticReport(items=items)

    async def close(self) -> None:
        await self.checks.cancel_all()
        if self.backend is not None:
            await self.backend.close()


def make_server() -> tuple[LanguageServer, Session]:
    """The pygls server with every feature, and its session."""
    server = LanguageServer(
        "signalint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
    )
    session = Session(server)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        session.start(params)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        session.open_backend()
        _watch_files(server)
        session.schedule_project(delay_s=0)

    @server.feature(types.SHUTDOWN)
    async def shutdown(params: Any) -> None:
        await session.close()

    _follow_documents(server, session)
    _answer_diagnostics_and_fixes(server, session)
    return server, session


def _watch_files(server: LanguageServer) -> None:
    """Ask the client to tell the files `PATTERNS` match as they change,
    where it can register that at run time."""
    caps = server.client_capabilities.workspace
    watch = caps.did_change_watched_files if caps is not None else None
    if watch is None or not watch.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=p) for p in PATTERNS]
    )
    registration = types.Registration(
        id="signalint-watch",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    server.client_register_capability(types.RegistrationParams(registrations=[registration]))


def _follow_documents(server: LanguageServer, session: Session) -> None:
    """The notifications that tell the session what the editor and the
    files hold: documents opened, changed, saved and closed, watched files,
    and settings."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        session.opened(item.uri, item.text, item.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        text = server.workspace.get_text_document(uri).source
        session.changed(uri, text, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        session.saved(params.text_document.uri, params.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        session.closed(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await session.restart()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(params: types.DidChangeWatchedFilesParams) -> None:
        session.watched(params.changes)


def _answer_diagnostics_and_fixes(server: LanguageServer, session: Session) -> None:
    """The requests the session answers: diagnostics pulled per document
    and for the workspace, and code actions with their resolution."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="signalint", inter_file_dependencies=True, workspace_diagnostics=True
        ),
    )
    async def pull(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        return await session.pull(params.text_document.uri)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def pull_all(params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
        return await session.pull_all()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True
        ),
    )
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        return session.actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(action: types.CodeAction) -> types.CodeAction:
        return await session.resolve(action)


__all__ = [
    "DEBOUNCE_S",
    "FIX_ALL",
    "LINT_DEBOUNCE_S",
    "PROGRAM_DEBOUNCE_S",
    "Session",
    "make_server",
]
