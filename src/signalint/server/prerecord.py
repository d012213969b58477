"""Record the server's handshake answers before a host first starts it.

A host's first start of `signalint-mcp` in a project is answered by the MCP
SDK, whose import takes about a second; later starts are answered from what
the SDK answered then (`server.front`). When `signalint init` connects a
client, this runs the real server in the project once per protocol version
the SDK negotiates through `initialize`, each asked `initialize`,
`notifications/initialized` and `tools/list`, so those servers record the
SDK's answers and the host's first start is already a later start. Nothing
is answered here: the servers answer, and record as they always do
(`front.Recorded`, whose saves merge, so the servers can run at once).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from signalint import process
from signalint.server import front

# A server that has not answered by then is left; the host's start records.
TIMEOUT_S = 60.0
_CLIENT = {"name": "signalint-init", "version": "1"}


def _lines(version: str) -> bytes:
    hello = {"protocolVersion": version, "capabilities": {}, "clientInfo": _CLIENT}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def _failure(result: process.ProcessResult) -> str | None:
    """Why the server did not answer both requests, or None when it did."""
    ids = set()
    for line in result.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "result" in message:
            ids.add(message.get("id"))
    if result.finished and ids == {1, 2}:
        return None
    said = result.stderr.strip().splitlines()[-1:] or ["nothing on stderr"]
    if result.timed_out:
        return f"no answer within {TIMEOUT_S:g} s"
    if result.start_error:
        return result.start_error
    return f"it answered {len(ids)} of 2 requests and exited {result.exit_code} ({said[0]})"


def handshake_versions() -> tuple[str, ...]:
    """The protocol versions the installed SDK negotiates through `initialize`."""
    from mcp_types import version

    return tuple(version.HANDSHAKE_PROTOCOL_VERSIONS)


def prerecord(root: Path) -> str | None:
    """Run the server in `root` once per handshake version whose answers
    are not recorded yet (module docstring); None when every one answered
    both requests (or all were recorded already), else why one did not."""
    recorded = front.Recorded.load(front.record_key(root), front.cache_dir())
    missing = [v for v in handshake_versions() if v not in recorded.initialize]
    if recorded.tools is None and not missing:
        missing = [handshake_versions()[-1]]
    start = "from signalint.server.entry import entry; entry()"
    commands = [
        process.Command(
            (sys.executable, "-c", start), root, TIMEOUT_S, frozenset({0}), stdin=_lines(v)
        )
        for v in missing
    ]

    async def run_all() -> list[process.ProcessResult]:
        return list(await asyncio.gather(*(process.run(c) for c in commands)))

    failures = [_failure(result) for result in asyncio.run(run_all())]
    return next((f for f in failures if f is not None), None)


__all__ = ["handshake_versions", "prerecord"]
