"""Drive the real `signalint-mcp` process over stdio with the official SDK client.

`connect` starts the installed console script in a project directory, runs
the MCP handshake and yields a `Client` that validates every structured
result against the output schema the server advertised (jsonschema, draft
2020-12), refusals included.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from jsonschema import Draft202012Validator

if TYPE_CHECKING:
    # The SDK takes a second or more to import and only real-tier tests start a
    # server, so it is imported where one starts and the quick loop skips it.
    import mcp_types as types
    from mcp.client.session import ClientSession

SERVER = Path(sys.executable).parent / "signalint-mcp"
# Variables the server may need from the test environment (engine location, CI).
PASSED_ENV = (
    "SIGNALINT_ENGINES_DIR",
    "SIGNALINT_WORK_DIR",
    "XDG_CACHE_HOME",
    "CI",
    "NODE_OPTIONS",
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Client:
    """An initialized session plus the tool catalog it was given."""

    session: ClientSession
    init: types.InitializeResult
    tools: dict[str, types.Tool] = field(default_factory=dict)

    def validate(self, name: str, result: types.CallToolResult) -> None:
        schema = self.tools[name].output_schema
        if schema is None:
            assert result.structured_content is None
            return
        Draft202012Validator.check_schema(schema)
        Draft202012Validator(schema).validate(result.structured_content)

    async def call(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Result:
        result = await self.session.call_tool(name, arguments or {}, **kw)
        self.validate(name, result)
        return Result(result)


@dataclass
class Result:
    raw: types.CallToolResult

    @property
    def error(self) -> bool:
        return self.raw.is_error

    @property
    def text(self) -> str:
        return text_block(self.raw, 0).text

    @property
    def data(self) -> Any:
        """Structured content when present, else the JSON of the first block."""
        if self.raw.structured_content is not None:
            return self.raw.structured_content
        return json.loads(self.text)


def text_block(raw: types.CallToolResult, index: int) -> types.TextContent:
    """Content block `index` of a tool result, which must be text."""
    import mcp_types

    block = raw.content[index]
    assert isinstance(block, mcp_types.TextContent)
    return block


def server_env(**overrides: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.update(overrides)
    return env


@asynccontextmanager
async def connect(
    root: Path,
    *,
    stderr: Path | None = None,
    journal_fails_at: int | None = None,
    **env: str,
) -> AsyncIterator[Client]:
    """A handshaken client of a fresh `signalint-mcp` started in `root`;
    `journal_fails_at`: the server's fix journal fails at that checkpoint
    (`faulty_server`)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args = str(SERVER), []
    if journal_fails_at is not None:
        command, args = sys.executable, ["-m", "tests.server.faulty_server", str(journal_fails_at)]
        env = {**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    params = StdioServerParameters(command=command, args=args, cwd=root, env=server_env(**env))
    log_path = stderr or root.parent / f"{root.name}-server.stderr"
    with log_path.open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            listing = await session.list_tools()
            yield Client(session, init, {tool.name: tool for tool in listing.tools})


def write_project(root: Path, *, config: dict[str, Any] | None = None) -> Path:
    """A minimal TS project (one error for tsc) with only tsc enabled unless `config`."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "mini", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true,'
        ' "types": []}, "include": ["src"]}\n'
    )
    (root / "src" / "a.ts").write_text("export const n: number = 'text';\n")
    (root / "src" / "b.ts").write_text('export const s = "x".nope;\n')
    only_tsc = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    settings = config or {"engines": only_tsc}
    (root / "signalint.config.json").write_text(json.dumps(settings))
    return root
