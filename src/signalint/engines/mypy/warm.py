"""mypy kept warm: mypy's own daemon server, held in-process by a worker.

The worker (`mypy_worker.py`, beside this module) is run by the
interpreter that has the project's own mypy installed (the one the cold
command's executable runs with) and keeps one `mypy.dmypy_server.Server`:
the fine-grained incremental state `dmypy` keeps, without `dmypy`'s socket,
status file or client. It reads one JSON request per line on stdin and
exits at end of file.

Why in-process and not `dmypy daemon` asked by `dmypy check` clients:

- mypy's default `follow_imports = normal` is the one mode in which the
  daemon refuses `recheck --update/--remove` (explicit changes); it finds
  changes only with its stat-based watcher, which trusts a file whose size
  and whole-second mtime are unchanged. In-process, the worker hashes every
  file of the build before each check (mypy's own digest) and marks the
  changed ones for the watcher, so freshness is by content (D2).
- The adapter reads the program's inputs from a cold run's `--verbose` log;
  a daemon client prints no such log. In-process, the worker reports the
  build graph's modules and the sources, and the session writes them as
  the lines a cold `--verbose` run logs (`Mypy Version`, `Found source`,
  `Parsing <path> (<module>)`), so `engines.mypy.program` reads warm and
  cold answers alike.
- A client is one more interpreter per ask (about 0.2 s of start-up and
  imports); the foreground `dmypy daemon` ignores stdin, so it would also
  need a wrapper to exit when Signalint does.

What a warm answer is: the `-O json` lines and exit code of the cold
command, and a `--verbose` log naming the same program. When the daemon
meets a blocking error (a syntax error) or a usage error, the text a cold
run prints depends on its order of work, so that one request is answered
by running the cold command (`process.run`) while the worker keeps its
state (the daemon recovers on the next change). A module found at another
path than the daemon's (a stub beside it removed) makes the worker build
anew; after an update, project modules with `type: ignore` comments are
checked again whole (only a whole module's check reports unused ignores).

Not served warm (`key` is None, the cold command runs): mypy older than
2.0 (verified with 2.4.1), a configuration the daemon refuses or treats
differently (`follow_imports = silent` anywhere, `incremental = false`,
`local_partial_types = false`, the `possibly-undefined` code enabled: a
whole-module pass an update skips), and an executable whose interpreter
cannot be found. The worker's state names the config chain's content (and path
plugins), the environment stamp, `MYPYPATH`, the executable and its
version, and the command's flags: a change to any restarts it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.mypy import adapter
from signalint.engines.resolve import executable_key, package_version
from signalint.process import Child, Command, ProcessResult
from signalint.warm.driver import WorkerFailed, WorkerKey, exchange

WORKER = Path(__file__).with_name("mypy_worker.py")
MIN_MAJOR = 2
# Settings the daemon refuses or treats differently from mypy (module docstring).
_REFUSED: Mapping[str, tuple[str, ...]] = {
    "follow_imports": ("silent",),
    "incremental": ("false", "0"),
    "local_partial_types": ("false", "0"),
}
_CACHE_FLAG = "--cache-dir"


def interpreter(executable: Path) -> Path | None:
    """The interpreter that runs mypy's console script `executable`: the one
    beside its real path (a virtual environment's), else its `#!` line's."""
    real = Path(os.path.realpath(executable))
    for name in ("python", "python3"):
        candidate = real.parent / name
        if candidate.exists():
            return candidate
    try:
        with open(real, "rb") as handle:
            first = handle.readline(1024)
    except OSError:
        return None
    if first.startswith(b"#!"):
        named = first[2:].strip().split()
        if named and os.path.isabs(named[0]) and os.path.exists(named[0]):
            return Path(os.fsdecode(named[0]))
    return None


def _refused(root: Path) -> bool:
    """Whether the project's mypy configuration asks for what the daemon
    refuses or does differently (module docstring)."""
    config = adapter.find_config(root)
    if config is None:
        return False
    try:
        text = (root / config).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    lowered = text.lower().replace("-", "_")
    if "possibly_undefined" in lowered:
        return True
    for name, values in _REFUSED.items():
        for line in lowered.splitlines():
            left, sep, right = line.partition("=")
            if sep and left.strip() == name and right.strip().strip("'\"") in values:
                return True
    return False


def _flags(argv: tuple[str, ...]) -> list[str]:
    """The cold command's arguments without its cache directory (the
    daemon keeps none; the state directory may differ between checks)."""
    out: list[str] = []
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg == _CACHE_FLAG:
            skip = True
        elif not arg.startswith(_CACHE_FLAG + "="):
            out.append(arg)
    return out


def _digest(root: Path, rel: str) -> str:
    try:
        return hashlib.sha256((root / rel).read_bytes()).hexdigest()
    except OSError:
        return "-"


class MypyDriver:
    """The warm pool's driver for mypy (module docstring)."""

    engine = "mypy"

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        python = interpreter(ctx.executable)
        exe = executable_key(ctx.executable)
        if python is None or exe is None:
            return None
        version = package_version(os.path.realpath(ctx.executable), adapter.SPEC.provision)
        major = (version or "").split(".", 1)[0]
        if not major.isdigit() or int(major) < MIN_MAJOR:
            return None
        if _refused(ctx.root):
            return None
        program = adapter.ENGINE.program_key(ctx)
        if program is None:
            return None
        configs = {rel: _digest(ctx.root, rel) for rel in program.configs}
        state = {
            "exe": exe,
            "python": str(python),
            "version": version,
            "flags": _flags(command.argv),
            "cwd": str(command.cwd),
            "configs": configs,
            "extra": program.extra,
        }
        text = json.dumps(state, sort_keys=True)
        slot = f"mypy:{os.path.realpath(ctx.root)}:{os.path.realpath(ctx.executable)}"
        return WorkerKey(slot=slot, state=hashlib.sha256(text.encode()).hexdigest())

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> MypySession:
        python = interpreter(ctx.executable)
        if python is None:
            raise WorkerFailed("no interpreter for mypy")
        home = ctx.state_dir / "warm" / "mypy"
        home.mkdir(parents=True, exist_ok=True)
        started = await process.start(
            Command(
                argv=(str(python), str(WORKER), str(home / "status.json")),
                cwd=command.cwd,
                timeout_s=command.timeout_s,
            ),
            stderr_to=log,
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed(f"mypy worker did not start: {started.start_error or 'missing'}")
        version = package_version(os.path.realpath(ctx.executable), adapter.SPEC.provision)
        return MypySession(started, f"mypy {version or 'unknown'} (daemon server)")


class MypySession:
    """One running mypy worker."""

    def __init__(self, child: Child, label: str) -> None:
        self.child = child
        self.label = label

    async def ask(self, command: Command) -> ProcessResult:
        started = time.monotonic()
        request = {"args": list(command.argv[1:]), "cwd": str(command.cwd)}
        answer = await exchange(self.child, request, "the mypy worker")
        if "cold" in answer:
            return await process.run(command)
        if "error" in answer:
            raise WorkerFailed(f"mypy worker: {str(answer['error'])[:300]}")
        return _result(command, answer, time.monotonic() - started)

    async def close(self) -> None:
        await self.child.stop()


def _result(command: Command, answer: dict[str, Any], duration_s: float) -> ProcessResult:
    """The cold command's result from a worker's answer: its stdout and exit
    code, and the `--verbose` lines the adapter reads the program from."""
    stdout = answer.get("stdout")
    code = answer.get("exit")
    version = answer.get("version")
    sources = answer.get("sources")
    modules = answer.get("modules")
    if (
        not isinstance(stdout, str)
        or not isinstance(code, int)
        or not isinstance(version, str)
        or not isinstance(sources, list)
        or not isinstance(modules, list)
    ):
        raise WorkerFailed("mypy worker answered garbage")
    log = [f"LOG:  {'Mypy Version:':24}{version}"]
    log += [f"LOG:  {'Found source:':24}BuildSource(path={str(path)!r})" for path in sources]
    with contextlib.suppress(TypeError, ValueError):
        log += [f"LOG:  Parsing {path} ({module})" for path, module in modules]
        return ProcessResult(
            argv=command.argv,
            exit_code=code,
            stdout=stdout,
            stderr="\n".join(log) + "\n",
            duration_s=duration_s,
        )
    raise WorkerFailed("mypy worker answered garbage")


DRIVER = MypyDriver()
