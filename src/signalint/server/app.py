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

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from signalint import __version__
from signalint.server.arguments import ArgumentError, validate
from signalint.server.catalog import TOOLS, Tool
from signalint.server.front import INITIALIZE, TOOLS_LIST, Handover, Recorded
from signalint.server.idle import Idle
from signalint.server.leaving import STOP_GRACE_S, Leaving
from signalint.server.malformed import Naming, envelope
from signalint.server.payload import Reply, advertises_output_schema, render
from signalint.server.state import ServerState
from signalint.server.transport import INVALID_REQUEST, BoundedLines, claim_stdout

INSTRUCTIONS = (
    "Signalint runs this project's own linters and type checkers (the ones its "
    "configuration names) and returns ranked, clustered diagnostics. Call ping to "
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


def build_server(state: ServerState, idle: Idle | None = None) -> Server[Any]:
    """The SDK server for `state`'s project root; `idle` counts its tool
    calls in flight (`server.idle`)."""
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
                message=f"Unknown tool {params.name[:80]!r} in params.name; tools: {known}",
                data={"field": "params.name", "expected": list(TOOLS), "got": params.name[:80]},
            )
        arguments: dict[str, Any] = params.arguments or {}
        try:
            validate(spec.input_schema, arguments)
        except ArgumentError as exc:
            from signalint.server.refusals import field_refusal

            refused = field_refusal(exc.field, exc.message)
            return render(state.mode, Reply(refused.data, refused.summary, error=True))
        from signalint.server.tools import call

        if idle is not None:
            idle.begin()
        try:
            reply = await call(spec, state, arguments, _Sender(ctx))
            return render(state.mode, reply)
        finally:
            if idle is not None:
                idle.end()

    server: Server[Any] = Server(
        "signalint",
        version=__version__,
        title="Signalint",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # Around the SDK's validation of params: name the field at fault.
    server.middleware.append(Naming())
    return server


class _Asked:
    """Which requests on their way to the SDK are an `initialize` or a
    `tools/list` (small lines only), so their answers can be recorded."""

    def __init__(self) -> None:
        self.requests: dict[object, tuple[str, str | None]] = {}

    def note(self, line: str) -> None:
        if len(line) > 4096 or ("initialize" not in line and "tools/list" not in line):
            return
        import json

        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("id") is None:
            return
        method, params = message.get("method"), message.get("params")
        if method == INITIALIZE and isinstance(params, dict):
            version = params.get("protocolVersion")
            self.requests[message["id"]] = (
                INITIALIZE,
                version if isinstance(version, str) else None,
            )
        elif method == TOOLS_LIST and not (isinstance(params, dict) and "cursor" in params):
            self.requests[message["id"]] = (TOOLS_LIST, None)


class _Noted:
    """The input lines, each shown to `asked` on its way to the SDK and kept
    in `sent` until the SDK's read stream gives out what it made of it."""

    def __init__(self, lines: BoundedLines, asked: _Asked) -> None:
        self._lines, self._asked = lines, asked
        self.sent: deque[str] = deque()

    def __aiter__(self) -> _Noted:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.__anext__()
        self._asked.note(line)
        self.sent.append(line)
        return line


class _Wrapper:
    """A wrapper of one of the SDK's streams: closing it, entering and
    leaving it reach the wrapped stream."""

    _inner: Any

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


class _Unparsed(_Wrapper):
    """The SDK's read stream, answering what the SDK could not parse.

    The SDK's stdio transport turns a line it cannot read as a JSON-RPC
    message into an exception on the read stream, and its dispatcher drops
    it silently: the client then waits for an answer that never comes.
    JSON-RPC 2.0 says to answer: -32700 (parse error) for a line that is not
    JSON, -32600 (invalid request) for JSON that is not a message. The SDK
    offers no hook for this, so this wrapper does it; every other item
    passes unchanged. The transport makes exactly one item of each line, in
    order, so the line an exception stands for is the oldest of `sent`
    (`_Noted`): the answer names the member at fault and carries the
    request's id when it is readable, else null (`malformed.envelope`).
    """

    def __init__(
        self,
        inner: Any,
        sent: deque[str],
        answer: Callable[[int, str, object, dict[str, Any]], Awaitable[None]],
    ) -> None:
        self._inner = inner
        self._sent = sent
        self._answer = answer

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            line = self._sent.popleft() if self._sent else "?"
            if not isinstance(item, Exception):
                return item
            await self._answer(*envelope(line))

    def __aiter__(self) -> _Unparsed:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Answers(_Wrapper):
    """The SDK's write stream, kept by the front's bookkeeping
    (`server.front`): drops the SDK's second answer to an `initialize` the
    front already answered, and records the SDK's answers to `initialize`
    and `tools/list` for the next start."""

    def __init__(self, inner: Any, asked: _Asked, start: Start) -> None:
        self._inner = inner
        self._asked = asked
        self._drop = set(start.handover.answered)
        self._start = start

    async def send(self, item: Any) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCResponse):
            if message.id in self._drop:
                self._drop.discard(message.id)
                return
            asked = self._asked.requests.pop(message.id, None)
            if asked is not None:
                self._record(asked, message.model_dump(by_alias=True, exclude_unset=True))
        await self._inner.send(item)

    def _record(self, asked: tuple[str, str | None], response: dict[str, Any]) -> None:
        result = response.get("result")
        if not isinstance(result, dict):
            return
        method, version = asked
        recorded = self._start.recorded
        if method == INITIALIZE and version is not None:
            if recorded.initialize.get(version) == result:
                return
            recorded.initialize[version] = result
        elif method == TOOLS_LIST:
            if recorded.tools == result:
                return
            recorded.tools = result
        recorded.save(self._start.cache)


async def _serve(root: Path, max_request_bytes: int, start: Start) -> None:
    import json
    import sys
    from typing import cast

    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    from signalint.kept.fix_journal import recover_and_report
    from signalint.pipeline.runtime import long_lived
    from signalint.server.transport import Oversized

    # An apply a killed process left half done is undone before serving (D9).
    def say(text: str) -> None:
        sys.stderr.write(f"signalint-mcp: {text}\n")

    recover_and_report(root, say)
    state = ServerState(root)
    idle = Idle()
    server = build_server(state, idle)
    long_lived()
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

    async def unparsed(code: int, message: str, request_id: Any, data: dict[str, Any]) -> None:
        say(f"answered a line it could not parse with {code}: {message[:200]}")
        error = (
            types.ErrorData(code=code, message=message, data=data)
            if data
            else types.ErrorData(code=code, message=message)
        )
        reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        await outbox[0].send(SessionMessage(reply))

    handover = start.handover
    prelude: list[bytes | Oversized] = list(handover.replay)
    if handover.pending is not None:
        prelude.append(handover.pending)
    asked = _Asked()
    lines = _Noted(BoundedLines(handover.reader, refuse, prelude), asked)
    leaving = start.leaving
    leaving.on_kill(lambda: _kill_workers(state))
    wire, give_back_stdout = claim_stdout()
    try:
        # The SDK reads only `async for line in stdin` of the stdin it is
        # given, and writes through `write` and `flush` of the stdout.
        stdout = _Wire(wire, leaving, idle)
        async with stdio_server(stdin=cast(Any, lines), stdout=cast(Any, stdout)) as (
            read_stream,
            write_stream,
        ):
            outbox.append(write_stream)
            ready.set()
            answers = _Answers(write_stream, asked, start)
            incoming = _Unparsed(read_stream, lines.sent, unparsed)
            await server.run(incoming, answers, server.create_initialization_options())
    finally:
        start.give_back()
        give_back_stdout()
        await _wind_down(state, leaving, say)
    leaving.leave(0)  # not after a failure: its traceback, then the usual exit


class _Wire:
    """The SDK's stdout: each answer written whole on a worker thread,
    through `leaving`, so the process never ends inside a line; once it is
    written, the server may tidy its memory (`idle`)."""

    def __init__(self, fd: int, leaving: Leaving, idle: Idle) -> None:
        self._fd, self._leaving, self._idle = fd, leaving, idle

    async def write(self, text: str) -> int:
        import anyio.to_thread

        await anyio.to_thread.run_sync(self._leaving.write_line, self._fd, text.encode())
        self._idle.written()
        return len(text)

    async def flush(self) -> None:
        return None


# How long a server killed by a signal waits for the daemon it leaves.
LEAVE_DAEMON_S = 0.3


def _kill_workers(state: ServerState) -> None:
    """Kill the warm workers' groups and those of the engine runs in flight
    (any thread; `leaving`'s last resort). Nothing is imported here: the
    loop's thread may hold the import lock (no run is in flight before
    `process` is loaded)."""
    import sys

    process = sys.modules.get("signalint.process")
    if process is not None:
        process.kill_running()
    context = state.__dict__.get("context")
    if context is not None and context.warm is not None:
        context.warm.kill_all()
    client = sys.modules.get("signalint.daemon.client")
    if client is not None:  # loaded: this server asked the daemon
        client.leave(state.root, "mcp", LEAVE_DAEMON_S)


async def _wind_down(state: ServerState, leaving: Leaving, say: Callable[[str], None]) -> None:
    """Stop the warm workers and wait for the writes behind the answers,
    until `leaving`'s deadline (`server.leaving` says what a write left
    then costs)."""
    import asyncio
    import sys
    import threading

    from signalint.pipeline.shadow import REMOVAL_THREAD

    context = state.__dict__.get("context")
    waits: list[Awaitable[Any]] = []
    if context is not None and context.warm is not None:
        waits.append(context.warm.end(min(STOP_GRACE_S, leaving.left())))
    client = sys.modules.get("signalint.daemon.client")
    if client is not None:  # loaded: this server asked the daemon; its pool ends with us
        budget = min(STOP_GRACE_S, leaving.left())
        waits.append(asyncio.to_thread(client.leave, state.root, "mcp", budget))
    writes: list[asyncio.Future[Any]] = [] if context is None else context.background()
    for name in ("snapshots", "live_snapshots"):
        store = state.__dict__.get(name)
        if store is not None:
            writes += [asyncio.wrap_future(future) for future in store.writing()]
    if writes:
        waits.append(asyncio.wait(writes, timeout=leaving.left()))
    await asyncio.gather(*waits, return_exceptions=True)
    for thread in threading.enumerate():
        if thread.name == REMOVAL_THREAD:
            thread.join(leaving.left())
    dropped = 0
    for tier in [] if context is None else context.remote_tiers():
        dropped += tier.abandon(leaving.left())
    left = sum(not w.done() for w in writes) + sum(
        t.name == REMOVAL_THREAD for t in threading.enumerate()
    )
    if left or dropped:
        say(
            f"exiting {leaving.budget_s:g} s after the input ended: {left} local write(s) "
            f"and {dropped} remote-cache batch(es) still running were left "
            '(docs/architecture.md, "The MCP server\'s exit")'
        )


@dataclass(frozen=True, slots=True)
class Start:
    """What the front (`server.front`) leaves the SDK: where it stopped
    reading, the answers recorded for this start and where they are kept,
    the call that gives stdin back, and the process's exit (`leaving`)."""

    handover: Handover
    recorded: Recorded
    cache: Path
    give_back: Callable[[], None]
    leaving: Leaving


def serve(root: Path, max_request_bytes: int, start: Start) -> int:
    """Serve MCP on stdin/stdout for `root` until the client disconnects,
    from where the front stopped (`start`); the process then ends within
    `leaving.BUDGET_S` of the end of input (`server.leaving`), so this
    returns only when serving failed.

    A message longer than `max_request_bytes` is refused unread (D25).
    """
    import anyio

    start.leaving.on_signals()
    anyio.run(_serve, root, max_request_bytes, start)
    return 0
