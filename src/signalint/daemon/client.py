"""The forwarding client: hand a CLI invocation to the project's daemon.

`signalint check`, `signalint pre-commit` (a git hook's check) and
`signalint hooks run` are forwarded when a daemon
runs for the project: the client sends its arguments, working directory,
environment and (for `hooks run`) the bytes of its standard input; the
daemon runs the same command code in-process with its warm engines and
answers stdout, stderr and the exit code, which the client writes out and
exits with. Everything else, and these commands when no daemon answers, run
in-process as before (`forward` returns None).

This path decides before the click command tree, the check pipeline, the
engines or any third-party package is imported (a test holds the set of
modules it loads): it reads the standard library, `signalint.project.roots`
and the rest of this package's light modules only.

Not forwarded: `--no-daemon` on the command line, `SIGNALINT_DAEMON=0`,
`--help`; no socket; a socket that is not ours or not of mode 0600 (said on
stderr); a socket nobody answers on (a daemon that died: silent); a daemon
that is served by another user (SO_PEERCRED), or that runs other code
than ours (a reinstall: the client asks it to stop, and says so).
"""

from __future__ import annotations

import _socket
import io
import os
import stat
import struct
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from signalint.daemon import wire
from signalint.daemon.place import Place, PlaceError, event_cwd, payload, place, project_root, stamp

TYPE_CHECKING = False  # `typing` costs the forwarding path milliseconds
if TYPE_CHECKING:
    from typing import Any

DISABLE_ENV = "SIGNALINT_DAEMON"
NO_DAEMON = "--no-daemon"
# How long to wait for a daemon to accept and answer a short request.
QUICK_S = 5.0


class Refused(Exception):
    """A socket or daemon the client will not use (the reason is the message)."""


def disabled(env: Mapping[str, str]) -> bool:
    """`SIGNALINT_DAEMON=0`: no daemon and no warm workers."""
    return env.get(DISABLE_ENV, "").strip() == "0"


def forwarded_command(args: Sequence[str]) -> str | None:
    """ "check", "pre-commit" (a hook's check) or "hooks run" when `args` run
    one of them and may be forwarded."""
    words = list(args)
    if "--" in words:
        words = words[: words.index("--")]
    if any(w in (NO_DAEMON, "--help", "-h") for w in words):
        return None
    if words[:1] in (["check"], ["pre-commit"]):
        return words[0]
    if words[:2] == ["hooks", "run"]:
        return "hooks run"
    return None


def _peer_uid(sock: _socket.socket) -> int:
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def check_socket(path: Path) -> None:
    """Raise `Refused` unless `path` is a socket of ours that only we can use;
    `FileNotFoundError` when there is none."""
    info = os.lstat(path)
    if not stat.S_ISSOCK(info.st_mode):
        raise Refused(f"{path} is not a socket")
    if info.st_uid != os.getuid():
        raise Refused(f"{path} belongs to user {info.st_uid}, not to you")
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise Refused(f"{path} has mode {mode:04o}; a daemon's socket has mode 0600")


def connect(where: Place, timeout_s: float | None = QUICK_S) -> _socket.socket:
    """A connection to the daemon at `where`. Raises `FileNotFoundError` (no
    socket), `ConnectionRefusedError` (a socket nobody serves: the daemon
    died), `Refused` (module docstring) or another `OSError`."""
    check_socket(where.socket)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect(os.fspath(where.socket))
        if _peer_uid(sock) != os.getuid():
            raise Refused(f"the daemon on {where.socket} runs as another user")
    except BaseException:
        sock.close()
        raise
    return sock


def ask(where: Place, message: dict[str, Any], timeout_s: float | None = QUICK_S) -> dict[str, Any]:
    """One request and its answer (raises as `connect`, or `wire.WireError`)."""
    sock = connect(where, timeout_s)
    try:
        wire.send(sock, message)
        return wire.receive(sock)
    finally:
        sock.close()


def _say(text: str) -> None:
    sys.stderr.write(f"signalint: {text}\n")
    sys.stderr.flush()


def forward(args: Sequence[str], env: Mapping[str, str] | None = None) -> int | None:
    """Run `args` through the project's daemon and return its exit code, or
    None when the command is to run in-process (module docstring)."""
    env = os.environ if env is None else env
    command = forwarded_command(args)
    if command is None or disabled(env):
        return None
    cwd = os.getcwd()
    stdin = b""
    root_from = cwd
    if command == "hooks run":
        given = payload(args)
        if given is None:
            stdin = sys.stdin.buffer.read()
            # Whatever happens next, the command reads the same bytes in-process.
            encoding = sys.stdin.encoding or "utf-8"
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding=encoding)
            given = stdin
        root_from = event_cwd(given) or cwd
    root = project_root(env, root_from)
    if root is None:
        return None
    try:
        where = place(root, env)
        sock = connect(where)
    except (FileNotFoundError, ConnectionRefusedError, PlaceError):
        return None
    except Refused as exc:
        _say(f"not using the daemon: {exc}")
        return None
    except OSError:
        return None
    try:
        request = {
            "op": "run",
            "stamp": stamp(),
            "argv": list(args),
            "cwd": cwd,
            "env": dict(env),
            "stdin": stdin.decode("latin-1"),
            "stdinEncoding": sys.stdin.encoding or "utf-8",
            "stdoutTty": sys.stdout.isatty(),
        }
        try:
            sock.settimeout(None)  # a check takes as long as it takes
            wire.send(sock, request)
            answer = wire.receive(sock)
        except (OSError, wire.WireError) as exc:
            _say(f"the daemon did not answer ({exc}); running in-process")
            return None
        except KeyboardInterrupt:
            # As in-process; the daemon finishes the command, its answer unread.
            sys.stderr.write("Interrupted.\n")
            return 130
    finally:
        sock.close()
    if answer.get("stale"):
        _say("the daemon runs other code (Signalint was reinstalled): stopping it; in-process")
        import contextlib  # here: the forwarding path does not load it otherwise

        with contextlib.suppress(OSError, Refused, wire.WireError):
            ask(where, {"op": "stop"})
        return None
    out, err, code = answer.get("stdout"), answer.get("stderr"), answer.get("code")
    if not isinstance(out, str) or not isinstance(err, str) or not isinstance(code, int):
        _say("the daemon's answer is not readable; running in-process")
        return None
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    if err:
        sys.stderr.write(err)
        sys.stderr.flush()
    return code
