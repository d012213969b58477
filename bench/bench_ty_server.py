"""ty's own latency: `ty server` spoken to by a minimal client, without Signalint.

    .venv/bin/python bench/bench_ty_server.py [--files 400] [--runs 5]

How much of a warm ty answer (`bench/bench_warm_python_checkers.py`) is the
server's own: the client here writes JSON-RPC by hand over the server's
pipes (no pygls, no parsing beyond finding the answer's end) and times from
the change notification to the last byte of the answer. On
bench/warm_python.py's package (chains of at most `--longest`), configured as `engines/ty/warm.py`
configures the server (workspace = the root, `diagnosticMode: "workspace"`,
utf-32 positions; `--log`: its debug log to a file, as the driver reads
it), after its first whole check:

- `workspace`: a `workspace/diagnostic` pull without previous result ids
  (a full report of every file with diagnostics);
- `workspace-ids`: the same pull with the result id of every file's last
  report, and one of a file that does not exist (so the answer always has
  a report and is never held back: ty holds a pull whose every report is
  unchanged); only the changed reports come back;
- `document`: `textDocument/diagnostic` of the edited file alone, the least
  ty can do after an edit (not an answer: the files importing it are not
  checked);

each after a one-module body edit (the last module: nothing imports it) and
after the first module's signature changed (every module depends on it),
told with `workspace/didChangeWatchedFiles`. T is cold `ty check` of the
same package in the same run. Medians of `--runs`, never asserted; the JSON
read time of each answer is printed beside it (the client's share).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.warm_python import edit_body, package, swap_signature
from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.resolve import managed_venv
from signalint.engines.ty.adapter import ENGINE
from signalint.process import Child, Command

MODES = ("workspace", "workspace-ids", "document")


class RawClient:
    """JSON-RPC over the server's pipes, by hand; server requests answered
    as the driver answers them."""

    def __init__(self, child: Child) -> None:
        self.child = child
        self._next = 0

    def write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.child.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.write({"method": method, "params": params})

    async def _body(self) -> bytes:
        length = 0
        while True:
            line = await self.child.stdout.readline()
            if not line:
                raise RuntimeError("ty server closed its output")
            if line in (b"\r\n", b"\n"):
                return await self.child.stdout.readexactly(length)
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])

    async def request(self, method: str, params: Any) -> tuple[bytes, float]:
        """The raw answer to `method` and when its last byte was read."""
        self._next += 1
        wanted = self._next
        self.write({"id": wanted, "method": method, "params": params})
        while True:
            body = await self._body()
            at = time.perf_counter()
            message = json.loads(body)
            if message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return body, at
            if "id" in message and "method" in message:
                self.write({"id": message["id"], "result": self._answer(message)})

    @staticmethod
    def _answer(message: dict[str, Any]) -> Any:
        if message["method"] == "workspace/configuration":
            items = message["params"]["items"]
            return [
                {"diagnosticMode": "workspace"} if item.get("section") == "ty" else None
                for item in items
            ]
        return None


async def start(root: Path, ty: Path, log: Path | None) -> RawClient:
    child = await process.start(Command(argv=(str(ty), "server"), cwd=root, timeout_s=600.0))
    if not isinstance(child, Child):
        raise SystemExit(f"ty server could not start: {child.start_error}")
    client = RawClient(child)
    uri = root.as_uri()
    await client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": root.name}],
            "initializationOptions": (
                {"logLevel": "debug", "logFile": str(log)} if log is not None else {}
            ),
            "capabilities": {
                "general": {"positionEncodings": ["utf-32"]},
                "workspace": {
                    "configuration": True,
                    "didChangeWatchedFiles": {"dynamicRegistration": True},
                },
                "textDocument": {"diagnostic": {"dynamicRegistration": False}},
            },
        },
    )
    client.notify("initialized", {})
    return client


def result_ids(body: bytes, ids: dict[str, str]) -> None:
    """Keep the result id of every report in `body` (a workspace pull)."""
    for report in json.loads(body)["result"]["items"]:
        if report.get("resultId"):
            ids[report["uri"]] = report["resultId"]
        else:
            ids.pop(report["uri"], None)


async def pull(client: RawClient, mode: str, edited: Path, ids: dict[str, str]) -> float:
    """One answer after `edited` changed on disk; its server time (s)."""
    started = time.perf_counter()
    client.notify(
        "workspace/didChangeWatchedFiles", {"changes": [{"uri": edited.as_uri(), "type": 2}]}
    )
    if mode == "document":
        _, at = await client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": edited.as_uri()}}
        )
        return at - started
    previous: list[dict[str, str]] = []
    if mode == "workspace-ids":
        previous = [{"uri": uri, "value": value} for uri, value in ids.items()]
        previous.append({"uri": (edited.parent / "no-such-file.py").as_uri(), "value": "0"})
    body, at = await client.request("workspace/diagnostic", {"previousResultIds": previous})
    read = time.perf_counter()
    result_ids(body, ids)
    items = json.loads(body)["result"]["items"]
    took = time.perf_counter() - read
    print(f"    {mode}: {len(body)} bytes, {len(items)} reports, read in {took:.4f} s")
    return at - started


async def measure(root: Path, files: int, runs: int, log: Path | None) -> dict[str, list[float]]:
    ty = managed_venv() / "bin" / "ty"
    command = ENGINE.command(EngineContext(root, ty, 600.0, root / ".signalint"), [], None)
    times: dict[str, list[float]] = {"cold": []}
    first = root / "pkg" / "mod00000.py"
    last = root / "pkg" / f"mod{files - 2:05d}.py"
    for mode in MODES:
        client = await start(root, ty, log)
        ids: dict[str, str] = {}
        body, _ = await client.request("workspace/diagnostic", {"previousResultIds": []})
        result_ids(body, ids)
        for run in range(runs):
            started = time.monotonic()
            await process.run(command)
            times["cold"].append(time.monotonic() - started)
            edit_body(root, files, run)
            times.setdefault(f"{mode} body", []).append(await pull(client, mode, last, ids))
            swap_signature(root)
            times.setdefault(f"{mode} signature", []).append(await pull(client, mode, first, ids))
            print(
                f"  {mode} run {run + 1}: cold {times['cold'][-1]:.3f} s, "
                f"body {times[f'{mode} body'][-1]:.3f} s, "
                f"signature {times[f'{mode} signature'][-1]:.3f} s",
                flush=True,
            )
        await client.child.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--log", action="store_true", help="the debug log to a file, as the driver asks"
    )
    parser.add_argument("--longest", type=int, default=400, help="the longest chain of imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        root = package(Path(home), args.files, args.longest)
        log = Path(home) / "server.log" if args.log else None
        times = asyncio.run(measure(root, args.files, args.runs, log))
    cold = statistics.median(times["cold"])
    print(f"\n{args.files} modules, T = cold ty check {cold:.3f} s (median)")
    for label, values in times.items():
        if label != "cold":
            value = statistics.median(values)
            print(f"  ty server {label:<24} {value:6.3f} s  {value / cold:5.2f} x T")


if __name__ == "__main__":
    main()
