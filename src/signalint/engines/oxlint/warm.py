"""Oxlint kept warm: its own launcher, run again in one long-lived Node.

Oxlint 1.x is installed as a Node script (`bin/oxlint` imports
`dist/cli.js`, which loads the native module that lints and prints the
report). Starting Node is most of a one-file run: about 0.17 s of a 0.19 s
`oxlint FILE` on two cores, where the lint itself takes 10-15 ms. The
worker (`oxlint_worker.mjs`, beside this module) starts Node once and runs
the package's own `dist/cli.js` again for each command, so the answer is
what that launcher printed and the exit code it set, parsed as a cold
run's (D23). Oxlint reads its configuration and the files on every run,
as a cold run does: nothing is kept between asks but loaded code.

Served: the adapter's lint command (`--format json`), never a fix, from an
`oxlint` package whose `bin/oxlint` is a Node script with `dist/cli.js`
beside it (1.x); anything else runs cold. A warm answer that is not a JSON
report (a configuration error, say, which Oxlint explains on stderr) is
left to the cold run, which says why. The worker's state is the package
(its real path and version), Node and the worker script: a new version
starts a new worker. The line protocol is ours (no library exists for it):
see the worker's header.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.resolve import shim_targets
from signalint.process import Child, Command, ProcessResult
from signalint.warm.driver import WorkerFailed, WorkerKey, greeted, warm_result
from signalint.warm.pool import NODE_IDLE_GC

WORKER = Path(__file__).with_name("oxlint_worker.mjs")
_READY_S = 30.0
_FIXES = ("--fix", "--fix-suggestions", "--fix-dangerously")


def package_dir(executable: Path) -> tuple[Path, str] | None:
    """The oxlint package the executable runs and its version, when it is
    the Node launcher this worker can run (module docstring)."""
    real = os.path.realpath(executable)
    scripts = [t for t in shim_targets(real) if os.path.basename(t) not in ("node", "node.exe")]
    script = os.path.realpath(next((t for t in scripts if os.path.isfile(t)), real))
    directory = Path(script).parent.parent
    try:
        manifest = json.loads((directory / "package.json").read_text(encoding="utf-8"))
        with open(script, "rb") as handle:
            first = handle.readline()
    except (OSError, ValueError):
        return None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    if manifest.get("name") != "oxlint" or not isinstance(version, str):
        return None
    if not first.startswith(b"#!") or b"node" not in first:
        return None  # a native executable: a cold run is already short
    if not (directory / "dist" / "cli.js").is_file():
        return None
    return directory, version


class OxlintDriver:
    """The warm pool's driver for Oxlint (module docstring)."""

    engine = "oxlint"

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        argv = command.argv
        if not argv or argv[0] != str(ctx.executable) or "--format" not in argv:
            return None
        options = argv[: argv.index("--")] if "--" in argv else argv
        at = options.index("--format")
        if options[at + 1 : at + 2] != ("json",) or any(flag in options for flag in _FIXES):
            return None
        found = package_dir(ctx.executable)
        node = shutil.which("node")
        if found is None or node is None:
            return None
        directory, version = found
        state = hashlib.sha256()
        for part in (str(directory), version, os.path.realpath(node), str(WORKER)):
            state.update(part.encode() + b"\0")
        return WorkerKey(slot=f"oxlint\x1f{ctx.root}", state=state.hexdigest())

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> OxlintSession:
        found = package_dir(ctx.executable)
        if found is None:
            raise WorkerFailed("no oxlint package")
        argv = ("node", NODE_IDLE_GC, str(WORKER), str(found[0]))
        started = await process.start(
            Command(argv=argv, cwd=command.cwd, timeout_s=command.timeout_s), stderr_to=log
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed(started.start_error or "node could not be started")
        session = OxlintSession(started, f"oxlint {found[1]}")
        await greeted(started, session.greeting(), "the oxlint worker", _READY_S)
        return session


class OxlintSession:
    """One worker process and its protocol."""

    def __init__(self, child: Child, label: str) -> None:
        self.child = child
        self.label = label

    async def read(self) -> tuple[str, dict[str, object]]:
        """One answer: what Oxlint printed, and the JSON line after it."""
        try:
            printed = await self.child.stdout.readuntil(b"\0")
            line = await self.child.stdout.readline()
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise WorkerFailed(f"the oxlint worker's pipe failed: {exc}") from exc
        try:
            trailer = json.loads(line)
        except ValueError:
            trailer = None
        if not isinstance(trailer, dict):
            raise WorkerFailed(f"the oxlint worker answered {line[:120]!r}")
        return printed[:-1].decode("utf-8", errors="replace"), trailer

    async def greeting(self) -> dict[str, object]:
        return (await self.read())[1]

    async def ask(self, command: Command) -> ProcessResult:
        started = time.monotonic()
        request = {"args": list(command.argv[1:]), "cwd": str(command.cwd)}
        try:
            self.child.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            await self.child.stdin.drain()
        except (OSError, RuntimeError) as exc:
            raise WorkerFailed(f"the oxlint worker's pipe failed: {exc}") from exc
        stdout, trailer = await self.read()
        code = trailer.get("exit")
        if not isinstance(code, int) or isinstance(code, bool):
            said = trailer.get("error")
            raise WorkerFailed(f"the oxlint worker failed: {said}" if said else "garbage answer")
        report = stdout.strip()
        if not (report.startswith("{") and report.endswith("}")):
            # Not a report: the cold run answers, with what Oxlint says on stderr.
            raise WorkerFailed("oxlint printed no report; the cold run says why")
        return warm_result(command, code, stdout, started)

    async def close(self) -> None:
        await self.child.stop()


DRIVER = OxlintDriver()
