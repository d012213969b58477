"""Where a project's daemon is reached, and which code it runs.

Read by the forwarding client before anything heavy is imported, so this
module uses the standard library only.

The socket is `daemon.sock` in the project's state directory. A Unix socket's
path must fit in `sun_path` (108 bytes with its terminating NUL on Linux);
when the state directory's path is too long the socket lives instead in a
private runtime directory (`$XDG_RUNTIME_DIR/signalint`, else
`/tmp/signalint-<uid>`, mode 0700 and ours, checked), named by a hash of the
state directory, and `daemon start`/`status` say so. The lock that makes one
daemon per project (`daemon.lock`) and its log (`daemon.log`) stay in the
state directory, where no length limit applies.

Which project an invocation is about (`project_root`, with the directory a
host's event names, `event_cwd`, and a `--payload` given on the command
line, `payload`) is read here too: the client asks before it forwards, and
a kept answer (`answers`) before it replays.

The stamp names the daemon's code: every file of the installed `signalint`
package by path, size and modification time. A reinstall or an upgrade (or
an edit of an editable install) changes it; the client compares its own
with the daemon's and does not use a daemon that runs other code.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

import signalint

try:  # BLAKE2 without `hashlib`, whose OpenSSL costs the forwarding client milliseconds
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

# Linux `sun_path` holds 108 bytes, the terminating NUL included.
SOCKET_LIMIT = 107
SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
LOG_NAME = "daemon.log"
STATE_VARIABLE = "SIGNALINT_STATE_DIR"


class PlaceError(Exception):
    """No safe place for the socket (a runtime directory that is not ours)."""


class Place:
    """A project's daemon: its state directory and socket; `note` says why
    the socket is not in the state directory, when it is not. (A plain
    class: `dataclasses` costs the forwarding client milliseconds.)"""

    __slots__ = ("note", "socket", "state")

    def __init__(self, state: Path, socket: Path, note: str | None = None) -> None:
        self.state = state
        self.socket = socket
        self.note = note

    @property
    def lock(self) -> Path:
        return self.state / LOCK_NAME

    @property
    def log(self) -> Path:
        return self.state / LOG_NAME


def state_dir(root: Path, env: Mapping[str, str]) -> Path:
    """`config.state_dir` without importing the configuration (the same rule;
    a test holds them equal)."""
    override = env.get(STATE_VARIABLE, "")
    if override:
        return Path(os.path.abspath(root / os.path.expanduser(override)))
    return root / ".signalint"


def _runtime_dir(env: Mapping[str, str]) -> Path:
    """A directory only we can enter, for sockets whose natural path is too long."""
    base = env.get("XDG_RUNTIME_DIR", "")
    uid = os.getuid()
    if base and os.path.isabs(base):
        candidate = Path(base) / "signalint"
    else:
        candidate = Path("/tmp") / f"signalint-{uid}"
    try:
        candidate.mkdir(mode=0o700, parents=False, exist_ok=True)
    except OSError as exc:
        raise PlaceError(f"cannot make the runtime directory {candidate}: {exc}") from None
    info = candidate.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        raise PlaceError(
            f"the runtime directory {candidate} is not a directory of mode 0700 owned by you"
        )
    return candidate


def place(root: Path, env: Mapping[str, str]) -> Place:
    """Where `root`'s daemon is reached under `env` (module docstring)."""
    state = state_dir(root, env)
    natural = state / SOCKET_NAME
    if len(os.fsencode(natural)) <= SOCKET_LIMIT:
        return Place(state, natural)
    digest = blake2b(os.fsencode(state), digest_size=8).hexdigest()
    short = _runtime_dir(env) / f"{digest}.sock"
    note = (
        f"the socket is {short}: the state directory's path is too long for a Unix socket "
        f"({len(os.fsencode(natural))} bytes, at most {SOCKET_LIMIT})"
    )
    return Place(state, short, note)


_stamps: list[str] = []


def stamp() -> str:
    """A name for the installed code (module docstring), taken once per
    process: the code a process runs is what it found when it started (a
    client asks twice, and a daemon names its answers with it)."""
    if _stamps:
        return _stamps[0]
    package = str(Path(signalint.__file__).parent)
    digest = blake2b(signalint.__version__.encode(), digest_size=16)
    for directory, names, files in os.walk(package):
        names[:] = sorted(n for n in names if n != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(directory, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            rel = path[len(package) + 1 :]
            digest.update(f"{rel}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    _stamps.append(digest.hexdigest())
    return _stamps[0]


def project_root(env: Mapping[str, str], cwd: str) -> Path | None:
    """The project root found from `cwd`, as the commands find it; None when none is."""
    from signalint.project.roots import RootError, discover_root

    try:
        return discover_root(env, cwd)
    except (RootError, OSError):
        return None  # the command itself says what is wrong, in-process


def event_cwd(data: bytes) -> str | None:
    """The working directory a host event names (as `hosts.hook_events` reads it)."""
    try:
        payload = json.loads(data) if data.strip() else None
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    if not isinstance(cwd, str) and isinstance(roots, list) and roots:
        cwd = roots[0]
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None


def payload(args: Sequence[str]) -> bytes | None:
    """The value of `--payload`, when the event is given on the command line."""
    for i, arg in enumerate(args):
        if arg == "--payload" and i + 1 < len(args):
            return args[i + 1].encode("utf-8", "surrogateescape")
        if arg.startswith("--payload="):
            return arg.removeprefix("--payload=").encode("utf-8", "surrogateescape")
    return None
