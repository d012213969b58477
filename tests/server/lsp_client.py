"""A tiny Language Server Protocol client over stdio, for tests (Content-Length framing).

Enough to drive a real language server through open/change and collect
its `textDocument/publishDiagnostics` notifications: requests the server
makes of the client (`workspace/configuration`, `client/registerCapability`,
`window/workDoneProgress/create`) are answered with empty results.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any


def _read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError("an LSP message without Content-Length")
    body = stream.read(length)
    message: dict[str, Any] = json.loads(body)
    return message


class LspClient:
    """One language server process, initialized for `root`."""

    def __init__(
        self,
        argv: Sequence[str],
        root: Path,
        *,
        init_options: dict[str, Any] | None = None,
        stderr: Path | None = None,
    ) -> None:
        self._errlog = (stderr or root.parent / "lsp.stderr").open("ab")
        self.process = subprocess.Popen(
            list(argv), cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog
        )
        self._next_id = 0
        self._lock = threading.Lock()
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.published: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": {
                    "textDocument": {"publishDiagnostics": {"relatedInformation": True}},
                    "workspace": {"configuration": True},
                },
                "initializationOptions": init_options or {},
            },
        )
        self.notify("initialized", {})

    # --- transport -------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        assert self.process.stdin is not None
        with self._lock:
            self.process.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            self.process.stdin.flush()

    def _read_loop(self) -> None:
        assert self.process.stdout is not None
        while (message := _read_message(self.process.stdout)) is not None:
            if "id" in message and "method" in message:  # a request to the client
                self._answer(message)
            elif "id" in message:
                self._responses.setdefault(message["id"], queue.Queue()).put(message)
            elif message.get("method") == "textDocument/publishDiagnostics":
                self.published.put(message["params"])

    def _answer(self, request: dict[str, Any]) -> None:
        result: Any = None
        if request["method"] == "workspace/configuration":
            result = [None for _ in request.get("params", {}).get("items", [])]
        self._send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def request(self, method: str, params: Any, timeout_s: float = 60.0) -> Any:
        self._next_id += 1
        ident = self._next_id
        box = self._responses.setdefault(ident, queue.Queue())
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        answer = box.get(timeout=timeout_s)
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # --- documents -------------------------------------------------------

    def open(self, path: Path, language: str, text: str) -> None:
        document = {"uri": path.as_uri(), "languageId": language, "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})

    def change(self, path: Path, version: int, text: str) -> None:
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": path.as_uri(), "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def diagnostics(self, path: Path, count: int, timeout_s: float = 90.0) -> dict[str, Any]:
        """The first publish for `path` with `count` diagnostics, then any later ones
        that arrive within a short quiet period (the last one said wins)."""
        uri = path.as_uri()
        deadline = time.monotonic() + timeout_s
        last: dict[str, Any] | None = None
        seen: list[int] = []
        while time.monotonic() < deadline:
            try:
                params = self.published.get(timeout=0.5 if last else 1.0)
            except queue.Empty:
                if last is not None:
                    return last
                continue
            if params.get("uri") != uri:
                continue
            seen.append(len(params["diagnostics"]))
            if last is not None or len(params["diagnostics"]) == count:
                last = params
        raise AssertionError(f"no publish with {count} diagnostics for {uri}; saw counts {seen}")

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout_s=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()
        finally:
            self._errlog.close()
