"""Fault-injection warm drivers for tests of the pool's hosts (the daemon,
`stats`): a tiny Python worker that answers an engine command by running
the cold command itself (so its answer is the cold one), and a driver whose
worker never answers usably.

The worker exits when its stdin reaches end of file, as every real worker
must (a killed parent leaves exactly that).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from signalint import process
from signalint.engines.base import EngineContext
from signalint.process import Child, Command, ProcessResult
from signalint.warm.driver import Driver, WorkerFailed, WorkerKey

# One JSON request per line: argv, cwd, env (added), stdin; one JSON answer.
WORKER = r"""
import json, os, subprocess, sys
for line in sys.stdin:
    req = json.loads(line)
    done = subprocess.run(
        req["argv"], cwd=req["cwd"], env={**os.environ, **req["env"]},
        input=None if req["stdin"] is None else req["stdin"].encode("latin-1"),
        capture_output=True,
    )
    answer = {
        "code": done.returncode,
        "stdout": done.stdout.decode("utf-8", "surrogateescape"),
        "stderr": done.stderr.decode("utf-8", "surrogateescape"),
    }
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


class FakeSession:
    label = "fake 1.0"

    def __init__(self, child: Child, broken: bool) -> None:
        self.child = child
        self.broken = broken

    async def ask(self, command: Command) -> ProcessResult:
        if self.broken:
            raise WorkerFailed("the fake worker is broken (injected)")
        started = time.monotonic()
        stdin = None if command.stdin is None else command.stdin.decode("latin-1")
        request = {
            "argv": list(command.argv),
            "cwd": str(command.cwd),
            "env": dict(command.env),
            "stdin": stdin,
        }
        self.child.stdin.write((json.dumps(request) + "\n").encode())
        await self.child.stdin.drain()
        line = await self.child.stdout.readline()
        if not line:
            raise WorkerFailed("the fake worker closed its output")
        answer = json.loads(line)
        return ProcessResult(
            command.argv,
            answer["code"],
            answer["stdout"],
            answer["stderr"],
            time.monotonic() - started,
        )

    async def close(self) -> None:
        await self.child.stop()


class FakeDriver:
    """Serves `engine`'s main commands from one fake worker per working directory."""

    def __init__(self, engine: str = "ruff", *, broken: bool = False) -> None:
        self.engine = engine
        self.broken = broken

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        return WorkerKey(f"{self.engine}:{command.cwd}", "1")

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> FakeSession:
        argv = (sys.executable, "-c", WORKER)
        child = await process.start(Command(argv, command.cwd, 60), stderr_to=log)
        if isinstance(child, ProcessResult):
            raise WorkerFailed(f"the fake worker did not start: {child.start_error}")
        return FakeSession(child, self.broken)


def drivers(engine: str = "ruff", *, broken: bool = False) -> dict[str, Driver]:
    return {engine: FakeDriver(engine, broken=broken)}


def install() -> None:
    """Make this process's warm registry the fake one (a daemon started by a test)."""
    import signalint.warm.registry as registry

    registry.drivers = drivers
