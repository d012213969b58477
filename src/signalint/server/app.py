"""The SDK server: tool registry, `tools/list`, `tools/call`, stdio serving.

Built on the SDK's low-level `Server` (not the decorator framework) because
the tool contract is ours to state exactly: hand-written closed input
schemas, output schemas that depend on the payload mode and compact keys,
annotations, and the split between protocol errors (unknown tool, arguments
that are not an object: JSON-RPC -32602) and tool refusals (`isError`).

Only the SDK and this package's light modules are imported before the first
tool call; the check pipeline, engines and history load on demand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from signalint import __version__
from signalint.engines.registry import ENGINES
from signalint.server.arguments import ArgumentError, validate
from signalint.server.catalog import TOOLS, Tool
from signalint.server.payload import Reply, advertises_output_schema, render
from signalint.server.state import ServerState

INSTRUCTIONS = (
    "Signalint runs this project's own linters and type checkers "
    f"({', '.join(ENGINES)}) and returns ranked, clustered diagnostics. Call ping to "
    "confirm the project root, check_project for a baseline, get_issue_detail for full "
    "messages, and after_edit_check with the changed files and the baseline checkId after "
    "each edit."
)


@dataclass(frozen=True, slots=True)
class _Sender:
    """Progress for one request; the SDK drops it when the client sent no token."""

    ctx: ServerRequestContext[Any]

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        await self.ctx.session.report_progress(progress, total, message)


def tool_definition(spec: Tool, state: ServerState) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema(state.compact)
        if advertises_output_schema(state.mode)
        else None,
        # No annotations.title: it would repeat the tool's title. No
        # destructiveHint: it means nothing for a read-only tool (MCP spec).
        annotations=types.ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=None if spec.read_only else spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def build_server(state: ServerState) -> Server[Any]:
    """The SDK server for `state`'s project root."""
    definitions = [tool_definition(spec, state) for spec in TOOLS.values()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=definitions)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = TOOLS.get(params.name)
        if spec is None:
            known = ", ".join(TOOLS)
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown tool {params.name[:80]!r}; tools: {known}",
            )
        arguments: dict[str, Any] = params.arguments or {}
        try:
            validate(spec.input_schema, arguments)
        except ArgumentError as exc:
            from signalint.server.errors import field_refusal

            refused = field_refusal(exc.field, exc.message)
            return render(state.mode, Reply(refused.data, refused.summary, error=True))
        from signalint.server.tools import call

        reply = await call(spec, state, arguments, _Sender(ctx))
        return render(state.mode, reply)

    return Server(
        "signalint",
        version=__version__,
        title="Signalint",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(root: Path, max_request_bytes: int) -> None:
    import json
    import sys
    from typing import cast

    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    from signalint.server.transport import INVALID_REQUEST, BoundedLines, Oversized, claim_stdin
    from signalint.storage.journal import recover_and_report

    # An apply a killed process left half done is undone before serving (D9).
    def say(text: str) -> None:
        sys.stderr.write(f"signalint-mcp: {text}\n")

    recover_and_report(root, say)
    state = ServerState(root)
    server = build_server(state)
    outbox: list[Any] = []  # the SDK's write stream, once stdio_server has opened it
    ready = anyio.Event()

    async def refuse(line: Oversized) -> None:
        """Answer a message over the limit (D25); see `server.transport`."""
        request_id = line.request_id()
        say(
            f"refused a message of {line.size} bytes (limit {max_request_bytes}), "
            f"id {json.dumps(request_id)}"
        )
        error = types.ErrorData(
            code=INVALID_REQUEST,
            message=line.message(max_request_bytes),
            data={"requestBytes": line.size, "maxRequestBytes": max_request_bytes},
        )
        await ready.wait()
        reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        await outbox[0].send(SessionMessage(reply))

    wire, give_back = claim_stdin()
    lines = BoundedLines(wire, max_request_bytes, refuse)
    try:
        # The SDK reads only `async for line in stdin` of the stdin it is given.
        async with stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream):
            outbox.append(write_stream)
            ready.set()
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        give_back()


def serve(root: Path, max_request_bytes: int) -> int:
    """Serve MCP on stdin/stdout for `root` until the client disconnects.

    A message longer than `max_request_bytes` is refused unread (D25).
    """
    import anyio

    anyio.run(_serve, root, max_request_bytes)
    return 0
