"""A scripted language server for `warm.lsp`'s tests (not an engine).

For each request it reads it first sends `NOISE` notifications of the
method named by its first argument and one `note/kept` notification, then
answers: `echo` with the params it was sent, `fail` with a JSON-RPC error.
It exits when its stdin closes.
"""

from __future__ import annotations

import json
import sys

NOISE = 200
noisy = sys.argv[1]


def send(message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def read() -> dict[str, object] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        elif line == b"\r\n":
            return json.loads(sys.stdin.buffer.read(length))  # type: ignore[no-any-return]


while (message := read()) is not None:
    if "id" not in message:
        continue
    for n in range(NOISE):
        send({"jsonrpc": "2.0", "method": noisy, "params": {"n": n}})
    send({"jsonrpc": "2.0", "method": "note/kept", "params": {"for": message["method"]}})
    if message["method"] == "fail":
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "no"}})
    else:
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message.get("params")}})
