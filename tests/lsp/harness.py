"""pygls's own client driving `signalint lsp`, and the CLI's answer to compare with."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SIGNALINT = Path(sys.executable).parent / "signalint"
# An issue as both sides show it: its id, every engine that saw it, severity, message.
Key = tuple[str, tuple[str, ...], str, str]


class Editor:
    """A client session: what the server published, per URI, as it arrives."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("signalint-test", "1")
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.messages: list[str] = []
        self.changed = asyncio.Event()
        self.versions: dict[str, int] = {}
        self.published_versions: dict[str, int | None] = {}
        self.progress: list[str] = []
        self.counts: Counter[str] = Counter()  # uri -> how many times published
        # Every publication in order: (uri, version, diagnostics).
        self.history: list[tuple[str, int | None, list[types.Diagnostic]]] = []

        @self.client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)  # type: ignore[untyped-decorator]
        def create(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @self.client.feature(types.PROGRESS)  # type: ignore[untyped-decorator]
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            self.progress.append(str(kind))

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = list(params.diagnostics)
            self.published_versions[params.uri] = params.version
            self.counts[params.uri] += 1
            self.history.append((params.uri, params.version, list(params.diagnostics)))
            self.changed.set()

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)  # type: ignore[untyped-decorator]
        def shown(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

    async def start(
        self,
        progress: bool = False,
        exe: Path = SIGNALINT,
        env: dict[str, str] | None = None,
    ) -> types.InitializeResult:
        """Start `exe lsp` in the root (the real-world tier passes its own
        Signalint and environment)."""
        await self.client.start_io(str(exe), "lsp", cwd=str(self.root), env=env)
        caps = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=progress)
        )
        result = await self.client.initialize_async(
            types.InitializeParams(capabilities=caps, root_uri=self.root.as_uri())
        )
        self.client.initialized(types.InitializedParams())
        return result

    def uri(self, file: str) -> str:
        return (self.root / file).as_uri()

    async def settle(
        self, quiet_s: float = 1.5, limit_s: float = 120, *, first: bool = False
    ) -> None:
        """Wait until nothing is published for `quiet_s`; with `first`, for a
        publication first (the first check's)."""
        if first:
            await asyncio.wait_for(self.changed.wait(), timeout=limit_s)
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=quiet_s)
            except TimeoutError:
                return
        raise AssertionError("the server kept publishing")

    async def until(self, file: str, unsaved: bool, limit_s: float = 120) -> None:
        """Wait until `file`'s diagnostics are of its current version, every
        engine that checks a buffer having answered (the linters' answer
        comes first, naming the others as pending), with the unsaved notice
        (`unsaved`) or without it, then until publishing settles."""
        uri = self.uri(file)
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            version = self.published_versions.get(uri)
            if (
                version == self.versions.get(file)
                and bool(self.notice(file)) == unsaved
                and not self.pending(file)
            ):
                await self.settle()
                return
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=1)
            except TimeoutError:
                continue
        raise AssertionError(f"{file}: version {self.versions.get(file)} never published")

    def open(self, file: str) -> None:
        text = (self.root / file).read_text()
        self.versions[file] = 1
        item = types.TextDocumentItem(self.uri(file), "plaintext", 1, text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(item))

    def edit(self, file: str, text: str) -> None:
        version = self.versions[file] = self.versions[file] + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version, self.uri(file)),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )

    def save(self, file: str, text: str) -> None:
        (self.root / file).write_text(text)
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(self.uri(file)))
        )

    async def pull(self, file: str, limit_s: float = 600) -> list[types.Diagnostic]:
        """`textDocument/diagnostic` of `file`: answered once the checks its
        last change or save scheduled have answered."""
        report = await asyncio.wait_for(
            self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(types.TextDocumentIdentifier(self.uri(file)))
            ),
            timeout=limit_s,
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
        return list(report.items)

    @staticmethod
    def pulled_keys(items: list[types.Diagnostic]) -> Counter[Key]:
        """Pulled diagnostics as keys (the unsaved notice left out)."""
        return Counter(_key(d) for d in items if d.code != "unsaved")

    def close(self, file: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(self.uri(file)))
        )

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), timeout=30)
        self.client.exit(None)
        await asyncio.sleep(0.2)
        await self.client.stop()  # type: ignore[no-untyped-call]

    def keys(self, file: str) -> Counter[Key]:
        """The diagnostics published for `file`, as keys (the unsaved notice left out)."""
        return as_keys(self.published.get(self.uri(file), []))

    def publications(self, file: str, version: int) -> list[list[types.Diagnostic]]:
        """Every set published for `file` at `version`, in order."""
        uri = self.uri(file)
        return [found for u, v, found in self.history if u == uri and v == version]

    async def until_true(self, test: Callable[[], bool], limit_s: float = 120) -> None:
        """Wait until `test()` holds after a publication."""
        deadline = time.monotonic() + limit_s
        while not test():
            if time.monotonic() > deadline:
                raise AssertionError("what the test waited for was never published")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=1)

    def pending(self, file: str) -> list[str]:
        """The engines the notice names as checking the buffer now."""
        found = [d for d in self.published.get(self.uri(file), []) if d.code == "unsaved"]
        data = found[0].data if found else None
        return list(data.get("pending", [])) if isinstance(data, dict) else []

    def notice(self, file: str) -> list[str]:
        found = [d for d in self.published.get(self.uri(file), []) if d.code == "unsaved"]
        if not found:
            return []
        data = found[0].data
        assert isinstance(data, dict)
        return list(data["unseen"])


def as_keys(diagnostics: list[types.Diagnostic]) -> Counter[Key]:
    """Published diagnostics as keys (the unsaved notice left out)."""
    return Counter(_key(d) for d in diagnostics if d.code != "unsaved")


def notice_of(diagnostics: list[types.Diagnostic]) -> dict[str, list[str]]:
    """The unsaved notice's data among published diagnostics ({} without one)."""
    for d in diagnostics:
        if d.code == "unsaved" and isinstance(d.data, dict):
            return {k: list(v) for k, v in d.data.items()}
    return {}


def _key(d: types.Diagnostic) -> Key:
    data = d.data
    assert isinstance(data, dict)
    severity = "error" if d.severity == types.DiagnosticSeverity.Error else "warning"
    return (data["issueId"], tuple(data["engines"]), severity, d.message)


def cli_keys(root: Path, file: str | None = None) -> Counter[Key]:
    """`signalint check --no-cache` of `root` as it is on disk, as keys (of `file` alone)."""
    done = subprocess.run(
        [str(SIGNALINT), "check", "--no-cache", "--format", "sarif"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return sarif_keys(done.stdout, file)


def sarif_keys(sarif: str, file: str | None = None) -> Counter[Key]:
    """A SARIF answer of `signalint check` as keys (of `file` alone)."""
    found: Counter[Key] = Counter()
    for run in json.loads(sarif)["runs"]:
        engine = run["tool"]["driver"]["name"]
        for result in run["results"]:
            where = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            if file is not None and where != file:
                continue
            also = result.get("properties", {}).get("alsoReportedBy", [])
            severity = "error" if result["level"] == "error" else "warning"
            found[
                (
                    result["partialFingerprints"]["signalintIssueId/v1"],
                    (engine, *also),
                    severity,
                    result["message"]["text"],
                )
            ] += 1
    return found
