"""The server's first answers, given before the MCP SDK is loaded.

Importing the SDK takes most of a second (its protocol types are large
pydantic models), and clients time a server's start: `initialize` and
`tools/list` are what a client sends first and waits for. This module reads
those first messages itself and answers them with the answers the SDK gave
in an earlier start of this server, recorded in the user's cache directory
(`Recorded`), while the SDK loads on a worker thread. The first message it
has no recorded answer for (a tool call, an unknown protocol version, an
`initialize` whose params are not of the shape the SDK accepts, a line
that is not JSON, a message over the size limit) hands the connection
over to the SDK (`Handover`): the `initialize` request (and the
`initialized` notification) it answered are replayed to the SDK first, so
the SDK's session is in the state the client believes it is in, and the
SDK's second answer to that `initialize` is dropped (`app`).

Nothing here decides an answer or implements the protocol: it matches two
method names and copies the SDK's own results, with the request's id. A
recorded answer is used only under the exact conditions the SDK produced it
in (`record_key`): the same Signalint sources (every module's size and
modification time), the same SDK files, the same Python, the same project
root and the same settings that shape the tool list (the payload mode and
compact keys, from the project's configuration files and environment).
Anything else is a miss, and the SDK answers; the server then records what
it answered for the next start. What the record lacks is filled from the
answers shipped with the package where they apply (`server.packaged`), so
a first start with the default settings is answered here too. The cache lives in
`$XDG_CACHE_HOME/signalint/mcp` (default `~/.cache`), written whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from signalint.server.transport import LineReader, Oversized

# The modules the SDK path needs, imported on a worker thread once the
# client has said hello (so the hello itself is not slowed down).
HEAVY_MODULES: Final = (
    "anyio",
    "mcp.server.stdio",
    "mcp.shared.message",
    "signalint.server.app",
    "signalint.kept.fix_journal",
)
# What decides the payload mode and compact keys (`server.state`): the
# settings homes a project may have, and two variables.
SETTINGS_FILES: Final = (
    "signalint.config.json",
    ".signalint.json",
    "package.json",
    "pyproject.toml",
)
SETTINGS_VARIABLES: Final = ("SIGNALINT_MCP_PAYLOAD", "SIGNALINT_COMPACT")
# `SIGNALINT_MCP_PACKAGED=0`: the answers shipped in the package are not
# used (`server.packaged`); the prerecording server runs so (`server.prerecord`).
PACKAGED_SWITCH: Final = "SIGNALINT_MCP_PACKAGED"
# Records kept in the cache directory: one per project root and settings
# (and per Signalint or SDK install), the least recently written dropped.
KEPT: Final = 64
INITIALIZE: Final = "initialize"
INITIALIZED: Final = "notifications/initialized"
TOOLS_LIST: Final = "tools/list"


def _stat_text(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def package_dir(name: str) -> Path | None:
    """Where an importable top-level package lives, without importing it."""
    for entry in sys.path:
        candidate = Path(entry or ".") / name / "__init__.py"
        if candidate.is_file():
            return candidate.parent
    return None


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def record_key(root: Path, env: dict[str, str] | None = None) -> str:
    """What a recorded answer depends on (module docstring), as a digest."""
    env = dict(os.environ) if env is None else env
    parts: list[str] = [sys.version, str(root)]
    here = Path(__file__).resolve().parent.parent  # the signalint package
    for directory, _, files in sorted(os.walk(here)):
        parts += [_stat_text(Path(directory) / f) for f in sorted(files) if f.endswith(".py")]
    for package in ("mcp", "mcp_types", "pydantic"):
        found = package_dir(package)
        parts.append(f"{package}:-" if found is None else _stat_text(found / "__init__.py"))
    parts += [_stat_text(root / name) for name in SETTINGS_FILES]
    parts += [f"{name}={env.get(name, '')}" for name in SETTINGS_VARIABLES]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def cache_dir(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "signalint" / "mcp"


@dataclass
class Recorded:
    """The SDK's answers recorded for one `record_key`: `initialize` results
    by the protocol version the client asked for, and the `tools/list`
    result (None until the SDK has answered one)."""

    key: str
    initialize: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, Any] | None = None

    @classmethod
    def load(cls, key: str, directory: Path) -> Recorded:
        """The answers recorded under `key`; none when absent or unreadable."""
        try:
            data = json.loads((directory / f"{key}.json").read_bytes())
        except (OSError, ValueError):
            return cls(key)
        if not isinstance(data, dict) or data.get("key") != key:
            return cls(key)
        initialize = data.get("initialize")
        tools = data.get("tools")
        return cls(
            key,
            initialize if isinstance(initialize, dict) else {},
            tools if isinstance(tools, dict) else None,
        )

    def save(self, directory: Path) -> None:
        """Keep the answers with those another server recorded under the same
        key meanwhile (whole file, written under a lock; a failure only loses
        the record), and only the `KEPT` most recent records beside them."""
        import fcntl

        from signalint.files import write_atomic

        try:
            directory.mkdir(parents=True, exist_ok=True)
            with open(directory / ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                there = Recorded.load(self.key, directory)
                self.initialize = {**there.initialize, **self.initialize}
                self.tools = self.tools if self.tools is not None else there.tools
                data = {"key": self.key, "initialize": self.initialize, "tools": self.tools}
                write_atomic(directory / f"{self.key}.json", json.dumps(data).encode())
            others = sorted(directory.glob("*.json"), key=_modified, reverse=True)
            for stale in others[KEPT:]:
                stale.unlink(missing_ok=True)
        except OSError:
            pass


@dataclass
class Handover:
    """Where the front stopped: `replay` are the lines the SDK must see
    first (the answered `initialize` and what followed it that the SDK
    must also know), `pending` the message the front had no answer for
    (None at the end of input), `answered` the ids of requests in `replay`
    whose answers were already written (the SDK's are dropped), and
    `reader` the rest of the input."""

    reader: LineReader
    replay: list[bytes]
    answered: set[object]
    pending: bytes | Oversized | None
    ended: bool


def _reply(out: Callable[[bytes], object], request_id: object, result: dict[str, Any]) -> None:
    out(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode() + b"\n")


def first_answers(
    reader: LineReader,
    recorded: Recorded,
    out: Callable[[bytes], object],
    loaded: Callable[[], None],
) -> Handover:
    """Answer what `recorded` holds answers for, from the start of the input,
    until a message needs the SDK (module docstring). `out` writes a line to
    the client; `loaded` is called once the client's `initialize` has been
    answered (the SDK starts loading then)."""
    replay: list[bytes] = []
    answered: set[object] = set()
    greeted = False
    while True:
        item = reader.next()
        if item is None:
            return Handover(reader, replay, answered, None, ended=True)
        if isinstance(item, Oversized):
            return Handover(reader, replay, answered, item, ended=False)
        if not item.strip():
            continue
        message = _message(item)
        method = None if message is None else message.get("method")
        request_id = None if message is None else message.get("id")
        params = {} if message is None else message.get("params") or {}
        if not isinstance(params, dict):
            params = {}
        asked = params.get("protocolVersion")
        if (
            method == INITIALIZE
            and not greeted
            and request_id is not None
            and _well_formed_hello(params)
        ):
            result = recorded.initialize.get(asked) if isinstance(asked, str) else None
            if result is not None:
                _reply(out, request_id, result)
                replay.append(item)
                answered.add(request_id)
                greeted = True
                loaded()
                continue
        elif method == INITIALIZED and greeted and request_id is None:
            replay.append(item)
            continue
        elif (
            method == TOOLS_LIST
            and greeted
            and request_id is not None
            and recorded.tools is not None
            and "cursor" not in params
        ):
            _reply(out, request_id, recorded.tools)
            continue
        return Handover(reader, replay, answered, item, ended=False)


def _well_formed_hello(params: dict[str, Any]) -> bool:
    """Whether an `initialize`'s params have the shape the SDK accepts, as
    far as it can be told without the SDK: its members of the right types.
    One that does not goes to the SDK, which names what is wrong; answered
    here, the client would get a success and then the SDK's error."""
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    if not isinstance(capabilities, dict) or not isinstance(client, dict):
        return False
    if not all(isinstance(value, dict | None) for value in capabilities.values()):
        return False
    texts = ("name", "version", "title", "description", "websiteUrl")
    if not (isinstance(client.get("name"), str) and isinstance(client.get("version"), str)):
        return False
    if not all(isinstance(client[k], str) for k in texts if k in client):
        return False
    return isinstance(params.get("_meta", {}), dict)


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(line)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def load_in_background() -> threading.Thread:
    """Import `HEAVY_MODULES` on a worker thread, returned; join it before
    importing any of them on another thread. (Two threads importing the
    SDK's packages at once can deadlock: one holds a submodule's lock while
    it waits for its package's, which the other holds while its package
    imports that submodule; Python then raises `_DeadlockError` in one.)"""
    import importlib

    def load() -> None:
        from signalint.server.sdk_packages import defer

        defer()
        for name in HEAVY_MODULES:
            try:
                importlib.import_module(name)
            except Exception:
                return

    thread = threading.Thread(target=load, name="signalint-sdk-import", daemon=True)
    thread.start()
    return thread


__all__ = [
    "HEAVY_MODULES",
    "SETTINGS_FILES",
    "SETTINGS_VARIABLES",
    "Handover",
    "Recorded",
    "cache_dir",
    "first_answers",
    "load_in_background",
    "package_dir",
    "record_key",
]
