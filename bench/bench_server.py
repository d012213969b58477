"""`signalint-mcp` latency: start-up to `initialize` response, and in-server checks.

    .venv/bin/python bench/bench_server.py [--runs 5] [--checks 5] [--exit-only]

1. Start to initialize: spawn the console script in a copy of examples/demo,
   write one `initialize` request, time until its response line arrives
   (median of `--runs`): at a first start (nothing recorded: the answers
   shipped with the package, `server/packaged.py`), at a first start with
   those off (`SIGNALINT_MCP_PACKAGED=0`: the SDK answers) and at a later
   one (the front answers with the SDK's recorded answers,
   `server/front.py`), and the same with `tools/list` after it;
   then the host's first start after `signalint init --client claude --yes`
   (which records the handshake). Also a bare interpreter and the bare SDK import, for comparison.
2. In-server check_project on an unchanged project: one server, one warm-up
   check, then the median of `--checks` further checks, each timed from
   `tools/call` written to its response read.
3. Input closed to exit (`server/leaving.py`, bound 0.3 s): the server's
   stdin closed, timed until the process has exited (`--runs` each), right
   after the handshake (answered by the front), after a `ping` (the SDK
   loaded), after a `check_project` of a fresh copy (warm workers running;
   their processes counted after the exit: none may be left), and with a
   `check_project` of a fresh copy still running (cut short).

Numbers are reported, never asserted (docs/architecture.md, "Tests and benchmarks").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from signalint.engines.resolve import managed_dir

REPO = Path(__file__).resolve().parent.parent
SERVER = Path(sys.executable).with_name("signalint-mcp")
# The managed engines, found under this process's cache home; each server
# gets a cache home of its own (its recorded answers), so it is named.
ENGINES = managed_dir()
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


def spawn(cwd: Path, cache: Path | None = None, *, sdk: bool = False) -> subprocess.Popen[bytes]:
    """The server in `cwd`; with `cache`, that cache home for its recorded
    answers; with `sdk`, the shipped answers off."""
    env = dict(os.environ)
    if sdk:
        env["SIGNALINT_MCP_PACKAGED"] = "0"
    if cache is not None:
        env |= {"XDG_CACHE_HOME": str(cache), "SIGNALINT_ENGINES_DIR": str(ENGINES)}
    return subprocess.Popen(
        [str(SERVER)], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip


def start_to_initialize(cwd: Path, cache: Path, *, tools: bool = False, sdk: bool = False) -> float:
    """Spawn to the `initialize` answer (with `tools`: to the `tools/list`
    answer after it; with `sdk`: the shipped answers off)."""
    started = time.perf_counter()
    proc = spawn(cwd, cache, sdk=sdk)
    assert proc.stdin is not None and proc.stdout is not None
    send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(proc.stdout, 1)
    if tools:
        send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        receive(proc.stdout, 2)
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed


def after_init(demo: Path, cache: Path) -> float:
    """The host's first start right after `signalint init --client claude --yes`
    (which records the handshake, `server/prerecord.py`) with a fresh cache home."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "SIGNALINT_ENGINES_DIR": str(ENGINES)}
    subprocess.run(
        [str(SERVER.with_name("signalint")), "init", "--client", "claude", "--yes"],
        cwd=demo, env=env, capture_output=True, check=True,
    )  # fmt: skip
    return start_to_initialize(demo, cache, tools=True)


def interpreter(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def in_server_checks(cwd: Path, cache: Path, checks: int) -> list[float]:
    proc = spawn(cwd, cache)
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


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                children = [int(c) for c in handle.read().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


SCENARIOS = ("handshake", "ping", "check", "in-flight")


def input_closed_to_exit(demo: Path, cache: Path, scenario: str) -> tuple[float, int]:
    """Seconds from closing the server's stdin to its exit, and how many of
    its workers still ran then; `scenario`: "handshake", "ping", "check"
    (answered) or "in-flight" (a check still running)."""
    cwd = demo
    if scenario in ("check", "in-flight"):  # a fresh copy: the check runs its engines
        cwd = Path(tempfile.mkdtemp(dir=demo.parent)) / "demo"
        shutil.copytree(demo, cwd, ignore=shutil.ignore_patterns(".signalint"))
    proc = spawn(cwd, cache)
    assert proc.stdin is not None and proc.stdout is not None
    send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(proc.stdout, 1)
    send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    if scenario != "handshake":
        name = "ping" if scenario == "ping" else "check_project"
        call = {"name": name, "arguments": {}}
        send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        if scenario == "in-flight":
            time.sleep(0.5)  # the check is under way
        else:
            receive(proc.stdout, 2)
    workers = _descendants(proc.pid)
    started = time.perf_counter()
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(timeout=60)
    elapsed = time.perf_counter() - started
    return elapsed, sum(_running(pid) for pid in workers)


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--checks", type=int, default=5)
    parser.add_argument("--exit-only", action="store_true", help="only 3., input closed to exit")
    args = parser.parse_args()
    if args.exit_only:
        with tempfile.TemporaryDirectory() as tmp:
            demo = Path(tmp) / "demo"
            shutil.copytree(REPO / "examples" / "demo", demo)
            cache = Path(tmp) / "cache"
            start_to_initialize(demo, cache, tools=True, sdk=True)  # records the SDK's answers
            report_exits(
                {
                    scenario: [input_closed_to_exit(demo, cache, s) for s in [scenario] * args.runs]
                    for scenario in SCENARIOS
                }
            )
        return
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        shutil.copytree(REPO / "examples" / "demo", demo)
        runs = range(args.runs)
        first = [start_to_initialize(demo, Path(tmp) / f"fresh{i}") for i in runs]
        by_sdk = [start_to_initialize(demo, Path(tmp) / f"sdk{i}", sdk=True) for i in runs]
        cache = Path(tmp) / "cache"
        start_to_initialize(demo, cache, tools=True, sdk=True)  # records the SDK's answers
        later = [start_to_initialize(demo, cache) for _ in runs]
        first_tools = [start_to_initialize(demo, Path(tmp) / f"t{i}", tools=True) for i in runs]
        later_tools = [start_to_initialize(demo, cache, tools=True) for _ in runs]
        initialized = [after_init(demo, Path(tmp) / f"init{i}") for i in runs]
        bare = [interpreter("pass") for _ in runs]
        imports = [interpreter("import mcp.server.lowlevel") for _ in runs]
        checks = in_server_checks(demo, cache, args.checks)
        exits = {
            scenario: [input_closed_to_exit(demo, cache, scenario) for _ in runs]
            for scenario in SCENARIOS
        }
    for label, times in (
        ("start -> initialize answer, first start (shipped answers)", first),
        ("start -> initialize answer, first start, shipped answers off (the SDK)", by_sdk),
        ("start -> initialize answer, later start (recorded answers)", later),
        ("start -> tools/list answer, first start", first_tools),
        ("start -> tools/list answer, later start", later_tools),
        ("start -> tools/list answer, first start after `init --client`", initialized),
        ("python -c pass", bare),
        ("python -c 'import mcp.server.lowlevel'", imports),
    ):
        print(
            f"{label}: median {statistics.median(times):.3f} s "
            f"(min {min(times):.3f}, max {max(times):.3f}; {len(times)} runs)"
        )
    print(
        f"in-server check_project, unchanged demo: median {statistics.median(checks):.3f} s "
        f"(min {min(checks):.3f}, max {max(checks):.3f}; {len(checks)} checks after a warm-up)"
    )
    report_exits(exits)


def report_exits(exits: dict[str, list[tuple[float, int]]]) -> None:
    for scenario, measured in exits.items():
        times = [elapsed for elapsed, _ in measured]
        left = sum(workers for _, workers in measured)
        print(
            f"input closed -> exit, {scenario}: median {statistics.median(times):.3f} s "
            f"(min {min(times):.3f}, max {max(times):.3f}; {len(times)} runs; "
            f"workers left running: {left})"
        )


if __name__ == "__main__":
    main()
