"""`signalint-mcp` latency: start-up to `initialize` response, and in-server checks.

    .venv/bin/python bench/bench_server.py [--runs 5] [--checks 5]

1. Start to initialize: spawn the console script in a copy of examples/demo,
   write one `initialize` request, time until its response line arrives
   (median of `--runs`). Also the bare SDK import for comparison: that is
   the floor no server code can go below.
2. In-server check_project on an unchanged project: one server, one warm-up
   check, then the median of `--checks` further checks, each timed from
   `tools/call` written to its response read.

Numbers are reported, never asserted (docs/architecture.md, "Tests and benchmarks").
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
SERVER = Path(sys.executable).with_name("signalint-mcp")
INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write((json.dumps(message) + "\n").encode())
    stdin.flush()


def receive(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        message = json.loads(stdout.readline())
        if message.get("id") == request_id:
            return dict(message)


def spawn(cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(SERVER)], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def start_to_initialize(cwd: Path) -> float:
    started = time.perf_counter()
    proc = spawn(cwd)
    assert proc.stdin is not None and proc.stdout is not None
    send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(proc.stdout, 1)
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed


def sdk_import() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.lowlevel"], check=True)
    return time.perf_counter() - started


def in_server_checks(cwd: Path, checks: int) -> list[float]:
    proc = spawn(cwd)
    assert proc.stdin is not None and proc.stdout is not None
    send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(proc.stdout, 1)
    send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    times: list[float] = []
    for index in range(checks + 1):  # the first one warms up
        request_id = 100 + index
        call = {"name": "check_project", "arguments": {}}
        started = time.perf_counter()
        send(
            proc.stdin, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": call}
        )
        reply = receive(proc.stdout, request_id)
        elapsed = time.perf_counter() - started
        assert not reply["result"].get("isError"), reply
        if index:
            times.append(elapsed)
    proc.stdin.close()
    proc.wait(timeout=30)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--checks", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        shutil.copytree(REPO / "examples" / "demo", demo)
        starts = [start_to_initialize(demo) for _ in range(args.runs)]
        imports = [sdk_import() for _ in range(args.runs)]
        checks = in_server_checks(demo, args.checks)
    print(
        f"start -> initialize response: median {statistics.median(starts):.3f} s "
        f"(min {min(starts):.3f}, max {max(starts):.3f}; {args.runs} runs)"
    )
    print(f"python -c 'import mcp.server.lowlevel': median {statistics.median(imports):.3f} s")
    print(
        f"in-server check_project, unchanged demo: median {statistics.median(checks):.3f} s "
        f"(min {min(checks):.3f}, max {max(checks):.3f}; {len(checks)} checks after a warm-up)"
    )


if __name__ == "__main__":
    main()
