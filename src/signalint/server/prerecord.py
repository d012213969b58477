"""Record the server's handshake answers before a host first starts it.

A host's first start of `signalint-mcp` in a project is answered by the MCP
SDK, whose import takes about a second; later starts are answered from what
the SDK answered then (`server.front`). When `signalint init` connects a
client, this runs the real server in the project once per protocol version
the SDK negotiates through `initialize`, each asked `initialize`,
`notifications/initialized` and `tools/list`, so those servers record the
SDK's answers and the host's first start is already a later start (the
shipped answers, `server.packaged`, cover a first start with the default
settings; this covers the project's own settings too). Nothing
is answered here: the servers answer, and record as they always do
(`front.Recorded`, whose saves merge, so the servers can run at once).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
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


async def _answered(child: process.Child) -> set[object]:
    """The ids of the results the server wrote, read until it has answered
    both requests or closed its output."""
    ids: set[object] = set()
    while ids != {1, 2}:
        line = await child.stdout.readline()
        if not line:
            break
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "result" in message:
            ids.add(message.get("id"))
    return ids


async def _ask(root: Path, version: str, logs: Path) -> str | None:
    """Run one server and ask it the handshake in `version`; None when it
    answered both requests (it records them before answering), else why not.
    Its stdin stays open until then: a server whose input ends first may
    stop before it answers."""
    start = "from signalint.server.entry import entry; entry()"
    log = logs / f"{version}.log"
    # The SDK answers (and the server records), not the shipped answers.
    command = process.Command(
        (sys.executable, "-c", start), root, TIMEOUT_S, env={front.PACKAGED_SWITCH: "0"}
    )
    child = await process.start(command, stderr_to=log)
    if isinstance(child, process.ProcessResult):
        return child.start_error or "the server could not be started"
    try:
        child.stdin.write(_lines(version))
        await child.stdin.drain()
        ids = await asyncio.wait_for(_answered(child), TIMEOUT_S)
    except TimeoutError:
        return f"no answer within {TIMEOUT_S:g} s"
    except (OSError, ValueError) as exc:
        return f"its pipes failed: {exc}"
    finally:
        await child.stop()
    if ids == {1, 2}:
        return None
    said = log.read_text(errors="replace").strip().splitlines()[-1:] or ["nothing on stderr"]
    return f"it answered {len(ids)} of 2 requests and exited {child.exit_code} ({said[0]})"


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

    async def run_all(logs: Path) -> list[str | None]:
        return list(await asyncio.gather(*(_ask(root, v, logs) for v in missing)))

    with tempfile.TemporaryDirectory(prefix="signalint-prerecord-") as logs:
        failures = asyncio.run(run_all(Path(logs)))
    return next((f for f in failures if f is not None), None)


__all__ = ["handshake_versions", "prerecord"]
