"""Real language servers' publishDiagnostics, forwarded to ingest_diagnostics (D8).

typescript-language-server (with TypeScript 6, which still ships tsserver)
and Pyright's language server run over stdio, driven by a tiny LSP client.
A file with two type errors is opened, then fixed one error at a time;
each publish the language server sends is forwarded as it is, and after
each step get_live_diagnostics equals what the server last said about the
file: the same positions (zero-based UTF-16 -> one-based), codes, severities
and messages, and nothing once it publishes an empty list.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import engines_bin
from .conftest import Client, connect, write_project
from .lsp_client import LspClient

pytestmark = [pytest.mark.real, pytest.mark.anyio]

LSP_DIR = Path(os.environ.get("SIGNALINT_LSP_DIR", Path.home() / ".cache" / "signalint" / "lsp"))


def require(path: Path) -> Path:
    if not path.exists():
        message = f"{path} is not installed: run `bash scripts/setup`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


Row = tuple[int, int, int | None, int | None, str, str, str]


def expected(publish: dict[str, Any]) -> list[Row]:
    """What the language server said, in the model's terms (one-based, UTF-16)."""
    rows = []
    for diag in publish["diagnostics"]:
        start, end = diag["range"]["start"], diag["range"]["end"]
        code = diag.get("code")
        rows.append(
            (
                start["line"] + 1,
                start["character"] + 1,
                end["line"] + 1,
                end["character"] + 1,
                str(code) if code is not None else diag.get("source", ""),
                "error" if diag.get("severity") == 1 else "warning",
                diag["message"],
            )
        )
    return sorted(rows)


async def live_rows(client: Client, file: str) -> list[Row]:
    answer = (await client.call("get_live_diagnostics", {"files": [file]})).data
    return sorted(
        (i["line"], i["col"], i.get("endLine"), i.get("endCol"), i["rule"], i["severity"],
         i["message"])
        for i in answer["issues"]
    )  # fmt: skip


async def forward_each_step(
    client: Client,
    server: LspClient,
    path: Path,
    rel: str,
    language: str,
    server_name: str,
    versions: list[tuple[str, int]],
) -> list[list[Row]]:
    """Open/change `path` through `versions` (text, expected count), forwarding each publish."""
    said = []
    for version, (text, count) in enumerate(versions, 1):
        path.write_text(text)
        if version == 1:
            server.open(path, language, text)
        else:
            server.change(path, version, text)
        publish = server.diagnostics(path, count)
        answer = await client.call(
            "ingest_diagnostics", {"serverName": server_name, "diagnostics": [publish]}
        )
        assert not answer.error, answer.text
        rows = expected(publish)
        assert len(rows) == count
        assert await live_rows(client, rel) == rows
        said.append(rows)
    return said


@pytest.fixture
def typescript_server(tmp_path: Path) -> Iterator[tuple[LspClient, Path]]:
    binary = require(LSP_DIR / "node_modules" / ".bin" / "typescript-language-server")
    tsserver = require(LSP_DIR / "node_modules" / "typescript" / "lib" / "tsserver.js")
    root = write_project(tmp_path / "project")
    server = LspClient(
        [str(binary), "--stdio"], root, init_options={"tsserver": {"path": str(tsserver)}}
    )
    yield server, root
    server.close()


async def test_typescript_language_server_publishes_become_the_live_view(
    typescript_server: tuple[LspClient, Path],
) -> None:
    server, root = typescript_server
    path = root / "src" / "two.ts"
    async with connect(root) as client:
        said = await forward_each_step(
            client,
            server,
            path,
            "src/two.ts",
            "typescript",
            "typescript-language-server",
            [
                ("export const a: number = 'x';\nexport const b: string = 1;\n", 2),
                ("export const a: number = 1;\nexport const b: string = 1;\n", 1),
                ("export const a: number = 1;\nexport const b: string = '1';\n", 0),
            ],
        )
        assert [row[4] for row in said[0]] == ["2322", "2322"]
        assert [row[:2] for row in said[1]] == [(2, 14)]


async def test_pyright_language_server_publishes_become_the_live_view(tmp_path: Path) -> None:
    binary = require(engines_bin() / "pyright-langserver")
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    server = LspClient([str(binary), "--stdio"], root)
    try:
        async with connect(root) as client:
            said = await forward_each_step(
                client,
                server,
                root / "two.py",
                "two.py",
                "python",
                "pyright",
                [
                    ("a: int = 'x'\nb: str = 1\n", 2),
                    ("a: int = 1\nb: str = 1\n", 1),
                    ("a: int = 1\nb: str = '1'\n", 0),
                ],
            )
    finally:
        server.close()
    assert {row[4] for row in said[0]} == {"reportAssignmentType"}
    assert [row[:2] for row in said[1]] == [(2, 10)]
