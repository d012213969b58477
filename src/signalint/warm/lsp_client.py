"""An LSP client on a worker's pipes: pygls's client attached to a `process.Child`.

Warm workers that are language servers are started through the one
subprocess door (`process.start`: argv, their own process group, stderr to
the pool's log), so pygls must not spawn them itself. pygls's
`JsonRPCClient.start_io` does spawn; its `start_tcp` shows the other way in,
which this module follows with the child's pipes instead of a socket: give
the protocol a writer (`protocol.set_writer(child.stdin)`) and run pygls's
own reader loop (`pygls.io_.run_async`) on `child.stdout`. The rest is
pygls's `BaseLanguageClient` and lsprotocol's types.

Two small additions where pygls's client, made for tests, assumes it owns
the process:

- The end of the reader loop (the server closed stdout or crashed) and
  any message pygls cannot read or handle fail every pending request, and
  every later one, with `WorkerFailed`; pygls leaves the first to the
  process watcher `start_io` installs and logs the second and reads on.
  So does a message pygls cannot write: it logs it and leaves the
  request waiting for an answer that never comes.
- Requests of the methods in `raw` are written from plain JSON
  (lsprotocol's types cost more to write than a small request takes to
  answer; a request whose params are a dict is written as it is, not
  through cattrs, which walked each of ty's hundreds of previous result
  ids), and their results stay plain JSON (dicts and lists), read by
  the caller: lsprotocol's typed structuring refuses some answers servers
  send in practice (Pyright answers `textDocument/diagnostic` for
  a file it does not track with an "unchanged" report without a
  `resultId`), and pygls otherwise turns untyped results into namedtuples.
- Notifications in `ignore` are dropped as they are read, and a plain
  response goes straight to its request: pygls tells requests,
  notifications and responses apart with `isinstance` against runtime
  protocols, three slow checks a message, and reads every notification
  into its type before finding no handler. A warm Pyright answer pulls
  one report per checked file and hears three progress notifications
  with each, so this was most of the client's time. pygls reads every
  message with `structure_message` as `json.loads`'s object hook, called
  for every object inside it too (a diagnostic, its range, each position):
  those return at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import (
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.json_rpc import JsonRPCProtocol

from signalint.process import Child
from signalint.warm.driver import WorkerFailed

_log = logging.getLogger(__name__)


def _plain_converter() -> cattrs.Converter:
    """pygls's converter, except that untyped results stay plain JSON."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(JsonRPCResponseMessage, lambda obj, cls: cls(**obj))
    return converter


# What `_Protocol.structure_message` makes of an ignored notification.
_IGNORED = object()


class _Protocol(LanguageServerProtocol):
    """lsprotocol's types for every method but those whose results stay raw;
    ignored notifications dropped unread (module docstring)."""

    raw: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in self.raw:
            return None
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in self.raw:
            return None
        return super().get_result_type(method)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:  # an object inside a message (the JSON hook)
            return data
        if "id" not in data and data.get("method") in self.ignore and "jsonrpc" in data:
            return _IGNORED
        return super().structure_message(data)

    def _serialize_message(self, data: Any) -> Any:
        if type(data) is JsonRPCRequestMessage and isinstance(data.params, dict):
            return {
                "id": data.id,
                "params": data.params,
                "method": data.method,
                "jsonrpc": data.jsonrpc,
            }
        return super()._serialize_message(data)

    def handle_message(self, message: Any) -> None:
        if message is _IGNORED:
            return
        if (
            type(message) is JsonRPCResponseMessage
            and message.jsonrpc == JsonRPCProtocol.VERSION
            and not self._shutdown
        ):
            self._handle_response(message.id, message.result)
            return
        super().handle_message(message)


class LspClient:
    """A pygls client speaking to `child` over its stdin and stdout."""

    def __init__(
        self, child: Child, raw: frozenset[str] = frozenset(), ignore: frozenset[str] = frozenset()
    ) -> None:
        protocol = type("Protocol", (_Protocol,), {"raw": raw, "ignore": ignore})
        self.child = child
        self.client = LanguageClient(
            "signalint", "1", protocol_cls=protocol, converter_factory=_plain_converter
        )
        self.client.report_server_error = self._reported  # type: ignore[method-assign]
        self.closed: str | None = None
        self._reader: asyncio.Task[None] | None = None

    def on(self, method: str, handler: Callable[[Any], Any]) -> None:
        """Answer or receive `method` from the server with `handler(params)`."""

        def answer(params: Any) -> Any:  # pygls marks the function it is given
            return handler(params)

        self.client.feature(method)(answer)

    def attach(self) -> None:
        """Start reading the server's messages (module docstring)."""
        self.client.protocol.set_writer(self.child.stdin)
        self._reader = asyncio.create_task(
            run_async(
                stop_event=self.client._stop_event,
                reader=self.child.stdout,
                protocol=self.client.protocol,
                logger=_log,
                error_handler=lambda exc, _source: self._fail(f"the server sent garbage ({exc})"),
            )
        )
        self._reader.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        problem = None if task.cancelled() else task.exception()
        self._fail(f"the server's output ended ({problem or 'end of file'})")

    def _reported(self, error: Exception, source: type[Exception]) -> None:
        """What pygls could not do. A message it could not write leaves its
        request unanswered for ever: the client fails instead."""
        if source is JsonRpcInternalError:
            self._fail(f"a message could not be written ({error})")

    def _fail(self, why: str) -> None:
        """From now on every request fails with `why`, pending ones too."""
        if self.closed is None:
            self.closed = why
        pending = self.client.protocol._request_futures
        for future in list(pending.values()):
            if not future.done():
                future.set_exception(WorkerFailed(self.closed))
        pending.clear()

    def notify(self, method: str, params: Any) -> None:
        if self.closed is not None:
            raise WorkerFailed(self.closed)
        self.client.protocol.notify(method, params)

    def cancel_pending(self) -> None:
        """Ask the server to drop every request still unanswered
        (`$/cancelRequest`); each then answers (an error or its result)."""
        if self.closed is not None:
            return
        for msg_id in list(self.client.protocol._request_futures):
            self.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))

    async def request(self, method: str, params: Any) -> Any:
        """The server's result for `method`; `WorkerFailed` when it answers
        an error or its output ends first."""
        if self.closed is not None:
            raise WorkerFailed(self.closed)
        try:
            return await self.client.protocol.send_request_async(method, params)
        except WorkerFailed:
            raise
        except Exception as exc:
            raise WorkerFailed(f"{method} failed: {exc}") from exc

    async def shut_down(self) -> None:
        """The end of a session: ask the server to shut down and exit (if
        it still answers, within 2 s), stop the child, stop reading."""
        try:
            if self.closed is None and self.child.alive:
                await asyncio.wait_for(self.request("shutdown", None), timeout=2)
                self.notify("exit", None)
        except (WorkerFailed, TimeoutError, OSError):
            pass
        await self.child.stop()
        await self.close()

    async def close(self) -> None:
        """Stop reading (the child itself is stopped by its owner)."""
        self.client._stop_event.set()
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
