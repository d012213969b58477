"""Run the language server on stdio, a Unix socket or a loopback TCP port."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from signalint.lsp import front, transport


async def _serve(reader: asyncio.StreamReader, writer: transport.Writer) -> None:
    """Answer `initialize` at once (`front`), then build the server and serve."""
    first = await transport.read_frame(reader, writer)
    if first is None:
        return
    asked = front.initialize_of(first)
    if asked is not None:
        message_id, params = asked
        writer.frame({"jsonrpc": "2.0", "id": message_id, "result": front.answer(params)})
        writer.drop(message_id)
    from signalint.lsp.server import make_server

    server, session = make_server()
    server.protocol.set_writer(writer)
    try:
        transport.hand(server.protocol, writer, first)
        await transport.serve(reader, writer, server.protocol)
    finally:
        await session.close()


async def _stdio() -> None:
    writer, _ = transport.stdio_writer()
    reader = await transport.stdin_reader()
    await _serve(reader, writer)


def main(socket_path: Path | None = None, port: int | None = None) -> int:
    """Serve one client until it leaves; the exit code of its `exit` notification."""
    level = logging.DEBUG if os.environ.get("SIGNALINT_DEBUG") else logging.WARNING
    logging.basicConfig(stream=sys.stderr, level=level, format="signalint lsp: %(message)s")
    try:
        if socket_path is not None:
            with contextlib.suppress(FileNotFoundError):
                if socket_path.is_socket():
                    socket_path.unlink()
            asyncio.run(
                transport.one_connection(
                    lambda handle: asyncio.start_unix_server(
                        handle, path=str(socket_path), limit=transport.MAX_MESSAGE_BYTES
                    ),
                    _serve,
                )
            )
        elif port is not None:
            asyncio.run(
                transport.one_connection(
                    lambda handle: asyncio.start_server(
                        handle, "127.0.0.1", port, limit=transport.MAX_MESSAGE_BYTES
                    ),
                    _serve,
                )
            )
        else:
            asyncio.run(_stdio())
    except SystemExit as exc:  # pygls ends the session with `exit` this way
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        return 130
    return 0


def run_plain(args: list[str]) -> int | None:
    """`signalint lsp` as editors start it, without click: `lsp`, `lsp --stdio`,
    `lsp --socket PATH` or `lsp --port N`; None for anything else (help, an
    error), which click then parses and words (`cli.lsp`)."""
    rest = args[1:]
    if rest in ([], ["--stdio"]):
        return main()
    if len(rest) == 2 and rest[0] == "--socket" and rest[1] and not rest[1].startswith("-"):
        return main(socket_path=Path(rest[1]))
    if len(rest) == 2 and rest[0] == "--port" and rest[1].isdigit():
        port = int(rest[1])
        return main(port=port) if 1 <= port <= 65535 else None
    return None


__all__ = ["main", "run_plain"]
