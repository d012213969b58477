"""Faults on the language server's wire: it answers with an error and goes on.

A body that is not JSON, a message pygls cannot read, and a 40 MB
`didChange` (refused by the named limit lsp.maxMessageBytes, read in
pieces and dropped) each get their answer; a request after them is still
answered. A file outside the root or ignored gets no diagnostics and no
message.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from signalint.lsp.transport import MAX_MESSAGE_BYTES

pytestmark = pytest.mark.real

SIGNALINT = Path(sys.executable).parent / "signalint"


class Wire:
    """`signalint lsp` on pipes, read on a thread into a list of messages."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [str(SIGNALINT), "lsp"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.messages: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None
            self.messages.append(json.loads(out.read(length)))

    def raw(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def wait(self, test: Any, limit_s: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            for message in self.messages:
                if test(message):
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no such message among {self.messages}")

    def answer(self, message_id: Any) -> dict[str, Any]:
        return self.wait(lambda m: m.get("id") == message_id and "method" not in m)

    def end(self) -> int:
        self.send({"id": "bye", "method": "shutdown"})
        self.answer("bye")
        self.send({"method": "exit"})
        return self.process.wait(timeout=30)


def _quiet_project(root: Path) -> Path:
    root.mkdir()
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "ruff", "mypy", "pyright"), False)
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "a.py").write_text("x = 1\n")
    return root


def _start(wire: Wire, root: Path) -> None:
    wire.send(
        {"id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": root.as_uri()}}
    )
    assert "capabilities" in wire.answer(1)["result"]
    wire.send({"method": "initialized", "params": {}})


def test_malformed_messages_get_errors_and_the_server_goes_on(tmp_path: Path) -> None:
    root = _quiet_project(tmp_path / "p")
    wire = Wire(root)
    _start(wire, root)
    wire.raw(b"{this is not json")
    parse = wire.wait(lambda m: m.get("error", {}).get("code") == -32700)
    assert parse["id"] is None and "not JSON" in parse["error"]["message"]
    wire.send({"id": 7, "method": "textDocument/diagnostic", "params": {"textDocument": 5}})
    bad = wire.answer(7)
    assert bad["error"]["code"] in (-32600, -32602), bad
    wire.send({"id": 8, "method": "workspace/diagnostic", "params": {"previousResultIds": []}})
    assert wire.answer(8)["result"]["items"] == []
    assert wire.end() == 0


def test_a_40_mb_change_is_refused_by_its_named_limit(tmp_path: Path) -> None:
    root = _quiet_project(tmp_path / "p")
    wire = Wire(root)
    _start(wire, root)
    uri = (root / "a.py").as_uri()
    wire.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                        "text": "x = 1\n"}},
        }
    )  # fmt: skip
    huge = "y = 2\n" * (40 * 1024 * 1024 // 6)
    assert len(huge) > MAX_MESSAGE_BYTES
    wire.send(
        {
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"text": huge}],
            },
        }
    )
    told = wire.wait(lambda m: m.get("method") == "window/showMessage")
    assert "lsp.maxMessageBytes" in told["params"]["message"]
    assert "textDocument/didChange" in told["params"]["message"]
    wire.send({"id": 9, "method": "workspace/diagnostic", "params": {"previousResultIds": []}})
    assert "result" in wire.answer(9)
    assert wire.end() == 0


def test_files_outside_the_root_or_ignored_get_nothing(tmp_path: Path) -> None:
    root = _quiet_project(tmp_path / "p")
    config = json.loads((root / "signalint.config.json").read_text())
    config["engines"]["ruff"] = True
    config["ignore"] = ["skip/**"]
    (root / "signalint.config.json").write_text(json.dumps(config))
    (root / "skip").mkdir()
    (root / "skip" / "b.py").write_text("import os\n")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("import os\n")
    (root / "link.py").symlink_to(outside)
    wire = Wire(root)
    _start(wire, root)
    for path in (root / "skip" / "b.py", outside, root / "link.py"):
        item = {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": "import os\n"}
        wire.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        change = {"textDocument": {"uri": path.as_uri(), "version": 2},
                  "contentChanges": [{"text": "import sys\n"}]}  # fmt: skip
        wire.send({"method": "textDocument/didChange", "params": change})
    wire.send({"id": 5, "method": "workspace/diagnostic", "params": {"previousResultIds": []}})
    wire.answer(5)
    time.sleep(1.5)  # a buffer check would have published by now
    published = {
        m["params"]["uri"]
        for m in wire.messages
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"]
    }
    assert not published
    assert not [m for m in wire.messages if m.get("method") == "window/showMessage"]
    assert wire.end() == 0


def test_a_settings_change_restarts_and_checks_again(tmp_path: Path) -> None:
    """`workspace/didChangeConfiguration` reads the settings again: an engine
    turned off no longer reports; one turned on reports."""
    root = _quiet_project(tmp_path / "p")
    config = json.loads((root / "signalint.config.json").read_text())
    config["engines"]["ruff"] = True
    (root / "signalint.config.json").write_text(json.dumps(config))
    (root / "a.py").write_text("import os\n")
    uri = (root / "a.py").as_uri()
    wire = Wire(root)
    _start(wire, root)

    def published(count: int) -> list[dict[str, Any]]:
        found = [
            m for m in wire.messages
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        ]  # fmt: skip
        assert len(found) >= count
        return list(found[count - 1]["params"]["diagnostics"])

    wire.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert [d["code"] for d in published(1)] == ["F401"]
    config["engines"]["ruff"] = False
    (root / "signalint.config.json").write_text(json.dumps(config))
    wire.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {}}})
    wire.wait(lambda m: len([x for x in wire.messages if x.get("method") ==
                             "textDocument/publishDiagnostics"]) >= 2)  # fmt: skip
    assert published(2) == []
    assert wire.end() == 0


def test_a_failing_engine_is_shown_once_with_its_reason(tmp_path: Path) -> None:
    root = _quiet_project(tmp_path / "p")
    config = json.loads((root / "signalint.config.json").read_text())
    config["engines"]["ruff"] = True
    (root / "signalint.config.json").write_text(json.dumps(config))
    (root / "ruff.toml").write_text('[lint]\nselect = ["E"]\nnot-a-setting = true\n')
    wire = Wire(root)
    _start(wire, root)
    told = wire.wait(lambda m: m.get("method") == "window/showMessage")
    assert told["params"]["message"].startswith("signalint: ruff failed: ")
    assert "not-a-setting" in told["params"]["message"]
    wire.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {}}})
    wire.send({"id": 3, "method": "workspace/diagnostic", "params": {"previousResultIds": []}})
    wire.answer(3)
    time.sleep(2)  # the check after the restart fails the same way: not said again
    shown = [m for m in wire.messages if m.get("method") == "window/showMessage"]
    assert len(shown) == 1
    assert wire.end() == 0
