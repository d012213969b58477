"""Live diagnostics: a 1,000-diagnostic ingest_diagnostics batch, then get_live_diagnostics.

    .venv/bin/python bench/bench_live.py [--rounds 10]

Two shapes of batch, each 1,000 LSP diagnostics: spread over 20 files (50
each), and all in one file; after each ingest, get_live_diagnostics for
one file of the batch. Each round sends a new batch (new messages, so the
buffer really replaces every set and no issue made before is reused); one
more row re-sends the same batch, as a language server re-publishes a
file's unchanged diagnostics.

- Over MCP: the real `signalint-mcp` process, raw JSON-RPC on stdio, timed
  from `tools/call` written to its response read (JSON encoding and the
  pipe included).
- In-server: the same handlers on a `ServerState` in this process, timed
  around the handler call alone (what the server spends on the tool).

Median and max of `--rounds` rounds after one warm-up. Numbers are
reported, never asserted (docs/architecture.md, "Tests and benchmarks"); the target is 50 ms each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_server import INIT, SERVER, receive, send

LINES = 1000


def make_project(root: Path, files: int) -> list[str]:
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "bench-live", "private": true}\n')
    names = []
    for n in range(files):
        name = f"src/f{n:02}.ts"
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(
            "".join(f"export const v{i}: number = {i};\n" for i in range(LINES))
        )
        names.append(name)
    return names


def batch(names: list[str], total: int, round_no: int) -> list[dict[str, Any]]:
    per_file = total // len(names)
    out = []
    for name in names:
        for i in range(per_file):
            out.append(
                {
                    "file": name,
                    "range": {
                        "start": {"line": i, "character": 13},
                        "end": {"line": i, "character": 15 + i % 7},
                    },
                    "severity": 1 if i % 3 else 2,
                    "code": 2322 + i % 9,
                    "source": "ts",
                    "message": f"Type 'string' is not assignable to 'number' ({round_no}/{i}).",
                }
            )
    return out


def over_mcp(
    root: Path, names: list[str], rounds: int, fresh: bool = True
) -> tuple[list[float], list[float]]:
    proc = subprocess.Popen(
        [str(SERVER)], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(proc.stdout, 1)
    send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    ingests: list[float] = []
    queries: list[float] = []
    request_id = 100
    for round_no in range(rounds + 1):
        for name, arguments, sink in (
            ("ingest_diagnostics", {"diagnostics": batch(names, 1000, round_no * fresh)}, ingests),
            ("get_live_diagnostics", {"files": [names[0]]}, queries),
        ):
            request_id += 1
            call = {"name": name, "arguments": arguments}
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": call}
            started = time.perf_counter()
            send(proc.stdin, message)
            reply = receive(proc.stdout, request_id)
            elapsed = time.perf_counter() - started
            assert not reply["result"].get("isError"), reply
            if round_no:
                sink.append(elapsed)
    proc.stdin.close()
    proc.wait(timeout=30)
    return ingests, queries


def in_server(
    root: Path, names: list[str], rounds: int, fresh: bool = True
) -> tuple[list[float], list[float]]:
    from signalint.server import live_tools
    from signalint.server.state import ServerState

    state = ServerState(root)

    async def nothing(progress: float, total: float | None, message: str | None) -> None:
        return None

    async def run() -> tuple[list[float], list[float]]:
        ingests: list[float] = []
        queries: list[float] = []
        for round_no in range(rounds + 1):
            arguments = {"diagnostics": batch(names, 1000, round_no * fresh)}
            started = time.perf_counter()
            await live_tools.ingest_diagnostics(state, arguments, nothing)
            ingested = time.perf_counter() - started
            started = time.perf_counter()
            await live_tools.get_live_diagnostics(state, {"files": [names[0]]}, nothing)
            queried = time.perf_counter() - started
            if round_no:
                ingests.append(ingested)
                queries.append(queried)
        state.live_snapshots.flush()
        return ingests, queries

    return asyncio.run(run())


def describe(label: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"{label}: median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for files in (20, 1):
        with tempfile.TemporaryDirectory() as temp:
            root = Path(temp) / "project"
            names = make_project(root, files)
            shape = f"1,000 diagnostics in {files} file{'s' if files > 1 else ''}"
            wire_ingest, wire_query = over_mcp(root, names, args.rounds)
            own_ingest, own_query = in_server(root, names, args.rounds)
            returned = 1000 // files
            print(f"== {shape}; get_live_diagnostics for one file returns {returned} issues")
            print("  " + describe("ingest_diagnostics over MCP", wire_ingest))
            print("  " + describe("ingest_diagnostics in-server", own_ingest))
            print("  " + describe("get_live_diagnostics over MCP", wire_query))
            print("  " + describe("get_live_diagnostics in-server", own_query))
            again, _ = in_server(root, names, args.rounds, fresh=False)
            print("  " + describe("ingest_diagnostics in-server, the same batch re-sent", again))


if __name__ == "__main__":
    main()
